"""Orchestration per match: the whole path of a league's house matches on a real Celery
worker (claim, game, result, ratings, analytics, round completion: ``arena.run_matches``
chunks of ``ARENA_MATCH_CHUNK``, as a round of house bots is sent) beside a no-op task on
the same worker in the same run, and the SQL statements one result and one chunk cost.

    .venv/bin/python bench/orchestration.py [--bots 12] [--batches 5] [--conn-max-age 600]
        [--pool solo|threads] [--concurrency N] [--db-pool 8] [--chunk N]
        [--watched [--viewed]]

Needs PostgreSQL and Redis (DATABASE_URL, default .../agent_avenue_bench_orch, created and
migrated if missing; REDIS_URL, default redis://127.0.0.1:6379/0). One worker on a queue of
this run's own (its log: artifacts/orchestration/): by default ``--pool=solo``, a match at a
time, with ``DATABASE_CONN_MAX_AGE`` as given; with ``--pool threads`` the deployed
configuration (docker-compose's worker): ``--concurrency N`` threads (default 500), every
thread's database work through a process pool of ``--db-pool`` connections
(``DATABASE_POOL_SIZE``, default 8). Both sides of a run go to that one worker.

Method: batches alternate (no-op, matches, no-op, matches, ...). A no-op batch sends as many
``bench.noop`` tasks as a round has matches and times them from the first send until the
last has run; a match batch schedules a round of house bots (its matches sent on commit as
a league's are: chunks of ``ARENA_MATCH_CHUNK``) and times it until the round's batch fit
has run (on the same worker, after the round's last result: a round's work includes it;
"of which the fit" says how long after the last result it ended).
Per task: batch wall time / tasks. Orchestration per match: that, minus the game's own
cost per match. The game's cost is measured by replaying
the batch's games serially in this process after the batch (the same seeded house seats, the
same configuration, no live publishing): the CPU time of each (``time.thread_time()``), its
mean over the batch (batch wall / matches holds the sum of the games, hence the mean).
The runner's own wall time per game (``Match.duration_ms``, median) is printed beside it,
not subtracted: with several games at once in one process it counts the other threads' turns
on the GIL (the first pass subtracted it; it ran solo only, where the two are close). Also
printed: the worker process's CPU time per match and per no-op task (``/proc``, all its
threads; the match side's until the last result), which says whether the worker waited
(on the database, the broker) or computed. Statistic: the median over the batches, on both
sides. Both sides' wall time includes sending their messages (the no-op tasks one by one,
the matches on the round's commit); the match side's also includes scheduling the round
(``do_schedule_round`` in this process), shown on its own line ("of which scheduling").
Before the batches, the worker runs 20 no-op tasks and plays one small round, unmeasured,
so that no batch pays for the worker's first imports and connections, and the bench
``ANALYZE``s its database: the PostgreSQL of this machine runs with autovacuum off, so
the tables the bench fills would otherwise have no statistics at all (a deployed server's
autovacuum keeps them), and the planner would read a chunk's seats by hashing every match
of the database.

``--watched``: each measured round's league page and its bots' pages are viewed (real
requests through Django's test client in this process, as a site's visitors) before the
round, so that their parts are cached; ``--viewed`` too: each is viewed again after every
result, from a thread of this process while the round plays (a site people look at: the
pages read what the results wrote, on the same database and the same 2 cores), and the
same pages are viewed back to back while the no-op batch that follows runs, so that both
sides of the ratio run beside the same page load (the views are back to back during a
round too: a pass over a round's pages takes longer than a result). No page
is built by the worker: a result writes the rows the pages read (``arena.ratings.headtohead``,
the shown standings) in its own transaction, and nothing after it. Without ``--watched``
nobody views a page.

Why one file of this length: every mode (solo, threads, watched, viewed) is
measured against the same no-op baseline in one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
QUEUE = f"bench-orch-{uuid.uuid4().hex[:8]}"
LOGS = ROOT / "artifacts" / "orchestration"
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agent_avenue_bench_orch")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
os.environ["CELERY_QUEUE"] = QUEUE
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")
if "--chunk" in sys.argv:  # read by the settings: the scheduler (here) sends the chunks
    os.environ["ARENA_MATCH_CHUNK"] = sys.argv[sys.argv.index("--chunk") + 1]

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
from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from arena.adapters.play.matches import play_match  # noqa: E402
from arena.models import Match, MatchStatus  # noqa: E402
from arena.ratings.models import BatchRating  # noqa: E402
from arena.services import leagues as svc  # noqa: E402
from arena.services.rounds import do_schedule_round  # noqa: E402
from bench.gamecost import game_cpu  # noqa: E402
from bench.orchestration_tasks import noop  # noqa: E402


def start_worker(
    conn_max_age: int, pool: str, concurrency: int, db_pool: int
) -> tuple[subprocess.Popen[bytes], Path]:
    LOGS.mkdir(parents=True, exist_ok=True)
    log = LOGS / f"{QUEUE}.log"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_CONN_MAX_AGE": str(conn_max_age),
        "DATABASE_POOL_SIZE": str(db_pool),
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "bench.orchestration_tasks",
            "worker",
            f"--pool={pool}",
            "--concurrency",
            str(concurrency),
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


def worker_cpu(proc: subprocess.Popen[bytes]) -> float:
    """The worker process's CPU seconds so far (user + system, all its threads)."""
    fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait(predicate: object, what: str, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.005)


def noop_batch(
    r: redis.Redis, n: int, worker: subprocess.Popen[bytes], urls: list[str] | None = None
) -> tuple[float, float]:
    """(seconds per task, the worker's CPU seconds per task) for ``n`` no-op tasks sent at
    once; ``urls``: pages viewed back to back meanwhile, as ``--viewed`` views them
    during a round (the same load on the machine on both sides)."""
    counter = f"{QUEUE}:noop:{uuid.uuid4().hex}"
    stop = threading.Event()
    views: list[int] = []
    thread = threading.Thread(target=viewer, args=(None, urls or [], stop, views))
    if urls:
        thread.start()
        while not views:  # the viewer busy before the batch starts, as during a round
            time.sleep(0.001)
    cpu0 = worker_cpu(worker)
    t0 = time.perf_counter()
    for _ in range(n):
        noop.apply_async((counter,), queue=QUEUE)
    wait(lambda: int(r.get(counter) or 0) >= n, "the no-op tasks")
    wall = time.perf_counter() - t0
    cpu = worker_cpu(worker) - cpu0
    stop.set()
    if urls:
        thread.join()
    r.delete(counter)
    return wall / n, cpu / n


class Batch(NamedTuple):
    """One round sent at once; seconds per match unless said."""

    wall: float
    game: float  # the game's CPU, replayed serially here (the mean)
    runner: float  # the runner's wall per game in the worker (the median)
    scheduling: float
    worker_cpu: float  # the worker process's CPU until the fit ran
    matches: int
    fit: float  # from the last result's commit to the fit's end, per match
    views: int  # page views during the round (--viewed)
    urls: list[str]  # its pages


def page_urls(league: svc.League) -> list[str]:
    names = league.entries.values_list("bot__name", flat=True)
    return [f"/leagues/{league.slug}/", *(f"/bots/{name}/" for name in names)]


def view(urls: list[str]) -> int:
    """Each page once, as a visitor asks for it (this process, the site's own code)."""
    from django.test import Client

    client = Client(secure=True)  # HTTPS_ONLY: a plain request would be redirected
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)
    return len(urls)


def viewer(
    league: svc.League | None, urls: list[str], stop: threading.Event, out: list[int]
) -> None:
    """Every page viewed again after each result of ``league`` that lands (polled), until
    ``stop``; with no league, back to back (the no-op side of ``--viewed``)."""
    from django.db import connection as conn

    done = Match.objects.filter(league=league, status=MatchStatus.FINISHED)
    seen = 0
    try:
        while not stop.is_set():
            now = seen + 1 if league is None else done.count()
            if now > seen:
                seen = now
                out.append(view(urls))
            else:
                time.sleep(0.005)
    finally:
        conn.close()


def match_batch(
    bots: int, tag: str, worker: subprocess.Popen[bytes], watched: bool = False,
    viewed: bool = False,
) -> Batch:  # fmt: skip
    league = make_league(bots, tag)
    urls = page_urls(league)
    if watched:
        view(urls)
    views: list[int] = []
    stop = threading.Event()
    thread = threading.Thread(target=viewer, args=(league, urls, stop, views))
    cpu0 = worker_cpu(worker)
    t0 = time.perf_counter()
    scheduled = do_schedule_round(league)  # every match sent on commit
    scheduling = time.perf_counter() - t0
    if viewed:
        thread.start()
    assert scheduled is not None
    live = [MatchStatus.QUEUED, MatchStatus.RUNNING]
    pending = Match.objects.filter(round=scheduled.round, status__in=live)
    wait(lambda: not pending.exists(), "the round's matches")
    last_result = time.perf_counter()
    # the round's batch fit runs on this worker after its last result: inside the clock
    wait(lambda: BatchRating.objects.filter(league=league).exists(), "the batch fit")
    wall = time.perf_counter() - t0
    busy = worker_cpu(worker) - cpu0
    stop.set()
    if viewed:
        thread.join()
    n = len(scheduled.matches)
    done = Match.objects.filter(round=scheduled.round, status=MatchStatus.FINISHED)
    rows = list(done.values_list("pk", "duration_ms"))
    assert len(rows) == n, f"{n - len(rows)} matches did not finish"
    runner = statistics.median(d for _, d in rows if d is not None) / 1000
    cpu = game_cpu([pk for pk, _ in rows])
    fit = (t0 + wall - last_result) / n
    return Batch(wall / n, cpu, runner, scheduling / n, busy / n, n, fit, sum(views), urls)


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


def statements_per_chunk(bots: int) -> list[tuple[int, int]]:
    """In this process: (matches, statements) of ``play_matches`` for each chunk of a
    round, as the scheduler cuts it (none before this change: no chunks)."""
    try:
        from arena.adapters.play.matches import play_matches
    except ImportError:
        return []
    chunk = settings.ARENA_MATCH_CHUNK
    league = make_league(bots, f"count-{uuid.uuid4().hex[:6]}")
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    counts = []
    for i in range(0, len(scheduled.matches), chunk):
        ids = scheduled.matches[i : i + chunk]
        with CaptureQueriesContext(connection) as queries:
            play_matches(ids)
        counts.append((len(ids), len(queries.captured_queries)))
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--batches", type=int, default=5, help="of each kind")
    parser.add_argument("--conn-max-age", type=int, default=600)
    parser.add_argument("--pool", choices=["solo", "threads"], default="solo")
    parser.add_argument("--concurrency", type=int, help="threads (default: 500; solo: 1)")
    parser.add_argument("--db-pool", type=int, help="DATABASE_POOL_SIZE (threads: default 8)")
    parser.add_argument(
        "--chunk", type=int, help="ARENA_MATCH_CHUNK (default: the setting's, 16); 1: no chunks"
    )
    parser.add_argument("--watched", action="store_true", help="every page viewed first")
    parser.add_argument("--viewed", action="store_true", help="and after each result")
    args = parser.parse_args()
    if args.viewed and not args.watched:
        parser.error("--viewed needs --watched")
    solo = args.pool == "solo"
    concurrency = 1 if solo else (args.concurrency or 500)
    db_pool = args.db_pool if args.db_pool is not None else (0 if solo else 8)
    if solo and (args.concurrency or 1) != 1:
        parser.error("--pool solo plays one match at a time")
    counts = statements_per_result(args.bots)
    chunks = statements_per_chunk(args.bots)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # see the module doc
    r = redis.Redis.from_url(os.environ["REDIS_URL"])
    if args.watched:
        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    proc, log = start_worker(args.conn_max_age, args.pool, concurrency, db_pool)
    noops: list[float] = []
    noop_cpus: list[float] = []
    batches: list[Batch] = []
    n = 0
    stamp = uuid.uuid4().hex[:6]
    try:
        noop_batch(r, 20, proc)  # warm the worker
        match_batch(4, f"{stamp}-warm", proc)  # and its first match: imports, connections
        for b in range(args.batches):
            batch = match_batch(args.bots, f"{stamp}-{b}", proc, args.watched, args.viewed)
            batches.append(batch)
            n = batch.matches
            noop_wall, noop_cpu = noop_batch(r, n, proc, batch.urls if args.viewed else None)
            noops.append(noop_wall)
            noop_cpus.append(noop_cpu)
            print(
                f"batch {b + 1}: {n} matches, {batch.wall * 1000:6.2f} ms per match "
                f"(game {batch.game * 1000:5.2f} ms CPU, runner {batch.runner * 1000:6.2f} ms "
                f"wall, worker CPU {batch.worker_cpu * 1000:6.2f} ms, fit "
                f"{batch.fit * 1000:5.2f} ms, {batch.views} page views), "
                f"no-op {noop_wall * 1000:5.2f} ms per task",
                flush=True,
            )
    finally:
        proc.terminate()
        proc.wait(30)

    def ms(values: Iterable[float]) -> float:
        return statistics.median(values) * 1000

    noop_ms = ms(noops)
    match_ms = ms(b.wall for b in batches)
    game_ms = ms(b.game for b in batches)
    runner_ms = ms(b.runner for b in batches)
    overhead = ms(b.wall - b.game for b in batches)
    scheduling_ms = ms(b.scheduling for b in batches)
    cpu_ms = ms(b.worker_cpu for b in batches)
    fit_ms = ms(b.fit for b in batches)
    noop_cpu_ms = ms(noop_cpus)
    print()
    worker = (
        "1 worker (--pool=solo), "
        if solo
        else f"1 worker (--pool=threads --concurrency {concurrency}), "
        f"DATABASE_POOL_SIZE={db_pool}, "
    )
    print(
        f"{args.bots} house bots, {n} matches a round, {worker}"
        f"DATABASE_CONN_MAX_AGE={args.conn_max_age}"
        f"{', every page viewed before the round' if args.watched else ''}"
        f"{' and after each result' if args.viewed else ''}; the round's fit inside the clock;"
        f" medians over {args.batches} batches; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"  no-op task:                 {noop_ms:6.2f} ms per task")
    print(f"  a match, whole path:        {match_ms:6.2f} ms per match")
    print(f"    of which the round's fit, after its last result: {fit_ms:6.2f} ms per match")
    print(f"  of which the game:          {game_ms:6.2f} ms (CPU, replayed serially)")
    print(f"  (the runner's wall per game: {runner_ms:6.2f} ms, median; not subtracted)")
    print(
        f"  orchestration per match:    {overhead:6.2f} ms = {overhead / noop_ms:.1f}x the no-op "
        "task (target <= 5x)"
    )
    print(f"    of which scheduling the round: {scheduling_ms:6.2f} ms per match (in this process)")
    print(
        f"  the worker's CPU: {cpu_ms:6.2f} ms per match ({cpu_ms / match_ms:.0%} of its wall), "
        f"{noop_cpu_ms:5.2f} ms per no-op task"
    )
    print(f"  SQL statements per result (play_match, in process): {counts}")
    if chunks:
        print(
            f"  SQL statements per chunk of ARENA_MATCH_CHUNK={settings.ARENA_MATCH_CHUNK} "
            f"(play_matches, in process; matches: statements x chunks): "
            f"{', '.join(f'{k}: {q} x{n}' for (k, q), n in sorted(Counter(chunks).items()))}; "
            f"per match "
            f"{sum(q for _, q in chunks) / sum(k for k, _ in chunks):.2f}"
        )
    else:
        print("  no chunks in this checkout: every match its own task")
    print(f"  worker log: {log}")


if __name__ == "__main__":
    main()
