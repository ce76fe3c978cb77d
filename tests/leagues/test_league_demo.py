"""Embedded mode: the demo league on SQLite without Redis, as `make demo` runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


@pytest.mark.slow
def test_demo_league_plays_in_one_process_on_sqlite(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL") and not k.startswith(("CELERY", "ARENA_"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        DATABASE_URL=f"sqlite:///{tmp_path / 'demo.sqlite3'}",
    )
    assert _manage(env, "migrate", "--noinput", "-v0").returncode == 0
    first = _manage(env, "league", "demo", "--rounds", "1", "--search-playouts", "10")
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "created Demo league" in out
    assert "round 1 of Demo league: scheduled, 12 matches" in out
    assert "[ 12/12]" in out and "round 1: complete" in out
    standings = out[out.index("Standings of Demo league") :].splitlines()
    assert len(standings) == 5  # title, header, three bots
    assert all(line.split()[4] != "-" for line in standings[2:])  # batch fit is shown
    # idempotent: a second run creates nothing and plays no more than asked
    again = _manage(env, "league", "demo", "--rounds", "1", "--search-playouts", "10")
    assert again.returncode == 0, again.stderr
    assert "created" not in again.stdout and "entered" not in again.stdout
    assert "has played 1 round already" in again.stdout
    assert "Traceback" not in first.stderr + again.stderr
