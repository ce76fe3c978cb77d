"""Batch ratings with uncertainty: maximum-likelihood Elo (Bradley–Terry) over all of a
league's games, with bootstrap intervals for ratings and ranks.

Pure NumPy/SciPy, no ORM. A game is (team A's players, team B's players, did A win); a
team's strength is the mean of its members' ratings, so 2-seat and team leagues fit alike.
Games are grouped into **units** (a league's mirrored pairs: both games share the deck) and
the bootstrap resamples units with replacement, so the deal's luck that mirroring cancels
is not counted as evidence twice.

Each bootstrap replicate is refitted in full while the data are small (up to
``EXACT_ROWS`` distinct match-ups: every ordinary league). Beyond that a replicate takes one
Newton step from the full-data estimate with the full-data Hessian, factorised once: the
linearised bootstrap, which moves interval ends by a few percent of the interval's width
(``tests/ratings/test_ratings_math.py``) and makes 1,000 bots and 1,000,000 games fit
in seconds.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import linalg, optimize, sparse

from arena.ratings import replicates

logger = logging.getLogger(__name__)

ELO_SCALE = 400.0 / math.log(10.0)  # logistic units -> Elo points
CENTRE = 1500.0
#: a weak Gaussian prior (sd 1000 Elo) keeps undefeated or winless players finite
PRIOR = (ELO_SCALE / 1000.0) ** 2
#: up to this many distinct match-ups every bootstrap replicate is refitted in full
EXACT_ROWS = 20_000
#: up to this many players the solver uses the dense Hessian
DENSE_PLAYERS = 400
#: a solver that stops with a larger gradient (logistic units) than this is logged
CONVERGED_GRADIENT = 1e-6


@dataclass(frozen=True)
class Game:
    team_a: tuple[int, ...]  # player indices 0..n-1, one or two per team
    team_b: tuple[int, ...]
    a_won: bool
    unit: int = 0  # the games of one mirrored pair share a unit id


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


@dataclass(frozen=True)
class Results:
    """Games as arrays: ``team_a``/``team_b`` are (games x 2) player indices, -1 = no one."""

    n: int
    team_a: np.ndarray
    team_b: np.ndarray
    a_won: np.ndarray
    unit: np.ndarray

    @classmethod
    def of(cls, n: int, games: Sequence[Game]) -> Results:
        def padded(teams: list[tuple[int, ...]]) -> np.ndarray:
            out = np.full((len(teams), 2), -1, dtype=np.int64)
            for i, team in enumerate(teams):
                out[i, : len(team)] = sorted(team)
            return out

        return cls(
            n,
            padded([g.team_a for g in games]),
            padded([g.team_b for g in games]),
            np.fromiter((g.a_won for g in games), dtype=bool, count=len(games)),
            np.fromiter((g.unit for g in games), dtype=np.int64, count=len(games)),
        )


class _Design:
    """Distinct (team A, team B) match-ups as rows of a sparse matrix; games map to rows so
    that a bootstrap replicate only re-weights the rows."""

    def __init__(self, res: Results) -> None:
        n = res.n
        # one integer per team (two players, -1 padded), then per match-up
        team_key_a = (res.team_a[:, 0] + 1) * (n + 1) + res.team_a[:, 1] + 1
        team_key_b = (res.team_b[:, 0] + 1) * (n + 1) + res.team_b[:, 1] + 1
        keys = team_key_a * (n + 1) ** 2 + team_key_b
        uniq, first, self.row_of_game = np.unique(keys, return_index=True, return_inverse=True)
        rows_a, rows_b = res.team_a[first], res.team_b[first]
        size_a = (rows_a >= 0).sum(axis=1)
        size_b = (rows_b >= 0).sum(axis=1)
        r_idx, c_idx, vals = [], [], []
        for team, size, sign in ((rows_a, size_a, 1.0), (rows_b, size_b, -1.0)):
            for col in (0, 1):
                present = team[:, col] >= 0
                r_idx.append(np.nonzero(present)[0])
                c_idx.append(team[present, col])
                vals.append(sign / size[present])
        self.x = sparse.csr_matrix(
            (np.concatenate(vals), (np.concatenate(r_idx), np.concatenate(c_idx))),
            shape=(len(uniq), n),
        )
        self.xt = self.x.T.tocsr()
        self.won = res.a_won.astype(float)
        _, self.unit_of_game = np.unique(res.unit, return_inverse=True)
        self.n_units = int(self.unit_of_game.max()) + 1 if len(res.unit) else 0
        self.n = n

    def counts(self, unit_weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Wins and games per row, each game weighted by its unit's bootstrap weight."""
        rows = self.x.shape[0]
        w = None if unit_weights is None else unit_weights[self.unit_of_game]
        total = np.bincount(self.row_of_game, weights=w, minlength=rows).astype(float)
        won = self.won if w is None else self.won * w
        wins = np.bincount(self.row_of_game, weights=won, minlength=rows)
        return wins, total

    def gradient(self, r: np.ndarray, wins: np.ndarray, total: np.ndarray) -> np.ndarray:
        p = _sigmoid(self.x @ r)
        return np.asarray(self.xt @ (total * p - wins)) + PRIOR * r

    def hessian(self, r: np.ndarray, total: np.ndarray) -> np.ndarray:
        p = _sigmoid(self.x @ r)
        weighted = self.xt.multiply(total * p * (1.0 - p))
        return np.asarray((weighted @ self.x).toarray()) + PRIOR * np.eye(self.n)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _solve(design: _Design, wins: np.ndarray, total: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The maximum a posteriori ratings (logistic units) under the weak prior."""
    x = design.x

    def objective(r: np.ndarray) -> tuple[float, np.ndarray]:
        z = x @ r
        nll = float(np.sum(total * np.logaddexp(0.0, z) - wins * z)) + 0.5 * PRIOR * float(r @ r)
        return nll, design.gradient(r, wins, total)

    def hessp(r: np.ndarray, v: np.ndarray) -> np.ndarray:
        p = _sigmoid(x @ r)
        return np.asarray(design.xt @ (total * p * (1.0 - p) * (x @ v))) + PRIOR * v

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
                hess=lambda r: design.hessian(r, total),
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


def _ranks(ratings: np.ndarray) -> np.ndarray:
    """Rank 1 = highest rating (row-wise for a 2-D array)."""
    order = np.argsort(-ratings, axis=-1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, ratings.shape[-1] + 1), axis=-1)
    return ranks


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
    """Ratings for players 0..n-1 with 95% intervals from ``bootstrap`` replicates;
    ``exact`` forces full refits (True) or one-step replicates (False); full refits of up
    to ``replicates.MAX_PLAYERS`` players are solved all at once (``arena.ratings.
    replicates``) unless ``together`` is False (one SciPy run each). Ranks are among the
    ``ranked`` players (all by default; the others get rank 0): a hosted bot's retired
    versions are players of the fit but not of the standings."""
    res = games if isinstance(games, Results) else Results.of(n, games)
    if len(res.a_won) == 0:
        flat = np.full(n, CENTRE)
        ones = np.ones(n, dtype=np.int64)
        return Fit(flat, flat, flat, ones, ones, ones * n, np.zeros(n), 0)
    design = _Design(res)
    wins, total = design.counts()
    point = _solve(design, wins, total, np.zeros(n))
    if exact is None:
        exact = design.x.shape[0] <= EXACT_ROWS
    rng = np.random.default_rng(seed)
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
    played = np.bincount(res.team_a[res.team_a >= 0], minlength=n) + np.bincount(
        res.team_b[res.team_b >= 0], minlength=n
    )

    def to_elo(r: np.ndarray) -> np.ndarray:
        return CENTRE + ELO_SCALE * (r - r.mean(axis=-1, keepdims=True))

    elo = to_elo(point)
    boot = to_elo(samples) if bootstrap else elo[None, :]
    idx = np.arange(n) if ranked is None else np.asarray(ranked, dtype=np.int64)
    boot_ranks = _ranks(boot[:, idx])
    rank, rank_low, rank_high = (np.zeros(n, dtype=np.int64) for _ in range(3))
    rank[idx] = _ranks(elo[idx])
    rank_low[idx] = np.floor(np.percentile(boot_ranks, 2.5, axis=0)).astype(np.int64)
    rank_high[idx] = np.ceil(np.percentile(boot_ranks, 97.5, axis=0)).astype(np.int64)
    return Fit(
        ratings=elo,
        low=np.percentile(boot, 2.5, axis=0),
        high=np.percentile(boot, 97.5, axis=0),
        rank=rank,
        rank_low=rank_low,
        rank_high=rank_high,
        games=played.astype(float),
        bootstrap=bootstrap,
    )
