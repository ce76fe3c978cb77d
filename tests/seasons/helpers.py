"""Leagues in seasons for the tests, built and played through the services."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg

from arena.adapters.play.matches import play_match
from arena.models import League, Round
from arena.seasons.models import Season, SeasonStatus
from arena.seasons.services import SeasonConfig, do_configure_seasons
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import house_league


def season_league(name: str, bots: int, **config: object) -> League:
    """A league of ``bots`` house bots (``random``, the quickest) in seasons."""
    league = house_league(name, ["random"] * bots)
    do_configure_seasons(league, SeasonConfig(**config))  # type: ignore[arg-type]
    return league


def play_round(league: League) -> Round:
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    for match_id in scheduled.matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
    scheduled.round.refresh_from_db()
    assert scheduled.round.status == "complete"
    return scheduled.round


def running(league: League) -> Season:
    return Season.objects.get(league=league, status=SeasonStatus.RUNNING)


#: ends a season or places a league's newcomers in a process of its own
STEP_SCRIPT = Path(__file__).resolve().parent / "step_in_process.py"


def step_process(env: dict[str, str], what: str, ident: int, *flags: str) -> subprocess.Popen[str]:
    """``step_in_process.py what ident flags...`` started, its output read line by line."""
    return subprocess.Popen(
        [sys.executable, str(STEP_SCRIPT), what, str(ident), *flags],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip


def until_stopped(proc: subprocess.Popen[str]) -> None:
    """Read the process's output until it says it stopped at its step."""
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.strip() == "stopped":
            break
    assert lines and lines[-1].strip() == "stopped", "".join(lines)


def lock_waiters(conn: psycopg.Connection) -> int:
    """How many of the test database's backends wait on a lock."""
    row = conn.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock'"
    ).fetchone()
    return 0 if row is None else int(row[0])
