"""House bot strength over mirrored pairs: greedy vs random and search vs greedy.

Each matchup plays --games games (half as many mirrored pairs: same deck, bots swap teams)
spread over --jobs processes, and prints the win rate with its Wilson 95% interval.

    .venv/bin/python bench/house_bots.py [--games 2000] [--jobs 2] [--mode simple]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.cli import print_summary  # noqa: E402
from referee.play import MatchStats, play_pairs  # noqa: E402


def _chunk(args: tuple[tuple[str, str], range, int, str]) -> MatchStats:
    names, pairs, seats, mode = args
    return play_pairs(names, pairs, seats=seats, mode=mode, seed=1)


def run(names: tuple[str, str], games: int, jobs: int, seats: int, mode: str) -> None:
    pairs = games // 2
    bounds = [pairs * i // jobs for i in range(jobs + 1)]
    chunks = [(names, range(bounds[i], bounds[i + 1]), seats, mode) for i in range(jobs)]
    started = time.perf_counter()
    total = MatchStats(names)
    with ProcessPoolExecutor(jobs) as pool:
        for part in pool.map(_chunk, chunks):
            total.merge(part)
    print_summary(
        total, time.perf_counter() - started, f"{mode} mode, {seats} seats, {jobs} processes"
    )
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--mode", default="simple")
    parser.add_argument("--matchups", default="greedy/random,search/greedy")
    args = parser.parse_args()
    for matchup in args.matchups.split(","):
        a, b = matchup.split("/")
        run((a, b), args.games, args.jobs, args.seats, args.mode)


if __name__ == "__main__":
    main()
