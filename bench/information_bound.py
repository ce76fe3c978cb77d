"""The information bound: the fewest games any pairing design could need for a Spearman.

A game between bots a and b of win probability p tells the Fisher information
``(ln 10 / 400)^2 x p(1 - p)`` about their Elo difference, at most a quarter of that
(p = 1/2). So a bot with m games knows its rating at best to a standard deviation of
``1 / sqrt(m x I_MAX)`` = 347 / sqrt(m) Elo points (the Cramer-Rao bound, reached when
every game is against an opponent of exactly its strength whose rating is known exactly;
``I_MAX`` below). No adaptive design beats that per bot, so the ideal league is: each bot's
rating = its true strength + a Gaussian error of that size, errors independent. Its
Spearman against the truth is simulated here (the run's own true strengths, ``reps`` error
draws, common random numbers so the search over games is monotone).

Games need not be spread evenly: a bot in the dense middle swaps places for a smaller error
than one in the tails, and the sum of squared rank errors is smallest with a bot's games in
proportion to the density of strengths at its own (games_i ~ f(true_i)^alpha, alpha = 1,
about 13% fewer games than even for a normal density). The bound takes the best of a few
alphas, with the true density (an oracle no league has); ``alpha = 0`` is even games.

What the ideal leaves out makes real designs need more, not fewer: opponents' ratings are
themselves uncertain (a game informs a difference), p is near 1/2 only once ratings are
known, and early games are spent finding out where a bot belongs. One thing could make a
real design slightly better than independent errors: games between two neighbours make
their errors correlated and resolve their order more directly; with ~100 games a bot spread
over the ~100 bots within its error, that is a few percent of a pair's information.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Fisher information of one game about a bot's Elo rating, at most (p = 1/2)
I_MAX = (math.log(10.0) / 400.0) ** 2 / 4.0
#: the allocations tried: a bot's games ~ density of strengths at its own ^ alpha
ALPHAS = (0.0, 0.5, 2.0 / 3.0, 1.0, 1.5)


@dataclass(frozen=True)
class Bound:
    target: float
    #: the fewest games (all bots, one game = two bots' games) that reach the target
    games: int
    #: the same with every bot given as many games (alpha = 0)
    even_games: int
    alpha: float


class Ideal:
    """The ideal league for one set of true strengths (normal, mean and sd given)."""

    def __init__(
        self, true: np.ndarray, mean: float = 1500.0, sd: float = 200.0, reps: int = 200,
        seed: int = 1,
    ) -> None:  # fmt: skip
        self.true = true
        self.density = np.exp(-0.5 * ((true - mean) / sd) ** 2)
        self.z = np.random.default_rng(seed).standard_normal((reps, len(true)))
        self.true_rank = np.argsort(np.argsort(true)).astype(float)

    def spearman(self, games: float, alpha: float = 0.0) -> float:
        """Mean Spearman of the ideal league after ``games`` games in all, bot i given
        2 x games x w_i / sum(w) of them (w = density^alpha)."""
        w = self.density**alpha
        per_bot = 2.0 * games * w / w.sum()
        sigma = 1.0 / np.sqrt(per_bot * I_MAX)
        est = self.true + sigma * self.z
        rank = np.argsort(np.argsort(est, axis=1), axis=1).astype(float)
        n = len(self.true)
        d2 = ((rank - self.true_rank) ** 2).sum(axis=1)
        return float(np.mean(1.0 - 6.0 * d2 / (n * (n * n - 1.0))))

    def games_for(self, target: float, alpha: float = 0.0) -> int:
        """The fewest games (to 0.1% by bisection) whose ideal Spearman reaches ``target``."""
        lo, hi = 1.0, float(len(self.true)) ** 2
        while hi / lo > 1.001:
            mid = math.sqrt(lo * hi)
            if self.spearman(mid, alpha) >= target:
                hi = mid
            else:
                lo = mid
        return math.ceil(hi)

    def bound(self, target: float) -> Bound:
        even = self.games_for(target, 0.0)
        best = min((self.games_for(target, a), a) for a in ALPHAS)
        return Bound(target, best[0], even, best[1])
