"""A small league's bootstrap replicates refitted all at once (``solve_many``).

Each replicate of ``arena.ratings.batch.fit`` re-weights the same match-ups and is
refitted in full while the data are small. One SciPy ``trust-exact`` run per replicate
costs some 9 ms even for 8 players (the solver's Python, not the arithmetic): 200
replicates made a league of 8 bots a 1.8 s fit, and a worker finishing 25 leagues' rounds
at once spent most of a minute in them. Here the replicates take their Newton steps
together as arrays, ``B`` at a time: the same maximum a posteriori ratings (the objective
is strictly convex under the prior, so the optimum is unique; both solvers stop within
``1e-8`` of it in gradient), for the cost of a few array operations per step.

The Hessian of a replicate is ``X' diag(s) X + prior I`` with ``X`` the match-ups' sparse
design rows (at most four non-zero entries each): all of a block's Hessians are one sparse
product with the rows' outer products (``_Outer``), and the ``B`` Newton systems one
batched ``numpy.linalg.solve``. A step that does not lower a replicate's objective is
halved (a damped Newton method: it cannot diverge), and each replicate stops on its own.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

#: the batched solver is used up to this many players (its Hessians are dense, B x n x n)
MAX_PLAYERS = 100
#: and holds at most this many numbers in one block of replicates' arrays
BLOCK_NUMBERS = 4_000_000
#: a replicate has converged when its largest gradient entry is below this (logistic
#: units; SciPy's run stopped at a gradient norm of 1e-8)
GTOL = 1e-9
MAX_STEPS = 100
MAX_HALVINGS = 40


class _Outer:
    """``x_r x_r'`` of every design row, as one sparse (rows x n*n) matrix: a block's
    Hessians are ``s @ outer`` for the rows' weights ``s`` (B x rows)."""

    def __init__(self, x: sparse.csr_matrix) -> None:
        n = x.shape[1]
        x = x.tocsr()
        starts, ends = x.indptr[:-1], x.indptr[1:]
        widest = int(np.max(ends - starts)) if x.shape[0] else 0
        r_idx, c_idx, v = [], [], []
        for k in range(widest):  # the k-th and m-th non-zero entries of every row
            for m in range(widest):
                has = starts + max(k, m) < ends
                first, second = starts[has] + k, starts[has] + m
                r_idx.append(np.nonzero(has)[0])
                c_idx.append(x.indices[first] * n + x.indices[second])
                v.append(x.data[first] * x.data[second])
        self.matrix = sparse.csr_matrix(
            (np.concatenate(v), (np.concatenate(r_idx), np.concatenate(c_idx))),
            shape=(x.shape[0], n * n),
        )
        self.n = n

    def hessians(self, s: np.ndarray, prior: float) -> np.ndarray:
        flat = np.asarray((self.matrix.T @ s.T).T)
        return flat.reshape(len(s), self.n, self.n) + prior * np.eye(self.n)


def usable(players: int) -> bool:
    return players <= MAX_PLAYERS


def _objective(
    x: sparse.csr_matrix, r: np.ndarray, wins: np.ndarray, totals: np.ndarray, prior: float
) -> np.ndarray:
    return _from_scores(np.asarray(x @ r.T).T, r, wins, totals, prior)


def _from_scores(
    z: np.ndarray, r: np.ndarray, wins: np.ndarray, totals: np.ndarray, prior: float
) -> np.ndarray:
    """The negative log posteriors (B) given the rows' score differences ``z``."""
    return np.sum(totals * np.logaddexp(0.0, z) - wins * z, axis=1) + 0.5 * prior * np.sum(
        r * r, axis=1
    )


def _evaluate(
    x: sparse.csr_matrix, xt: sparse.csr_matrix, r: np.ndarray, wins: np.ndarray,
    totals: np.ndarray, prior: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """The objectives (B), gradients (B x n) and the rows' Hessian weights (B x rows)."""
    z = np.asarray(x @ r.T).T
    f = _from_scores(z, r, wins, totals, prior)
    p = 0.5 * (1.0 + np.tanh(0.5 * z))
    g = np.asarray(xt @ (totals * p - wins).T).T + prior * r
    return f, g, totals * p * (1.0 - p)


def solve_many(
    x: sparse.csr_matrix, wins: np.ndarray, totals: np.ndarray, start: np.ndarray,
    prior: float,
) -> np.ndarray:  # fmt: skip
    """The maximum a posteriori ratings (logistic units, B x n) of each replicate, whose
    wins and games per design row are the rows of ``wins`` and ``totals`` (B x rows),
    every replicate starting from ``start`` (n)."""
    rows, n = x.shape
    outer = _Outer(x)
    xt = x.T.tocsr()
    block = max(1, BLOCK_NUMBERS // max(1, rows + n * n))
    out = np.empty((len(wins), n))
    for at in range(0, len(wins), block):
        w, t = wins[at : at + block], totals[at : at + block]
        out[at : at + block] = _newton(x, xt, outer, w, t, start, prior)
    return out


def _newton(
    x: sparse.csr_matrix, xt: sparse.csr_matrix, outer: _Outer, wins: np.ndarray,
    totals: np.ndarray, start: np.ndarray, prior: float,
) -> np.ndarray:  # fmt: skip
    r = np.tile(start, (len(wins), 1))
    live = np.arange(len(wins))
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(MAX_STEPS):
            rl, wl, tl = r[live], wins[live], totals[live]
            before, g, s = _evaluate(x, xt, rl, wl, tl, prior)
            done = np.max(np.abs(g), axis=1) < GTOL
            if done.all():
                break
            keep = ~done
            rl, wl, tl, live = rl[keep], wl[keep], tl[keep], live[keep]
            before, g, s = before[keep], g[keep], s[keep]
            step = np.linalg.solve(outer.hessians(s, prior), g[:, :, None])[:, :, 0]
            # within rounding of the objective's value a full step is taken as it is: near
            # the optimum the decrease (half the Newton decrement, g.step / 2) is below it
            slack = 1e-12 * np.abs(before) + 1e-300
            scale = np.ones(len(rl))
            for _ in range(MAX_HALVINGS):
                trial = rl - scale[:, None] * step
                worse = ~(_objective(x, trial, wl, tl, prior) <= before + slack)
                if not worse.any():
                    break
                scale[worse] *= 0.5
            r[live] = rl - scale[:, None] * step
        else:
            raise FloatingPointError(
                f"the batched bootstrap fit of {x.shape[1]} players did not converge "
                f"in {MAX_STEPS} Newton steps"
            )
    if not np.all(np.isfinite(r)):
        raise FloatingPointError(f"the batched bootstrap fit of {x.shape[1]} players diverged")
    return r
