"""Head-to-head crosstable with significance (pure; SciPy for the binomial test)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom


@dataclass(frozen=True)
class Cell:
    wins: int
    games: int
    p_value: float  # two-sided binomial test against 50%

    @property
    def losses(self) -> int:
        return self.games - self.wins

    @property
    def score(self) -> float:
        return self.wins / self.games if self.games else 0.5

    @property
    def shade(self) -> str:
        """A CSS class: how sure we are that the row bot is better or worse."""
        if not self.games or self.p_value >= 0.05:
            return "even"
        strength = "strong" if self.p_value < 0.001 else "clear"
        return f"{'win' if self.score > 0.5 else 'loss'}-{strength}"


def crosstable(
    players: Sequence[int], results: Iterable[tuple[int, int]]
) -> dict[tuple[int, int], Cell]:
    """``results`` are (winner, loser) pairs; the cell (a, b) is a's record against b."""
    wins: dict[tuple[int, int], int] = {}
    for winner, loser in results:
        wins[(winner, loser)] = wins.get((winner, loser), 0) + 1
    return crosstable_of_wins(players, wins)


def crosstable_of_wins(
    players: Sequence[int], wins: Mapping[tuple[int, int], int]
) -> dict[tuple[int, int], Cell]:
    """The same from the wins per (winner, loser): the cell (a, b) is a's record
    against b, its games a's wins there plus b's."""
    pairs = [(a, b) for a in players for b in players if a != b]
    won = np.array([wins.get(p, 0) for p in pairs], dtype=np.int64)
    games = won + np.array([wins.get((b, a), 0) for a, b in pairs], dtype=np.int64)
    # Two-sided exact binomial test against 50%, for every cell at once. The distribution
    # is symmetric, so scipy's binomtest (which sums the outcomes no likelier than the one
    # seen) equals twice the smaller tail, capped at 1; vectorised, a 30 x 30 table costs
    # a millisecond instead of a binomtest call per cell.
    tail = binom.cdf(np.minimum(won, games - won), games, 0.5)
    p_values = np.where(games > 0, np.minimum(1.0, 2.0 * tail), 1.0)
    return {
        pair: Cell(int(w), int(n), float(p))
        for pair, w, n, p in zip(pairs, won, games, p_values, strict=True)
    }
