"""Batch ratings with uncertainty: Elo (Bradley–Terry) over all of a league's games, with
95% intervals for ratings and ranks.

Pure NumPy/SciPy, no ORM. A game is (team A's players, team B's players, A's score: 1, 0,
or 1/2 for a draw); a team's strength is the mean of its members' ratings, so 2-seat and
team leagues fit alike. Games are grouped into **units** (the pair of games of a pairing:
both games share the deck when mirrored), the independent pieces of evidence.

The fit a league runs (``fit``'s default), on each match-up's sufficient statistics (a
pair of teams in either order, its wins and games: a round robin of n bots is n(n-1)/2
rows however many games):

* the outcomes' dispersion ``phi`` (``_dispersion``): the units' observed score variance
  over the model's ``p(1 - p)``, net of what the fit absorbs; below 1 with draws (a draw
  varies less than a win or a loss), above with games that vary together or a model
  that misses something; every game then counts ``1 / phi`` (a quasi-likelihood);
* the posterior mode under a prior N(0, tau^2) whose spread is estimated from the league
  (``_empirical_bayes``), by Newton steps on the dense Hessian (``_newton``: the optimum
  SciPy finds, test-held to 1e-3 Elo);
* rating intervals +- 1.96 standard deviations of that posterior, ``(A / phi + I /
  tau^2)^-1`` centred; rank intervals from 1,000 joint draws of it, each player's
  mid-distribution 2.5% and 97.5% ranks (``_rank_intervals``: integer quantiles of a
  discrete rank hold more than 95%).

No refits: one eigendecomposition and a few Cholesky factorisations, under a second of
a core up to 1,000 bots (``bench/rating_fit.py --sizes``); coverage 93-97% for ratings
and ranks, round robin and matchmade, 50-1,000 bots, with draws and an intransitive part
(``bench/rating_coverage.py``).

``exact=True`` keeps the bootstrap as it was (replicates over units refitted in full, all at
once up to ``replicates.MAX_PLAYERS`` players), ``exact=False`` its one-Newton-step
linearisation: both for comparison (benches and tests).

The games' design matrix and the likelihood on it are ``arena.ratings.design``; the fit,
its intervals and its rank draws share one prior and read best side by side here.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize
from scipy.linalg import lapack

from arena.ratings import replicates
from arena.ratings.design import ELO_SCALE, PRIOR, Design, Game, Results, sigmoid, slope

__all__ = ["CENTRE", "ELO_SCALE", "PRIOR", "Design", "Fit", "Game", "Results", "fit"]

logger = logging.getLogger(__name__)

CENTRE = 1500.0
#: up to this many distinct match-ups every bootstrap replicate is refitted in full
EXACT_ROWS = 20_000
#: up to this many players the solver uses the dense Hessian
DENSE_PLAYERS = 400
#: a solver that stops with a larger gradient (logistic units) than this is logged
CONVERGED_GRADIENT = 1e-6


@dataclass(frozen=True)
class Fit:
    ratings: np.ndarray  # Elo points, mean CENTRE
    low: np.ndarray  # 95% interval
    high: np.ndarray
    rank: np.ndarray  # 1 = best, by the point estimate
    rank_low: np.ndarray  # 95% rank interval: best and worst plausible rank
    rank_high: np.ndarray
    games: np.ndarray  # games played per player
    bootstrap: int
    #: the prior's standard deviation (Elo): the league's estimated spread of ratings, or
    #: the weak prior's 1,000 (``exact`` fits, leagues the data say are wider)
    spread: float = 1000.0
    #: the outcomes' dispersion every game was weighted by the inverse of (``_dispersion``)
    dispersion: float = 1.0


def _solve(
    design: Design, wins: np.ndarray, total: np.ndarray, start: np.ndarray,
    prior: float = PRIOR,
) -> np.ndarray:  # fmt: skip
    """The maximum a posteriori ratings (logistic units) under a Gaussian prior of
    precision ``prior`` (by default the weak one), by SciPy."""
    x = design.x

    def objective(r: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ r
        nll = float(np.sum(total * np.logaddexp(0.0, z) - wins * z)) + 0.5 * prior * float(r @ r)
        return nll, design.gradient(r, wins, total, prior)

    def hessp(r: np.ndarray, v: np.ndarray) -> np.ndarray:
        p = sigmoid(x @ r)
        return np.asarray(design.xt @ (total * p * (1.0 - p) * (x @ v))) + prior * v

    # At the optimum of a sparse league (a couple of games a player) a trust-region step
    # can still probe a point where the objective overflows; the method then reports "a bad
    # approximation" with the gradient already ~1e-9. Such probes are not results: their
    # floating-point warnings are silenced, and the answer is checked below instead.
    with np.errstate(invalid="ignore", over="ignore"):
        if design.n <= DENSE_PLAYERS:
            # small: exact Newton steps on the dense Hessian, robust when a bootstrap
            # replicate leaves a player without games (only the prior then holds its rating)
            res = optimize.minimize(
                objective,
                start,
                jac=True,
                hess=lambda r: design.hessian(r, total, prior),
                method="trust-exact",
                options={"gtol": 1e-8},
            )
        else:
            res = optimize.minimize(
                objective,
                start,
                jac=True,
                hessp=hessp,
                method="trust-krylov",
                options={"gtol": 1e-8},
            )
    x = np.asarray(res.x)
    if not np.all(np.isfinite(x)):
        raise FloatingPointError(f"the batch fit of {design.n} players diverged: {res.message}")
    if not res.success and float(np.max(np.abs(res.jac))) > CONVERGED_GRADIENT:
        logger.warning(
            "batch fit of %d players stopped short of the optimum (%s; gradient %.2g)",
            design.n,
            res.message,
            float(np.max(np.abs(res.jac))),
        )
    return x


#: the point fit's Newton steps stop at this largest gradient entry (logistic units)
NEWTON_GTOL = 1e-9
NEWTON_STEPS = 100
#: a step whose Newton decrement (``g' H^-1 g``, nats) is below this is taken whole, without
#: a line search: the objective is then within ~1e-4 nats of its optimum, where a
#: logistic likelihood is quadratic to many digits
NEWTON_FULL = 1e-3


def _newton(
    design: Design, wins: np.ndarray, total: np.ndarray, prior: float = PRIOR,
    start: np.ndarray | None = None, gtol: float = NEWTON_GTOL, step_tol: float = 0.0,
) -> np.ndarray:  # fmt: skip
    """The maximum a posteriori ratings (logistic units) by damped Newton steps on the dense
    Hessian (one Cholesky factorisation a step): the optimum ``_solve`` finds, in a few
    steps of array arithmetic. The objective is strictly convex under the prior; a step
    that does not lower it is halved, so the iteration cannot diverge. The rows' score
    differences ``z`` are carried along the steps: one sparse product a trial point.
    ``step_tol`` > 0 also stops where every rating's gradient over its curvature (about
    the Newton step it would take alone) is below it, keeping that Hessian in
    ``design.stopped``."""
    x, xt = design.x, design.xt
    r = np.zeros(design.n) if start is None else start.copy()

    def objective(z: np.ndarray, r: np.ndarray) -> float:
        return float(np.sum(total * np.logaddexp(0.0, z) - wins * z)) + 0.5 * prior * float(r @ r)

    with np.errstate(over="ignore", invalid="ignore"):
        z = x @ r
        p = sigmoid(z)
        g = np.asarray(xt @ (total * p - wins)) + prior * r
        for _ in range(NEWTON_STEPS):
            if float(np.max(np.abs(g))) < gtol:
                return r
            h = design.hessian_of(total * p * (1.0 - p), prior)
            if step_tol and float(np.max(np.abs(g) / np.diag(h))) < step_tol:
                design.stopped = (r, h)
                return r
            factor = linalg.cho_factor(h, overwrite_a=True, check_finite=False)
            step = linalg.cho_solve(factor, g, check_finite=False)
            dz = x @ step
            trial, z_trial = r - step, z - dz
            p = sigmoid(z_trial)
            g_trial = np.asarray(xt @ (total * p - wins)) + prior * trial
            # the whole step is taken where the objective still falls at its end (then,
            # being convex, it fell all along: no evaluation needed) or the decrement is
            # rounding; else halved until the objective is no higher
            if float(g_trial @ step) >= 0 or float(g @ step) < NEWTON_FULL:
                r, z, g = trial, z_trial, g_trial
                continue
            before = objective(z, r)
            slack = 1e-12 * abs(before) + 1e-300
            scale = 0.5
            for _ in range(60):
                if objective(z - scale * dz, r - scale * step) <= before + slack:
                    break
                scale *= 0.5
            r = r - scale * step
            z = x @ r
            p = sigmoid(z)
            g = np.asarray(xt @ (total * p - wins)) + prior * r
    g = design.gradient(r, wins, total, prior)
    if float(np.max(np.abs(g))) > max(gtol, CONVERGED_GRADIENT):
        logger.warning(
            "batch fit of %d players stopped short of the optimum (%d Newton steps; "
            "gradient %.2g)", design.n, NEWTON_STEPS, float(np.max(np.abs(g))),
        )  # fmt: skip
    return r


def _ranks(ratings: np.ndarray, ties: bool = True) -> np.ndarray:
    """Rank 1 = highest rating (row-wise for a 2-D array); ratings equal to a millionth
    of a point (a solver's rounding: two players without games in a bootstrap replicate)
    are ranked by index, unless ``ties`` is False (draws from a Gaussian have none)."""
    if not ties:
        order = np.argsort(-ratings, axis=-1)
    else:
        order = np.argsort(-np.round(ratings, 6), axis=-1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, ratings.shape[-1] + 1), axis=-1)
    return ranks


#: draws from the ratings' joint Gaussian that give the rank intervals (``fit``)
DRAWS = 1000
#: the intervals' normal quantile (95%)
Z95 = 1.959963984540054


def fit(
    n: int,
    games: Sequence[Game] | Results,
    *,
    bootstrap: int = 200,
    seed: int = 0,
    exact: bool | None = None,
    ranked: Sequence[int] | None = None,
    together: bool | None = None,
) -> Fit:
    """Ratings for players 0..n-1 with 95% rating and rank intervals.

    By default (``exact=None``) every game is weighted by ``1 / phi`` (the outcomes'
    dispersion, ``_dispersion``), the point fit is the posterior mode under the league's
    estimated prior (``_empirical_bayes``), and the intervals come from that posterior's
    covariance ``(A / phi + prior I)^-1`` (no refit): a rating's interval is its estimate
    +- 1.96 standard deviations, a rank's the mid-distribution 2.5% and 97.5% ranks in
    ``DRAWS`` joint draws from that Gaussian (``_rank_intervals``; ``bootstrap``
    > 0 asks for intervals; its number is recorded, not used). ``exact=True`` is the
    bootstrap as it was: ``bootstrap`` replicates over units each refitted in full (all
    at once up to ``replicates.MAX_PLAYERS`` players unless ``together`` is False, else
    one SciPy run each), ``exact=False`` its linearisation (one Newton step a replicate).
    Ranks are among the ``ranked`` players (all by default; the others get rank 0): a
    hosted bot's retired versions are players of the fit but not of the standings."""
    res = games if isinstance(games, Results) else Results.of(n, games)
    if len(res.a_won) == 0:
        flat = np.full(n, CENTRE)
        ones = np.ones(n, dtype=np.int64)
        return Fit(flat, flat, flat, ones, ones, ones * n, np.zeros(n), 0)
    design = Design(res)
    wins, total = design.counts()
    rng = np.random.default_rng(seed)
    prior = PRIOR
    if exact is None:  # games weighted by 1 / the outcomes' dispersion (a quasi-likelihood)
        phi, start = _dispersion(design, wins, total)
        wins, total = wins / phi, total / phi
        prior, point = _empirical_bayes(design, wins, total, start=start)
        samples = _gaussian_draws(design, point, total, prior, DRAWS if bootstrap else 0, rng)
    else:
        point = _solve(design, wins, total, np.zeros(n))
        samples = _bootstrap(design, point, total, bootstrap, rng, exact, together)
    played = np.bincount(res.team_a[res.team_a >= 0], minlength=n) + np.bincount(
        res.team_b[res.team_b >= 0], minlength=n
    )

    def to_elo(r: np.ndarray) -> np.ndarray:
        return CENTRE + ELO_SCALE * (r - r.mean(axis=-1, keepdims=True))

    elo = to_elo(point)
    boot = to_elo(samples) if len(samples) else elo[None, :]
    idx = np.arange(n) if ranked is None else np.asarray(ranked, dtype=np.int64)
    boot_ranks = _ranks(boot[:, idx], ties=exact is not None or not len(samples))
    rank, rank_low, rank_high = (np.zeros(n, dtype=np.int64) for _ in range(3))
    rank[idx] = _ranks(elo[idx])
    if exact is None:  # ranks drawn: the draws' mid-distribution 2.5% and 97.5% ranks
        rank_low[idx], rank_high[idx] = _rank_intervals(boot_ranks)
    else:
        rank_low[idx] = np.floor(np.percentile(boot_ranks, 2.5, axis=0)).astype(np.int64)
        rank_high[idx] = np.ceil(np.percentile(boot_ranks, 97.5, axis=0)).astype(np.int64)
    if exact is None and len(samples):
        sd = ELO_SCALE * np.sqrt(_centred_variances(design, point, total, prior))
        low, high = elo - Z95 * sd, elo + Z95 * sd
    else:
        low, high = np.percentile(boot, 2.5, axis=0), np.percentile(boot, 97.5, axis=0)
    return Fit(
        ratings=elo,
        low=low,
        high=high,
        rank=rank,
        rank_low=np.minimum(rank_low, rank),
        rank_high=np.maximum(rank_high, rank),
        games=played.astype(float),
        bootstrap=bootstrap,
        spread=ELO_SCALE / math.sqrt(prior),
        dispersion=design.dispersion,
    )


#: the dispersion's estimate is shrunk towards 1 as if this many more units had been
#: seen with it (a league of a few games cannot tell it)
DISPERSION_UNITS = 20.0
#: and is at least this (a league of nothing but draws between even bots has ~0)
DISPERSION_FLOOR = 0.1
#: with this many units a player or more, the leverage is left out of ``E[tr J]`` (it is
#: at most 1 / this of it: 0.25%)
LEVERAGE_UNITS = 400


def _dispersion(design: Design, wins: np.ndarray, total: np.ndarray) -> tuple[float, np.ndarray]:
    """The outcomes' dispersion ``phi``: the units' observed score variance over the
    model's, and the mode under the starting prior it is measured at.

    The logistic model says a game's score varies by ``p(1 - p)``; a draw (1/2 each)
    varies less, so a league with draws has ``phi < 1``; the games of a unit that vary
    together, or a model that misses something (an intransitive part), make it more.
    ``phi = tr J / E[tr J]``: ``J`` the sum of the units' score outer products at the
    mode, ``E[tr J]`` its expectation under the model (``tr A`` less what the fit itself
    absorbs: a unit of ``k`` games on row ``x`` has ``k v (1 - k v x'H^-1 x)``, the
    leverage of a weighted least-squares fit); shrunk towards 1 by ``DISPERSION_UNITS``
    against the ``units - tr(A H^-1)`` degrees of freedom it has. The fit then weights
    every game by ``1 / phi`` (a quasi-likelihood: the posterior's Hessian is
    ``A / phi + prior I``)."""
    point = _newton(design, wins, total, START_PRIOR, gtol=START_GTOL, step_tol=START_STEP)
    if not design.n_units:
        return 1.0, point
    v = slope(design.x @ point)
    kept = design.stopped
    if kept is not None and kept[0] is point:
        posterior = kept[1]
    else:
        posterior = design.hessian_of(total * v, START_PRIOR)
    # the data's Hessian at this mode, for the prior's first quadratic model
    design.start_data = posterior - START_PRIOR * np.eye(design.n)
    design.start_total = float(total.sum())
    if design.n_units >= LEVERAGE_UNITS * design.n:
        q = np.zeros(design.x.shape[0])  # the fit absorbs at most n / units of J
    else:
        q = design.quadratic(_inverse(posterior)[0])  # x' H^-1 x of each row
    norms = design.row_norms()
    row_of_unit = design.unit_rows()
    if row_of_unit is not None:
        k = np.bincount(design.unit_of_game, minlength=design.n_units).astype(float)
        kv = k * v[row_of_unit]
        expected = float(np.sum(norms[row_of_unit] * kv * (1.0 - kv * q[row_of_unit])))
    else:  # each game as if a unit of its own
        expected = float(np.sum(norms * total * v * (1.0 - v * q)))
    freedom = design.n_units - float(np.sum(total * v * q))
    if expected <= 0 or freedom <= 0:
        return 1.0, point
    weight = freedom / (freedom + DISPERSION_UNITS)
    phi = weight * design.score_trace(point) / expected + (1.0 - weight)
    design.dispersion = max(DISPERSION_FLOOR, phi)
    return design.dispersion, point


#: the population prior's estimate stops when its precision moves by less than this share
#: (half of it in tau)
EB_RTOL = 1e-2
EB_STEPS = 20
#: the narrowest spread the population prior may claim (Elo): with few games, or a league
#: whose bots all have the same record, the estimate of tau reaches 0 (the boundary of its
#: likelihood), which would shrink every rating onto the mean with an interval of no width
#: ([1500, 1500] after 4 games a bot in the demo); the floor keeps the intervals as wide as
#: a spread of 50 Elo allows, and does not bind in a league whose bots differ by more
MIN_SPREAD = 50.0
MAX_PRIOR = (ELO_SCALE / MIN_SPREAD) ** 2
#: the population prior's estimate starts from a spread of 200 Elo
START_PRIOR = (ELO_SCALE / 200.0) ** 2
#: and from a mode under it to this largest gradient entry (logistic units; a round
#: robin of 1,000 bots starts at ~1e3)
START_GTOL = 1.0
#: or where each rating would move by less than this alone (logistic units: 1.7 Elo)
START_STEP = 0.01


def _empirical_bayes(
    design: Design, wins: np.ndarray, total: np.ndarray, start: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """The population prior ``N(0, tau^2)`` of the ratings estimated from the league itself
    (the fixed point of EM under the Laplace approximation: ``tau^2`` = the mean of the
    posterior's centred second moments), and the posterior mode under it: (prior
    precision, ratings).

    Why: with few games a bot against near neighbours (a matchmade league), the maximum
    likelihood ratings are spread wider than the truth (by 25-45% over 200 bots of 50
    games: the outward bias of a logistic fit with many parameters), so intervals about
    them miss the extremes (``bench/rating_coverage.py``). Under the estimated prior a
    round robin's ratings move by about 1% of their deviation; a sparse league's by what
    its data cannot tell.

    How, cheaply: at the current mode the data's Hessian ``A`` is diagonalised once; the
    quadratic model of the likelihood there gives the mode and the posterior's trace for
    every precision in closed form, so the fixed point is found by bisection on them;
    Newton steps then move the mode to the exact optimum under that precision, and the
    outer loop repeats until the precision moves by less than ``EB_RTOL``."""
    n = design.n
    if n < 3:
        return PRIOR, _newton(design, wins, total, PRIOR)
    prior = START_PRIOR  # any start: the fixed point does not depend on it
    # the first mode is only where the quadratic model is taken: near it is enough (a
    # mode from ``_dispersion``: of the unweighted games, as near)
    point = _newton(design, wins, total, prior, gtol=START_GTOL) if start is None else start
    ones = np.ones(n) / math.sqrt(n)
    for _ in range(EB_STEPS):
        if start is not None and design.start_data is not None and point is start:
            a = design.start_data * (total.sum() / design.start_total)  # A of these weights
        else:
            a = design.hessian(point, total, 0.0)
        # in single precision (half the time): the model only proposes the precision and
        # the next start; the test below is exact
        values, vectors = linalg.eigh(a.astype(np.float32), driver="evd", check_finite=False)
        values, vectors = np.maximum(values.astype(float), 0.0), vectors.astype(float)
        g = design.gradient(point, wins, total, 0.0)
        b = vectors.T @ (a @ point - g)
        off = 1.0 - (vectors.T @ ones) ** 2  # each eigenvector's share off the mean

        lo, hi = math.log(PRIOR), math.log(MAX_PRIOR)
        model = (values, vectors, b, off)
        if (
            _excess(math.exp(lo), *model) >= 0
        ):  # the data say the spread is at least the weak prior's
            return PRIOR, _newton(design, wins, total, PRIOR, start=point)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if _excess(math.exp(mid), *model) < 0:
                lo = mid
            else:
                hi = mid
        prior = math.exp(0.5 * (lo + hi))
        # from the quadratic model's mode under the new precision: a step or two
        point = _newton(design, wins, total, prior, start=vectors @ (b / (values + prior)))
        # done when the fixed point is within EB_RTOL of here: the excess at the mode,
        # exactly (the posterior's inverse Hessian, kept for the intervals), over its
        # slope under the model
        inverse, factor = _inverse(design.hessian(point, total, prior))
        centred = point - point.mean()
        second = float(centred @ centred) + float(np.trace(inverse)) - float(inverse.sum()) / n
        excess = second / (n - 1) - 1.0 / prior
        dl = 1e-4 * prior
        slope = (_excess(prior + dl, *model) - _excess(prior - dl, *model)) / (2 * dl)
        design.posterior = (prior, point, inverse, factor)
        if slope > 0 and abs(excess / slope) <= EB_RTOL * prior:
            break
        if prior >= MAX_PRIOR * (1 - EB_RTOL) and excess < 0:  # held at the floor
            break
    return prior, point


def _inverse(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of a symmetric positive definite matrix and its upper Cholesky factor
    ``U`` (``h = U'U``)."""
    factor, info = lapack.dpotrf(h, lower=False, clean=1, overwrite_a=False)
    if info != 0:
        raise linalg.LinAlgError(f"the posterior's Hessian is not positive definite ({info})")
    upper, info = lapack.dpotri(factor, lower=False)  # the strict lower part is 0
    inverse = upper + upper.T
    inverse[np.diag_indices(len(h))] *= 0.5
    return inverse, factor


def _excess(
    lam: float, values: np.ndarray, vectors: np.ndarray, b: np.ndarray, off: np.ndarray
) -> float:
    """``tau^2(lam) - 1 / lam`` under the quadratic model: the mean centred second moment of
    the posterior of prior precision ``lam`` (the data's Hessian ``vectors diag(values)
    vectors'``, its mode ``vectors (b / (values + lam))``) less the prior's variance."""
    n = len(values)
    r = vectors @ (b / (values + lam))
    centred = float(r @ r) - float(r.sum()) ** 2 / n
    trace = float(np.sum(off / (values + lam)))
    return (centred + trace) / (n - 1) - 1.0 / lam


def _covariance(
    design: Design, point: np.ndarray, total: np.ndarray, prior: float = PRIOR
) -> np.ndarray:
    """The covariance of the centred ratings (logistic units): ``C H^-1 C``, ``H`` the
    posterior's Hessian at ``point`` for the games ``total`` (weighted by the dispersion
    in ``fit``), ``C`` the centring (the fit reports ratings about their mean)."""
    cached = getattr(design, "_covariance", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    kept = design.posterior
    if kept is not None and kept[0] == prior and np.array_equal(kept[1], point):
        inverse = kept[2]
    else:
        inverse, factor = _inverse(design.hessian(point, total, prior))
        design.posterior = (prior, point, inverse, factor)
    mean = inverse.mean(axis=0)
    cov = inverse - mean[None, :] - mean[:, None] + mean.mean()
    design._covariance = cov  # type: ignore[attr-defined]
    return cov


def _centred_variances(
    design: Design, point: np.ndarray, total: np.ndarray, prior: float
) -> np.ndarray:
    return np.maximum(np.diag(_covariance(design, point, total, prior)), 0.0)


def _gaussian_draws(
    design: Design, point: np.ndarray, total: np.ndarray, prior: float, draws: int,
    rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """``draws`` joint draws from the posterior ``N(point, H^-1)``: ``point + U^-1 z``
    with ``H = U'U`` (their centring is the caller's)."""
    if not draws:
        return np.empty((0, design.n))
    _covariance(design, point, total, prior)
    assert design.posterior is not None
    factor = design.posterior[3]
    z = rng.standard_normal((design.n, draws))
    return point + linalg.solve_triangular(factor, z, lower=False, check_finite=False).T


#: the rank intervals' tails (``_rank_intervals``)
RANK_TAILS = (0.025, 0.975)


def _rank_intervals(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each player's 95% rank interval from its drawn ranks (draws x players, 1..m): the
    ranks ``k`` whose mid-distribution function ``P(R < k) + P(R = k) / 2`` lies in
    ``[0.025, 0.975]``, the lowest and the highest. Integer quantiles (the smallest ``k``
    with ``P(R <= k) >= 0.025``, ...) hold 95% of the draws *or more*: up to both end
    ranks' whole mass more, a few percent where a player's ranks spread over a few
    places; the mid-distribution quantiles count half of each end rank's mass, as a
    continuous rank would (each draw's rank spread evenly over ``k +- 1/2``), so that
    they hold 95% on average (the mid-p interval of a discrete statistic)."""
    draws, m = ranks.shape
    low, high = np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64)
    chunk = max(1, (1 << 22) // max(1, m))
    for at in range(0, m, chunk):
        block = ranks[:, at : at + chunk]
        c = block.shape[1]
        keys = ((block - 1) * c + np.arange(c)).ravel()
        counts = np.bincount(keys, minlength=m * c).reshape(m, c)  # rank k-1 x player
        mid = (np.cumsum(counts, axis=0) - 0.5 * counts) / draws
        low[at : at + c] = np.argmax(mid >= RANK_TAILS[0], axis=0) + 1
        high[at : at + c] = m - np.argmax(mid[::-1] <= RANK_TAILS[1], axis=0)
    return low, high


def _bootstrap(
    design: Design, point: np.ndarray, total: np.ndarray, bootstrap: int,
    rng: np.random.Generator, exact: bool, together: bool | None,
) -> np.ndarray:  # fmt: skip
    """``bootstrap`` replicates over units: refitted in full (``exact``) or one Newton
    step each from ``point``."""
    n = design.n
    samples = np.empty((bootstrap, n))
    if bootstrap and not exact:
        factor = linalg.cho_factor(design.hessian(point, total))
    together = bool(exact and bootstrap) and (
        replicates.usable(n) if together is None else together
    )
    if together:
        rows = design.x.shape[0]
        all_wins, all_totals = np.empty((bootstrap, rows)), np.empty((bootstrap, rows))
    for b in range(bootstrap):
        drawn = rng.integers(0, design.n_units, design.n_units)  # units, with replacement
        w, t = design.counts(np.bincount(drawn, minlength=design.n_units).astype(float))
        if together:
            all_wins[b], all_totals[b] = w, t
        elif exact:
            samples[b] = _solve(design, w, t, point)
        else:
            samples[b] = point - linalg.cho_solve(factor, design.gradient(point, w, t))
    if together:
        samples = replicates.solve_many(design.x, all_wins, all_totals, point, PRIOR)
    return samples
