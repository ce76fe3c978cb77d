"""The embedded mode (``make demo``) serves the site from SQLite: every page and API view
must answer there too, not only on PostgreSQL, which the rest of the suite uses. Raw SQL
written for speed (the pages' one-statement reads) is where the two part: a lateral join
or a ``::text`` cast answered 500 on the demo's league page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_answers_on_sqlite(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "REDIS_URL") and not k.startswith("ARENA_")
    }
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path / 'lite.sqlite3'}",
        HTTPS_ONLY="0",
        PYTHONPATH=str(ROOT),
        LOG_LEVEL="WARNING",
    )
    run = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "web" / "sqlite_pages.py")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    answers = [line.split() for line in run.stdout.splitlines() if line.startswith("/")]
    assert len(answers) == 42, run.stdout + run.stderr
    bad = [(url, status) for url, status in answers if status != "200"]
    assert not bad and run.returncode == 0, f"{bad}\n{run.stderr[-4000:]}"
