"""Version tests ("is v2 better than v1?", arena/adapters/bothost/versiontest.py) on this machine:

1. the cost of one mirrored pair played as a test plays it (two games, a fresh sandbox per
   seat per game: four sandboxes), beside the same pair between the SDK's in-process house
   bots (no sandbox) in the same run: seconds per pair, median of N, and their ratio;
2. how many pairs the SPRT needs to accept H1 for greedy against random (elo0 = 0,
   elo1 = 100, alpha = beta = 0.05), replayed from the pairs just played (in-process, many
   runs): median and p90 of pairs to a verdict.

    sudo .venv/bin/python bench/version_test.py [--pairs 10] [--runs 200]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from arena.adapters.bothost import versiontest  # noqa: E402
from arena.adapters.bothost.probe import check_available  # noqa: E402
from arena.adapters.bothost.sandbox import Limits  # noqa: E402
from arena.deals import first_team_of, new_seed  # noqa: E402
from arena.ratings import sprt  # noqa: E402
from avenue_sdk.local.game import play  # noqa: E402
from avenue_sdk.local.seats import HouseSeat  # noqa: E402
from referee import GameConfig  # noqa: E402

RANDOM = b"from avenue_sdk.house import RandomBot\n\n\nclass Mine(RandomBot):\n    pass\n"
GREEDY = b"from avenue_sdk.house import GreedyBot\n\n\nclass Mine(GreedyBot):\n    pass\n"


def house_pair() -> int:
    """Greedy's wins in one mirrored pair against random, in-process."""
    seed = new_seed()
    config = GameConfig(first_team=first_team_of(seed))
    s = seed % 2**32
    wins = 0
    for game in range(2):
        seats = [HouseSeat("greedy", s), HouseSeat("random", s + 1)]
        if game:
            seats.reverse()
        result = play(seats, config, seed, match_id=f"house-{game}").result
        wins += (result.winner == 0) == (game == 0)
    return wins


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    check_available()
    cand = versiontest._Code({"mine.py": GREEDY}, "mine:Mine")
    base = versiontest._Code({"mine.py": RANDOM}, "mine:Mine")
    limits = Limits.from_settings()
    sandboxed, in_process, cells = [], [], []
    for i in range(args.pairs):
        t = time.perf_counter()
        outcome = versiontest.play_pair(cand, base, limits, f"bench-{i}")
        sandboxed.append(time.perf_counter() - t)
        cells.append(2 * sum(o.candidate_won for o in outcome))
        t = time.perf_counter()
        house_pair()
        in_process.append(time.perf_counter() - t)
    med_s, med_h = statistics.median(sandboxed), statistics.median(in_process)
    print(f"pairs: {args.pairs}")
    print(f"sandboxed pair (4 sandboxes): median {med_s * 1000:.0f} ms")
    print(f"in-process pair (house bots): median {med_h * 1000:.0f} ms")
    print(f"ratio sandboxed / in-process (median / median): {med_s / med_h:.1f}x")
    # pairs to a verdict, resampling the observed pair outcomes
    rng = random.Random(1)
    needed, verdicts = [], []
    for _ in range(args.runs):
        counts = [0] * 5
        for n in range(1, 1001):
            counts[rng.choice(cells)] += 1
            st = sprt.status(counts, 0.0, 100.0, games=2 * n, max_games=2000)
            if st.verdict is not sprt.Verdict.RUNNING:
                break
        needed.append(n)
        verdicts.append(st.verdict.value)
    needed.sort()
    print(
        f"greedy vs random, elo0=0 elo1=100: pairs to a verdict median {statistics.median(needed)}"
        f", p90 {needed[int(0.9 * (len(needed) - 1))]} over {args.runs} resampled runs; "
        f"H1 in {verdicts.count('h1')}/{args.runs}"
    )
    print(f"observed pentanomial cells: {[cells.count(c) for c in range(5)]}")


if __name__ == "__main__":
    main()
