"""Live Elo and the batch maximum-likelihood fit, as pure functions (no database)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from arena.ratings import batch
from arena.ratings.batch import CENTRE, Game, fit
from arena.ratings.elo import elo_update, expected_score, team_deltas


def test_expected_score_is_the_elo_curve() -> None:
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert expected_score(1500, 1900) + expected_score(1900, 1500) == pytest.approx(1.0)


def test_elo_update_is_zero_sum_and_scaled_by_k() -> None:
    a, b = elo_update(1500, 1500, 1.0, k=32)
    assert (a, b) == (1516, 1484)
    a, b = elo_update(1600, 1400, 0.0, k=20)
    assert a + b == pytest.approx(3000) and a < 1600
    assert 1600 - a == pytest.approx(20 * expected_score(1600, 1400))


@pytest.mark.parametrize(("a", "b"), [((1500, 1600), (1450, 1550)), ((1500, 1600), (1700,))])
def test_team_deltas_are_zero_sum(a: tuple[float, ...], b: tuple[float, ...]) -> None:
    da, db = team_deltas(list(a), list(b), 1.0, k=24)
    assert sum(da) + sum(db) == pytest.approx(0.0)
    assert all(d > 0 for d in da) and all(d < 0 for d in db)
    assert len(set(da)) == 1 and len(set(db)) == 1
    with pytest.raises(ValueError):
        team_deltas([], [1500], 1.0)


def synthetic_league(true: np.ndarray, rounds: int, seed: int) -> list[Game]:
    """Round robins of mirrored pairs with known strengths."""
    rng = np.random.default_rng(seed)
    games, unit = [], 0
    n = len(true)
    for _ in range(rounds):
        for i in range(n):
            for j in range(i + 1, n):
                p = expected_score(true[i], true[j])
                games.append(Game((i,), (j,), bool(rng.random() < p), unit))
                games.append(Game((j,), (i,), bool(rng.random() >= p), unit))
                unit += 1
    return games


def test_batch_fit_recovers_known_strengths_within_its_intervals() -> None:
    true = np.linspace(1250, 1750, 16)  # mean 1500, as the fit is centred
    games = synthetic_league(true, rounds=12, seed=3)
    f = fit(16, games, bootstrap=300, seed=1)
    inside = (true >= f.low) & (true <= f.high)
    assert inside.mean() >= 0.8, f"only {inside.sum()} of 16 true ratings inside their 95% CI"
    assert np.corrcoef(true, f.ratings)[0, 1] > 0.97
    assert f.ratings.mean() == pytest.approx(CENTRE)
    assert np.all(f.low <= f.ratings) and np.all(f.ratings <= f.high)
    true_rank = 16 - np.arange(16)
    assert np.mean((f.rank_low <= true_rank) & (true_rank <= f.rank_high)) >= 0.8
    assert np.all(f.rank_low <= f.rank) and np.all(f.rank <= f.rank_high)
    assert np.all(f.games == 12 * 15 * 2)


def test_one_step_bootstrap_is_close_to_full_refits() -> None:
    """Large fits use one Newton step per replicate; on data where both run, the interval
    ends differ by a few percent of the interval width."""
    true = np.linspace(1300, 1700, 10)
    games = synthetic_league(true, rounds=30, seed=5)
    fast = fit(10, games, bootstrap=300, seed=2, exact=False)
    exact = fit(10, games, bootstrap=300, seed=2, exact=True)
    assert np.allclose(fast.ratings, exact.ratings)
    width = exact.high - exact.low
    assert np.max(np.abs(fast.low - exact.low) / width) < 0.12
    assert np.max(np.abs(fast.high - exact.high) / width) < 0.12


def test_default_intervals_are_close_to_full_bootstrap_refits() -> None:
    """The default intervals (the sandwich covariance under the league's estimated prior,
    no refits) beside 300 bootstrap replicates refitted in full, on data of the fit's own
    model: the interval ends within a fifth of the interval's width, the widths within 15%."""
    true = np.linspace(1300, 1700, 10)
    games = synthetic_league(true, rounds=30, seed=5)
    exact = fit(10, games, bootstrap=300, seed=2, exact=True)
    default = fit(10, games, bootstrap=300, seed=2)
    width = exact.high - exact.low
    assert np.max(np.abs(default.low - exact.low) / width) < 0.2
    assert np.max(np.abs(default.high - exact.high) / width) < 0.2
    assert np.allclose(default.high - default.low, width, rtol=0.15)
    assert np.all(np.abs(default.rank_low - exact.rank_low) <= 1)
    assert np.all(np.abs(default.rank_high - exact.rank_high) <= 1)


def _design_of(n: int, games: list[Game]) -> batch._Design:
    return batch._Design(batch.Results.of(n, games))


def _sparse_league(n: int, games: int, seed: int) -> list[Game]:
    rng = np.random.default_rng(seed)
    true = rng.normal(1500, 200, n)
    out = []
    for u in range(games):
        a, b = (int(x) for x in rng.choice(n, 2, replace=False))
        out.append(Game((a,), (b,), bool(rng.random() < expected_score(true[a], true[b])), u))
    return out


@pytest.mark.parametrize("case", ["round robin", "sparse", "teams", "undefeated"])
def test_newton_point_fit_is_the_scipy_optimum(case: str) -> None:
    """The default point fit (dense Newton steps, ``batch._newton``) and SciPy's exact
    solver (``batch._solve``, trust-exact / trust-krylov) find the same optimum to 1e-3
    Elo, under the weak prior and under the league's estimated one."""
    if case == "round robin":
        n, games = 16, synthetic_league(np.linspace(1250, 1750, 16), rounds=2, seed=4)
    elif case == "sparse":
        n, games = 300, _sparse_league(300, 900, seed=2)
    elif case == "teams":
        rng = np.random.default_rng(3)
        n, games = 8, []
        for u in range(200):
            a = tuple(int(p) for p in rng.choice(8, 2, replace=False))
            b = tuple(int(p) for p in rng.choice([p for p in range(8) if p not in a], 2,
                                                 replace=False))  # fmt: skip
            games.append(Game(a, b, bool(rng.random() < 0.5 + 0.05 * (a[0] - b[0]) / 8), u))
    else:
        n = 4
        games = [Game((0,), (p,), True, p) for p in (1, 2, 3)] * 3 + [Game((1,), (2,), True, 9)]
    design = _design_of(n, games)
    wins, total = design.counts()
    prior, point = batch._empirical_bayes(design, wins, total)
    for p in (batch.PRIOR, prior):
        ours = batch._newton(design, wins, total, p)
        scipy = batch._solve(design, wins, total, np.zeros(n), p)
        assert np.max(np.abs(ours - scipy)) * batch.ELO_SCALE < 1e-3
    assert np.max(np.abs(point - batch._newton(design, wins, total, prior))) < 1e-6


def test_the_estimated_prior_is_the_em_fixed_point() -> None:
    """``tau^2`` (1 / the prior's precision) is the mean centred second moment of the
    Laplace posterior at the mode it returns, computed here directly from the inverse
    Hessian."""
    n = 120
    design = _design_of(n, _sparse_league(n, 1500, seed=8))
    wins, total = design.counts()
    prior, point = batch._empirical_bayes(design, wins, total)
    inverse = np.linalg.inv(design.hessian(point, total, prior))
    centring = np.eye(n) - 1.0 / n
    second = np.sum((point - point.mean()) ** 2) + np.trace(centring @ inverse @ centring)
    assert second / (n - 1) == pytest.approx(1.0 / prior, rel=0.02)
    assert prior > batch.PRIOR  # 1,500 games of 120 bots: the data shrink the spread


def test_interval_covariance_is_the_posterior_inflated_by_the_units_overdispersion() -> None:
    """The intervals' covariance is ``phi H^-1 - (phi - 1) prior H^-2`` (centred), ``phi``
    the units' score variance over the model's (``tr J / tr A``, at least 1), computed
    here game by game; on data of the model ``phi`` is about 1 and the one-step bootstrap
    over units agrees with it in total variance to Monte Carlo error."""
    true = np.linspace(1300, 1700, 8)
    games = synthetic_league(true, rounds=6, seed=9)
    design = _design_of(8, games)
    wins, total = design.counts()
    point = batch._newton(design, wins, total)
    cov = batch._sandwich(design, point, total, batch.PRIOR)
    r = point
    unit_score: dict[int, np.ndarray] = {}
    for g in games:
        a, b = g.team_a[0], g.team_b[0]
        p = 1 / (1 + np.exp(-(r[a] - r[b])))
        score = unit_score.setdefault(g.unit, np.zeros(8))
        score[a] += p - g.a_won
        score[b] -= p - g.a_won
    j_trace = sum(float(v @ v) for v in unit_score.values())
    h = design.hessian(point, total, batch.PRIOR)
    phi = max(1.0, j_trace / (np.trace(h) - 8 * batch.PRIOR))
    assert design.dispersion == pytest.approx(phi)
    assert 0.8 < j_trace / (np.trace(h) - 8 * batch.PRIOR) < 1.25
    inverse = np.linalg.inv(h)
    want = phi * inverse - (phi - 1) * batch.PRIOR * inverse @ inverse
    centring = np.eye(8) - 1 / 8
    assert np.allclose(cov, centring @ want @ centring, atol=1e-9)
    rng = np.random.default_rng(0)
    samples = batch._bootstrap(design, point, total, 4000, rng, False, None)
    boot = np.cov((samples - samples.mean(axis=1, keepdims=True)).T)
    assert np.trace(boot) == pytest.approx(np.trace(cov), rel=0.1)


def test_an_undefeated_player_gets_a_finite_rating() -> None:
    games = [Game((0,), (1,), True, u) for u in range(10)] + [
        Game((1,), (2,), True, 10 + u) for u in range(10)
    ]
    f = fit(3, games, bootstrap=50)
    assert np.all(np.isfinite(f.ratings)) and f.ratings[0] > f.ratings[1] > f.ratings[2]
    assert list(f.rank) == [1, 2, 3]


def test_team_games_fit_member_strengths() -> None:
    rng = np.random.default_rng(7)
    true = np.array([1300.0, 1400.0, 1600.0, 1700.0])
    games, unit = [], 0
    for _ in range(400):
        a = tuple(rng.choice(4, 2, replace=False))
        b = tuple(p for p in range(4) if p not in a)
        p = expected_score(true[list(a)].mean(), true[list(b)].mean())
        games.append(Game(a, b, bool(rng.random() < p), unit))
        unit += 1
    f = fit(4, games, bootstrap=100)
    assert list(np.argsort(f.ratings)) == [0, 1, 2, 3]
    assert np.all(
        f.games == [g for g in np.bincount([p for x in games for p in x.team_a + x.team_b])]
    )


def test_no_games_gives_the_centre() -> None:
    f = fit(3, [])
    assert list(f.ratings) == [CENTRE] * 3 and f.bootstrap == 0


def test_degenerate_bootstrap_replicates_raise_no_warnings() -> None:
    """Tiny leagues: a replicate often leaves a bot without games or undefeated."""
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for trial in range(150):
            n = int(rng.integers(2, 6))
            games = []
            for unit in range(int(rng.integers(1, 5))):
                a, b = (int(x) for x in rng.choice(n, 2, replace=False))
                games.append(Game((a,), (b,), bool(rng.random() < 0.5), unit))
                games.append(Game((b,), (a,), bool(rng.random() < 0.5), unit))
            f = fit(n, games, bootstrap=20, seed=trial)
            assert np.all(np.isfinite(f.low)) and np.all(np.isfinite(f.high))


def test_a_sparse_large_league_fits_at_the_optimum_without_warnings(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A thousand players with about two games each (the first round of a large league):
    the sparse solver's last trial steps overflowed and warned, with the answer already at
    the optimum. No warning now, and the answer is the optimum: no player's rating moves
    the likelihood (the gradient is ~0)."""
    rng = np.random.default_rng(1)
    n = 1000
    true = rng.normal(0, 200, n)
    games = []
    for _ in range(n):
        a, b = (int(x) for x in rng.choice(n, 2, replace=False))
        p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
        games.append(Game((a,), (b,), bool(rng.random() < p)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f = fit(n, games, bootstrap=10)
    assert "stopped short" not in caplog.text
    assert np.all(np.isfinite(f.ratings)) and np.all(f.low <= f.ratings)
    assert np.all(f.ratings <= f.high)
    # the optimum: each player's wins equal its expected wins, less the prior's pull
    r = (f.ratings - CENTRE) / (400 / np.log(10))
    first = np.array([g.team_a[0] for g in games])
    second = np.array([g.team_b[0] for g in games])
    won = np.array([g.a_won for g in games], dtype=float)
    p_a = 1 / (1 + np.exp(-(r[first] - r[second])))
    surplus = np.bincount(first, won - p_a, n) - np.bincount(second, won - p_a, n)
    prior = (f.spread / (400 / np.log(10))) ** -2  # the league's estimated prior
    assert np.max(np.abs(surplus - prior * (r - r.mean()))) < 1e-4


@pytest.mark.parametrize("case", ["round robin", "teams", "tiny and degenerate", "sparse"])
def test_replicates_solved_together_match_one_scipy_run_each(case: str) -> None:
    """A small league's bootstrap replicates are refitted all at once
    (``arena.ratings.replicates``): the same optimum as one SciPy run per replicate, to
    well under a thousandth of an Elo point, and so the same intervals and rank intervals."""
    rng = np.random.default_rng(11)
    cases: list[tuple[int, list[Game]]] = []
    if case == "round robin":
        cases.append((16, synthetic_league(np.linspace(1250, 1750, 16), rounds=3, seed=4)))
    elif case == "teams":
        games, unit = [], 0
        for _ in range(120):
            a = tuple(int(p) for p in rng.choice(6, 2, replace=False))
            b = tuple(int(p) for p in rng.choice([p for p in range(6) if p not in a], 2))
            if len(set(b)) == 2:
                games.append(Game(a, b, bool(rng.random() < 0.6), unit))
                unit += 1
        cases.append((6, games))
    elif case == "tiny and degenerate":
        for n in (2, 3, 5):
            wins = [Game((0,), (p,), True, p) for p in range(1, n)]  # player 0 undefeated
            cases.append((n, wins + [Game((1,), (n - 1,), False, n)]))
    else:  # 40 players, 60 games: many replicates leave players without a game
        pairs = [tuple(int(p) for p in rng.choice(40, 2, replace=False)) for _ in range(60)]
        cases.append((40, [Game((a,), (b,), bool(rng.random() < 0.5), u)
                           for u, (a, b) in enumerate(pairs)]))  # fmt: skip
    for n, games in cases:
        together = fit(n, games, bootstrap=60, seed=3, exact=True, together=True)
        apart = fit(n, games, bootstrap=60, seed=3, exact=True, together=False)
        assert np.array_equal(together.ratings, apart.ratings)
        assert np.max(np.abs(together.low - apart.low)) < 1e-3
        assert np.max(np.abs(together.high - apart.high)) < 1e-3
        assert np.array_equal(together.rank_low, apart.rank_low)
        assert np.array_equal(together.rank_high, apart.rank_high)
        assert fit(n, games, bootstrap=60, seed=3, exact=True).low.tolist() == together.low.tolist()
