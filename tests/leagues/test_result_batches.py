"""Results written in batches (``do_finish_matches``, ``play_matches``): a batch gives
the ratings that writing its results one by one gives, drops only a match whose lease
was lost, falls back to one by one when its transaction fails, and completes a round
once; a threads pool's results that arrive together are written together. Real
PostgreSQL; the games are real house games."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from arena.adapters.play.matches import _play_claimed, play_match, play_matches
from arena.analytics.models import BotAnalytics
from arena.models import League, Match, MatchReplay, MatchStatus, Participation, Round, RoundStatus
from arena.ratings.models import LiveRating, RatedMatch
from arena.ratings.services import recompute_ratings
from arena.services.claims import Claim, PlayOutcome, do_claim_match, do_claim_matches
from arena.services.results import Finished, Played, do_finish_matches
from arena.services.resultwriter import ResultWriter
from arena.services.rounds import do_schedule_round
from tests.leagues.conftest import wait_for
from tests.leagues.factory import assert_rated_once, house_league, rating_total

pytestmark = pytest.mark.services


def _round(league: League) -> tuple[Round, list[int]]:
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    return scheduled.round, scheduled.matches


def _played(claims: list[Claim]) -> list[Finished]:
    """Each claimed match's game, its result not written yet."""
    played = Played.load_many([c.match_id for c in claims])
    finished = []
    for c in claims:
        end = _play_claimed(c, played[c.match_id], None)
        assert isinstance(end, Finished), end
        finished.append(end)
    return finished


def _short(name: str) -> str:
    """A house bot's name without its league's slug: ``{place}-{spec}``."""
    return "-".join(name.split("-")[-2:])


def _ratings(league: League) -> dict[str, tuple[object, ...]]:
    """Per bot (by its spec and place in the league), what its rows say."""
    out: dict[str, tuple[object, ...]] = {}
    for r in LiveRating.objects.filter(league=league).select_related("bot"):
        out[_short(r.bot.name)] = (
            r.rating, r.games, r.wins, r.losses, r.forfeits, r.shown_rating, r.shown_games,
        )  # fmt: skip
    return out


def _names(match_id: int) -> list[str]:
    seats = Participation.objects.filter(match_id=match_id).order_by("seat")
    return [_short(n) for n in seats.values_list("bot__name", flat=True)]


def _seats(league: League) -> list[tuple[object, ...]]:
    return list(
        Participation.objects.filter(league=league)
        .order_by("match_id", "seat")
        .values_list("won", "rating_before", "rating_change", "rating_after", "decisions")
    )


def _analytics(league: League) -> dict[tuple[str, str | None], tuple[object, ...]]:
    out: dict[tuple[str, str | None], tuple[object, ...]] = {}
    for a in BotAnalytics.objects.filter(league=league).select_related("bot", "opponent"):
        key = (_short(a.bot.name), _short(a.opponent.name) if a.opponent else None)
        out[key] = (a.games, a.offers, a.decisions, a.gain_total, a.end_for, a.end_against)
    return out


@pytest.mark.django_db
def test_a_batch_rates_as_writing_its_results_one_by_one() -> None:
    """Two leagues with the same bots' specs and the same deals: one round's results in
    one batch (a bot plays several matches of it), the other's one by one, in the same
    order: the same ratings, seats, standings and analytics, two rounds running."""
    specs = ["random", "greedy", "random", "greedy", "random"]
    batched = house_league("Batched", specs)
    single = house_league("One by one", specs)
    for _ in range(2):
        _, mine = _round(batched)
        _, theirs = _round(single)
        assert len(mine) == len(theirs) == 20
        for a, b in zip(mine, theirs, strict=True):  # same deals, same seeds, same seats
            m = Match.objects.get(pk=a)
            Match.objects.filter(pk=b).update(deck_seed=m.deck_seed, first_team=m.first_team)
        assert [_names(a) for a in mine] == [_names(b) for b in theirs]
        with CaptureQueriesContext(connection) as batch_queries:
            assert play_matches(mine) == [PlayOutcome.FINISHED] * len(mine)
        for b in theirs:
            assert play_match(b) is PlayOutcome.FINISHED
        # the whole round in one batch: the statements of one result (the head-to-head
        # records' upsert among them: arena.ratings.headtohead)
        assert len(batch_queries.captured_queries) <= 18
    assert _ratings(batched) == _ratings(single)
    assert _seats(batched) == _seats(single)
    assert _analytics(batched) == _analytics(single)
    for league in (batched, single):
        assert_rated_once(league)
        assert recompute_ratings(league.pk).exact
        assert Round.objects.filter(league=league, status=RoundStatus.COMPLETE).count() == 2


@pytest.mark.django_db
def test_a_lost_lease_in_the_middle_of_a_batch_drops_that_match_only() -> None:
    league = house_league("Lost in a batch", ["random", "greedy", "random"])
    rnd, ids = _round(league)
    claims = do_claim_matches(ids[:3], "w1")
    assert [c.match_id for c in claims] == ids[:3]
    finished = _played(claims)
    middle = ids[1]
    # its lease lapses (a stalled worker) and another worker takes the match over
    Match.objects.filter(pk=middle).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    newer = do_claim_match(middle, "w2")
    assert newer is not None and newer.attempt == 2
    ends = do_finish_matches(finished)
    assert ends == [PlayOutcome.FINISHED, PlayOutcome.LOST_LEASE, PlayOutcome.FINISHED]
    m = Match.objects.get(pk=middle)
    assert (m.status, m.attempts, m.worker_id) == (MatchStatus.RUNNING, 2, "w2")
    assert not RatedMatch.objects.filter(match_id=middle).exists()
    assert not MatchReplay.objects.filter(match_id=middle).exists()
    assert RatedMatch.objects.filter(match_id__in=[ids[0], ids[2]]).count() == 2
    assert set(Participation.objects.filter(match_id=middle).values_list("won", flat=True)) == {
        None
    }
    total, expected = rating_total(league)
    assert total == expected
    # the newer attempt writes it; the rest of the round as usual
    assert do_finish_matches(_played([newer])) == [PlayOutcome.FINISHED]
    assert play_matches(ids[3:]) == [PlayOutcome.FINISHED] * len(ids[3:])
    assert_rated_once(league)
    assert recompute_ratings(league.pk).exact
    rnd.refresh_from_db()
    assert (rnd.status, rnd.pending_matches) == (RoundStatus.COMPLETE, 0)


@pytest.mark.django_db
def test_a_result_that_fails_in_a_batch_falls_back_to_one_by_one() -> None:
    """A result that cannot be written (here: its match has a replay already, so the
    batch's replay insert breaks a unique key) costs the batch its transaction; the others
    are then written one by one and the bad one's attempt is void (queued again)."""
    league = house_league("Failing in a batch", ["random", "greedy", "random"])
    rnd, ids = _round(league)
    claims = do_claim_matches(ids[:4], "w1")
    finished = _played(claims)
    bad = ids[2]
    MatchReplay.objects.create(match_id=bad, record={}, report={})
    ends = do_finish_matches(finished)
    assert ends == [PlayOutcome.FINISHED] * 2 + [PlayOutcome.REQUEUED, PlayOutcome.FINISHED]
    m = Match.objects.get(pk=bad)
    assert m.status == MatchStatus.QUEUED and "IntegrityError" in m.error
    assert not RatedMatch.objects.filter(match_id=bad).exists()
    assert RatedMatch.objects.filter(match_id__in=ids[:4]).count() == 3
    rnd.refresh_from_db()
    assert rnd.pending_matches == len(ids) - 3
    MatchReplay.objects.filter(match_id=bad).delete()
    assert play_matches([bad, *ids[4:]]) == [PlayOutcome.FINISHED] * (len(ids) - 3)
    assert_rated_once(league)
    assert recompute_ratings(league.pk).exact
    assert Match.objects.get(pk=bad).attempts == 2


@pytest.mark.django_db
def test_a_batch_completes_each_of_its_rounds_once() -> None:
    """A batch holding the last matches of two rounds (of two leagues) completes both,
    once; a second delivery of the same chunk changes nothing."""
    one = house_league("Rounds A", ["random", "greedy", "random"])
    two = house_league("Rounds B", ["greedy", "random"])
    r1, ids1 = _round(one)
    r2, ids2 = _round(two)
    assert play_match(ids1[0]) is PlayOutcome.FINISHED
    rest = [*ids1[1:], *ids2]
    assert play_matches(rest) == [PlayOutcome.FINISHED] * len(rest)
    for rnd in (r1, r2):
        rnd.refresh_from_db()
        assert (rnd.status, rnd.pending_matches) == (RoundStatus.COMPLETE, 0)
        assert rnd.completed_at is not None
    assert play_matches(rest) == [PlayOutcome.SKIPPED] * len(rest)
    for rnd in (r1, r2):
        rnd.refresh_from_db()
        assert (rnd.status, rnd.pending_matches) == (RoundStatus.COMPLETE, 0)
    for league in (one, two):
        assert_rated_once(league)
        assert recompute_ratings(league.pk).exact


@pytest.mark.django_db(transaction=True)
def test_results_that_arrive_while_a_batch_is_written_are_written_together() -> None:
    """A threads pool's writer (``ResultWriter``): while one thread's result is being
    written (held here at the round row, locked by the test), three more threads' results
    arrive; they wait, and are written as one batch once the first is done."""
    league = house_league("Writer", ["random", "greedy", "random"])
    rnd, ids = _round(league)
    finished = _played(do_claim_matches(ids[:4], "w1"))
    writer = ResultWriter()
    ends: dict[int, list[PlayOutcome]] = {}

    def write(i: int) -> None:
        try:
            ends[i] = writer.write([finished[i]])
        finally:
            connection.close()

    def waiting_threads() -> int:
        with writer._lock:
            return sum(len(t.results) for t in writer._waiting)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    with transaction.atomic():
        Round.objects.select_for_update().get(pk=rnd.pk)
        threads[0].start()
        wait_for(lambda: _blocked_on_a_lock() > 0, 30, "the first batch to wait for the round")
        for t in threads[1:]:
            t.start()
        wait_for(lambda: waiting_threads() == 3, 30, "three results to wait for the writer")
    for t in threads:
        t.join(60)
        assert not t.is_alive()
    assert writer.batches == [1, 3]
    assert [ends[i] for i in range(4)] == [[PlayOutcome.FINISHED]] * 4
    assert RatedMatch.objects.filter(match_id__in=ids[:4]).count() == 4
    assert play_matches(ids[4:]) == [PlayOutcome.FINISHED] * len(ids[4:])
    assert_rated_once(league)
    assert recompute_ratings(league.pk).exact
    rnd.refresh_from_db()
    assert (rnd.status, rnd.pending_matches) == (RoundStatus.COMPLETE, 0)


def _blocked_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # else one snapshot per transaction
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0
