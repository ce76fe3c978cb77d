"""A season's end happens exactly once: two real Celery workers racing to end it, and a
process killed (SIGKILL) between the steps of the end, against PostgreSQL."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import psycopg
import pytest

from arena.models import Entry, League
from arena.seasons.ending import do_end_due_seasons
from arena.seasons.models import Season, SeasonStanding, SeasonStatus
from tests.leagues.conftest import Cluster, database_url, wait_for
from tests.seasons.helpers import (
    lock_waiters,
    play_round,
    running,
    season_league,
    step_process,
    until_stopped,
)
from workers.tasks import end_due_seasons

pytestmark = [pytest.mark.services, pytest.mark.processes]


def _due_league(name: str) -> League:
    """Six bots in two divisions of three, a season of one round, played."""
    league = season_league(name, 6, rounds_per_season=1, divisions=2, division_size=3,
                           promote=1)  # fmt: skip
    play_round(league)
    return league


def _state(league: League) -> tuple[list[tuple[int, str]], dict[int, int | None], int]:
    seasons = list(Season.objects.filter(league=league).order_by("number").values_list(
        "number", "status"))  # fmt: skip
    divisions = dict(Entry.objects.filter(league=league).values_list("bot_id", "division"))
    return seasons, divisions, SeasonStanding.objects.filter(season__league=league).count()


def _league_locked(league: League) -> bool:
    """Whether another transaction holds the league's row lock (asked without waiting)."""
    with psycopg.connect(database_url()) as conn:
        try:
            conn.execute("SELECT id FROM arena_league WHERE id = %s FOR UPDATE NOWAIT",
                         [league.pk])  # fmt: skip
        except psycopg.errors.LockNotAvailable:
            return True
        conn.rollback()
        return False


def test_two_workers_racing_end_the_season_once(cluster: Cluster) -> None:
    league = _due_league("Raced")
    before = _state(league)
    workers = [cluster.start_worker(), cluster.start_worker()]
    # Hold the league's row lock so that both workers are inside the end, waiting on it,
    # before either can go on: then let them race.
    holder = psycopg.connect(database_url())
    watcher = psycopg.connect(database_url(), autocommit=True)
    try:
        holder.execute("SELECT id FROM arena_league WHERE id = %s FOR UPDATE", [league.pk])
        end_due_seasons.delay(league.pk)
        end_due_seasons.delay(league.pk)
        wait_for(lambda: lock_waiters(watcher) >= 2, 60, "both workers waiting on the lock")
        holder.rollback()
    finally:
        holder.close()
    done = re.compile(r"Task arena\.end_due_seasons\[[^\]]+\] succeeded in [^:]+: (.*)")

    def results() -> list[str] | None:
        found = [m.group(1) for w in workers for m in done.finditer(w.output())]
        return found if len(found) == 2 else None

    answers = wait_for(results, 120, "both tasks to finish")
    watcher.close()
    assert sorted(a == "[]" for a in answers) == [False, True], cluster.logs()
    # one task each: both were inside the end at once
    assert [len(done.findall(w.output())) for w in workers] == [1, 1]
    seasons, divisions, frozen = _state(league)
    assert seasons == [(1, SeasonStatus.ENDED), (2, SeasonStatus.RUNNING)]
    assert frozen == 6
    # promotion applied once: exactly one bot each way (twice would swap them back)
    moved = {b for b, d in divisions.items() if d != before[1][b]}
    assert len(moved) == 2


@pytest.mark.parametrize("step", ["fit", "locked", "standings", "divisions", "next season"])
def test_a_process_killed_midway_leaves_the_season_to_end_once(cluster: Cluster, step: str) -> None:
    league = _due_league(f"Killed {step}")
    season = running(league)
    before = _state(league)
    proc = step_process(cluster.env, "end", season.pk, "--stop-at", step)
    try:
        until_stopped(proc)
        # the fit runs before the league row is locked; the end's writes hold it
        assert _league_locked(league) == (step != "fit")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    # nothing of the end is left: the season runs, no row frozen, no bot moved
    watcher = psycopg.connect(database_url(), autocommit=True)
    try:
        # the killed backend's transaction is gone once PostgreSQL noticed the closed socket
        wait_for(lambda: lock_waiters(watcher) == 0, 30, "the killed transaction to end")
    finally:
        watcher.close()
    assert _state(league) == before
    ended = do_end_due_seasons(league.pk)
    assert [e.season for e in ended] == [1]
    assert do_end_due_seasons(league.pk) == []
    seasons, _, frozen = _state(league)
    assert seasons == [(1, SeasonStatus.ENDED), (2, SeasonStatus.RUNNING)]
    assert frozen == 6


def test_two_processes_let_go_at_once_end_the_season_once(cluster: Cluster, tmp_path: Path) -> None:
    league = _due_league("Barrier")
    season = running(league)
    before = _state(league)
    barrier = tmp_path / "go"
    procs = [
        step_process(cluster.env, "end", season.pk, "--barrier", str(barrier)) for _ in range(2)
    ]
    try:
        for p in procs:  # both set up and waiting
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "ready"
        barrier.touch()
        outputs = [p.communicate(timeout=120)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(30)
    assert all(p.returncode == 0 for p in procs), outputs
    answers = [json.loads(out.strip().splitlines()[-1])["ended"] for out in outputs]
    assert sorted(a is None for a in answers) == [False, True], outputs
    seasons, divisions, frozen = _state(league)
    assert seasons == [(1, SeasonStatus.ENDED), (2, SeasonStatus.RUNNING)]
    assert frozen == 6
    assert len({b for b, d in divisions.items() if d != before[1][b]}) == 2
