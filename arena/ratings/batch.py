"""Batch ratings with uncertainty: Elo (Bradley–Terry) over all of a league's games, with
95% intervals for ratings and ranks.

Pure NumPy/SciPy, no ORM. A game is (team A's players, team B's players, A's score: 1, 0,
or 1/2 for a draw); a team's strength is the mean of its members' ratings, so 2-seat and
team leagues fit alike. Games are grouped into **units** (the pair of games of a pairing:
both games share the deck when mirrored), the independent pieces of evidence.

The fit a league runs (``fit``'s default), on each match-up's sufficient statistics (a
pair of teams in either order, its wins and games: a round robin of n bots is n(n-1)/2
rows however many games):

* the outcomes' dispersion ``phi`` (``posterior.dispersion``): the units' observed score variance
  over the model's ``p(1 - p)``, net of what the fit absorbs; below 1 with draws (a draw
  varies less than a win or a loss), above with games that vary together or a model
  that misses something; every game then counts ``1 / phi`` (a quasi-likelihood);
* the posterior mode under a prior N(0, tau^2) whose spread is estimated from the league
  (``posterior.empirical_bayes``), by Newton steps on the dense Hessian
  (``solver.newton``: the optimum SciPy finds, test-held to 1e-3 Elo);
* rating intervals +- 1.96 standard deviations of that posterior, ``(A / phi + I /
  tau^2)^-1`` centred; rank intervals from 1,000 joint draws of it, each player's
  mid-distribution 2.5% and 97.5% ranks (``posterior.rank_intervals``: integer quantiles
  of a discrete rank hold more than 95%).

No refits: one eigendecomposition and a few Cholesky factorisations, under a second of
a core up to 1,000 bots (``bench/rating_fit.py --sizes``); coverage 93-97% for ratings
and ranks, round robin and matchmade, 50-1,000 bots, with draws and an intransitive part
(``bench/rating_coverage.py``).

``exact=True`` keeps the bootstrap as it was (replicates over units refitted in full, all at
once up to ``replicates.MAX_PLAYERS`` players), ``exact=False`` its one-Newton-step
linearisation: both for comparison (benches and tests).

The games' design matrix and the likelihood on it are ``arena.ratings.design``, the point
fit ``arena.ratings.solver``, the dispersion, the prior, the covariance, its draws and the
rank intervals ``arena.ratings.posterior``; ``fit`` below puts them together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from arena.ratings import posterior, solver
from arena.ratings.design import ELO_SCALE, PRIOR, Design, Game, Results

__all__ = ["CENTRE", "ELO_SCALE", "PRIOR", "Design", "Fit", "Game", "Results", "fit"]

CENTRE = 1500.0
#: up to this many distinct match-ups every bootstrap replicate is refitted in full
EXACT_ROWS = 20_000


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
    #: the outcomes' dispersion every game was weighted by the inverse of (``posterior.dispersion``)
    dispersion: float = 1.0


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
    dispersion, ``posterior.dispersion``), the point fit is the posterior mode under the league's
    estimated prior (``posterior.empirical_bayes``), and the intervals come from that posterior's
    covariance ``(A / phi + prior I)^-1`` (no refit): a rating's interval is its estimate
    +- 1.96 standard deviations, a rank's the mid-distribution 2.5% and 97.5% ranks in
    ``DRAWS`` joint draws from that Gaussian (``posterior.rank_intervals``; ``bootstrap``
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
        phi, start = posterior.dispersion(design, wins, total)
        wins, total = wins / phi, total / phi
        prior, point = posterior.empirical_bayes(design, wins, total, start=start)
        samples = posterior.gaussian_draws(
            design, point, total, prior, DRAWS if bootstrap else 0, rng
        )
    else:
        point = solver.solve(design, wins, total, np.zeros(n))
        samples = posterior.bootstrap(design, point, total, bootstrap, rng, exact, together)
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
        rank_low[idx], rank_high[idx] = posterior.rank_intervals(boot_ranks)
    else:
        rank_low[idx] = np.floor(np.percentile(boot_ranks, 2.5, axis=0)).astype(np.int64)
        rank_high[idx] = np.ceil(np.percentile(boot_ranks, 97.5, axis=0)).astype(np.int64)
    if exact is None and len(samples):
        sd = ELO_SCALE * np.sqrt(posterior.centred_variances(design, point, total, prior))
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
