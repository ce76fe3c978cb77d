"""The figures of a local run: a Wilson interval on the win rate, the Elo difference it
implies with its interval, and the percentile of decision times."""

from __future__ import annotations

import math
from collections.abc import Sequence

Z95 = 1.959963984540054


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (draws, if any, count half)."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo(p: float) -> float:
    """The rating difference at which the logistic Elo model expects a score of ``p``."""
    p = min(max(p, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1 / p - 1)


def elo_interval(wins: float, n: int) -> tuple[float, float, float]:
    """(estimate, low, high): the Wilson bounds mapped through ``elo`` (monotonic)."""
    low, high = wilson(wins, n)
    return (elo(wins / n if n else 0.5), elo(low), elo(high))


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..1); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
