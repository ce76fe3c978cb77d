"""One-ply greedy: the action with the best immediate outcome, judged on public information.

Hidden cards are averaged over a few samples consistent with the observation; when our
action hands a recruit choice to the opponent, we assume the opponent takes the side that
is worse for us.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.actions import Action, Decision
from referee.bots.determinize import determinize
from referee.bots.evaluate import evaluate
from referee.engine import apply, legal_actions
from referee.observation import Observation
from referee.state import State


class GreedyBot:
    name = "greedy"

    def __init__(self, seed: int = 0, samples: int = 6) -> None:
        self._rng = random.Random(seed)
        self._samples = samples

    def act(self, obs: Observation, legal: Sequence[Action]) -> Action:
        if len(legal) == 1:
            return legal[0]
        assert obs.team is not None
        worlds = [determinize(obs, self._rng) for _ in range(self._samples)]
        best, best_value = legal[0], float("-inf")
        for action in legal:
            value = sum(self._outcome(w, action, obs.team) for w in worlds)
            if value > best_value:
                best, best_value = action, value
        return best

    def _outcome(self, world: State, action: Action, team: int) -> float:
        after = apply(world, action)
        if after.decision is Decision.RECRUIT and after.config.team_of(after.actor) != team:
            return min(evaluate(apply(after, a), team) for a in legal_actions(after))
        return evaluate(after, team)
