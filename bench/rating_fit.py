"""Batch rating fit time: the deployed fit (``arena.ratings.batch.fit``) over synthetic
results of N bots (default 1,000 bots, 1,000,000 games in mirrored pairs), with its
intervals' coverage of the true strengths.

    .venv/bin/python bench/rating_fit.py [--bots 1000] [--games 1000000] [--bootstrap 100]

    .venv/bin/python bench/rating_fit.py --small [--rounds 5]

    .venv/bin/python bench/rating_fit.py --sizes [50,100,150,200,300,500,750,1000]
        [--rounds 3] [--old-rounds 1]

``--sizes``: the fit a league runs at the end of each round, per size, on two game graphs:
one round robin cycle as the arena schedules it (every pairing a pair of games, n(n-1)
games) and a matchmade league's 10 rounds of 10 games a bot (single games against
neighbours in strength: 50n games); the deployed fit (``fit``'s default) beside the fit
before it (200 bootstrap replicates refitted in full up to ``EXACT_ROWS`` match-ups, else
one Newton step each), in the same run: CPU seconds of the process (one BLAS thread:
a core), the median of ``--rounds`` (``--old-rounds`` for the old fit), and the "stopped
short of the optimum" warnings each logged.

``--small``: the fit a worker runs when a small league's round completes (8, 16, 30, 60 and
100 bots, ``--rounds`` round robins of mirrored pairs, 200 replicates refitted in full):
the replicates solved together (``arena.ratings.replicates``) beside one SciPy run each,
in the same run, the median of ``--rounds`` timings on each side, and the largest
difference between the two fits' interval ends.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core: the figures are CPU time of one thread

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.ratings.batch import EXACT_ROWS, Design, Results, fit  # noqa: E402


def mirrored_pairs(
    bots: int, true: np.ndarray, a: np.ndarray, b: np.ndarray, rng: np.random.Generator
) -> Results:
    """A mirrored pair of games for each (a, b): a is team A in the first game."""
    p = 1.0 / (1.0 + 10.0 ** ((true[b] - true[a]) / 400.0))
    a_wins = rng.random((len(a), 2)) < p[:, None]  # a's two games
    pad = np.full(len(a), -1)
    team_a = np.concatenate([np.stack([a, pad], 1), np.stack([b, pad], 1)])
    team_b = np.concatenate([np.stack([b, pad], 1), np.stack([a, pad], 1)])
    won = np.concatenate([a_wins[:, 0], ~a_wins[:, 1]])
    unit = np.concatenate([np.arange(len(a)), np.arange(len(a))])
    return Results(bots, team_a, team_b, won, unit)


def synthetic(bots: int, games: int, seed: int = 1) -> tuple[np.ndarray, Results]:
    """Mirrored pairs between random opponents."""
    rng = np.random.default_rng(seed)
    true = rng.normal(1500, 200, bots)
    pairs = games // 2
    a = rng.integers(0, bots, pairs)
    b = (a + rng.integers(1, bots, pairs)) % bots  # never a bot against itself
    return true, mirrored_pairs(bots, true, a, b, rng)


def round_robin(bots: int, seed: int = 1) -> Results:
    """One round robin of pairs of games (both games of a pairing one unit)."""
    rng = np.random.default_rng(seed)
    true = rng.normal(1500, 200, bots)
    a, b = np.triu_indices(bots, 1)
    return mirrored_pairs(bots, true, a, b, rng)


def matchmade(bots: int, seed: int = 1, rounds: int = 10, per_bot: int = 10) -> Results:
    """Single games against neighbours in strength (a matchmade league's graph): each
    bot ``rounds x per_bot / 2`` times the first of a pair, the other a few dozen places
    away."""
    rng = np.random.default_rng(seed)
    true = rng.normal(1500, 200, bots)
    order = np.argsort(true)
    games = bots * rounds * per_bot // 2
    at = rng.integers(0, bots, games)
    step = np.maximum(1, np.abs(rng.normal(0, max(3.0, 0.03 * bots), games))).astype(int)
    other = np.clip(at + rng.choice([-1, 1], games) * step, 0, bots - 1)
    other = np.where(other == at, (at + 1) % bots, other)
    a, b = order[at], order[other]
    p = 1.0 / (1.0 + 10.0 ** ((true[b] - true[a]) / 400.0))
    pad = np.full(games, -1)
    won = rng.random(games) < p
    return Results(bots, np.stack([a, pad], 1), np.stack([b, pad], 1), won, np.arange(games))


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.short = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.short += "stopped short" in record.getMessage()


def sizes(which: list[int], timings: int, old_timings: int) -> None:
    counter = _Count()
    logging.getLogger("arena.ratings.batch").addHandler(counter)
    logging.getLogger("arena.ratings.batch").propagate = False
    print(f"the fit at a round's end; CPU s of one core, median of {timings} (new) and "
          f"{old_timings} (old) in the same run; 'short': stopped-short warnings")  # fmt: skip
    print(f"  {'bots':>5} {'graph':<12} {'games':>9} {'match-ups':>9} {'deployed':>9} {'short':>5}"
          f" {'before':>9} {'short':>5} {'old path':<14} {'ratio':>7}")  # fmt: skip
    for bots in which:
        for graph, games in (("round robin", round_robin(bots)), ("matchmade", matchmade(bots))):
            rows = Design(games).x.shape[0]
            old_exact = rows <= EXACT_ROWS
            spent: dict[str, list[float]] = {"new": [], "old": []}
            short = {"new": 0, "old": 0}
            for side, exact, times in (("new", None, timings), ("old", old_exact, old_timings)):
                for _ in range(times):
                    before = counter.short
                    t0 = time.process_time()
                    fit(bots, games, bootstrap=200, exact=exact)
                    spent[side].append(time.process_time() - t0)
                    short[side] += counter.short - before
            new, old = (float(np.median(spent[k])) for k in ("new", "old"))
            path = "200 refits" if old_exact else "200 one-step"
            print(f"  {bots:>5} {graph:<12} {len(games.a_won):>9,} {rows:>9,} {new:>8.2f}s"
                  f" {short['new']:>5} {old:>8.2f}s {short['old']:>5} {path:<14}"
                  f" {old / new:>6.1f}x", flush=True)  # fmt: skip


def small(timings: int) -> None:
    print(f"small leagues, 1 round robin of mirrored pairs, 200 replicates; median of {timings}")
    print("  bots  games   together   one SciPy run each   ratio   largest difference")
    for bots in (8, 16, 30, 60, 100):
        games = round_robin(bots)
        spent: dict[bool, list[float]] = {True: [], False: []}
        fits = {}
        for _ in range(timings):
            for together in (True, False):
                t0 = time.perf_counter()
                fits[together] = fit(bots, games, bootstrap=200, exact=True, together=together)
                spent[together].append(time.perf_counter() - t0)
        a, b = (float(np.median(spent[k])) for k in (True, False))
        diff = max(np.max(np.abs(fits[True].low - fits[False].low)),
                   np.max(np.abs(fits[True].high - fits[False].high)))  # fmt: skip
        print(f"  {bots:4d} {len(games.a_won):6d} {a * 1000:8.1f} ms {b * 1000:14.1f} ms"
              f"   {b / a:6.1f}x   {diff:.1e} Elo")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--bootstrap", type=int, default=100)
    parser.add_argument("--small", action="store_true", help="small leagues' fits, see above")
    parser.add_argument("--rounds", type=int, default=5, help="timings per side with --small")
    parser.add_argument("--sizes", nargs="?", const="50,100,150,200,300,500,750,1000")
    parser.add_argument("--old-rounds", type=int, default=1, help="old fit's timings, --sizes")
    args = parser.parse_args()
    if args.sizes:
        sizes([int(x) for x in args.sizes.split(",")], args.rounds, args.old_rounds)
        return
    if args.small:
        small(args.rounds)
        return
    t0 = time.perf_counter()
    true, games = synthetic(args.bots, args.games)
    t1 = time.perf_counter()
    point = fit(args.bots, games, bootstrap=0)
    t2 = time.perf_counter()
    full = fit(args.bots, games, bootstrap=args.bootstrap)
    t3 = time.perf_counter()
    centred = true - true.mean() + 1500
    inside = np.mean((centred >= full.low) & (centred <= full.high))
    err = np.sqrt(np.mean((full.ratings - centred) ** 2))
    n_games = len(games.a_won)
    print(f"{args.bots} bots, {n_games:,} games ({n_games // 2:,} mirrored pairs)")
    print(f"  generate synthetic results      {t1 - t0:6.2f} s")
    print(f"  point fit (no bootstrap)        {t2 - t1:6.2f} s")
    print(f"  fit + {args.bootstrap} bootstrap replicates   {t3 - t2:6.2f} s")
    print(f"  rating error (RMS)              {err:6.1f} Elo")
    print(f"  true rating inside its 95% interval: {inside:.1%} of bots")
    print(f"  point fit spread {np.std(point.ratings):.0f} Elo (true {np.std(true):.0f})")


if __name__ == "__main__":
    main()
