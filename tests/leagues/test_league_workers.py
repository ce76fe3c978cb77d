"""Leagues on real Celery worker processes (PostgreSQL, Redis, `celery -A workers worker`)."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from arena.models import Match, MatchEndReason, MatchReplay, MatchStatus, Round, RoundStatus
from arena.ratings.models import BatchRating, LiveRating, RatedMatch
from arena.ratings.services import recompute_ratings
from arena.services.bots import create_bot
from arena.services.leagues import ScheduleSpec, do_enter, do_set_schedule
from arena.services.rounds import do_schedule_due_rounds, do_schedule_round
from referee.replay import from_json, validate
from tests.leagues.conftest import Cluster, Worker, wait_for
from tests.leagues.factory import assert_rated_once, house_league, rating_total
from workers.tasks import schedule_due_rounds

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.processes]


def _round_complete(league, number: int) -> bool:
    return Round.objects.filter(league=league, number=number, status=RoundStatus.COMPLETE).exists()


def _running_on(league, worker: Worker) -> Match | None:
    return Match.objects.filter(
        league=league, status=MatchStatus.RUNNING, worker_id__contains=f":{worker.pid}:"
    ).first()


def test_two_rounds_on_a_worker_every_match_finished_and_rated_once(cluster: Cluster) -> None:
    league = house_league("Worker league", ["random", "greedy", "random", "greedy"])
    cluster.start_worker()
    do_schedule_round(league)  # round 1: sent to the worker's queue on commit
    wait_for(lambda: _round_complete(league, 1), 60, "round 1", step=0.2)
    # round 2 through the periodic job, run by the worker itself
    schedule_due_rounds.delay(league.pk)
    wait_for(lambda: _round_complete(league, 2), 60, "round 2", step=0.2)
    # 4 entries: 6 pairings a round, each a mirrored pair
    assert Match.objects.filter(league=league).count() == 2 * 6 * 2
    assert_rated_once(league)
    assert all(m.attempts == 1 for m in Match.objects.filter(league=league))
    assert recompute_ratings(league.pk).exact
    record = from_json(MatchReplay.objects.filter(match__league=league)[0].record)
    validate(record)
    # the batch fit runs when a round completes
    wait_for(
        lambda: BatchRating.objects.filter(league=league, matches=24).count() == 4,
        30, "the batch fit after round 2", step=0.2,
    )  # fmt: skip


def test_a_worker_killed_mid_match_again_and_again(cluster: Cluster) -> None:
    """kill -9 the worker while it plays; the next worker re-runs the match from scratch
    once the lease expires; it is rated once and the Elo sum is unchanged. The round is
    sent as one chunk (``arena.run_matches``): the first kill leaves both matches claimed,
    the reaper sends each again on its own."""
    league = house_league("Kill league", ["search:400", "search:400"])
    do_schedule_round(league)  # one pairing: two matches, about a second each
    killed: list[tuple[int, int]] = []
    for _ in range(3):
        worker = cluster.start_worker()
        if killed:
            # the killed attempt's lease must expire before the reaper re-sends it
            wait_for(
                lambda: not Match.objects.filter(
                    status=MatchStatus.RUNNING, lease_expires_at__gt=timezone.now(),
                    league=league,
                ).exists(),
                30, "the dead worker's lease to expire",
            )  # fmt: skip
            do_schedule_due_rounds()  # the reaper
        running = wait_for(
            partial(_running_on, league, worker), 30, "the worker to claim a match", step=0.01
        )
        worker.kill9()
        running.refresh_from_db()
        assert running.status == MatchStatus.RUNNING  # killed mid-match: nothing written
        held = list(
            Match.objects.filter(
                league=league, status=MatchStatus.RUNNING, worker_id=running.worker_id
            )
        )
        if not killed:
            assert len(held) == 2  # the chunk: both claimed at its start
        for m in held:
            assert not RatedMatch.objects.filter(match=m).exists()
            killed.append((m.pk, m.attempts))
    cluster.start_worker()
    wait_for(
        lambda: not Match.objects.filter(league=league, status=MatchStatus.RUNNING,
                                         lease_expires_at__gt=timezone.now()).exists()
        or _round_complete(league, 1),
        30, "leases to expire",
    )  # fmt: skip
    do_schedule_due_rounds()
    wait_for(lambda: _round_complete(league, 1), 60, "the round to finish", step=0.2)
    assert_rated_once(league)
    total, expected = rating_total(league)
    assert total == expected == 3000
    for match_id, attempt in killed:
        assert Match.objects.get(pk=match_id).attempts > attempt
    assert sum(m.attempts for m in Match.objects.filter(league=league)) == 2 + len(killed)
    assert recompute_ratings(league.pk).exact
    for m in Match.objects.filter(league=league):
        assert m.replay.record["decisions"]  # a whole game, played from the start
        validate(from_json(m.replay.record))


def test_a_remote_bot_that_never_connects_forfeits_as_no_show(cluster: Cluster) -> None:
    league = house_league(
        "No-show league", ["greedy"],
        no_show_retries=2, no_show_window_s=2, connect_grace_ms=200,
    )  # fmt: skip
    ghost, _token = create_bot("ghost-bot")
    do_enter(league, ghost)
    cluster.start_worker()
    do_schedule_round(league)
    wait_for(lambda: _round_complete(league, 1), 60, "the round", step=0.2)
    matches = list(Match.objects.filter(league=league))
    assert len(matches) == 2
    for m in matches:
        assert m.status == MatchStatus.FINISHED
        assert m.end_reason == MatchEndReason.FORFEIT
        # tried at the start, then retried twice within the window, then forfeited
        assert m.no_show_retries == 2 and m.attempts == 3
        ghost_seat = m.participations.get(bot=ghost)
        assert ghost_seat.fault_cause == "no_show" and ghost_seat.won is False
        assert m.participations.exclude(bot=ghost).get().won is True
    row = LiveRating.objects.get(league=league, bot=ghost)
    assert (row.games, row.losses, row.forfeits) == (2, 2, 2)
    assert row.rating < 1500
    assert_rated_once(league)


def test_beat_starts_rounds_from_the_schedule_in_the_database(cluster: Cluster) -> None:
    league = house_league("Beat league", ["random", "greedy", "random"])
    do_set_schedule(league, ScheduleSpec.parse("every 10s"))
    # as if it last ran an hour ago: due as soon as beat starts (a new entry waits 10 s)
    PeriodicTask.objects.filter(pk=league.schedule_id).update(
        last_run_at=timezone.now() - timedelta(hours=1)
    )
    cluster.start_worker()
    cluster.start_beat()
    wait_for(lambda: _round_complete(league, 1), 60, "beat to start round 1", step=0.2)
    assert Match.objects.filter(league=league).count() == 6
    assert_rated_once(league)
