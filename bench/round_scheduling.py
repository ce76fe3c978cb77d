"""Scheduling one real round in PostgreSQL: the information format (``games_per_bot`` a
bot, written in batches of ``ARENA_SCHEDULE_BATCH``) for a large league, beside round robin
(every pairing, one transaction) for a league it can still schedule.

    .venv/bin/python bench/round_scheduling.py [--bots 1000] [--games-per-bot 10]
        [--round-robin-bots 200] [--repeat 3]

Needs PostgreSQL (DATABASE_URL, default .../agent_avenue_schedbench, created and migrated if
missing); no Redis (nothing is sent: rounds are scheduled with ``enqueue=False``). Each
league is made of house bots with a rating history (90% rated over 200 games with ratings
~ N(1500, 200), 10% new), as the matchmaking would find a league that has played a while.

Per case: wall time of ``do_schedule_round`` (median and best of ``--repeat`` rounds, each
a new round of the same league, the cases' rounds interleaved so that they share the
machine's load; the same statistic on both sides of every ratio), the peak
of Python allocations during one more round (tracemalloc; not the process's RSS), SQL
statements of one more round (django's CaptureQueriesContext), transactions and the rows
(matches + participations) of the largest. Round robin for 1,000 bots (999,000 matches)
is not run: the issue measured ~20 min and ~4 GB for it in one transaction.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import tracemalloc
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agent_avenue_schedbench")
os.environ.pop("REDIS_URL", None)  # nothing is sent
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")


def _prepare_database() -> None:
    subprocess.run(
        [sys.executable, "scripts/check_services.py", "--create-database"],
        cwd=ROOT, check=False, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True
    )


_prepare_database()

import django  # noqa: E402

django.setup()

from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from arena.models import Bot, BotKind, Entry, League, Match, Participation  # noqa: E402
from arena.ratings.models import LiveRating  # noqa: E402
from arena.services import leagues as svc  # noqa: E402
from arena.services.rounds import Scheduled, do_schedule_round  # noqa: E402


def drop(name: str) -> None:
    """The bench's league of that name, its matches and bots (a previous run's too)."""
    league = League.objects.filter(name=name).first()
    if league is None:
        return
    Participation.objects.filter(league=league).delete()  # entries are protected by them
    Match.objects.filter(league=league).delete()
    league.delete()
    Bot.objects.filter(name__startswith=f"{league.slug}-").delete()


def make_league(name: str, n: int, fmt: str, games_per_bot: int) -> League:
    drop(name)
    league = svc.do_create_league(
        svc.LeagueSettings(name=name, format=fmt, games_per_bot=games_per_bot)
    )
    bots = Bot.objects.bulk_create(
        Bot(name=f"{league.slug}-{i}", kind=BotKind.HOUSE, house_spec="random") for i in range(n)
    )
    Entry.objects.bulk_create(Entry(league=league, bot=b) for b in bots)
    rng = random.Random(n)
    new = n // 10
    LiveRating.objects.bulk_create(
        LiveRating(
            league=league,
            bot=b,
            rating=Decimal(1500) if i < new else Decimal(round(rng.gauss(1500, 200), 4)),
            games=0 if i < new else 200,
        )
        for i, b in enumerate(bots)
    )
    return league


def schedule(league: League) -> Scheduled:
    scheduled = do_schedule_round(league, enqueue=False, when_previous_incomplete=True)
    assert scheduled is not None
    return scheduled


def measure(cases: list[tuple[str, League]], repeat: int) -> list[dict[str, float]]:
    """Timed rounds interleaved (case by case, ``repeat`` times) so that every case sees the
    same machine load; then one traced round and one counted round per case."""
    times: list[list[float]] = [[] for _ in cases]
    matches = [0] * len(cases)
    for _ in range(repeat):
        for i, (_, league) in enumerate(cases):
            t0 = time.perf_counter()
            scheduled = schedule(league)
            times[i].append(time.perf_counter() - t0)
            matches[i] = len(scheduled.matches)
    rows = []
    for i, (label, league) in enumerate(cases):
        tracemalloc.start()
        schedule(league)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        with CaptureQueriesContext(connection) as captured:
            counted = schedule(league)
        row = {
            "matches": matches[i],
            "median_s": statistics.median(times[i]),
            "best_s": min(times[i]),
            "peak_mb": peak / 2**20,
            "statements": len(captured.captured_queries),
            "transactions": counted.transactions,
            "largest_rows": counted.largest_transaction_rows,
        }
        print(
            f"  {label:<34} {row['matches']:>8,} {row['median_s']:>9.2f} {row['best_s']:>8.2f} "
            f"{row['peak_mb']:>9.1f} {row['statements']:>6} {row['transactions']:>5} "
            f"{row['largest_rows']:>9,}",
            flush=True,
        )
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games-per-bot", type=int, default=10)
    parser.add_argument("--round-robin-bots", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from django.conf import settings

    k, big, small = args.games_per_bot, args.bots, args.round_robin_bots
    print(
        f"one round scheduled in PostgreSQL; information format: {k} games per bot, batches "
        f"of {settings.ARENA_SCHEDULE_BATCH} matches; times: median and best of {args.repeat}"
    )
    print(
        f"  {'case':<34} {'matches':>8} {'median s':>9} {'best s':>8} {'peak MiB':>9} "
        f"{'stmts':>6} {'txns':>5} {'max rows':>9}"
    )
    info_big, info_small, rr_small = measure(
        [
            (f"information, {big} bots", make_league("Bench info big", big, "information", k)),
            (
                f"information, {small} bots",
                make_league("Bench info small", small, "information", k),
            ),
            (
                f"round robin, {small} bots",
                make_league("Bench rr small", small, "round_robin", k),
            ),
        ],
        args.repeat,
    )
    print(f"ratios (median time; the same statistic on both sides), {small} bots:")
    print(
        f"  round robin / information: {rr_small['median_s'] / info_small['median_s']:.1f}x "
        f"the time, {rr_small['matches'] / info_small['matches']:.1f}x the matches, "
        f"{rr_small['peak_mb'] / info_small['peak_mb']:.1f}x the peak memory, "
        f"{rr_small['largest_rows'] / info_small['largest_rows']:.1f}x the largest transaction"
    )
    print(
        f"  information {big} bots / {small} bots: "
        f"{info_big['median_s'] / info_small['median_s']:.1f}x the time, "
        f"{info_big['matches'] / info_small['matches']:.1f}x the matches, "
        f"{info_big['statements'] / info_small['statements']:.1f}x the statements"
    )
    for name in ("Bench info big", "Bench info small", "Bench rr small"):
        drop(name)


if __name__ == "__main__":
    main()
