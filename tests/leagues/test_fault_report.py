"""The operator's fault report (``league faults``): charged faults by cause and time, and
the ones charged near an arena incident flagged as suspect."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from arena.adapters.play.matches import play_match
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.models import Incident, IncidentKind, League, Match
from arena.services import leagues as svc
from arena.services.bots import create_bot
from arena.services.claims import PlayOutcome
from arena.services.faultreport import fault_report
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import house_league

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def _league_with_an_absent_bot(name: str) -> tuple[League, list[int]]:
    league = house_league(
        name, ["greedy", "random", "greedy"], connect_grace_ms=0, reconnect_grace_ms=1_000,
        no_show_retries=0,
    )  # fmt: skip
    bot, _ = create_bot(f"absent-{uuid.uuid4().hex[:6]}")
    svc.do_enter(league, bot)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    absent = list(
        Match.objects.filter(pk__in=scheduled.matches, participations__bot=bot)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    return league, absent


def _relay() -> RedisRunnerRelay:
    """A relay of a prefix no gateway uses: every remote bot is away."""
    return RedisRunnerRelay(str(settings.REDIS_URL), f"report-{uuid.uuid4().hex[:8]}")


def test_a_fault_charged_next_to_an_incident_is_flagged(settings) -> None:  # noqa: ANN001
    settings.ARENA_MAX_ATTEMPTS = 5
    league, absent = _league_with_an_absent_bot("Faulty arena")
    first, second = absent[0], absent[1]
    broken = lambda: RedisRunnerRelay("redis://127.0.0.1:1/0")  # noqa: E731 - nothing listens
    # the relay down: the attempt is voided (an incident), and the match re-run later
    assert play_match(first, relay_factory=broken) is PlayOutcome.REQUEUED
    assert Incident.objects.filter(kind=IncidentKind.ATTEMPT_VOID, match_id=first).exists()
    Match.objects.filter(pk=first).update(not_before=None)
    assert play_match(first, relay_factory=_relay) is PlayOutcome.FINISHED  # a no-show now
    assert play_match(second, relay_factory=_relay) is PlayOutcome.FINISHED
    # the second match's fault, an hour after anything the arena went through
    Match.objects.filter(pk=second).update(
        started_at=Match.objects.get(pk=second).started_at + timedelta(hours=1),  # type: ignore[operator]
        finished_at=Match.objects.get(pk=second).finished_at + timedelta(hours=1),  # type: ignore[operator]
    )

    report = fault_report(league)
    assert report.by_cause == {"no_show": 2}
    assert [f.match_id for f in report.suspects] == [first]
    assert report.incidents == {"attempt_void": 1}
    flagged = report.suspects[0]
    assert flagged.near[0][0] == "attempt_void" and flagged.rating_change is not None

    out = StringIO()
    call_command("league", "faults", league.name, stdout=out)
    text = out.getvalue()
    assert "faults charged in Faulty arena" in text and "no_show" in text
    assert "SUSPECT" in text and f"matches [{first}]" in text
    out = StringIO()
    call_command("league", "faults", league.name, "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert sorted((f["match"], f["suspect"]) for f in data["faults"]) == [
        (first, True), (second, False),
    ]  # fmt: skip
