"""League throughput on real Celery workers: a 16-bot double round robin of house bots
(each of the 120 pairings a mirrored pair: 240 matches) with 1 and with 2 worker processes,
and the orchestration overhead per match beside the bare referee time of the same games.

    .venv/bin/python bench/league_throughput.py [--bots 16] [--workers 1 2] [--repeat 2]

Needs PostgreSQL and Redis (DATABASE_URL, default .../agent_avenue_bench, created and
migrated if missing; REDIS_URL, default redis://127.0.0.1:6379/0). Workers run
`celery -A workers worker --pool=solo --concurrency 1` on a queue of this run's own; their
logs go to artifacts/league_throughput/ (one file per worker and run).

Statistic: the median over the runs of each worker count, on both sides of every
comparison (the overhead is the median 1-worker wall time per match minus the median of
the runner's own per-match times in those same runs); the best run is printed beside it.
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
QUEUE = f"bench-leagues-{uuid.uuid4().hex[:8]}"
LOGS = ROOT / "artifacts" / "league_throughput"
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agent_avenue_bench")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
os.environ["CELERY_QUEUE"] = QUEUE
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")


def _prepare_database() -> None:
    subprocess.run(
        [sys.executable, "scripts/check_services.py", "--create-database"], cwd=ROOT, check=True,
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True
    )


_prepare_database()

import django  # noqa: E402

django.setup()

from arena.adapters.play.matches import game_config  # noqa: E402
from arena.deals import house_bot_seed  # noqa: E402
from arena.models import Match, MatchStatus  # noqa: E402
from arena.services import leagues as svc  # noqa: E402
from arena.services.rounds import do_schedule_round  # noqa: E402
from referee.bots import make_bot  # noqa: E402
from referee.play import play_game  # noqa: E402


def start_workers(n: int, run: str) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs, logs = [], []
    LOGS.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        log = LOGS / f"{QUEUE}-{run}-w{i}.log"
        logs.append(log)
        procs.append(
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "workers",
                    "worker",
                    "--pool=solo",
                    "--concurrency",
                    "1",
                    "-Q",
                    QUEUE,
                    "-n",
                    f"{QUEUE}-{i}@%h",
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
            )  # fmt: skip
        )
    deadline = time.monotonic() + 60
    while not all("ready." in log.read_text(errors="replace") for log in logs):
        if time.monotonic() > deadline:
            raise SystemExit("workers did not start; see " + ", ".join(map(str, logs)))
        time.sleep(0.1)
    return procs


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(30)


def make_league(bots: int, tag: str) -> int:
    league = svc.do_create_league(svc.LeagueSettings(name=f"bench {tag}"))
    for i in range(bots):
        spec = "greedy" if i % 2 else "random"
        bot = svc.do_create_house_bot(f"bench-{spec}-{i}", spec)
        svc.do_enter(league, bot)
    return league.pk


def run_round(league_id: int, workers: int, run: str) -> tuple[float, list[int]]:
    """Wall time from scheduling to the last match's commit, on ``workers`` processes."""
    procs = start_workers(workers, run)
    try:
        league = svc.League.objects.get(pk=league_id)
        t0 = time.perf_counter()
        scheduled = do_schedule_round(league)  # sends every match on commit
        assert scheduled is not None
        pending = Match.objects.filter(round=scheduled.round).exclude(
            status__in=[MatchStatus.FINISHED, MatchStatus.VOID]
        )
        while pending.exists():
            time.sleep(0.05)
        wall = time.perf_counter() - t0
    finally:
        stop_workers(procs)
    return wall, scheduled.matches


def bare_referee_seconds(match_ids: list[int]) -> float:
    """The same games (same decks, same bot seeds) through the referee alone, one core."""
    games = []
    for m in Match.objects.filter(pk__in=match_ids).select_related("league"):
        parts = list(m.participations.select_related("bot").order_by("seat"))
        config = game_config(m.league, m, parts)
        bot_seeds = [(p.bot.spec, house_bot_seed(m.deck_seed, p.seat)) for p in parts]
        games.append((config, m.deck_seed, bot_seeds))
    t0 = time.perf_counter()
    for config, seed, seats in games:
        play_game(config, seed, [make_bot(spec, s) for spec, s in seats])
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=16)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=3, help="runs per worker count")
    args = parser.parse_args()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    walls: dict[int, list[float]] = {w: [] for w in args.workers}
    ids: list[int] = []
    #: per worker count, each run's median runner time per match (ms)
    runner_ms: dict[int, list[float]] = {w: [] for w in args.workers}
    # interleaved (1, 2, 1, 2, ...) so that both counts see the same machine load
    for r in range(args.repeat):
        for workers in args.workers:
            league_id = make_league(args.bots, f"{stamp} {workers}w #{r}")
            wall, ids = run_round(league_id, workers, f"{workers}w-{r + 1}")
            walls[workers].append(wall)
            durations = [
                d for d in Match.objects.filter(pk__in=ids).values_list("duration_ms", flat=True)
                if d is not None
            ]  # fmt: skip
            runner_ms[workers].append(statistics.median(durations))
            print(f"{workers} worker(s), run {r + 1}: {len(ids)} matches in {wall:.2f} s "
                  f"= {len(ids) / wall:.1f} matches/s")  # fmt: skip
    results = {w: min(v) for w, v in walls.items()}
    medians = {w: statistics.median(v) for w, v in walls.items()}
    n = len(ids)
    bare = bare_referee_seconds(ids)
    one = results.get(1)
    print()
    print(f"{args.bots} bots, double round robin: {n} matches (half random, half greedy bots)")
    for workers, wall in results.items():
        print(
            f"  {workers} worker process(es): {n / wall:7.1f} matches/s best, "
            f"{n / medians[workers]:.1f} median of {len(walls[workers])}"
        )
    if one is not None and 2 in results:
        print(
            f"  speed-up with 2 workers: {one / results[2]:.2f}x best to best, "
            f"{medians[1] / medians[2]:.2f}x median to median (target >= 1.6x)"
        )
    print(f"  bare referee, same games, one core: {bare / n * 1000:6.2f} ms per match")
    if one is not None:
        runner = statistics.median(runner_ms[1])
        per = medians[1] / n * 1000
        print(f"  runner (run_match, as stored), 1 worker, median: {runner:6.2f} ms per match")
        print(f"  1 worker, wall per match, median of runs:       {per:6.2f} ms per match")
        print(
            f"  orchestration overhead per match (claim, task, replay and rating writes): "
            f"{per - runner:.2f} ms (median wall per match minus median runner time)"
        )
    print(f"  worker logs: {LOGS.relative_to(ROOT)}/{QUEUE}-*.log")


if __name__ == "__main__":
    main()
