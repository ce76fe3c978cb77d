"""The cost of one result and of a batch of results, in statements, and the round's
pending count that completes a round without counting its matches
(``arena.services.completion``)."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from arena.adapters.play.matches import play_match, play_matches
from arena.models import League, Match, MatchStatus, Round, RoundStatus
from arena.ratings.services import recompute_ratings
from arena.services import live
from arena.services.claims import PlayOutcome, do_claim_match, do_void_attempt
from arena.services.rounds import do_reap, do_schedule_round
from referee import GameConfig, legal_actions, new_game
from referee.replay import RecordedDecision
from tests.leagues.factory import assert_rated_once, house_league

pytestmark = pytest.mark.services

#: a 2-seat result of house bots: the claim, the seats with their match, then the result's
#: transaction (BEGIN, the match, rating rows read and written, the ledger, the seats,
#: the head-to-head records the pages read, the replay, analytics in a savepoint: 4, the
#: round's count, COMMIT). It was 25, then 17, then 15; the records added one.
STATEMENTS_PER_RESULT = 16
#: at a pairing's first games, analytics also make the bots' rows and lock them again
FIRST_MEETING_EXTRA = 2
#: a chunk of K house matches (``play_matches``): the same statements as one result, each
#: a multi-row statement, whatever K (one claim, one read of the seats, one transaction)
STATEMENTS_PER_BATCH = STATEMENTS_PER_RESULT


def _round(league: League) -> tuple[Round, list[int]]:
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    return scheduled.round, scheduled.matches


def _statements(match_id: int) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert play_match(match_id) is PlayOutcome.FINISHED
    sql = [q["sql"] for q in queries.captured_queries]
    # the round's completion does not count the round's matches
    assert not any("COUNT(" in s.upper() or "SELECT 1 AS" in s for s in sql), sql
    return len(sql)


@pytest.mark.django_db
def test_a_result_costs_a_fixed_number_of_statements_whatever_the_league_size() -> None:
    first: list[int] = []
    again: list[int] = []
    for bots in (4, 10):
        league = house_league(f"Statements {bots}", ["random"] * bots)
        _, matches = _round(league)
        first += [_statements(match_id) for match_id in matches]
        _, matches = _round(league)  # the same pairings again: their rows are there
        again += [_statements(match_id) for match_id in matches[:3]]
    assert again == [STATEMENTS_PER_RESULT] * len(again)
    # each pairing's first game makes its rows; its mirrored partner finds them
    assert first.count(STATEMENTS_PER_RESULT + FIRST_MEETING_EXTRA) == len(first) // 2
    assert set(first) == {STATEMENTS_PER_RESULT, STATEMENTS_PER_RESULT + FIRST_MEETING_EXTRA}


@pytest.mark.django_db
def test_a_batch_of_results_costs_the_statements_of_one() -> None:
    league = house_league("Batch statements", ["random", "greedy"] * 4)
    counts = []
    for chunk in (16, 1, 4, 56):
        _, matches = _round(league)  # 28 pairings, 56 matches
        assert len(matches) == 56
        with CaptureQueriesContext(connection) as queries:
            ends = play_matches(matches[:chunk])
        assert ends == [PlayOutcome.FINISHED] * chunk
        sql = [q["sql"] for q in queries.captured_queries]
        assert not any("COUNT(" in s.upper() or "SELECT 1 AS" in s for s in sql), sql
        counts.append(len(sql))
        assert all(e is PlayOutcome.FINISHED for e in play_matches(matches[chunk:]))
    # the first round's chunk holds first meetings: their analytics rows are made in it
    assert counts == [STATEMENTS_PER_BATCH + FIRST_MEETING_EXTRA] + [STATEMENTS_PER_BATCH] * 3
    assert_rated_once(league)
    assert recompute_ratings(league.pk).exact


@pytest.mark.django_db
def test_the_pending_count_completes_the_round_with_its_last_result() -> None:
    league = house_league("Pending", ["random", "greedy", "random"], pairs_per_pairing=2)
    rnd, matches = _round(league)
    rnd.refresh_from_db()
    assert rnd.pending_matches == len(matches) == Match.objects.filter(round=rnd).count()
    for i, match_id in enumerate(matches):
        assert play_match(match_id) is PlayOutcome.FINISHED
        rnd.refresh_from_db()
        assert rnd.pending_matches == len(matches) - i - 1
        assert rnd.status == (
            RoundStatus.COMPLETE if i == len(matches) - 1 else RoundStatus.PLAYING
        )
    assert rnd.completed_at is not None
    assert_rated_once(league)
    assert recompute_ratings(league.pk).exact


@pytest.mark.django_db
def test_a_re_queued_attempt_stays_pending_and_a_void_match_counts_as_over(settings) -> None:
    settings.ARENA_MAX_ATTEMPTS = 2
    league = house_league("Voids", ["random", "greedy"])
    rnd, matches = _round(league)
    match_id, other = matches
    assert play_match(other) is PlayOutcome.FINISHED
    first = do_claim_match(match_id, "w1")
    assert first is not None
    assert do_void_attempt(first, "RuntimeError: relay down") is PlayOutcome.REQUEUED
    rnd.refresh_from_db()
    assert (rnd.pending_matches, rnd.status) == (1, RoundStatus.PLAYING)
    second = do_claim_match(match_id, "w2")
    assert second is not None
    assert do_void_attempt(second, "RuntimeError: relay down") is PlayOutcome.VOID
    # a late duplicate changes nothing (its lease is gone)
    assert do_void_attempt(second, "again") is PlayOutcome.LOST_LEASE
    rnd.refresh_from_db()
    assert (rnd.pending_matches, rnd.status) == (0, RoundStatus.COMPLETE)
    assert Match.objects.get(pk=match_id).status == MatchStatus.VOID


@pytest.mark.django_db
def test_a_round_without_a_count_is_completed_by_counting_its_matches() -> None:
    """A round made some other way keeps no count (NULL): results fall back to counting,
    and the reaper completes a round whose count went wrong."""
    league = house_league("No count", ["random", "greedy", "random"])
    rnd, matches = _round(league)
    Round.objects.filter(pk=rnd.pk).update(pending_matches=None)
    for match_id in matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
    rnd.refresh_from_db()
    assert rnd.status == RoundStatus.COMPLETE and rnd.pending_matches == 0

    rnd2, matches2 = _round(league)
    Round.objects.filter(pk=rnd2.pk).update(pending_matches=len(matches2) + 5)  # gone wrong
    for match_id in matches2:
        assert play_match(match_id) is PlayOutcome.FINISHED
    assert Round.objects.get(pk=rnd2.pk).status == RoundStatus.PLAYING
    assert rnd2.pk in do_reap().completed_rounds
    assert Round.objects.get(pk=rnd2.pk).status == RoundStatus.COMPLETE


@pytest.mark.django_db(transaction=True)
def test_a_house_bots_match_keeps_the_workers_connection() -> None:
    """A game of house bots is over in milliseconds: no new connection per match (a
    remote bots' game gives it back while it waits on them)."""
    league = house_league("Connections", ["random", "greedy", "random"])
    _, matches = _round(league)
    connection.ensure_connection()
    before = connection.connection
    for match_id in matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
    assert connection.connection is before


def _first_decision() -> RecordedDecision:
    state = new_game(GameConfig(), 7)
    assert state.decision is not None
    return RecordedDecision(state.actor, state.decision, legal_actions(state)[0])


@pytest.mark.django_db
def test_a_house_game_shorter_than_the_live_period_writes_no_live_decisions() -> None:
    """A throttled publisher (house bots' games) writes the first time a period after the
    start; one with no period writes every decision (remote bots' games), through the
    process's live writer: in the cache once ``live.written()`` says so."""
    decision = _first_decision()
    throttled = live.publisher(-1, every_s=0.2)
    started = time.monotonic()
    throttled(decision)
    quick = time.monotonic() - started < 0.2  # a busy machine may have taken longer
    assert live.written()
    if quick:
        assert live.decisions_so_far(-1) == []
    time.sleep(max(0.0, 0.2 - (time.monotonic() - started)))
    throttled(decision)
    assert live.written()
    assert len(live.decisions_so_far(-1)) == 2
    every = live.publisher(-2)
    every(decision)
    assert live.written()
    assert live.decisions_so_far(-2) == [decision.to_json()]
    every(decision)
    live.forget(-2)  # over before the writer wrote the second: nothing is left behind
    assert live.written()
    assert live.decisions_so_far(-2) == []
    live.forget(-1)
    live.forget(-2)
