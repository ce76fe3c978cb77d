"""Agent Avenue bot SDK.

Connects a bot to an Agent Avenue Arena gateway over gRPC and hands it decisions
to answer. The wire messages are generated from ``proto/agent_avenue/v1`` into
the sibling package ``agent_avenue.v1`` (``from agent_avenue.v1 import arena_pb2``).
The client itself lands with the SDK issue; for now this package carries the version.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
