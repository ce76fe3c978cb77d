"""Every bot fault ends the match with its own typed cause, nothing stays stuck, and the
gateway keeps serving the other bots."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings

from arena.adapters.runner import (
    FaultAction,
    FaultCause,
    FaultPolicy,
    HouseSeat,
    MatchStatus,
    TimeControl,
)
from referee import EndReason
from referee.replay import validate
from tests.protocol.harness import Arena, Background, finished, wait_for

pytestmark = pytest.mark.processes

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"
SLEEPY = "tests.protocol.testbots:SleepyBot"
#: long enough that a fault detected "at once" cannot be a timeout in disguise
PATIENT = TimeControl(decision_ms=20_000, bank_ms=0)


def assert_forfeit(outcome, cause: FaultCause, seat: int = 0) -> None:  # type: ignore[no-untyped-def]
    assert outcome.status == MatchStatus.FINISHED, outcome.to_json()
    assert [(f.seat, f.cause) for f in outcome.faults] == [(seat, cause)], outcome.to_json()
    assert outcome.result.reason is EndReason.FORFEIT
    assert outcome.result.forfeit_seat == seat
    assert outcome.seats[seat].fault is not None
    validate(outcome.record)  # a forfeit replays too


def still_serving(arena: Arena) -> None:
    """Nothing is left stuck, and a healthy bot connected before the fault still plays a
    whole match."""
    nothing_stuck(arena)
    outcome = arena.play([arena.remote("healthy"), HouseSeat("random", 3)], seed=5)
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults, outcome.to_json()
    nothing_stuck(arena)


def nothing_stuck(arena: Arena) -> None:
    """No stream still waits on a decision or holds a match, no inbox is left in Redis."""

    def busy() -> list[str]:
        return [s.bot.name for s in arena.gateway.sessions if s.outstanding or s.matches]

    wait_for(lambda: not arena.thread.call(busy), 5, "the gateway's sessions to be idle")
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        assert not list(client.scan_iter(f"{arena.prefix}:inbox:*"))
    finally:
        client.close()


@pytest.fixture
def healthy(arena: Arena) -> Arena:
    arena.sdk_bot("healthy", RANDOM)
    return arena


def test_kill_9_mid_match_is_a_disconnect(
    healthy: Arena, background: Background, tmp_path: Path
) -> None:
    marker = tmp_path / "deciding"
    victim = healthy.sdk_bot(
        "victim", SLEEPY, env={"AVENUE_TEST_SLEEP": "30", "AVENUE_TEST_MARKER": str(marker)}
    )
    started = time.monotonic()
    future = background.run(
        healthy.play, [healthy.remote("victim"), HouseSeat("random", 1)], time_control=PATIENT
    )
    wait_for(marker.exists, 15, "the victim's first decision")
    victim.kill9()
    outcome = future.result(timeout=15)
    assert time.monotonic() - started < 15, "noticed at once, not at the deadline"
    assert_forfeit(outcome, FaultCause.DISCONNECT)
    still_serving(healthy)


def test_sleeping_past_the_deadline_is_a_timeout(healthy: Arena) -> None:
    healthy.sdk_bot("sleeper", SLEEPY, env={"AVENUE_TEST_SLEEP": "1.0"})
    tc = TimeControl(decision_ms=300, bank_ms=200)
    started = time.monotonic()
    outcome = healthy.play([healthy.remote("sleeper"), HouseSeat("random", 1)], time_control=tc)
    assert_forfeit(outcome, FaultCause.TIMEOUT)
    assert outcome.seats[0].bank_left_ms == 0
    assert time.monotonic() - started < 3
    # Its late answer arrives after the match is over: dropped, nothing waits for it.
    time.sleep(1.0)
    still_serving(healthy)


@pytest.mark.parametrize(
    ("mode", "cause"),
    [
        ("garbage", FaultCause.MALFORMED_ACTION),
        ("empty", FaultCause.MALFORMED_ACTION),
        ("mismatch", FaultCause.MALFORMED_ACTION),
        ("illegal", FaultCause.ILLEGAL_ACTION),
    ],
)
def test_unusable_answers(healthy: Arena, mode: str, cause: FaultCause) -> None:
    healthy.raw_bot("raw", mode)
    started = time.monotonic()
    outcome = healthy.play([healthy.remote("raw"), HouseSeat("random", 1)], time_control=PATIENT)
    assert_forfeit(outcome, cause)
    assert time.monotonic() - started < 10
    still_serving(healthy)


def test_a_wrong_seq_is_dropped_and_counted(healthy: Arena) -> None:
    healthy.raw_bot("once", "wrong_seq_once")
    outcome = healthy.play([healthy.remote("once"), HouseSeat("random", 1)], time_control=PATIENT)
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    assert outcome.drops.stale == 1

    healthy.raw_bot("always", "wrong_seq_always")
    tc = TimeControl(decision_ms=300, bank_ms=0)
    outcome = healthy.play([healthy.remote("always"), HouseSeat("random", 1)], time_control=tc)
    assert_forfeit(outcome, FaultCause.TIMEOUT)
    assert outcome.drops.stale >= 1
    still_serving(healthy)


def test_an_action_for_another_bots_match_is_refused(
    healthy: Arena, background: Background
) -> None:
    healthy.sdk_bot("slow", SLEEPY, env={"AVENUE_TEST_SLEEP": "0.05"})
    other = background.run(
        healthy.play,
        [healthy.remote("slow"), HouseSeat("random", 1)],
        match_id="the-other-match",
        time_control=PATIENT,
    )
    healthy.raw_bot("meddler", "foreign", args=("--foreign-match", "the-other-match"))
    own = healthy.play([healthy.remote("meddler"), HouseSeat("random", 2)], time_control=PATIENT)
    assert own.status == MatchStatus.FINISHED and not own.faults
    victim = other.result(timeout=30)
    assert victim.status == MatchStatus.FINISHED and not victim.faults
    assert victim.drops.foreign == 0, "the gateway stopped it before any runner saw it"
    assert healthy.stats()["unknown_match"] >= 1
    meddler = next(p for p in healthy.processes if p.name == "meddler")
    assert "unknown_match" in meddler.output()


def test_a_bot_not_connected_at_the_start_is_a_no_show(healthy: Arena) -> None:
    healthy.bot("absent")
    started = time.monotonic()
    outcome = healthy.play([HouseSeat("random", 1), healthy.remote("absent")], connect_grace_s=0.3)
    assert_forfeit(outcome, FaultCause.NO_SHOW, seat=1)
    assert not outcome.record.decisions
    assert 0.3 <= time.monotonic() - started < 5

    policy = FaultPolicy.forfeit_except(no_show=FaultAction.ABORT)
    outcome = healthy.play([HouseSeat("random", 1), healthy.remote("absent")], policy=policy)
    assert outcome.status == MatchStatus.ABORTED and outcome.result is None
    still_serving(healthy)


def test_a_10_mb_answer_is_message_too_large_not_a_closed_stream(healthy: Arena) -> None:
    huge = healthy.raw_bot("huge", "huge_answer")
    outcome = healthy.play([healthy.remote("huge"), HouseSeat("random", 1)], time_control=PATIENT)
    assert_forfeit(outcome, FaultCause.MESSAGE_TOO_LARGE)
    (fault,) = outcome.faults
    assert "bytes, over the limit of 65536" in fault.detail, fault
    out = finished(huge)
    assert (
        "status RESOURCE_EXHAUSTED: message_too_large: answered decision 1 with a message of 1048"
        in out
    )
    assert f"<< error message_too_large match={outcome.match_id} seq=" in out
    # one Error, naming the decision it answered, its text without the code again
    errors = [line for line in out.splitlines() if "<< error" in line]
    assert len(errors) == 1 and "message_too_large: message_too_large" not in out, errors
    assert healthy.stats()["message_too_large"] == 1
    still_serving(healthy)


def test_a_wrong_seq_and_a_rate_limit_name_the_match_and_decision(healthy: Arena) -> None:
    once = healthy.raw_bot("once", "wrong_seq_once")
    outcome = healthy.play([healthy.remote("once"), HouseSeat("random", 1)], time_control=PATIENT)
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    wait_for(lambda: "wrong_seq" in once.output(), 30, "the wrong_seq error")
    line = rf"<< error wrong_seq match={outcome.match_id} seq=(\d+): (.*)"
    found = re.search(line, once.output())
    assert found is not None, once.output()
    seq = int(found.group(1))
    assert found.group(2) == (
        f"match {outcome.match_id!r} decision {seq} is not pending "
        f"(decision {seq - 1000} is pending): action dropped"
    )

    flood = healthy.raw_bot("flood-stale", "flood_stale")
    outcome = healthy.play(
        [healthy.remote("flood-stale"), HouseSeat("random", 1)], time_control=PATIENT
    )
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    wait_for(lambda: "rate_limited" in flood.output(), 30, "a rate_limited error")
    assert re.search(
        rf"<< error rate_limited match={outcome.match_id} seq=\d+: action for match "
        rf"'{outcome.match_id}' decision \d+ dropped: over 20/s, burst 40",
        flood.output(),
    ), flood.output()
