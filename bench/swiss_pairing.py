"""How long the Swiss pairing (``arena.events.pairing.swiss_round``) takes, round by round,
on whole simulated Swisses of random results, up to the most rounds an event may have
(``max_swiss_rounds``: ceil(n/2), where backtracking has the least room).

    .venv/bin/python bench/swiss_pairing.py [--sizes 8,16,32,64] [--events 30] [--seed 1]

Per size: the median and the worst time to pair a round over every round of ``--events``
Swisses, and, as the baseline measured in the same run, the median time to pair round 1
(no history: the plain top-half-v-bottom-half pass); their ratio says what avoiding
repeats and backtracking cost on top of that. Also the share of rounds where the first
choice of the Dutch order was not possible (some backtracking happened).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.events.pairing import SwissPlayer, max_swiss_rounds, swiss_round  # noqa: E402


def one_event(n: int, rng: random.Random) -> tuple[float, list[float], int]:
    ids = list(range(1, n + 1))
    rating = {i: rng.uniform(1200, 1800) for i in ids}
    score = dict.fromkeys(ids, 0.0)
    had: set[int] = set()
    met: set[frozenset[int]] = set()
    first = 0.0
    later: list[float] = []
    moved = 0
    for number in range(1, max_swiss_rounds(n) + 1):
        players = [SwissPlayer(i, score[i], rating[i], i in had) for i in ids]
        start = time.perf_counter()
        drawn = swiss_round(players, met)
        took = time.perf_counter() - start
        plain = swiss_round(players, set())  # the same round if repeats were allowed
        moved += plain.pairs != drawn.pairs
        if number == 1:
            first = took
        else:
            later.append(took)
        for a, b in drawn.pairs:
            met.add(frozenset((a, b)))
            r = rng.choice((1.0, 0.5, 0.0))
            score[a] += r
            score[b] += 1 - r
        if drawn.bye is not None:
            had.add(drawn.bye)
            score[drawn.bye] += 1
    return first, later, moved


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8,16,32,64")
    ap.add_argument("--events", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"{'bots':>5} {'rounds':>6} {'round 1 median':>15} {'later median':>13} "
          f"{'later worst':>12} {'ratio':>6} {'rounds moved':>13}")  # fmt: skip
    for n in (int(x) for x in args.sizes.split(",")):
        firsts, laters, moved = [], [], 0
        for _ in range(args.events):
            first, later, m = one_event(n, rng)
            firsts.append(first)
            laters += later
            moved += m
        base = statistics.median(firsts)
        med = statistics.median(laters) if laters else base
        rounds = max_swiss_rounds(n)
        print(
            f"{n:>5} {rounds:>6} {base * 1e3:>12.3f} ms {med * 1e3:>10.3f} ms "
            f"{max(laters or [base]) * 1e3:>9.3f} ms {med / base:>6.2f} "
            f"{moved / (args.events * rounds):>12.0%}"
        )


if __name__ == "__main__":
    main()
