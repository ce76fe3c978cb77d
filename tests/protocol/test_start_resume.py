"""The start of a match waits for a bot the way a resume does.

A bot whose stream ended shortly before its match started (its gateway drained for a
restart, or died) is waited for until the league's reconnect grace has run out since it
left, not the connect grace: it comes back, the match is played, nobody is charged. Only
a bot away for longer than the reconnect grace when the match started is a ``no_show``;
one the arena lost just before the start and that is not back in time voids the attempt
(``ArenaFault``), never a forfeit.

A real gateway on a port of its own (over a Redis relay), real SDK bot processes that
reconnect by themselves; the gateway drains (SIGTERM's path, ``GatewayThread.stop``) and a
new one starts on the same port.
"""

from __future__ import annotations

import time

import pytest

from arena.adapters.runner import ArenaFault, FaultCause, Seat
from arena.adapters.runner import MatchStatus as RunStatus
from arena.models import Incident, IncidentKind
from tests.protocol.harness import Arena, Background, wait_for
from tests.protocol.test_resume import PATIENT, RANDOM, _restart_gateway

pytestmark = pytest.mark.processes

#: the league's default connect grace (League.connect_grace_ms) and reconnect grace
CONNECT_S = 2.0
RECONNECT_S = 30.0


def _drained_with_two_bots(arena: Arena) -> None:
    arena.sdk_bot("north", RANDOM)
    arena.sdk_bot("south", RANDOM)
    arena.wait_connected("north", 30)
    arena.wait_connected("south", 30)
    arena.thread.stop()  # drains: both streams end, by the arena's doing
    wait_for(
        lambda: not arena.relay.is_connected(arena.bot_id("north")),
        15,
        "the gateway to drain",
    )


def test_a_gateway_that_drains_no_bot_stream_records_no_incident(arena: Arena) -> None:
    arena.thread.stop()
    assert not arena.thread._thread.is_alive(), "the gateway did not stop"
    assert not Incident.objects.filter(kind=IncidentKind.GATEWAY_DRAIN).exists()


def test_a_match_starting_while_the_gateway_restarts_waits_for_its_bots(
    arena: Arena, background: Background
) -> None:
    _drained_with_two_bots(arena)
    started = time.monotonic()
    seats: list[Seat] = [arena.remote("north"), arena.remote("south")]
    future = background.run(
        arena.play, seats, time_control=PATIENT,
        connect_grace_s=CONNECT_S, reconnect_grace_s=RECONNECT_S,
    )  # fmt: skip
    # the gateway stays down longer than the connect grace (the outage itself, no wait
    # for anything): a start that waited only that long would forfeit both bots
    time.sleep(CONNECT_S + 1.0)
    assert not future.done(), "the match did not wait for its bots"
    _restart_gateway(arena)
    outcome = future.result(timeout=90)
    assert outcome.status == RunStatus.FINISHED and not outcome.faults, outcome.to_json()
    assert time.monotonic() - started > CONNECT_S + 1.0
    # the drain is on the operator's record (league faults sets charged faults against it)
    assert Incident.objects.filter(kind=IncidentKind.GATEWAY_DRAIN).count() == 1


def test_a_bot_away_longer_than_the_reconnect_grace_is_a_no_show(
    arena: Arena, background: Background
) -> None:
    _drained_with_two_bots(arena)
    grace = 1.0
    left = time.monotonic()
    # away for longer than the grace before the match starts (the outage, not a wait)
    time.sleep(grace + 0.5)
    seats: list[Seat] = [arena.remote("north"), arena.remote("south")]
    outcome = arena.play(seats, time_control=PATIENT, connect_grace_s=0.5, reconnect_grace_s=grace)
    assert time.monotonic() - left < grace + 0.5 + 10, "it waited a resume's grace"
    # both bots away: both no-shows (the match has no result, the policy decides)
    assert [f.cause for f in outcome.faults] == [FaultCause.NO_SHOW] * 2, outcome.to_json()
    assert all("its last stream had ended" in f.detail for f in outcome.faults)


def test_a_bot_the_arena_lost_just_before_the_start_voids_the_attempt(
    arena: Arena, background: Background
) -> None:
    _drained_with_two_bots(arena)
    seats: list[Seat] = [arena.remote("north"), arena.remote("south")]
    started = time.monotonic()
    with pytest.raises(ArenaFault, match="no fault of its own"):
        arena.play(seats, time_control=PATIENT, connect_grace_s=0.5, reconnect_grace_s=3.0)
    # waited out the reconnect grace since the bot left, not the connect grace
    assert time.monotonic() - started >= 3.0 - 1.0
