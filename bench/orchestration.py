"""Orchestration per match: the whole ``arena.run_match`` path on a real Celery worker
(claim, game, result, ratings, analytics, round completion) beside a no-op task on the
same worker in the same run, and the SQL statements one result costs.

    .venv/bin/python bench/orchestration.py [--bots 12] [--batches 5] [--conn-max-age 600]

Needs PostgreSQL and Redis (DATABASE_URL, default .../agent_avenue_bench_orch, created and
migrated if missing; REDIS_URL, default redis://127.0.0.1:6379/0). One worker,
``--pool=solo``, on a queue of this run's own, with ``DATABASE_CONN_MAX_AGE`` as given (its
log: artifacts/orchestration/).

Method: batches alternate (no-op, matches, no-op, matches, ...). A no-op batch sends as many
``bench.noop`` tasks as a round has matches and times them from the first send until the
last has run; a match batch schedules a round of house bots (every match sent on commit)
and times it until the last result commits, then waits for the round's batch fit so that
it does not overlap the next batch. Per task: batch wall time / tasks. Orchestration per
match: that, minus the runner's own median game time in the batch (``Match.duration_ms``).
Statistic: the median over the batches, on both sides. Both sides' wall time includes
sending their messages (the no-op tasks one by one, the matches on the round's commit);
the match side's also includes scheduling the round (``do_schedule_round`` in this
process), shown on its own line ("of which scheduling"). Before the batches, the worker
runs 20 no-op tasks and plays one small round, unmeasured, so that no batch pays for the
worker's first imports and connections.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
QUEUE = f"bench-orch-{uuid.uuid4().hex[:8]}"
LOGS = ROOT / "artifacts" / "orchestration"
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agent_avenue_bench_orch")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
os.environ["CELERY_QUEUE"] = QUEUE
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

subprocess.run(
    [sys.executable, "scripts/check_services.py", "--create-database"],
    cwd=ROOT,
    check=True,
    stdout=subprocess.DEVNULL,
)
subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from arena.models import Match, MatchStatus  # noqa: E402
from arena.ratings.models import BatchRating  # noqa: E402
from arena.services import leagues as svc  # noqa: E402
from arena.services.matches import play_match  # noqa: E402
from arena.services.rounds import do_schedule_round  # noqa: E402
from bench.orchestration_tasks import noop  # noqa: E402


def start_worker(conn_max_age: int) -> tuple[subprocess.Popen[bytes], Path]:
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{QUEUE}.log"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DATABASE_CONN_MAX_AGE": str(conn_max_age)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "bench.orchestration_tasks",
            "worker",
            "--pool=solo",
            "--concurrency",
            "1",
            "-Q",
            QUEUE,
            "-n",
            f"{QUEUE}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "--loglevel",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while "ready." not in log.read_text(errors="replace"):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit(f"the worker did not start; see {log}")
        time.sleep(0.1)
    return proc, log


def make_league(bots: int, tag: str) -> svc.League:
    league = svc.do_create_league(svc.LeagueSettings(name=f"bench orch {tag}"))
    for i in range(bots):
        spec = "greedy" if i % 2 else "random"
        svc.do_enter(league, svc.do_create_house_bot(f"orch-{tag}-{spec}-{i}", spec))
    return league


def wait(predicate: object, what: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.005)


def noop_batch(r: redis.Redis, n: int) -> float:
    """Seconds per task for ``n`` no-op tasks sent at once."""
    counter = f"{QUEUE}:noop:{uuid.uuid4().hex}"
    t0 = time.perf_counter()
    for _ in range(n):
        noop.apply_async((counter,), queue=QUEUE)
    wait(lambda: int(r.get(counter) or 0) >= n, "the no-op tasks")
    wall = time.perf_counter() - t0
    r.delete(counter)
    return wall / n


def match_batch(bots: int, tag: str) -> tuple[float, float, float, int]:
    """(seconds per match, median game seconds, scheduling seconds per match, matches) for
    one round sent at once."""
    league = make_league(bots, tag)
    t0 = time.perf_counter()
    scheduled = do_schedule_round(league)  # every match sent on commit
    scheduling = time.perf_counter() - t0
    assert scheduled is not None
    live = [MatchStatus.QUEUED, MatchStatus.RUNNING]
    pending = Match.objects.filter(round=scheduled.round, status__in=live)
    wait(lambda: not pending.exists(), "the round's matches")
    wall = time.perf_counter() - t0
    n = len(scheduled.matches)
    done = Match.objects.filter(round=scheduled.round, status=MatchStatus.FINISHED)
    durations = list(done.values_list("duration_ms", flat=True))
    assert len(durations) == n, f"{n - len(durations)} matches did not finish"
    # the round's batch fit runs on this worker too: let it end before the next batch
    wait(lambda: BatchRating.objects.filter(league=league).exists(), "the batch fit")
    game = statistics.median(d for d in durations if d is not None) / 1000
    return wall / n, game, scheduling / n, n


def statements_per_result(bots: int) -> list[int]:
    """In this process: the statements of ``play_match`` (claim to round completion)."""
    league = make_league(bots, f"count-{uuid.uuid4().hex[:6]}")
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    counts = []
    for match_id in scheduled.matches[:5]:
        with CaptureQueriesContext(connection) as queries:
            play_match(match_id)
        counts.append(len(queries.captured_queries))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--batches", type=int, default=5, help="of each kind")
    parser.add_argument("--conn-max-age", type=int, default=600)
    args = parser.parse_args()
    counts = statements_per_result(args.bots)
    r = redis.Redis.from_url(os.environ["REDIS_URL"])
    proc, log = start_worker(args.conn_max_age)
    noops: list[float] = []
    per_match: list[float] = []
    games: list[float] = []
    schedulings: list[float] = []
    n = 0
    stamp = uuid.uuid4().hex[:6]
    try:
        noop_batch(r, 20)  # warm the worker
        match_batch(4, f"{stamp}-warm")  # and its first match: imports, connections
        for b in range(args.batches):
            m, g, sch, n = match_batch(args.bots, f"{stamp}-{b}")
            per_match.append(m)
            games.append(g)
            schedulings.append(sch)
            noops.append(noop_batch(r, n))
            print(
                f"batch {b + 1}: {n} matches, {m * 1000:6.2f} ms per match "
                f"(game {g * 1000:5.2f} ms), no-op {noops[-1] * 1000:5.2f} ms per task"
            )
    finally:
        proc.terminate()
        proc.wait(30)
    noop_ms = statistics.median(noops) * 1000
    match_ms = statistics.median(per_match) * 1000
    game_ms = statistics.median(games) * 1000
    overhead = statistics.median(m - g for m, g in zip(per_match, games, strict=True)) * 1000
    scheduling_ms = statistics.median(schedulings) * 1000
    print()
    print(
        f"{args.bots} house bots, {n} matches a round, 1 worker (--pool=solo), "
        f"DATABASE_CONN_MAX_AGE={args.conn_max_age}; medians over {args.batches} batches"
    )
    print(f"  no-op task:                 {noop_ms:6.2f} ms per task")
    print(f"  run_match, whole task:      {match_ms:6.2f} ms per match")
    print(f"  of which the game (runner): {game_ms:6.2f} ms")
    print(
        f"  orchestration per match:    {overhead:6.2f} ms = {overhead / noop_ms:.1f}x the no-op "
        "task (target <= 5x)"
    )
    print(f"    of which scheduling the round: {scheduling_ms:6.2f} ms per match (in this process)")
    print(f"  SQL statements per result (play_match, in process): {counts}")
    print(f"  worker log: {log}")


if __name__ == "__main__":
    main()
