"""SDK bots that break the rules in one way each, for the local arena's fault tests."""

from __future__ import annotations

import time

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import Bot


class Crashes(Bot):
    def decide(self, request: pb.DecisionRequest) -> int:
        raise RuntimeError("boom")


class OutOfRange(Bot):
    def decide(self, request: pb.DecisionRequest) -> int:
        return len(request.legal)


class Slow(Bot):
    """Sleeps longer than the test's allowance on every decision."""

    def decide(self, request: pb.DecisionRequest) -> int:
        time.sleep(0.4)
        return 0


class Peeker(Bot):
    """Looks for the referee's true game state among the objects of its own process (every
    hand, the deck), as a cheating bot would; answers out of range when it finds one, so
    that the local arena's report says whether the state was within its reach."""

    def decide(self, request: pb.DecisionRequest) -> int:
        import gc

        from referee.state import State

        if any(isinstance(o, State) for o in gc.get_objects()):
            return len(request.legal)  # found it: an illegal_action fault says so
        return 0
