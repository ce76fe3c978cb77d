"""The batch fit's point estimate: the maximum a posteriori ratings of a league's games
under a Gaussian prior, by damped Newton steps on the dense Hessian (``newton``, the
default) or by SciPy's trust-region solvers (``solve``: the exact bootstrap's refits, and
the reference the tests hold ``newton`` to). Logistic units throughout; ``arena.ratings.
batch`` turns them into Elo."""

from __future__ import annotations

import logging

import numpy as np
from scipy import linalg, optimize
from scipy.linalg import lapack

from arena.ratings.design import PRIOR, Design, sigmoid

logger = logging.getLogger("arena.ratings.batch")

DENSE_PLAYERS = 400
#: a solver that stops with a larger gradient (logistic units) than this is logged
CONVERGED_GRADIENT = 1e-6


def solve(
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


def newton(
    design: Design, wins: np.ndarray, total: np.ndarray, prior: float = PRIOR,
    start: np.ndarray | None = None, gtol: float = NEWTON_GTOL, step_tol: float = 0.0,
) -> np.ndarray:  # fmt: skip
    """The maximum a posteriori ratings (logistic units) by damped Newton steps on the dense
    Hessian (one Cholesky factorisation a step): the optimum ``solve`` finds, in a few
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


def inverse(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The inverse of a symmetric positive definite matrix and its upper Cholesky factor
    ``U`` (``h = U'U``)."""
    factor, info = lapack.dpotrf(h, lower=False, clean=1, overwrite_a=False)
    if info != 0:
        raise linalg.LinAlgError(f"the posterior's Hessian is not positive definite ({info})")
    upper, info = lapack.dpotri(factor, lower=False)  # the strict lower part is 0
    inverse = upper + upper.T
    inverse[np.diag_indices(len(h))] *= 0.5
    return inverse, factor
