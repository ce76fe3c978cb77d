"""The sequential probability ratio test of "is version B better than version A?", as
fishtest runs it (pure: no ORM).

Games are played in **pairs** on one deal with the seats swapped, and a pair's outcome is
scored from B's side: 0, 1/2, 1, 3/2 or 2 points, counted in the *pentanomial* vector
``[LL, LD+DL, LW+DD+WL, DW+WD, WW]`` (from B's side). Single games (``[L, D, W]``, the
*trinomial*) are accepted too. The hypotheses are in logistic Elo: H0 "B is ``elo0``
stronger", H1 "B is ``elo1`` stronger" (``elo0 < elo1``).

The log-likelihood ratio is fishtest's generalized one (``stat_util.LLR_logistic``): for
each hypothesis, the distribution of outcomes nearest the observed one (maximum likelihood)
among those whose expected score is the hypothesis' score ``L(elo)``; the LLR is ``N`` times
the mean log ratio of the two. Empty cells are regularised to 1e-3 as fishtest does. The
test stops when the LLR leaves ``(ln(beta / (1 - alpha)), ln((1 - beta) / alpha))``:
below, H0 is accepted; above, H1.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

from scipy import optimize

#: fishtest's regularisation of empty cells
EPSILON = 1e-3
#: a 95% interval's half-width in standard errors
Z95 = 1.959963984540054


class Verdict(enum.StrEnum):
    RUNNING = "running"
    H1 = "h1"  # B is better by elo1: accepted
    H0 = "h0"  # B is not better than elo0: accepted
    BUDGET = "budget"  # the game budget ran out first


def expected_score(elo: float) -> float:
    """The expected score per game of a player ``elo`` logistic Elo stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of(score: float) -> float:
    """The logistic Elo difference behind an expected score (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """(lower, upper) LLR bounds: accept H0 at or below the lower, H1 at or above the upper."""
    if not (0.0 < alpha < 0.5 and 0.0 < beta < 0.5):
        raise ValueError("alpha and beta must be between 0 and 0.5")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def _pdf(results: Sequence[int]) -> tuple[float, list[float], list[float]]:
    """(N, scores a_i, frequencies p_i) of a trinomial or pentanomial count vector."""
    if len(results) not in (3, 5):
        raise ValueError("results are [L, D, W] or pentanomial [LL, LD, LW+DD, DW, WW]")
    if any(r < 0 for r in results):
        raise ValueError("counts cannot be negative")
    counts = [max(float(r), EPSILON) for r in results]
    n = sum(counts)
    last = len(counts) - 1
    return n, [i / last for i in range(len(counts))], [c / n for c in counts]


def mle_with_mean(scores: Sequence[float], freqs: Sequence[float], s: float) -> list[float]:
    """The distribution over ``scores`` with mean ``s`` that maximises the likelihood of the
    observed ``freqs``: ``q_i = p_i / (1 + x (a_i - s))``, ``x`` the root of the secular
    equation ``sum p_i (a_i - s) / (1 + x (a_i - s)) = 0``."""
    shifted = [a - s for a in scores]
    low, high = min(shifted), max(shifted)
    if not low < 0.0 < high:
        raise ValueError(f"the mean {s} is outside the scores' range")

    def secular(x: float) -> float:
        return sum(p * d / (1.0 + x * d) for p, d in zip(freqs, shifted, strict=True))

    # 1 + x d > 0 for every d keeps every q_i positive: x in (-1/high, -1/low)
    eps = 1e-12
    x = optimize.brentq(secular, -1.0 / high + eps, -1.0 / low - eps, xtol=1e-15)
    return [p / (1.0 + x * d) for p, d in zip(freqs, shifted, strict=True)]


def llr(results: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 against H0 for ``results``."""
    if not elo0 < elo1:
        raise ValueError("elo0 must be below elo1")
    if sum(results) == 0:
        return 0.0
    n, scores, freqs = _pdf(results)
    q0 = mle_with_mean(scores, freqs, expected_score(elo0))
    q1 = mle_with_mean(scores, freqs, expected_score(elo1))
    return n * sum(p * math.log(b / a) for p, a, b in zip(freqs, q0, q1, strict=True))


@dataclass(frozen=True)
class EloEstimate:
    elo: float
    low: float
    high: float
    #: mean score per game of B
    score: float


def elo_estimate(results: Sequence[int]) -> EloEstimate:
    """B's Elo advantage with a 95% interval (normal approximation of the mean score over
    pairs or games, mapped through the logistic curve), from the raw counts."""
    total = sum(results)
    if total == 0:
        return EloEstimate(0.0, -math.inf, math.inf, 0.5)
    last = len(results) - 1
    scores = [i / last for i in range(len(results))]
    mean = sum(a * r for a, r in zip(scores, results, strict=True)) / total
    var = sum(r * (a - mean) ** 2 for a, r in zip(scores, results, strict=True)) / total
    half = Z95 * math.sqrt(var / total)
    return EloEstimate(
        elo_of(mean), elo_of(max(mean - half, 0.0)), elo_of(min(mean + half, 1.0)), mean
    )


@dataclass(frozen=True)
class Status:
    llr: float
    lower: float
    upper: float
    verdict: Verdict


def status(
    results: Sequence[int],
    elo0: float,
    elo1: float,
    *,
    alpha: float = 0.05,
    beta: float = 0.05,
    games: int,
    max_games: int,
) -> Status:
    """Where the test stands after ``games`` games of a budget of ``max_games``."""
    lower, upper = bounds(alpha, beta)
    value = llr(results, elo0, elo1)
    if value >= upper:
        verdict = Verdict.H1
    elif value <= lower:
        verdict = Verdict.H0
    elif games >= max_games:
        verdict = Verdict.BUDGET
    else:
        verdict = Verdict.RUNNING
    return Status(value, lower, upper, verdict)
