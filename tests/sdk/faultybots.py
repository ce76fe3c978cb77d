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
