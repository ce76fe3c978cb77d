"""Embedded mode's orchestration per match beside the distributed one's, in one run.

    .venv/bin/python bench/embedded_overhead.py [--bots 12] [--batches 5] [--turns 2]

Embedded mode (``make demo``, ``manage.py league run`` with no REDIS_URL) plays a round's
matches in the process that drives the league (``arena.adapters.play.roundplay``), on the
embedded default database (a fresh SQLite file, WAL); the distributed arena sends them to
a Celery worker on PostgreSQL and Redis. Each side's *orchestration per match* is what
``bench/orchestration.py`` calls it: a round of house bots timed from its scheduling until
its last result commits, per match, minus the mean CPU time of the round's games replayed
one after the other afterwards (the same seats and configuration). The embedded side's
clock also holds the round's batch fit (its round end runs it in the same process).

The distributed side is ``bench/orchestration.py --pool solo`` (its own worker, its own
no-op baseline), run as a subprocess; the embedded side runs in a subprocess of its own
(the settings differ: no REDIS_URL, a SQLite DATABASE_URL). The sides alternate
``--turns`` times; the figure per side is the median over all its batches, and the ratio
is embedded / distributed of those medians (the issue's target: <= 1.5x).
Needs PostgreSQL and Redis for the distributed side (DATABASE_URL, REDIS_URL as
``bench/orchestration.py`` takes them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def embedded_side(bots: int, batches: int) -> None:
    """In a process with embedded settings: print one JSON line per batch."""
    tmp = Path(tempfile.mkdtemp(prefix="embedded-bench-"))
    os.environ.pop("REDIS_URL", None)
    os.environ["DATABASE_URL"] = f"sqlite:///{tmp / 'bench.sqlite3'}"
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from arena.adapters.play.roundplay import play_round_here
    from arena.models import Match, MatchStatus
    from arena.services import leagues as svc
    from arena.services.rounds import do_schedule_round
    from bench.gamecost import game_cpu

    def one(tag: str, n_bots: int) -> dict[str, float]:
        league = svc.do_create_league(svc.LeagueSettings(name=f"bench embedded {tag}"))
        for i in range(n_bots):
            spec = "greedy" if i % 2 else "random"
            svc.do_enter(league, svc.do_create_house_bot(f"emb-{tag}-{spec}-{i}", spec))
        t0 = time.perf_counter()
        scheduled = do_schedule_round(league, enqueue=False)
        assert scheduled is not None
        play_round_here(scheduled.round, on_done=lambda _m, _o: None)
        wall = time.perf_counter() - t0
        ids = list(
            Match.objects.filter(round=scheduled.round, status=MatchStatus.FINISHED).values_list(
                "pk", flat=True
            )
        )
        n = len(scheduled.matches)
        assert len(ids) == n, f"{n - len(ids)} matches did not finish"
        return {"wall": wall / n, "game": game_cpu(ids), "matches": n}

    one("warm", 4)  # imports, the first connection, the engine's first games
    for b in range(batches):
        print(json.dumps(one(str(b), bots)), flush=True)


def run_embedded(bots: int, batches: int) -> list[dict[str, float]]:
    out = subprocess.run(
        [sys.executable, __file__, "--side", "embedded", "--bots", str(bots),
         "--batches", str(batches)],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def run_distributed(bots: int, batches: int) -> tuple[float, float]:
    """(orchestration per match, the no-op task) in ms, from bench/orchestration.py."""
    out = subprocess.run(
        [sys.executable, "bench/orchestration.py", "--pool", "solo", "--bots", str(bots),
         "--batches", str(batches)],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    over = re.search(r"orchestration per match:\s+([\d.]+) ms", out)
    noop = re.search(r"no-op task:\s+([\d.]+) ms", out)
    if over is None or noop is None:
        raise SystemExit(f"bench/orchestration.py printed no figure:\n{out}")
    return float(over.group(1)), float(noop.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=12)
    parser.add_argument("--batches", type=int, default=5, help="per side and turn")
    parser.add_argument("--turns", type=int, default=2, help="times the sides alternate")
    parser.add_argument("--side", choices=["embedded"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side == "embedded":
        embedded_side(args.bots, args.batches)
        return
    embedded: list[float] = []
    distributed: list[float] = []
    for turn in range(args.turns):
        batches = run_embedded(args.bots, args.batches)
        for b in batches:
            embedded.append((b["wall"] - b["game"]) * 1000)
        over, noop = run_distributed(args.bots, args.batches)
        distributed.append(over)
        print(
            f"turn {turn + 1}: embedded "
            + ", ".join(f"{(b['wall'] - b['game']) * 1000:.2f}" for b in batches)
            + f" ms per match (game {statistics.median(b['game'] for b in batches) * 1000:.2f}"
            f" ms CPU); distributed {over:.2f} ms per match (no-op task {noop:.2f} ms)",
            flush=True,
        )
    e, d = statistics.median(embedded), statistics.median(distributed)
    print()
    print(
        f"{args.bots} house bots a round; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"  embedded (SQLite, in process), median of {len(embedded)} batches: {e:6.2f} ms")
    print(
        f"  distributed (solo worker, PostgreSQL + Redis), median of {len(distributed)} "
        f"runs' medians: {d:6.2f} ms"
    )
    print(f"  embedded / distributed: {e / d:.2f}x (target <= 1.5x)")


if __name__ == "__main__":
    main()
