"""A Monte Carlo search bot written with the SDK's public API only (``avenue_sdk.sim``).

For each decision: sample a world the seat cannot tell from the real one, try a legal
action in it (UCB1 picks which), play to the end with the fast default policy, and count
the wins; answer the action with the best win rate. ``bench/sdk_search.py`` plays it
against the house ``greedy`` bot in the local arena.
"""

from __future__ import annotations

import math
import random

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import Bot, sim

EXPLORATION = 0.7


class SearchBot(Bot):
    version = "sdk-search-1"
    playouts = 150

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def decide(self, request: pb.DecisionRequest) -> int:
        pos = sim.Position(request)
        n = len(pos.legal)
        visits = [0] * n
        wins = [0.0] * n
        for i in range(max(self.playouts, n)):
            if i < n:
                k = i
            else:
                log_i = math.log(i)
                k = max(
                    range(n),
                    key=lambda j: wins[j] / visits[j] + EXPLORATION * math.sqrt(log_i / visits[j]),
                )
            world = sim.apply(pos.sample(self.rng), pos.legal[k])
            final = sim.rollout(world, self.rng)
            wins[k] += sim.winner(final) == pos.team
            visits[k] += 1
        best = max(range(n), key=lambda j: (wins[j] / visits[j], visits[j]))
        return pos.index(pos.legal[best])
