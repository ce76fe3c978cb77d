"""Faults while a league plays under load (the small version of ``bench/load.py --faults``).

40 SDK bots (4 per process) on two gateways, a 4-seat league of them on two Celery
workers (``--pool threads --concurrency 10``), a redis-server of the test's own (broker and
relay). While rounds play: kill -9 a worker (and start a replacement), restart Redis,
restart a gateway, kill 10% of the bots (their process, then start it again). Afterwards
every match is finished and rated exactly once, no lease is held, the ratings are
zero-sum and equal a full recompute, and every replay validates.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection

from arena.adapters.play import matches
from arena.adapters.play.matches import play_match
from arena.models import Match
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from tests.leagues.conftest import database_url
from tests.leagues.factory import house_league
from tests.reliability.loadrig import LoadConfig, LoadRig, summary

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.faults,
    pytest.mark.processes,
    pytest.mark.serial,
]

CFG = LoadConfig(
    bots=40,
    bots_per_host=4,
    gateways=2,
    workers=2,
    concurrency=10,
    rounds=2,
    lease_seconds=4,
    requeue_after_seconds=10,
    # a request lost in a gateway restart costs the bot decision + bank time (see
    # docs/reliability.md): keep that short here
    decision_ms=5_000,
    bank_ms=5_000,
    faults=True,
    fault_gap=6.0,
    timeout=150.0,
)


@pytest.fixture
def rig(transactional_db: None, settings, tmp_path: Path) -> Iterator[LoadRig]:  # noqa: ANN001
    if shutil.which("redis-server") is None:
        pytest.fail("this test starts its own redis-server: install redis-server")
    # the reaper in this process: lost messages (Redis restarted) are re-sent soon
    settings.ARENA_REQUEUE_AFTER_SECONDS = CFG.requeue_after_seconds
    lines: list[str] = []
    r = LoadRig(tmp_path, database_url(), CFG, say=lines.append)
    try:
        yield r
    finally:
        r.close()
        print("\n".join(lines))


def test_every_match_finished_once_after_worker_redis_gateway_and_bot_faults(
    rig: LoadRig,
) -> None:
    rig.setup()
    out = rig.run()
    print(summary(out, CFG))
    assert [e.what for e in out.events] == [
        "kill_worker", "restart_redis", "restart_gateway", "drop_bots",
    ]  # fmt: skip
    assert out.problems == [], summary(out, CFG)
    assert out.matches >= 2 * 60 and out.finished == out.matches
    # the killed worker held matches: they were re-run (attempt 2 or later), once each
    assert out.rerun, "no match was re-run, so the kill -9 hit nothing"


def test_a_match_being_played_holds_no_database_connection(
    transactional_db: None,
    settings,
    monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
) -> None:
    """Regression: a worker playing 50 matches at once (threads pool) held two PostgreSQL
    connections per match for the whole game (the task's and the lease heartbeat's), and
    the load run's 100 matches hit "sorry, too many clients already". Now the task gives
    its connection back while the game runs and the heartbeat closes its own between beats.
    """
    settings.ARENA_LEASE_SECONDS = 2  # a beat every 0.67 s
    league = house_league("No idle connections", ["random", "greedy"])
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    match_id = scheduled.matches[0]
    database = connection.settings_dict["NAME"]
    seen: dict[str, Any] = {}
    real_run_match = matches.run_match

    def others() -> int:
        """Connections to the test database besides this probe's own."""
        with psycopg.connect(database_url().replace(f"/{database}", "/postgres")) as probe:
            row = probe.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                [database],
            ).fetchone()
            return int(row[0]) if row else -1

    def slow_game(*args: Any, **kwargs: Any) -> Any:
        seen["task connection"] = connection.connection
        lease = Match.objects.values_list("lease_expires_at", flat=True)
        before = lease.get(pk=match_id)
        connection.close()  # the line above opened one: that is not what is measured
        time.sleep(1.6)  # two heartbeats
        seen["open during the game"] = others() - seen["open before"]
        after = lease.get(pk=match_id)
        seen["lease extended"] = None not in (before, after) and after > before  # type: ignore[operator]
        return real_run_match(*args, **kwargs)

    monkeypatch.setattr(matches, "run_match", slow_game)
    # as a threads pool plays it (one process playing one match at a time in its main
    # thread keeps the connection of a house bots' game: tests/leagues/test_orchestration)
    outcome: list[PlayOutcome] = []

    def task() -> None:
        try:
            outcome.append(play_match(match_id))
        finally:
            connection.close()

    connection.close()  # this thread's (the setup's): not what is measured either
    # what earlier tests of this process left open (a lease keeper's own connection)
    seen["open before"] = others()
    worker = threading.Thread(target=task)
    worker.start()
    worker.join(120)
    assert outcome == [PlayOutcome.FINISHED]
    seen.pop("open before")
    assert seen == {
        "task connection": None,
        "open during the game": 0,
        "lease extended": True,
    }
