"""An operator voids matches the arena played badly and plays them again (``league rerun``,
the admin's fault report and *Void and re-run* action): the result counts for nothing,
ratings, standings and analytics read as if it had never been played, the match plays
again, and nothing of the voided run can come back."""

from __future__ import annotations

import json
import uuid
from decimal import Decimal
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from arena.adapters.play.matches import play_match
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.analytics.models import BotAnalytics
from arena.models import (
    DealMode,
    Incident,
    IncidentKind,
    League,
    Match,
    MatchReplay,
    MatchStatus,
    Round,
    RoundStatus,
)
from arena.ratings.models import LiveRating, RatedMatch
from arena.ratings.services import recompute_ratings
from arena.ratings.standings import recompute_standings
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.claims import PlayOutcome
from arena.services.rerun import void_and_rerun
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import assert_rated_once, house_league, rating_total

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def _relay() -> RedisRunnerRelay:
    """A relay of a prefix no gateway uses: every remote bot is away."""
    return RedisRunnerRelay(str(settings.REDIS_URL), f"rerun-{uuid.uuid4().hex[:8]}")


def _broken() -> RedisRunnerRelay:
    return RedisRunnerRelay("redis://127.0.0.1:1/0")  # nothing listens there


def _played_round(name: str, **kw: object) -> tuple[League, list[int]]:
    league = house_league(name, ["greedy", "random", "greedy"], **kw)  # type: ignore[arg-type]
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    for match_id in scheduled.matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
    assert_rated_once(league)
    return league, sorted(scheduled.matches)


def _analytics(league: League) -> dict[tuple[int, int | None], tuple[object, ...]]:
    return {
        (a.bot_id, a.opponent_id): (
            a.games,
            a.offers,
            a.face_down_taken,
            a.gain_total,
            a.handed_third_daredevil,
            a.handed_third_codebreaker,
            a.end_for,
            a.end_against,
            a.decisions,
            a.latency,
        )  # fmt: skip
        for a in BotAnalytics.objects.filter(league=league, games__gt=0)
    }


def _ratings(league: League) -> dict[int, Decimal]:
    return dict(LiveRating.objects.filter(league=league).values_list("bot_id", "rating"))


def test_the_last_result_voided_puts_ratings_back_and_the_match_plays_again() -> None:
    league, matches = _played_round("Rerun last")
    last = RatedMatch.objects.filter(league=league).order_by("-id").first()
    assert last is not None
    voided = Match.objects.get(pk=last.match_id)
    seats = {p.bot_id: p.rating_before for p in voided.participations.all()}
    won = [p.won for p in voided.participations.order_by("seat")]
    others = {b: r for b, r in _ratings(league).items() if b not in seats}
    attempts = voided.attempts

    out = StringIO()
    call_command("league", "rerun", league.name, str(voided.pk), "--reason", "test", stdout=out)
    assert f"voided and queued again 1 matches [{voided.pk}]" in out.getvalue()

    # ratings as before that match: its seats back to their ratings before it, the others
    # untouched, the sum still 1500 a row, and the ledger agrees with every stored value
    after = _ratings(league)
    assert {b: after[b] for b in seats} == seats
    assert {b: after[b] for b in others} == others
    total, expected = rating_total(league)
    assert total == expected
    assert recompute_ratings(league.pk).mismatches == []
    assert recompute_standings(league.pk).mismatches == []
    games = sum(LiveRating.objects.filter(league=league).values_list("games", flat=True))
    assert games == 2 * (len(matches) - 1)

    m = Match.objects.get(pk=voided.pk)
    assert (m.status, m.rated, m.winner_team, m.end_reason) == (MatchStatus.QUEUED, False, None, "")
    assert (m.reruns, m.attempt_base, m.attempts) == (1, attempts, attempts)
    assert "re-run by manage.py league rerun: test" in m.error
    assert not MatchReplay.objects.filter(match=m).exists()
    assert not RatedMatch.objects.filter(match=m).exists()
    assert all(
        (p.won, p.rating_change, p.decisions, p.fault_cause) == (None, None, 0, "")
        for p in m.participations.all()
    )
    # the voided result, for the record
    incident = Incident.objects.get(kind=IncidentKind.MATCH_RERUN, match=m)
    record = json.loads(incident.detail)
    assert record["reason"] == "test" and record["end_reason"] == voided.end_reason
    assert [s["won"] for s in record["seats"]] == won
    # its round is open again with one match pending
    rnd = Round.objects.get(pk=m.round_id)
    assert (rnd.status, rnd.pending_matches) == (RoundStatus.PLAYING, 1)

    assert play_match(m.pk) is PlayOutcome.FINISHED
    page = Client().get(f"/matches/{m.pk}/").content.decode()
    assert "an operator voided an earlier result" in page
    assert_rated_once(league)
    assert Round.objects.get(pk=m.round_id).status == RoundStatus.COMPLETE
    assert recompute_ratings(league.pk).mismatches == []
    assert Match.objects.get(pk=m.pk).attempts == attempts + 1


def test_a_result_in_the_middle_voided_leaves_analytics_as_a_rebuild_counts_them() -> None:
    league, matches = _played_round("Rerun middle")
    middle = matches[len(matches) // 2]
    report = void_and_rerun(league, [middle], reason="mid", by="test")
    assert report.rerun == [middle] and not report.refused
    assert report.ratings  # later matches were rated from other ratings: they moved
    assert recompute_ratings(league.pk).mismatches == []
    assert recompute_standings(league.pk).mismatches == []
    taken_off = _analytics(league)
    call_command("analytics", "rebuild", "--league", league.slug, stdout=StringIO())
    assert _analytics(league) == taken_off


def test_what_cannot_be_rerun_is_refused_with_the_reason() -> None:
    league, matches = _played_round("Rerun refusals")
    other, _ = _played_round("Rerun other league")
    stranger = Match.objects.filter(league=other).values_list("pk", flat=True).first()
    assert stranger is not None
    bot, _ = create_bot(f"late-{uuid.uuid4().hex[:6]}")
    svc.do_enter(league, bot)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    queued = sorted(scheduled.matches)[0]

    report = void_and_rerun(league, [queued, stranger, 10**9], reason="x")
    assert report.rerun == []
    assert "is queued" in report.refused[queued]
    assert f"no match {stranger} in league" in report.refused[stranger]
    assert Match.objects.get(pk=queued).status == MatchStatus.QUEUED
    with pytest.raises(CommandError, match="nothing re-run"):
        call_command(
            "league", "rerun", league.name, str(queued), "--reason", "x", stdout=StringIO()
        )
    with pytest.raises(CommandError, match="name the matches"):
        call_command("league", "rerun", league.name, "--reason", "x", stdout=StringIO())
    out = StringIO()
    call_command("league", "rerun", league.name, "--suspects", "--reason", "x", stdout=out)
    assert "no suspect matches" in out.getvalue()
    out = StringIO()
    call_command(
        "league", "rerun", league.name, str(matches[0]), "--reason", "x", "--dry-run", stdout=out
    )
    assert "dry run" in out.getvalue()
    assert Match.objects.get(pk=matches[0]).status == MatchStatus.FINISHED


def test_a_mirrored_pair_is_rerun_whole() -> None:
    league, matches = _played_round("Rerun mirrored", deals=DealMode.MIRRORED)
    one = Match.objects.get(pk=matches[0])
    pair = sorted(
        Match.objects.filter(
            round_id=one.round_id, pairing_key=one.pairing_key, pair_index=one.pair_index
        ).values_list("pk", flat=True)
    )
    assert len(pair) == 2
    report = void_and_rerun(league, [one.pk], reason="pair")
    assert report.rerun == pair
    assert recompute_standings(league.pk).mismatches == []
    for match_id in pair:
        assert play_match(match_id) is PlayOutcome.FINISHED
    assert_rated_once(league)
    assert recompute_standings(league.pk).mismatches == []


def _with_an_absent_bot(name: str, specs: list[str]) -> tuple[League, list[int], list[int]]:
    """A league of house bots and a dial-in bot that never connects (``_relay``): its
    matches end in a charged no-show at once. (league, its matches, all the matches)"""
    league = house_league(name, specs, connect_grace_ms=0, reconnect_grace_ms=1_000,
                          no_show_retries=0)  # fmt: skip
    bot, _ = create_bot(f"absent-{uuid.uuid4().hex[:6]}")
    svc.do_enter(league, bot)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    absent = sorted(
        Match.objects.filter(pk__in=scheduled.matches, participations__bot=bot).values_list(
            "pk", flat=True
        )
    )
    return league, absent, sorted(scheduled.matches)


def test_a_rerun_has_an_attempt_budget_of_its_own(settings) -> None:  # noqa: ANN001
    settings.ARENA_MAX_ATTEMPTS = 2
    league, absent, everything = _with_an_absent_bot("Rerun budget", ["greedy"])
    match_id = absent[0]
    assert play_match(match_id, relay_factory=_broken) is PlayOutcome.REQUEUED
    Match.objects.filter(pk=match_id).update(not_before=None)
    # at its second (last) attempt: a no-show, charged
    assert play_match(match_id, relay_factory=_relay) is PlayOutcome.FINISHED
    void_and_rerun(league, [match_id], reason="budget")
    # the re-run's first attempt fails: requeued, not void (the budget counts from here)
    assert play_match(match_id, relay_factory=_broken) is PlayOutcome.REQUEUED
    Match.objects.filter(pk=match_id).update(not_before=None)
    assert play_match(match_id, relay_factory=_broken) is PlayOutcome.VOID
    assert Match.objects.get(pk=match_id).attempts == 4
    # a void match can be re-run too
    assert void_and_rerun(league, [match_id], reason="again").rerun == [match_id]
    for other in everything:
        assert play_match(other, relay_factory=_relay) is PlayOutcome.FINISHED
    assert_rated_once(league)
    assert recompute_ratings(league.pk).mismatches == []


def test_the_admin_fault_report_and_action_rerun_matches() -> None:
    league, absent, everything = _with_an_absent_bot("Rerun admin", ["greedy", "random"])
    first = absent[0]
    assert play_match(first, relay_factory=_broken) is PlayOutcome.REQUEUED  # an incident
    Match.objects.filter(pk=first).update(not_before=None)
    for match_id in everything:
        play_match(match_id, relay_factory=_relay)
    assert Match.objects.get(pk=first).participations.exclude(fault_cause="").exists()

    staff = get_user_model().objects.create_superuser("ops", "ops@example.com", "pw")
    client = Client()
    client.force_login(staff)
    page = client.get(f"/admin/arena/league/{league.pk}/faults/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "no_show (suspect)" in text and f'value="{first}" checked' in text
    assert (
        f"/admin/arena/league/{league.pk}/faults/"
        in client.get(f"/admin/arena/league/{league.pk}/change/").content.decode()
    )
    done = client.post(
        f"/admin/arena/league/{league.pk}/faults/",
        {"matches": [first], "reason": "gateway drained"}, follow=True,
    )  # fmt: skip
    assert f"voided and queued again matches [{first}]" in done.content.decode()
    assert Match.objects.get(pk=first).status == MatchStatus.QUEUED
    assert recompute_ratings(league.pk).mismatches == []

    # the match list's action: a confirmation page asking why, then the re-run
    second = absent[1]
    ask = client.post(
        "/admin/arena/match/", {"action": "rerun_matches", "_selected_action": [second]}
    )
    assert ask.status_code == 200 and 'name="reason"' in ask.content.decode()
    client.post(
        "/admin/arena/match/",
        {"action": "rerun_matches", "_selected_action": [second], "reason": "drain"},
    )
    assert Match.objects.get(pk=second).status == MatchStatus.QUEUED
    # the change form stays read only; a visitor without staff rights gets nothing
    assert client.post(f"/admin/arena/match/{second}/change/", {}).status_code == 403
    assert Client().get(f"/admin/arena/league/{league.pk}/faults/").status_code == 302
