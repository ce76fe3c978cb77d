"""Determinized Monte Carlo search (perfect-information sampling, UCB1 over actions).

Each playout samples a full state consistent with the observation, applies a candidate
action and plays to the end with a fast one-ply policy (``policy.quick_action``, with some
random moves for variety); the action with the best win rate is chosen. The budget is a
number of playouts per decision.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from referee.actions import Action
from referee.bots.determinize import determinize
from referee.bots.policy import quick_action
from referee.engine import apply, legal_actions
from referee.observation import Observation
from referee.state import State

EXPLORATION = 0.7
RANDOM_MOVES = 0.2  # share of playout moves taken at random


class SearchBot:
    name = "search"

    def __init__(self, seed: int = 0, playouts: int = 200) -> None:
        self._rng = random.Random(seed)
        self.playouts = playouts

    def act(self, obs: Observation, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        assert obs.team is not None
        n = len(legal)
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
            world = determinize(obs, self._rng)
            wins[k] += self.playout(apply(world, legal[k]), obs.team)
            visits[k] += 1
        return legal[max(range(n), key=lambda j: (wins[j] / visits[j], visits[j]))]

    def playout(self, state: State, team: int) -> float:
        """Play to the end; 1.0 if ``team`` wins, else 0.0."""
        rng = self._rng
        while state.decision is not None:
            legal = legal_actions(state)
            if rng.random() < RANDOM_MOVES:
                action = legal[int(rng.random() * len(legal))]
            else:
                action = quick_action(state, legal, rng)
            state = apply(state, action)
        assert state.outcome is not None
        return 1.0 if state.outcome.winner == team else 0.0
