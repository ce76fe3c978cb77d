"""Whole events played by house bots through the real worker path: Celery workers claim
the matches, write each result once, and the hook after the result that completes a round
writes the next one (exactly once, however many workers race for it)."""

from __future__ import annotations

import threading
from itertools import combinations

import pytest
from django.db import close_old_connections, connection

from arena.events import results
from arena.events.advance import after_result, do_advance, do_start
from arena.events.models import Bye, TournamentStatus
from arena.models import Match, MatchStatus, Round, RoundStatus
from arena.ratings.models import RatedMatch
from arena.services import result_hooks
from tests.events.factory import house_event, play_queued
from tests.leagues.conftest import Cluster, wait_for
from workers.tasks import advance_tournaments

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.processes]


def _finished(t) -> bool:  # noqa: ANN001
    t.refresh_from_db()
    return t.status == TournamentStatus.FINISHED


def test_a_swiss_of_five_played_to_the_end_by_two_workers(cluster: Cluster) -> None:
    t = house_event(
        "Worker Swiss", "swiss", ["greedy", "random", "greedy", "random", "search:20"],
        rounds=3, rated=True,
    )  # fmt: skip
    cluster.start_worker()
    cluster.start_worker()
    do_start(t)  # round 1 sent on commit; the workers' hook writes rounds 2 and 3
    wait_for(lambda: _finished(t), 240, "the Swiss to finish", step=0.3)

    rounds = list(Round.objects.filter(league=t.league).order_by("number"))
    assert [r.number for r in rounds] == [1, 2, 3]
    assert all(r.status == RoundStatus.COMPLETE for r in rounds)
    matches = list(Match.objects.filter(league=t.league))
    # 5 bots: 2 pairings a round and a bye, 2 games a pairing
    assert len(matches) == 3 * 2 * 2
    assert all(m.status == MatchStatus.FINISHED and m.rated for m in matches)
    assert RatedMatch.objects.filter(league=t.league).count() == len(matches)
    played = results.pairing_results(t)
    met = [frozenset((pr.a, pr.b)) for prs in played.values() for pr in prs]
    assert len(met) == len(set(met)) == 6, "no pairing twice"
    byes = list(Bye.objects.filter(tournament=t).values_list("round_number", "bot_id"))
    assert sorted(n for n, _ in byes) == [1, 2, 3]
    assert len({b for _, b in byes}) == 3, "a different bot's bye each round"
    table = results.table(t)
    assert sum(row.score for row in table) == 3 * 2 + 3  # 2 pairings a round + the bye
    assert t.winner_id == table[0].bot_id
    assert cluster.workers[0].proc.poll() is None, cluster.logs()


def test_a_knockout_moved_on_by_the_beat_task_when_no_hook_did(cluster: Cluster) -> None:
    """Round 1 played here without the hook (as if the process died after the last
    result's commit); the beat's task, run by a worker, writes round 2; the worker plays
    it and its hook finishes the event."""
    t = house_event("Worker KO", "knockout", ["greedy", "random", "greedy", "random"])
    do_start(t, enqueue=False)
    result_hooks.unregister(after_result)
    try:
        play_queued(t)
    finally:
        result_hooks.register(after_result)
    assert Round.objects.filter(league=t.league).count() == 1
    assert Round.objects.get(league=t.league).status == RoundStatus.COMPLETE
    cluster.start_worker()
    advance_tournaments.delay()
    wait_for(lambda: _finished(t), 120, "the knockout to finish", step=0.3)
    bracket = results.bracket(t)
    assert [len(r) for r in bracket] == [2, 1]
    assert t.winner_id == bracket[1][0].winner
    assert {bracket[1][0].a, bracket[1][0].b} == {tie.winner for tie in bracket[0]}


@pytest.mark.django_db(transaction=True)
def test_two_advancers_at_once_write_the_next_round_once() -> None:
    """Two callers see the complete round at the same moment: the tournament row's lock
    lets one write round 2; the other then finds it playing."""
    t = house_event("Race RR", "round_robin", ["greedy", "random", "greedy", "random"])
    do_start(t, enqueue=False)
    result_hooks.unregister(after_result)  # the two threads below are the advancers
    try:
        _race(t)
    finally:
        result_hooks.register(after_result)


def _race(t) -> None:  # noqa: ANN001
    play_queued(t)
    barrier = threading.Barrier(2)
    answers: list[object] = []

    def advance() -> None:
        close_old_connections()
        try:
            barrier.wait(10)
            answers.append(do_advance(t.pk, enqueue=False))
        finally:
            connection.close()

    threads = [threading.Thread(target=advance) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert sorted(a.round is not None for a in answers) == [False, True]  # type: ignore[attr-defined]
    assert Round.objects.filter(league=t.league).count() == 2
    assert Match.objects.filter(league=t.league, round__number=2).count() == 2 * 2
    # and the round robin meets every pair exactly once by its end
    while not do_advance(t.pk, enqueue=False).finished:
        play_queued(t)
    pairs = [frozenset((pr.a, pr.b)) for prs in results.pairing_results(t).values() for pr in prs]
    bots = [e.bot_id for e in t.entrants.all()]
    assert sorted(map(sorted, pairs)) == sorted(map(sorted, combinations(bots, 2)))
