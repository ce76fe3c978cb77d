"""The batch fit's uncertainty: the outcomes' dispersion (``dispersion``), the league's
population prior (``empirical_bayes``), the posterior's covariance and joint draws, the
rank intervals drawn from them, and the bootstrap the ``exact`` fits keep. ``arena.ratings.
batch.fit`` puts them together; the module docstring there says how and why."""

from __future__ import annotations

import math

import numpy as np
from scipy import linalg

from arena.ratings import replicates, solver
from arena.ratings.design import ELO_SCALE, PRIOR, Design, slope

DISPERSION_UNITS = 20.0
#: and is at least this (a league of nothing but draws between even bots has ~0)
DISPERSION_FLOOR = 0.1
#: with this many units a player or more, the leverage is left out of ``E[tr J]`` (it is
#: at most 1 / this of it: 0.25%)
LEVERAGE_UNITS = 400


def dispersion(design: Design, wins: np.ndarray, total: np.ndarray) -> tuple[float, np.ndarray]:
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
    point = solver.newton(design, wins, total, START_PRIOR, gtol=START_GTOL, step_tol=START_STEP)
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
        q = design.quadratic(solver.inverse(posterior)[0])  # x' H^-1 x of each row
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


def empirical_bayes(
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
        return PRIOR, solver.newton(design, wins, total, PRIOR)
    prior = START_PRIOR  # any start: the fixed point does not depend on it
    # the first mode is only where the quadratic model is taken: near it is enough (a
    # mode from ``dispersion``: of the unweighted games, as near)
    point = solver.newton(design, wins, total, prior, gtol=START_GTOL) if start is None else start
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
            return PRIOR, solver.newton(design, wins, total, PRIOR, start=point)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if _excess(math.exp(mid), *model) < 0:
                lo = mid
            else:
                hi = mid
        prior = math.exp(0.5 * (lo + hi))
        # from the quadratic model's mode under the new precision: a step or two
        point = solver.newton(design, wins, total, prior, start=vectors @ (b / (values + prior)))
        # done when the fixed point is within EB_RTOL of here: the excess at the mode,
        # exactly (the posterior's inverse Hessian, kept for the intervals), over its
        # slope under the model
        inverse, factor = solver.inverse(design.hessian(point, total, prior))
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


def covariance(
    design: Design, point: np.ndarray, total: np.ndarray, prior: float = PRIOR
) -> np.ndarray:
    """The covariance of the centred ratings (logistic units): ``C H^-1 C``, ``H`` the
    posterior's Hessian at ``point`` for the games ``total`` (weighted by the dispersion
    in ``fit``), ``C`` the centring (the fit reports ratings about their mean)."""
    cached = getattr(design, "covariance", None)
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    kept = design.posterior
    if kept is not None and kept[0] == prior and np.array_equal(kept[1], point):
        inverse = kept[2]
    else:
        inverse, factor = solver.inverse(design.hessian(point, total, prior))
        design.posterior = (prior, point, inverse, factor)
    mean = inverse.mean(axis=0)
    cov = inverse - mean[None, :] - mean[:, None] + mean.mean()
    design._covariance = cov  # type: ignore[attr-defined]
    return cov


def centred_variances(
    design: Design, point: np.ndarray, total: np.ndarray, prior: float
) -> np.ndarray:
    return np.maximum(np.diag(covariance(design, point, total, prior)), 0.0)


def gaussian_draws(
    design: Design, point: np.ndarray, total: np.ndarray, prior: float, draws: int,
    rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """``draws`` joint draws from the posterior ``N(point, H^-1)``: ``point + U^-1 z``
    with ``H = U'U`` (their centring is the caller's)."""
    if not draws:
        return np.empty((0, design.n))
    covariance(design, point, total, prior)
    assert design.posterior is not None
    factor = design.posterior[3]
    z = rng.standard_normal((design.n, draws))
    return point + linalg.solve_triangular(factor, z, lower=False, check_finite=False).T


#: the rank intervals' tails (``rank_intervals``)
RANK_TAILS = (0.025, 0.975)


def rank_intervals(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


def bootstrap(
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
            samples[b] = solver.solve(design, w, t, point)
        else:
            samples[b] = point - linalg.cho_solve(factor, design.gradient(point, w, t))
    if together:
        samples = replicates.solve_many(design.x, all_wins, all_totals, point, PRIOR)
    return samples
