"""Load (and faults under load): SDK bots over two gateways, a league of those remote bots
played by two Celery worker processes, everything on loopback
(tests/reliability/loadrig.py explains the rig).

    .venv/bin/python bench/load.py [--bots 200] [--concurrency 50] [--rounds 2] [--faults]

Defaults: 200 bots (10 per process) on 2 gateways, 2 workers with `--pool threads
--concurrency 50` (100 matches at once), each round 200 matches (100 pairings, each a
mirrored pair). Needs PostgreSQL (DATABASE_URL, default .../agent_avenue_load, created and
migrated if missing) and a `redis-server` binary: the run starts its own on a free port
(broker and relay) and never touches another Redis. `--faults` injects, ten seconds
apart while rounds play: kill -9 of a worker (a replacement is started), a Redis restart,
a gateway restart, and 10% of the bots killed (their processes restarted). It prints the
figures and the checks; the exit code is 1 if a check failed.

    .venv/bin/python bench/load.py --concurrent 1000 [--pool-size 8] [--think-ms 0]

Many remote matches at once on one worker (tests/reliability/concurrency.py): 2-seat
leagues of async bots (tests/reliability/aiobots.py: grpc.aio, all of a process's bots on
one event loop) on 2 gateways, one round in each queued at once (`--concurrent` matches in
all), one worker `--pool threads --concurrency N` with `DATABASE_POOL_SIZE=--pool-size`. It
prints the matches held at once, decisions per second, the arena's share of a decision
(p50/p99), the gateways' measure of the bots' answers, and the worker's PostgreSQL
backends (pg_stat_activity), then the same checks.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--bots", type=int, default=200)
parser.add_argument("--bots-per-process", type=int, default=10)
parser.add_argument("--workers", type=int, default=None, help="default 2 (1 with --concurrent)")
parser.add_argument(
    "--concurrency", type=int, default=None, help="threads per worker (default 50, or all)"
)
parser.add_argument("--concurrent", type=int, default=0, help="matches at once on one worker")
parser.add_argument("--pool-size", type=int, default=8, help="DATABASE_POOL_SIZE per worker")
parser.add_argument("--slots", type=int, default=8, help="ARENA_RUNNER_SLOTS per worker")
parser.add_argument("--think-ms", type=int, default=0, help="async bots' time per answer")
parser.add_argument("--bots-per-league", type=int, default=8)
parser.add_argument("--bot-processes", type=int, default=2)
parser.add_argument("--rounds", type=int, default=2)
parser.add_argument("--lease", type=int, default=10, help="ARENA_LEASE_SECONDS")
parser.add_argument("--faults", action="store_true")
parser.add_argument("--fault-gap", type=float, default=10.0)
parser.add_argument("--timeout", type=float, default=900.0, help="seconds for the whole run")
parser.add_argument("--keep-logs", action="store_true", help="print where the logs are")
args = parser.parse_args()

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agent_avenue_load")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ["LOG_LEVEL"] = "WARNING"
with socket.socket() as _s:
    _s.bind(("127.0.0.1", 0))
    REDIS_PORT = int(_s.getsockname()[1])
# the driver's Celery producer and reaper talk to the rig's own redis-server
os.environ["REDIS_URL"] = f"redis://127.0.0.1:{REDIS_PORT}/0"
# lost task messages (a Redis restart) are re-sent this long after they were sent
os.environ["ARENA_REQUEUE_AFTER_SECONDS"] = "30" if args.faults else "300"
subprocess.run(
    [sys.executable, "scripts/check_services.py", "--create-database"], cwd=ROOT, check=False,
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)  # fmt: skip
subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)

import django  # noqa: E402

django.setup()

from arena.models import Match, MatchStatus  # noqa: E402
from tests.reliability.loadrig import LoadConfig, LoadRig, summary  # noqa: E402

# an earlier run stopped half way left queued matches: the reaper (global) would re-send them
Match.objects.filter(status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]).update(
    status=MatchStatus.VOID, lease_expires_at=None, error="left by an interrupted load run"
)


def concurrent() -> int:
    from tests.reliability.concurrency import ConcurrencyConfig, ConcurrencyRig
    from tests.reliability.concurrency import summary as concurrency_summary

    workers = args.workers or 1
    cfg = ConcurrencyConfig(
        matches=args.concurrent,
        bots_per_league=args.bots_per_league,
        bot_processes=args.bot_processes,
        workers=workers,
        concurrency=args.concurrency or -(-args.concurrent // workers),
        pool_size=args.pool_size,
        slots=args.slots,
        think_ms=args.think_ms,
        timeout=args.timeout,
        memory=True,
    )
    logs = Path(tempfile.mkdtemp(prefix="arena-concurrent-"))
    rig = ConcurrencyRig(logs, os.environ["DATABASE_URL"], cfg, redis_port=REDIS_PORT)
    try:
        rig.setup()
        out = rig.play()
    finally:
        rig.close()
        print(f"logs: {logs}")
    print()
    print(
        f"{cfg.leagues} leagues x {cfg.bots_per_league} async bots, {cfg.workers} worker(s) x "
        f"{cfg.concurrency} threads, DATABASE_POOL_SIZE={cfg.pool_size}, "
        f"ARENA_RUNNER_SLOTS={cfg.slots}, think {cfg.think_ms} ms"
    )
    print(concurrency_summary(out, cfg))
    return 1 if out.problems else 0


def main() -> int:
    if args.concurrent:
        return concurrent()
    cfg = LoadConfig(
        bots=args.bots,
        bots_per_host=args.bots_per_process,
        workers=args.workers or 2,
        concurrency=args.concurrency or 50,
        rounds=args.rounds,
        lease_seconds=args.lease,
        faults=args.faults,
        fault_gap=args.fault_gap,
        timeout=args.timeout,
    )
    logs = Path(tempfile.mkdtemp(prefix="arena-load-"))
    rig = LoadRig(logs, os.environ["DATABASE_URL"], cfg, redis_port=REDIS_PORT)
    t0 = time.monotonic()
    try:
        rig.setup()
        out = rig.run()
    finally:
        rig.close()
        print(f"logs: {logs}")
    print()
    print(
        f"{cfg.bots} SDK bots ({cfg.bots_per_host} per process) on {cfg.gateways} gateways, "
        f"{cfg.workers} workers x {cfg.concurrency} threads, {cfg.rounds}+ rounds"
        + (", with faults" if cfg.faults else "")
        + f" (whole run {time.monotonic() - t0:.0f} s)"
    )
    print(summary(out, cfg))
    return 1 if out.problems else 0


if __name__ == "__main__":
    sys.exit(main())
