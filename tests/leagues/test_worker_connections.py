"""A worker's database connection between tasks (``workers/fixup.py``): kept for
``DATABASE_CONN_MAX_AGE`` seconds, as Django keeps it between requests, instead of a new
PostgreSQL connection for every match; closed after every task when it is 0."""

from __future__ import annotations

import pytest
from django.db import connection

from arena.models import Round, RoundStatus
from arena.ratings.models import BatchRating
from arena.services.rounds import do_schedule_round
from tests.leagues.conftest import Cluster, wait_for
from tests.leagues.factory import assert_rated_once, house_league

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.processes]


#: the worker's connections carry this name (libpq reads PGAPPNAME), so that no other
#: connection to the test database (another test's thread in this process) counts
WORKER_APP = "worker-connections-test"


def _other_backends() -> set[tuple[int, object]]:
    """(pid, backend start) of every connection the worker holds to the test database."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT pid, backend_start FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s",
            [WORKER_APP],
        )
        return set(cursor.fetchall())


def _play_round(league, number: int) -> None:  # noqa: ANN001
    do_schedule_round(league)  # sent to the worker's queue on commit
    wait_for(
        lambda: Round.objects.filter(
            league=league, number=number, status=RoundStatus.COMPLETE
        ).exists(),
        60, f"round {number}", step=0.1,
    )  # fmt: skip
    # the round's batch fit is the worker's last task of the round
    wait_for(
        lambda: BatchRating.objects.filter(league=league, matches=12 * number).exists(),
        30, f"the batch fit of round {number}", step=0.1,
    )  # fmt: skip


def test_a_worker_keeps_its_connection_across_matches(cluster: Cluster) -> None:
    cluster.env["DATABASE_CONN_MAX_AGE"] = "600"
    cluster.env["PGAPPNAME"] = WORKER_APP
    league = house_league("Kept connection", ["random", "greedy", "random", "greedy"])
    cluster.start_worker()
    _play_round(league, 1)
    after_one = _other_backends()
    assert after_one, "the idle worker holds no connection"
    _play_round(league, 2)  # 12 matches and a fit
    # the connection the worker held after round 1 is the one it holds after round 2: the
    # same backend process played every task of round 2 (Celery's own fix-up closes it
    # after each task, so no backend of round 1 would be left)
    assert after_one & _other_backends()
    assert_rated_once(league)


def test_with_no_max_age_a_worker_closes_its_connection_after_each_task(
    cluster: Cluster,
) -> None:
    cluster.env["DATABASE_CONN_MAX_AGE"] = "0"
    cluster.env["PGAPPNAME"] = WORKER_APP
    league = house_league("Closed connection", ["random", "greedy", "random", "greedy"])
    cluster.start_worker()
    _play_round(league, 1)
    wait_for(lambda: not _other_backends(), 30, "the idle worker to hold no connection")
    assert_rated_once(league)
