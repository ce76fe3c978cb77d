"""Live Elo and the batch maximum-likelihood fit, as pure functions (no database)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from arena.ratings import batch, posterior, solver
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


def _design_of(n: int, games: list[Game]) -> batch.Design:
    return batch.Design(batch.Results.of(n, games))


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
    """The default point fit (dense Newton steps, ``solver.newton``) and SciPy's exact
    solver (``solver.solve``, trust-exact / trust-krylov) find the same optimum to 1e-3
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
    prior, point = posterior.empirical_bayes(design, wins, total)
    for p in (batch.PRIOR, prior):
        ours = solver.newton(design, wins, total, p)
        scipy = solver.solve(design, wins, total, np.zeros(n), p)
        assert np.max(np.abs(ours - scipy)) * batch.ELO_SCALE < 1e-3
    assert np.max(np.abs(point - solver.newton(design, wins, total, prior))) < 1e-6


def test_the_estimated_prior_is_the_em_fixed_point() -> None:
    """``tau^2`` (1 / the prior's precision) is the mean centred second moment of the
    Laplace posterior at the mode it returns, computed here directly from the inverse
    Hessian."""
    n = 120
    design = _design_of(n, _sparse_league(n, 1500, seed=8))
    wins, total = design.counts()
    prior, point = posterior.empirical_bayes(design, wins, total)
    inverse = np.linalg.inv(design.hessian(point, total, prior))
    centring = np.eye(n) - 1.0 / n
    second = np.sum((point - point.mean()) ** 2) + np.trace(centring @ inverse @ centring)
    assert second / (n - 1) == pytest.approx(1.0 / prior, rel=0.02)
    assert prior > batch.PRIOR  # 1,500 games of 120 bots: the data shrink the spread


def test_a_league_of_equal_records_keeps_intervals_of_a_real_width() -> None:
    """Four bots that each won half of their four games (the demo's first round): the
    estimate of the population's spread is 0 there, and an interval of no width would
    claim what four games cannot tell. The prior stops at ``MIN_SPREAD``."""
    pairs = [(0, 1), (2, 3)]
    games = [Game((a,), (b,), won) for a, b in pairs for won in (True, False, True, False)]
    f = fit(4, games)
    assert f.spread == pytest.approx(posterior.MIN_SPREAD, rel=0.02)
    widths = f.high - f.low
    assert np.all(widths > 50), widths  # about +-45 Elo each side at the floor
    assert np.allclose(f.ratings, CENTRE, atol=1.0)
    assert list(f.rank_low) == [1] * 4 and list(f.rank_high) == [4] * 4


def test_interval_covariance_is_the_posterior_of_games_weighted_by_their_dispersion() -> None:
    """The intervals' covariance is ``C (A / phi + prior I)^-1 C`` at the weighted fit's
    mode (``A`` the data's Hessian, ``C`` the centring), ``phi`` the units' score variance
    over the model's: about 1 on data of the model (where the one-step bootstrap over
    units agrees with the covariance in total variance), below 1 with draws (a draw varies
    less than a win or a loss)."""
    true = np.linspace(1300, 1700, 8)
    games = synthetic_league(true, rounds=6, seed=9)
    f = fit(8, games)
    assert 0.8 < f.dispersion < 1.25
    design = _design_of(8, games)
    wins, total = design.counts()
    phi, _ = posterior.dispersion(design, wins, total)
    assert phi == f.dispersion
    prior = (batch.ELO_SCALE / f.spread) ** 2
    point = (f.ratings - CENTRE) / batch.ELO_SCALE
    point = solver.newton(design, wins / phi, total / phi, prior, start=point)
    cov = posterior.covariance(design, point, total / phi, prior)
    a = np.zeros((8, 8))
    for g in games:
        x = np.zeros(8)
        x[g.team_a[0]], x[g.team_b[0]] = 1.0, -1.0
        p = 1 / (1 + np.exp(-(x @ point)))
        a += p * (1 - p) * np.outer(x, x)
    centring = np.eye(8) - 1 / 8
    want = centring @ np.linalg.inv(a / phi + prior * np.eye(8)) @ centring
    assert np.allclose(cov, want, atol=1e-9)
    sd = batch.ELO_SCALE * np.sqrt(np.diag(want))
    assert np.allclose(f.high - f.ratings, batch.Z95 * sd, atol=1e-6)
    rng = np.random.default_rng(0)
    wins, total = design.counts()
    plain = solver.newton(design, wins, total)
    samples = posterior.bootstrap(design, plain, total, 4000, rng, False, None)
    boot = np.cov((samples - samples.mean(axis=1, keepdims=True)).T)
    flat = posterior.covariance(_design_of(8, games), plain, total, batch.PRIOR)
    assert np.trace(boot) == pytest.approx(np.trace(flat), rel=0.15)
    # half the games drawn: the scores vary less than the model's p(1 - p)
    drawn = [Game(g.team_a, g.team_b, g.a_won, g.unit) for g in games]
    drawn_league = batch.Results.of(8, drawn)
    scores = drawn_league.a_won.astype(float)
    scores[::2] = 0.5
    drawn_league = batch.Results(8, drawn_league.team_a, drawn_league.team_b, scores,
                                 drawn_league.unit)  # fmt: skip
    assert fit(8, drawn_league).dispersion < 0.8


def _random_league(seed: int) -> tuple[int, list[Game], np.ndarray]:
    """Single games and 2-player teams, both orders of a pair, draws, units of one to
    three games (on one match-up or several)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 12))
    games, scores = [], []
    for unit in range(int(rng.integers(5, 60))):
        for _ in range(int(rng.integers(1, 4))):
            size = 2 if (seed % 2 and rng.random() < 0.5) else 1
            who = [int(p) for p in rng.choice(n, 2 * size, replace=False)]
            games.append(Game(tuple(who[:size]), tuple(who[size:]), True, unit))
            scores.append(float(rng.choice([0.0, 0.5, 1.0])))
    return n, games, np.array(scores)


@pytest.mark.parametrize("seed", range(8))
def test_match_up_statistics_give_the_likelihood_game_by_game(seed: int) -> None:
    """The design's rows (a pair of teams in either order, the score turned) hold the
    same likelihood as the games one by one: objective, gradient, Hessian and the units'
    score trace at random ratings, on random leagues with teams, draws and mirrored
    pairs."""
    n, games, scores = _random_league(seed)
    res = batch.Results.of(n, games)
    res = batch.Results(n, res.team_a, res.team_b, scores, res.unit)
    design = batch.Design(res)
    wins, total = design.counts()
    assert total.sum() == len(games) and design.x.shape[0] <= len(games)
    r = np.random.default_rng(seed + 100).normal(0, 1, n)
    nll, grad, hess = 0.0, np.zeros(n), np.zeros((n, n))
    for g, s in zip(games, scores, strict=True):
        x = np.zeros(n)
        x[list(g.team_a)] += 1 / len(g.team_a)
        x[list(g.team_b)] -= 1 / len(g.team_b)
        z = x @ r
        p = 1 / (1 + np.exp(-z))
        nll += np.logaddexp(0, z) - s * z
        grad += (p - s) * x
        hess += p * (1 - p) * np.outer(x, x)
    z = design.x @ r
    assert float(np.sum(total * np.logaddexp(0, z) - wins * z)) == pytest.approx(nll)
    assert np.allclose(design.gradient(r, wins, total, 0.0), grad, atol=1e-12)
    assert np.allclose(design.hessian(r, total, 0.0), hess, atol=1e-12)
    by_unit: dict[int, np.ndarray] = {}
    for g, s in zip(games, scores, strict=True):
        x = np.zeros(n)
        x[list(g.team_a)] += 1 / len(g.team_a)
        x[list(g.team_b)] -= 1 / len(g.team_b)
        p = 1 / (1 + np.exp(-(x @ r)))
        by_unit[g.unit] = by_unit.get(g.unit, np.zeros(n)) + x * (p - s)
    j = sum(float(v @ v) for v in by_unit.values())
    assert design.score_trace(r) == pytest.approx(j)


@pytest.mark.parametrize("seed", range(4))
def test_the_fit_is_the_posterior_computed_directly(seed: int) -> None:
    """The fit a league runs, recomputed with dense NumPy from the games one by one: the
    mode under its prior and the weighted games (SciPy's solver), the interval ends from
    the inverse of the weighted posterior's Hessian, to 1e-3 Elo."""
    rng = np.random.default_rng(seed)
    n = 30
    true = rng.normal(1500, 200, n)
    games = []
    for u in range(400):
        a, b = (int(x) for x in rng.choice(n, 2, replace=False))
        games.append(Game((a,), (b,), bool(rng.random() < expected_score(true[a], true[b])), u))
        if u % 2:
            games.append(Game((b,), (a,), bool(rng.random() < expected_score(true[b], true[a])), u))
    f = fit(n, games)
    phi, prior = f.dispersion, (batch.ELO_SCALE / f.spread) ** 2
    design = _design_of(n, games)
    wins, total = design.counts()
    mode = solver.solve(design, wins / phi, total / phi, np.zeros(n), prior)
    elo = CENTRE + batch.ELO_SCALE * (mode - mode.mean())
    assert np.max(np.abs(elo - f.ratings)) < 1e-3
    data = np.zeros((n, n))
    for g in games:
        x = np.zeros(n)
        x[g.team_a[0]], x[g.team_b[0]] = 1.0, -1.0
        p = 1 / (1 + np.exp(-(x @ mode)))
        data += p * (1 - p) * np.outer(x, x)
    centring = np.eye(n) - 1 / n
    cov = centring @ np.linalg.inv(data / phi + prior * np.eye(n)) @ centring
    sd = batch.ELO_SCALE * np.sqrt(np.diag(cov))
    assert np.max(np.abs(f.low - (elo - batch.Z95 * sd))) < 1e-3
    assert np.max(np.abs(f.high - (elo + batch.Z95 * sd))) < 1e-3
    assert np.all(f.low <= f.ratings) and np.all(f.ratings <= f.high)
    assert np.all(f.rank_low <= f.rank) and np.all(f.rank <= f.rank_high)
    assert np.all(f.rank_low >= 1) and np.all(f.rank_high <= n)


def test_rank_intervals_are_mid_distribution_quantiles() -> None:
    """40 draws of one player's rank: once 1st, 38 times 2nd, once 3rd. The integer
    quantiles would say 1-2 (``P(R <= 1) = 2.5%``); the mid-distribution function is
    1.25% at rank 1, 50% at 2 and 98.75% at 3, so the interval is 2-2. A player with
    ranks spread evenly over 1..3 gets 1-3."""
    one = np.array([1] + [2] * 38 + [3])
    spread = np.tile([1, 2, 3], 14)[:40]
    third = np.full(40, 3)
    low, high = posterior.rank_intervals(np.stack([one, spread, third], axis=1))
    assert low.tolist() == [2, 1, 3] and high.tolist() == [2, 3, 3]


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
    # under it, each game weighted by 1 / the dispersion
    assert np.max(np.abs(surplus - f.dispersion * prior * (r - r.mean()))) < 1e-4


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
