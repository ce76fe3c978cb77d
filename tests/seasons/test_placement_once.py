"""A newcomer is placed exactly once: two processes let go at once, and a process killed
(SIGKILL) after the fit and inside the placing transaction, against PostgreSQL."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import psycopg
import pytest

from arena.models import Entry, League
from arena.seasons.models import Placement
from arena.seasons.placement import do_place_newcomers
from tests.leagues.conftest import Cluster, database_url, wait_for
from tests.seasons.helpers import lock_waiters, play_round, step_process, until_stopped
from tests.seasons.test_placement_flow import provisional_league

pytestmark = [pytest.mark.services, pytest.mark.processes]


def _due_league(name: str) -> tuple[League, list[int]]:
    """Two newcomers that have their 4 provisional games, not placed yet."""
    league, newcomers = provisional_league(name, 4)
    play_round(league)
    assert not Placement.objects.filter(entry__league=league).exists()
    return league, [e.pk for e in newcomers]


def _state(league: League) -> tuple[dict[int, int | None], list[tuple[int, int]]]:
    divisions = dict(Entry.objects.filter(league=league).values_list("id", "division"))
    rows = list(
        Placement.objects.filter(entry__league=league)
        .order_by("entry_id")
        .values_list("entry_id", "division")
    )
    return divisions, rows


def test_two_processes_racing_place_each_newcomer_once(cluster: Cluster, tmp_path: Path) -> None:
    league, newcomers = _due_league("Placement raced")
    barrier = tmp_path / "go"
    # both hold off at the league's row lock, then race for it
    holder = psycopg.connect(database_url())
    watcher = psycopg.connect(database_url(), autocommit=True)
    procs = [
        step_process(cluster.env, "place", league.pk, "--barrier", str(barrier)) for _ in range(2)
    ]
    try:
        for p in procs:
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "ready"
        holder.execute("SELECT id FROM arena_league WHERE id = %s FOR UPDATE", [league.pk])
        barrier.touch()
        wait_for(lambda: lock_waiters(watcher) >= 2, 120, "both processes at the lock")
        holder.rollback()
        outputs = [p.communicate(timeout=120)[0] for p in procs]
    finally:
        holder.close()
        watcher.close()
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(30)
    assert all(p.returncode == 0 for p in procs), outputs
    answers = sorted(json.loads(out.strip().splitlines()[-1])["placed"] for out in outputs)
    assert answers == [[], sorted(newcomers)], outputs
    divisions, rows = _state(league)
    assert [e for e, _ in rows] == sorted(newcomers)
    assert all(divisions[e] == d for e, d in rows)
    assert do_place_newcomers(league.pk) == []


@pytest.mark.parametrize("step", ["fit", "placed"])
def test_a_process_killed_midway_leaves_the_newcomers_to_be_placed_once(
    cluster: Cluster, step: str
) -> None:
    league, newcomers = _due_league(f"Placement killed {step}")
    before = _state(league)
    proc = step_process(cluster.env, "place", league.pk, "--stop-at", step)
    try:
        until_stopped(proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    watcher = psycopg.connect(database_url(), autocommit=True)
    try:
        wait_for(lambda: lock_waiters(watcher) == 0, 30, "the killed transaction to end")
    finally:
        watcher.close()
    assert _state(league) == before  # nothing placed
    # (a dead backend PostgreSQL has not noticed yet only makes this wait on its lock)
    placed = do_place_newcomers(league.pk)
    assert sorted(p.entry_id for p in placed) == sorted(newcomers)
    assert do_place_newcomers(league.pk) == []
    assert len(_state(league)[1]) == 2
