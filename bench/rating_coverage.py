"""Coverage of the batch fit's 95% rating and rank intervals on simulated leagues.

    .venv/bin/python bench/rating_coverage.py [--sizes 50,100,...,1000] [--intervals 4000]
        [--rounds 5] [--games-per-bot 10] [--draws 0.2] [--cycle 30] [--exact]

Leagues not of the fit's own model: true strength ~ N(1500, 200) Elo, and a game between a
and b has an expected score for a of the Elo curve at ``s_a - s_b + cycle x sin(t_a - t_b)``
(``t`` uniform: an intransitive, rock-paper-scissors part of ``--cycle`` Elo), of which
``--draws`` x 4p(1 - p) is drawn (a draw scores 1/2 each; most draws between even
bots). Two configurations, as the arena schedules them (``arena/scheduling.py``,
``arena/services/matchmade.py``):

* ``round robin``: one cycle, every pairing once as a pair of games with the teams swapped
  (n(n-1) games), the pair a unit of the fit;
* ``matchmade``: ``--rounds`` rounds of ``information_pairings`` (``--games-per-bot``
  single games a bot a round on average), each round paired on the fit of the games before.

Coverage: the share of bots whose true strength (centred, as the fit is) lies inside its
95% rating interval and whose true rank (by strength) lies inside its 95% rank interval,
over as many leagues of each size as make about ``--intervals`` bots (at least 3): its
Monte Carlo standard error is printed beside it (between leagues, so correlation within a
league counts). ``--exact``: the old intervals beside (200 bootstrap replicates refitted in
full), up to 300 bots.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.matchmaking import Candidate, information_pairings, sigma_of  # noqa: E402
from arena.ratings.batch import Fit, Results, _ranks, fit  # noqa: E402


class World:
    def __init__(self, n: int, seed: int, draws: float, cycle: float) -> None:
        self.rng = np.random.default_rng(seed)
        self.strength = self.rng.normal(1500, 200, n)
        self.angle = self.rng.uniform(0, 2 * np.pi, n)
        self.draws, self.cycle = draws, cycle
        self.n = n

    def play(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """a's scores: 1, 1/2 or 0."""
        diff = self.strength[a] - self.strength[b]
        diff = diff + self.cycle * np.sin(self.angle[a] - self.angle[b])
        p = 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
        drawn = self.draws * 4 * p * (1 - p)
        u = self.rng.random(len(a))
        return np.where(u < p - drawn / 2, 1.0, np.where(u < p + drawn / 2, 0.5, 0.0))


def results(n: int, a: np.ndarray, b: np.ndarray, score: np.ndarray, unit: np.ndarray) -> Results:
    pad = np.full(len(a), -1)
    return Results(n, np.stack([a, pad], 1), np.stack([b, pad], 1), score, unit)


def round_robin(world: World) -> Results:
    a, b = np.triu_indices(world.n, 1)
    first, second = world.play(a, b), world.play(b, a)
    units = np.arange(len(a))
    return results(
        world.n, np.concatenate([a, b]), np.concatenate([b, a]),
        np.concatenate([first, second]), np.concatenate([units, units]),
    )  # fmt: skip


def matchmade(world: World, rounds: int, k: int, seed: int) -> Results:
    n = world.n
    rng = random.Random(seed)
    a_all: list[np.ndarray] = []
    b_all: list[np.ndarray] = []
    s_all: list[np.ndarray] = []
    counts = np.zeros(n, dtype=int)
    f: Fit | None = None
    for _ in range(rounds):
        cands = [
            Candidate(
                i,
                1500.0 if f is None else float(f.ratings[i]),
                sigma_of(int(counts[i]), None if f is None else float(f.low[i]),
                         None if f is None else float(f.high[i])),
                int(counts[i]),
            )
            for i in range(n)
        ]  # fmt: skip
        pairs = np.array(information_pairings(cands, k, rng))
        a, b = pairs[:, 0], pairs[:, 1]
        a_all.append(a)
        b_all.append(b)
        s_all.append(world.play(a, b))
        counts += np.bincount(pairs.ravel(), minlength=n)
        a_, b_ = np.concatenate(a_all), np.concatenate(b_all)
        f = fit(n, results(n, a_, b_, np.concatenate(s_all), np.arange(len(a_))), seed=seed)
    a_, b_ = np.concatenate(a_all), np.concatenate(b_all)
    return results(n, a_, b_, np.concatenate(s_all), np.arange(len(a_)))


def covered(world: World, f: Fit) -> tuple[float, float, float, float]:
    """(rating coverage, rank coverage, mean rating-interval width, mean rank width)."""
    true = world.strength - world.strength.mean() + 1500
    rank = _ranks(world.strength)
    return (
        float(np.mean((f.low <= true) & (true <= f.high))),
        float(np.mean((f.rank_low <= rank) & (rank <= f.rank_high))),
        float(np.mean(f.high - f.low)),
        float(np.mean(f.rank_high - f.rank_low)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,100,150,200,300,500,750,1000")
    parser.add_argument("--intervals", type=int, default=4000, help="bots per size, about")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games-per-bot", type=int, default=10)
    parser.add_argument("--draws", type=float, default=0.2)
    parser.add_argument("--cycle", type=float, default=30.0)
    parser.add_argument("--configs", default="round robin,matchmade")
    parser.add_argument("--exact", action="store_true")
    args = parser.parse_args()
    print(f"95% intervals of the batch fit; draws {args.draws} x 4p(1-p), intransitive part "
          f"{args.cycle:.0f} Elo; matchmade: {args.rounds} rounds of {args.games_per_bot} "
          "games a bot; coverage +- its standard error over the leagues")  # fmt: skip
    print(f"  {'bots':>5} {'configuration':<12} {'leagues':>7} {'games':>9} {'method':<10}"
          f" {'rating cov.':>14} {'rank cov.':>14} {'rating width':>12} {'rank width':>10}"
          f" {'fit s':>6}")  # fmt: skip
    for n in (int(x) for x in args.sizes.split(",")):
        leagues = max(3, round(args.intervals / n))
        for config in args.configs.split(","):
            rows: dict[str, list[tuple[float, float, float, float]]] = {}
            spent: dict[str, list[float]] = {}
            games = 0
            for league in range(leagues):
                world = World(n, 1000 * n + league, args.draws, args.cycle)
                if config == "round robin":
                    res = round_robin(world)
                else:
                    res = matchmade(world, args.rounds, args.games_per_bot, league)
                games = len(res.a_won)
                methods: dict[str, bool | None] = {"posterior": None}
                if args.exact and n <= 300:
                    methods["bootstrap"] = True
                for label, exact in methods.items():
                    t0 = time.perf_counter()
                    f = fit(n, res, seed=league, exact=exact)
                    spent.setdefault(label, []).append(time.perf_counter() - t0)
                    rows.setdefault(label, []).append(covered(world, f))
            for label, got in rows.items():
                arr = np.array(got)
                se = arr.std(axis=0, ddof=1) / np.sqrt(len(arr)) if len(arr) > 1 else arr * 0
                print(f"  {n:>5} {config:<12} {leagues:>7} {games:>9,} {label:<10}"
                      f" {arr[:, 0].mean():>8.1%} ±{se[0]:.1%}"
                      f" {arr[:, 1].mean():>8.1%} ±{se[1]:.1%}"
                      f" {arr[:, 2].mean():>12.1f} {arr[:, 3].mean():>10.1f}"
                      f" {np.median(spent[label]):>6.2f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
