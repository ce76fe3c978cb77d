"""Generated protocol packages of Agent Avenue (one subpackage per protocol version)."""
