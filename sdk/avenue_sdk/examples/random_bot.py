"""The smallest useful bot: a uniformly random legal choice."""

from __future__ import annotations

import random

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import Bot


class RandomBot(Bot):
    version = "random-1"

    def decide(self, request: pb.DecisionRequest) -> int:
        return random.randrange(len(request.legal))
