"""Protocol v1, generated from proto/agent_avenue/v1/*.proto by `make proto`. Do not edit."""
