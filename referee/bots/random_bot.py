from __future__ import annotations

import random
from collections.abc import Sequence

from referee.actions import Action
from referee.observation import Observation


class RandomBot:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def act(self, obs: Observation, legal: Sequence[Action]) -> Action:
        return legal[int(self._rng.random() * len(legal))]
