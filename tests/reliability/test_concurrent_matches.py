"""One worker process holds many remote matches at once within a bounded database pool
(the small version of ``bench/load.py --concurrent``, ``concurrency.py`` explains the rig).

Real processes: a redis-server of the test's own, a gateway, one Celery worker
(``--pool threads --concurrency 100``, ``DATABASE_POOL_SIZE=3``, ``ARENA_RUNNER_SLOTS=8``:
at most 8 of its match threads run Python at once) and one process of 12
asyncio bots (``aiobots.py``) that think 100 ms per answer, so that matches overlap. Two
2-seat leagues of 6 bots: 60 matches queued at once. Every match must finish, be rated
exactly once with zero-sum ratings equal to a full recompute and a valid replay, no bot
may be charged a fault, most of the matches must have been running at the same time, and
the worker's PostgreSQL backends, counted in ``pg_stat_activity`` while they play, must
stay within the pool's size plus the lease keeper's own connection.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.leagues.conftest import database_url
from tests.reliability.concurrency import ConcurrencyConfig, ConcurrencyRig, summary

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.processes, pytest.mark.serial]

CFG = ConcurrencyConfig(
    matches=60,
    bots_per_league=6,
    bot_processes=1,
    gateways=1,
    workers=1,
    concurrency=100,
    pool_size=3,
    slots=8,
    think_ms=100,
    lease_seconds=10,
    timeout=400.0,
)


@pytest.fixture
def rig(transactional_db: None, tmp_path: Path) -> Iterator[ConcurrencyRig]:
    if shutil.which("redis-server") is None:
        pytest.fail("this test starts its own redis-server: install redis-server")
    lines: list[str] = []
    r = ConcurrencyRig(tmp_path, database_url(), CFG, say=lines.append)
    try:
        yield r
    finally:
        r.close()
        print("\n".join(lines))


def test_one_worker_plays_60_remote_matches_at_once_within_its_database_pool(
    rig: ConcurrencyRig,
) -> None:
    rig.setup()
    out = rig.play()
    print(summary(out, CFG))
    assert out.problems == [], summary(out, CFG)
    assert out.matches == out.finished == 60
    # a game asks each seat a few dozen decisions at 100 ms each: all 60 are claimed
    # long before the first ends, however busy the machine
    assert out.peak_running >= 45, summary(out, CFG)
    # measured, not assumed: the pool (3) plus the lease keeper's connection
    assert 0 < out.db_peak <= CFG.pool_size + 1, summary(out, CFG)
    assert out.db_distinct <= CFG.pool_size + 1, summary(out, CFG)
    assert out.rerun == 0 and out.leases_expired == 0, summary(out, CFG)
    # what each kind of process cost is read from /proc while the matches played
    assert set(out.cpu_s) == {"worker", "gateways", "bots", "redis"}
    assert out.cpu_s["worker"] > 0 and out.cpu_s["gateways"] > 0, summary(out, CFG)
