"""The SPRT statistics (``arena.ratings.sprt``) against independent computations: Wald's
closed form for win/loss games, a general-purpose constrained optimiser for the maximum
likelihood under each hypothesis, and the normal approximation fishtest documents."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from arena.ratings import sprt


def test_bounds_are_walds() -> None:
    lower, upper = sprt.bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944438979, abs=1e-9)
    assert upper == pytest.approx(2.944438979, abs=1e-9)
    lower, upper = sprt.bounds(0.05, 0.1)
    assert (lower, upper) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    with pytest.raises(ValueError):
        sprt.bounds(0.0, 0.05)


def test_expected_score_and_its_inverse() -> None:
    assert sprt.expected_score(0) == 0.5
    assert sprt.expected_score(400) == pytest.approx(10 / 11)
    for elo in (-300.0, -5.0, 0.0, 12.5, 250.0):
        assert sprt.elo_of(sprt.expected_score(elo)) == pytest.approx(elo)
    assert sprt.elo_of(1.0) == math.inf and sprt.elo_of(0.0) == -math.inf


@pytest.mark.parametrize(("wins", "losses"), [(60, 40), (30, 70), (500, 480), (9, 1)])
def test_win_loss_games_give_walds_llr(wins: int, losses: int) -> None:
    """Without draws the trinomial test is Wald's SPRT of a Bernoulli score: the MLE under
    each hypothesis is the hypothesis' own score (the draw cell is regularised to 1e-3
    games, which moves the figure by far less than the tolerance)."""
    elo0, elo1 = 0.0, 50.0
    s0, s1 = sprt.expected_score(elo0), sprt.expected_score(elo1)
    wald = wins * math.log(s1 / s0) + losses * math.log((1 - s1) / (1 - s0))
    assert sprt.llr([losses, 0, wins], elo0, elo1) == pytest.approx(wald, rel=2e-3, abs=2e-3)


def _llr_by_optimiser(results: list[int], elo0: float, elo1: float) -> float:
    """The same generalized LLR, its two maximum likelihoods found by SLSQP on the simplex
    (no secular equation): an independent computation."""
    counts = np.maximum(np.array(results, dtype=float), 1e-3)
    n = counts.sum()
    p = counts / n
    a = np.linspace(0.0, 1.0, len(results))

    def best(s: float) -> np.ndarray:
        res = optimize.minimize(
            lambda q: -float(p @ np.log(q)),
            p.copy(),
            jac=lambda q: -p / q,
            method="SLSQP",
            bounds=[(1e-12, 1.0)] * len(p),
            constraints=[
                {"type": "eq", "fun": lambda q: q.sum() - 1.0},
                {"type": "eq", "fun": lambda q: q @ a - s},
            ],
            options={"ftol": 1e-15, "maxiter": 1000},
        )
        assert res.success, res.message
        return np.asarray(res.x)

    q0 = best(sprt.expected_score(elo0))
    q1 = best(sprt.expected_score(elo1))
    return float(n * (p @ np.log(q1 / q0)))


@pytest.mark.parametrize(
    ("results", "elo0", "elo1"),
    [
        ([3, 20, 50, 22, 5], 0.0, 10.0),
        ([10, 0, 30, 0, 60], 0.0, 100.0),
        ([40, 0, 35, 0, 25], -10.0, 40.0),
        ([1, 2, 3, 4, 5], 0.0, 5.0),
        ([120, 80, 100], 0.0, 20.0),
    ],
)
def test_llr_matches_an_independent_optimiser(results: list[int], elo0: float, elo1: float) -> None:
    ours = sprt.llr(results, elo0, elo1)
    theirs = _llr_by_optimiser(results, elo0, elo1)
    assert ours == pytest.approx(theirs, rel=1e-4, abs=1e-4)


def test_llr_near_the_normal_approximation_for_many_pairs() -> None:
    """fishtest's approximation ``N (s1 - s0) (2 s - s0 - s1) / (2 var)`` (per pair, with
    the pair's mean score ``s`` and variance ``var``) agrees for small Elo and large N."""
    results = [800, 4000, 10300, 4100, 800]
    elo0, elo1 = 0.0, 2.0
    a = np.linspace(0, 1, 5)
    n = sum(results)
    p = np.array(results) / n
    s = float(p @ a)
    var = float(p @ (a - s) ** 2)
    s0, s1 = sprt.expected_score(elo0), sprt.expected_score(elo1)
    approx = n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)
    assert sprt.llr(results, elo0, elo1) == pytest.approx(approx, rel=0.01)


def test_llr_sign_follows_the_evidence() -> None:
    assert sprt.llr([0, 0, 0, 0, 0], 0.0, 50.0) == 0.0
    assert sprt.llr([5, 0, 10, 0, 40], 0.0, 50.0) > 0
    assert sprt.llr([40, 0, 10, 0, 5], 0.0, 50.0) < 0
    with pytest.raises(ValueError, match="elo0"):
        sprt.llr([1, 1, 1], 10.0, 0.0)
    with pytest.raises(ValueError, match="pentanomial"):
        sprt.llr([1, 1, 1, 1], 0.0, 10.0)


def test_status_verdicts() -> None:
    strong = [0, 0, 2, 0, 30]  # B won 30 pairs 2-0, split 2
    st = sprt.status(strong, 0.0, 50.0, games=64, max_games=400)
    assert st.verdict is sprt.Verdict.H1 and st.llr >= st.upper
    weak = [30, 0, 2, 0, 0]
    assert sprt.status(weak, 0.0, 50.0, games=64, max_games=400).verdict is sprt.Verdict.H0
    even = [2, 0, 4, 0, 2]
    assert sprt.status(even, 0.0, 50.0, games=16, max_games=400).verdict is sprt.Verdict.RUNNING
    assert sprt.status(even, 0.0, 50.0, games=16, max_games=16).verdict is sprt.Verdict.BUDGET


def test_elo_estimate_by_hand() -> None:
    # 10 pairs: 2 lost both (0), 4 split (0.5), 4 won both (1): mean 0.6 per game
    est = sprt.elo_estimate([2, 0, 4, 0, 4])
    assert est.score == pytest.approx(0.6)
    assert est.elo == pytest.approx(-400 * math.log10(1 / 0.6 - 1))
    var = (2 * 0.6**2 + 4 * 0.1**2 + 4 * 0.4**2) / 10
    half = 1.959963984540054 * math.sqrt(var / 10)
    assert est.low == pytest.approx(sprt.elo_of(0.6 - half))
    assert est.high == pytest.approx(sprt.elo_of(0.6 + half))
    empty = sprt.elo_estimate([0, 0, 0, 0, 0])
    assert (empty.elo, empty.low, empty.high) == (0.0, -math.inf, math.inf)
