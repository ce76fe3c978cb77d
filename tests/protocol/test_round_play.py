"""A round played in one process (``league run``, the demo): slow and absent bots hold
nobody hostage. Real gateway, real SDK bot processes, house bots, PostgreSQL.

Ordering is asserted from the matches' start and end times, never wall-clock thresholds.
"""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TextIO, cast

import pytest
from django.db import connection

from arena.adapters.management.commands.league import Command as LeagueCommand
from arena.models import Bot, League, Match, MatchEndReason, MatchStatus, Round, RoundStatus
from arena.services.leagues import do_enter
from arena.terms.faults import FaultCause
from tests.leagues.factory import house_league
from tests.protocol.harness import Arena, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.processes]

SLEEPY = "tests.protocol.testbots:SleepyBot"


def _split(league: League, bot: Bot) -> tuple[list[Match], list[Match]]:
    """(the league's matches the bot plays in, the others)."""
    matches = list(Match.objects.filter(league=league).order_by("id"))
    theirs = set(
        Match.objects.filter(league=league, participations__bot=bot).values_list("id", flat=True)
    )
    return [m for m in matches if m.pk in theirs], [m for m in matches if m.pk not in theirs]


def _at(when: datetime | None) -> datetime:
    assert when is not None
    return when


def _play_round(league: League) -> tuple[bool, str]:
    out = io.StringIO()
    command = LeagueCommand(stdout=cast(TextIO, out), stderr=cast(TextIO, out))
    try:
        played = command.play_round(league, quiet=False)
    finally:
        connection.close()  # this thread's, when it is not the test's own
    return played, out.getvalue()


def test_a_slow_bot_does_not_serialize_the_round(arena: Arena, settings) -> None:  # noqa: ANN001
    settings.RELAY_PREFIX = arena.prefix
    settings.ARENA_ROUND_CONCURRENCY = 4
    league = house_league("Slow round", ["random", "greedy", "random"])
    slow, token = arena.bot("slowpoke")
    do_enter(league, slow)
    # slow but legal: well inside the 5 s per decision
    arena.sdk_bot("slowpoke", SLEEPY, token=token, env={"AVENUE_TEST_SLEEP": "0.3"})
    played, out = _play_round(league)
    assert played, out
    theirs, others = _split(league, slow)
    assert len(theirs) == 6 and len(others) == 6
    assert all(m.status == MatchStatus.FINISHED for m in theirs + others), out
    assert not slow.participations.exclude(fault_cause="").exists(), out
    # the house bots' matches were all over before the slow bot finished its first one
    assert max(_at(m.finished_at) for m in others) < min(_at(m.finished_at) for m in theirs)
    # one match of the slow bot at a time (it plays one at once, the SDK's default)
    spans = sorted((_at(m.started_at), _at(m.finished_at)) for m in theirs)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False)), spans


def test_an_absent_bot_waits_at_the_end_then_forfeits(arena: Arena, settings) -> None:  # noqa: ANN001
    settings.RELAY_PREFIX = arena.prefix
    league = house_league(
        "Absent round", ["random", "greedy", "random"], absent_wait_s=2, connect_grace_ms=500
    )
    ghost, _ = arena.bot("ghost")  # never connects
    do_enter(league, ghost)
    with ThreadPoolExecutor(1) as pool:
        # the default no-show policy alone (3 retries over 300 s) would take minutes
        played, out = pool.submit(_play_round, league).result(timeout=120)
    assert played, out
    theirs, others = _split(league, ghost)
    assert all(m.status == MatchStatus.FINISHED for m in others), out
    assert all(
        m.status == MatchStatus.FINISHED and m.end_reason == MatchEndReason.FORFEIT for m in theirs
    ), out
    assert set(ghost.participations.values_list("fault_cause", flat=True)) == {FaultCause.NO_SHOW}
    # played at the end, once: not started (and retried) while the others played
    assert all(m.attempts == 1 for m in theirs), [(m.pk, m.attempts) for m in theirs]
    assert max(_at(m.finished_at) for m in others) < min(_at(m.started_at) for m in theirs)
    assert Round.objects.get(league=league).status == RoundStatus.COMPLETE


def test_a_bot_that_connects_during_the_wait_plays(arena: Arena, settings) -> None:  # noqa: ANN001
    settings.RELAY_PREFIX = arena.prefix
    league = house_league("Late round", ["random", "greedy", "random"], absent_wait_s=120)
    late, token = arena.bot("late")
    do_enter(league, late)
    with ThreadPoolExecutor(1) as pool:
        future = pool.submit(_play_round, league)
        wait_for(
            lambda: Match.objects.filter(league=league, status=MatchStatus.FINISHED).count() == 6,
            60, "the house bots' matches",
        )  # fmt: skip
        arena.sdk_bot("late", SLEEPY, token=token)
        played, out = future.result(timeout=120)
    assert played, out
    theirs, _ = _split(league, late)
    assert all(m.status == MatchStatus.FINISHED for m in theirs), out
    assert not late.participations.exclude(fault_cause="").exists(), out
