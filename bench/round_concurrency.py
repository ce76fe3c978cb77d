"""A round played in one process (``league run``, the demo) with one slow bot: one match at a
time (the old loop, ``ARENA_ROUND_CONCURRENCY=1``, the baseline) against the bounded pool
(default 4), in embedded mode on a fresh SQLite file (WAL, IMMEDIATE transactions).

The league: three house bots and a slow SDK bot (a separate process over the in-process
gateway, ``--sleep`` s per decision, legal). Prints, per setting and round: the round's
wall time, when the last match without the slow bot ended (what the others waited), and
the SQLite write contention seen (``database is locked`` errors logged, attempts voided).
Each figure is one round (a single measurement, not a mean); ratios are against the
baseline measured in the same run.

    .venv/bin/python bench/round_concurrency.py [--sleep 0.2] [--rounds 3] [--pool 4]
"""

from __future__ import annotations

import argparse
import io
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO, cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
_TMP = Path(tempfile.mkdtemp(prefix="round-bench-"))
os.environ.pop("REDIS_URL", None)  # embedded mode: in-process relay, no broker
os.environ["DATABASE_URL"] = f"sqlite:///{_TMP / 'bench.sqlite3'}"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayConfig, GatewayThread  # noqa: E402
from arena.adapters.management.commands.league import Command as LeagueCommand  # noqa: E402
from arena.adapters.relay.local import shared_relay  # noqa: E402
from arena.models import Match, MatchStatus, Round  # noqa: E402
from arena.services import leagues as svc  # noqa: E402
from arena.services.bots import create_bot  # noqa: E402


class _Locked(logging.Handler):
    """Counts log records that report SQLite's write lock."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage() + (str(record.exc_info[1]) if record.exc_info else "")
        if "database is locked" in text:
            self.count += 1


def _round(
    league: svc.League, slow_id: int, pool: int, locked: _Locked
) -> tuple[float, float, int, int]:
    settings.ARENA_ROUND_CONCURRENCY = pool
    before = locked.count
    out = io.StringIO()
    command = LeagueCommand(stdout=cast(TextIO, out), stderr=cast(TextIO, out))
    started = time.time()
    assert command.play_round(league, quiet=True), out.getvalue()
    wall = time.time() - started
    rnd = Round.objects.filter(league=league).order_by("-number").first()
    matches = list(Match.objects.filter(round=rnd))
    slow = set(
        Match.objects.filter(round=rnd, participations__bot_id=slow_id).values_list("id", flat=True)
    )
    others_done = max(
        m.finished_at.timestamp() for m in matches if m.pk not in slow and m.finished_at
    )
    retried = sum(1 for m in matches if m.attempts > 1 or m.status == MatchStatus.VOID)
    return wall, others_done - started, locked.count - before, retried


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sleep", type=float, default=0.2, help="the slow bot's s per decision")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per setting")
    parser.add_argument("--pool", type=int, default=4)
    args = parser.parse_args()
    locked = _Locked()
    logging.getLogger().addHandler(locked)
    for name in ("arena.services", "arena.adapters.runner", "arena.ratings.services"):
        logging.getLogger(name).setLevel(logging.WARNING)
    call_command("migrate", interactive=False, verbosity=0)
    league = svc.do_create_league(svc.LeagueSettings(name="Bench round"))
    for i, spec in enumerate(["random", "greedy", "search:50"]):
        svc.do_enter(league, svc.do_create_house_bot(f"bench-{i}", spec))
    slow, token = create_bot("slow")
    assert token is not None
    svc.do_enter(league, slow)
    gateway = GatewayThread(
        Gateway(GatewayConfig.from_settings(), shared_relay(), DatabaseAuthenticator()),
        "127.0.0.1:0",
    )
    port = gateway.start()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AVENUE_TEST_SLEEP": str(args.sleep)}
    bot = subprocess.Popen(
        [sys.executable, "-m", "avenue_sdk", "run", "tests.protocol.testbots:SleepyBot",
         "--arena", f"127.0.0.1:{port}", "--token", token],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not shared_relay().is_connected(str(slow.pk)):
            assert time.monotonic() < deadline, "the slow bot did not connect"
            time.sleep(0.1)
        print(
            f"round of 12 matches (3 house bots + 1 SDK bot sleeping {args.sleep:g} s per "
            f"decision, one match at a time), SQLite WAL; one round per line"
        )
        results: dict[int, list[tuple[float, float, int, int]]] = {}
        for pool in (1, args.pool):
            for _ in range(args.rounds):
                r = _round(league, slow.pk, pool, locked)
                results.setdefault(pool, []).append(r)
                print(
                    f"  pool {pool}: round {r[0]:6.1f} s, others done after {r[1]:6.1f} s, "
                    f"'database is locked' {r[2]}, attempts retried or void {r[3]}"
                )
        base, new = results[1], results[args.pool]
        med = lambda rows, i: sorted(x[i] for x in rows)[len(rows) // 2]  # noqa: E731
        print(
            f"median over {args.rounds} rounds (upper when even): round "
            f"{med(new, 0):.1f} s vs {med(base, 0):.1f} s "
            f"(x{med(new, 0) / med(base, 0):.2f}); the others' matches done after "
            f"{med(new, 1):.1f} s vs {med(base, 1):.1f} s (x{med(new, 1) / med(base, 1):.2f})"
        )
    finally:
        bot.terminate()
        bot.wait(20)
        gateway.stop()


if __name__ == "__main__":
    main()
