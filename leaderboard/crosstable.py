"""Head-to-head crosstable with significance (pure; SciPy for the binomial test)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scipy.stats import binomtest


@dataclass(frozen=True)
class Cell:
    wins: int
    games: int
    p_value: float  # two-sided binomial test against 50%

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
    table = {}
    for a in players:
        for b in players:
            if a == b:
                continue
            w, lost = wins.get((a, b), 0), wins.get((b, a), 0)
            n = w + lost
            p = binomtest(w, n, 0.5).pvalue if n else 1.0
            table[(a, b)] = Cell(w, n, float(p))
    return table
