"""Games needed to rank a large league: the information format (arena/matchmaking.py)
beside round robin, on a simulated league of bots with known strengths.

    .venv/bin/python bench/matchmaking.py [--bots 1000] [--games-per-bot 10]
        [--targets 0.95,0.98,0.99] [--bootstrap 50] [--seed 1]

Strengths as bench/rating_fit.py models them: true Elo ~ N(1500, 200); a game between a and
b is won by a with the Elo probability. Every game is dealt independently (no mirrored
pairs), as leagues now play by default.

* information format: rounds of ``--games-per-bot`` games per bot, opponents chosen by
  ``information_pairings`` from the ratings the league has after the previous round (a
  point fit of all games so far; sigma from each bot's Fisher information), twice: drawn
  within ``--spread`` standard deviations (the league's policy) and the nearest
  neighbours' best (``spread=0``);
* random opponents, same budget per round: what the policy adds over blind pairing;
* round robin: a round is every pairing once (n(n-1)/2 games). It cannot stop mid-round,
  so its cost for any accuracy is a whole number of rounds; the accuracy it has after its
  first round is printed too.

Accuracy: Spearman correlation of the fitted ratings with the true strengths, the mean
width of the 95% rank intervals (bootstrap over games, ``--bootstrap`` replicates) and the
share of bots whose true rank lies inside theirs (a narrow interval that misses the truth
is no accuracy) at the point each format first reaches each of ``--targets``. One run,
all formats on the same true strengths; ratios are games over round robin's games for the
same accuracy (one round).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.matchmaking import ELO_SCALE, SPREAD, Candidate, information_pairings  # noqa: E402
from arena.ratings.batch import Results, _ranks, fit  # noqa: E402


class League:
    """Accumulated single games between bots 0..n-1 of known strength."""

    def __init__(self, true: np.ndarray, rng: np.random.Generator) -> None:
        self.true = true
        self.rng = rng
        self.a: list[np.ndarray] = []
        self.b: list[np.ndarray] = []
        self.won: list[np.ndarray] = []

    @property
    def games(self) -> int:
        return sum(len(x) for x in self.a)

    def play(self, a: np.ndarray, b: np.ndarray) -> None:
        p = 1.0 / (1.0 + 10.0 ** ((self.true[b] - self.true[a]) / 400.0))
        self.a.append(a)
        self.b.append(b)
        self.won.append(self.rng.random(len(a)) < p)

    def results(self) -> Results:
        a, b = np.concatenate(self.a), np.concatenate(self.b)
        pad = np.full(len(a), -1)
        return Results(
            len(self.true),
            np.stack([a, pad], 1),
            np.stack([b, pad], 1),
            np.concatenate(self.won),
            np.arange(len(a)),
        )

    def fit(self, bootstrap: int = 0) -> tuple[np.ndarray, np.ndarray, float, float, float]:
        """(ratings, sigmas, spearman, mean 95% rank-interval width, the share of bots whose
        true rank lies in their 95% rank interval)."""
        res = self.results()
        f = fit(len(self.true), res, bootstrap=bootstrap, seed=1)
        a, b = res.team_a[:, 0], res.team_b[:, 0]
        p = 1.0 / (1.0 + 10.0 ** ((f.ratings[b] - f.ratings[a]) / 400.0))
        info = np.bincount(a, p * (1 - p), len(self.true)) + np.bincount(
            b, p * (1 - p), len(self.true)
        )
        sigma = ELO_SCALE / np.sqrt(np.maximum(info, 1e-3))
        rho = float(spearmanr(f.ratings, self.true).statistic)
        width = float(np.mean(f.rank_high - f.rank_low)) if bootstrap else float("nan")
        true_rank = _ranks(self.true)
        covered = (
            float(np.mean((f.rank_low <= true_rank) & (true_rank <= f.rank_high)))
            if bootstrap
            else float("nan")
        )
        return f.ratings, np.minimum(sigma, 350.0), rho, width, covered


def run_rounds(
    name: str, true: np.ndarray, k: int, targets: list[float], bootstrap: int, seed: int,
    informed: bool, max_games: int, spread: float = 0.0,
) -> tuple[dict[float, tuple[int, float, float, float]], float]:  # fmt: skip
    """Play rounds until Spearman reaches every target: {target: (games, spearman, rank
    interval width) when first reached}, and the mean scheduling time of a round."""
    league = League(true, np.random.default_rng(seed))
    rng = random.Random(seed)
    n = len(true)
    ratings, sigma = np.full(n, 1500.0), np.full(n, 350.0)
    counts = np.zeros(n, dtype=int)
    scheduling = 0.0
    reached: dict[float, tuple[int, float, float, float]] = {}
    rnd = 0
    while league.games < max_games and len(reached) < len(targets):
        rnd += 1
        t0 = time.perf_counter()
        if informed:
            cands = [
                Candidate(i, float(ratings[i]), float(sigma[i]), int(counts[i])) for i in range(n)
            ]
            pairs = information_pairings(cands, k, rng, spread=spread)
        else:  # random opponents, k a bot: k random perfect matchings
            pairs = []
            for _ in range(k):
                perm = list(range(n))
                rng.shuffle(perm)
                pairs += [(perm[i], perm[i + 1]) for i in range(0, n - 1, 2)]
        scheduling += time.perf_counter() - t0
        arr = np.array(pairs)
        league.play(arr[:, 0], arr[:, 1])
        counts += np.bincount(arr.ravel(), minlength=n)
        ratings, sigma, rho, _, _ = league.fit()
        print(f"  {name:<12} round {rnd:3d}: {league.games:>9,} games  spearman {rho:.4f}",
              file=sys.stderr)  # fmt: skip
        for target in targets:
            if target not in reached and rho >= target:
                _, _, rho_b, width, covered = league.fit(bootstrap)
                reached[target] = (league.games, rho_b, width, covered)
    return reached, scheduling / rnd


def round_robin(true: np.ndarray, bootstrap: int, seed: int) -> tuple[int, float, float, float]:
    n = len(true)
    league = League(true, np.random.default_rng(seed))
    a, b = np.triu_indices(n, 1)
    league.play(a, b)
    _, _, rho, width, covered = league.fit(bootstrap)
    return league.games, rho, width, covered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games-per-bot", type=int, default=10)
    parser.add_argument("--targets", default="0.95,0.98,0.99", help="Spearman levels to reach")
    parser.add_argument("--bootstrap", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--spread", type=float, default=SPREAD, help="the drawn policy's spread (sigmas)"
    )
    args = parser.parse_args()
    targets = sorted(float(t) for t in args.targets.split(","))
    true = np.random.default_rng(args.seed).normal(1500, 200, args.bots)
    t0 = time.perf_counter()
    rr_games, rr_rho, rr_width, rr_covered = round_robin(true, args.bootstrap, args.seed)
    print(
        f"round robin, one round: {rr_games:,} games, spearman {rr_rho:.4f}, mean 95% rank "
        f"interval {rr_width:.1f} places ({time.perf_counter() - t0:.0f} s)",
        file=sys.stderr,
    )
    k = args.games_per_bot
    formats = []
    for label, informed, spread in (
        (f"drawn, spread {args.spread:g}", True, args.spread),
        ("nearest neighbours", True, 0.0),
        ("random opponents", False, 0.0),
    ):
        got, sched = run_rounds(label, true, k, targets, args.bootstrap, args.seed, informed,
                                rr_games, spread)  # fmt: skip
        formats.append((label, got, sched, informed))
    print(f"{args.bots} bots, true Elo ~ N(1500, 200), single games, {k} games per bot a round")
    print(f"round robin: one round = {rr_games:,} games -> spearman {rr_rho:.4f}, mean 95% "
          f"rank interval {rr_width:.1f} places, true rank inside it for {rr_covered:.0%}; it "
          "reaches any lower target only at that round's end")  # fmt: skip
    print(f"  {'target':>7} {'pairing':<20} {'games':>9} {'spearman':>9} "
          f"{'rank 95% width':>15} {'covers truth':>13} {'vs round robin':>15}")  # fmt: skip
    for target in targets:
        for label, got, _, _ in formats:
            if target not in got:
                print(f"  {target:>7} {label:<20} {'not reached within one RR round':>50}")
                continue
            games, rho, width, covered = got[target]
            print(f"  {target:>7} {label:<20} {games:>9,} {rho:>9.4f} {width:>15.1f} "
                  f"{covered:>13.0%} {games / rr_games:>15.1%}")  # fmt: skip
    for label, _, sched, informed in formats:
        if informed:
            print(
                f"pairing one round ({args.bots} bots x {k}), {label}: {sched * 1000:.0f} ms mean"
            )


if __name__ == "__main__":
    main()
