"""The match runner with in-process seats: clocks, faults and the fault policy."""

from __future__ import annotations

import pytest

from arena.adapters.relay.local import InProcessRelay
from arena.adapters.runner import (
    FaultAction,
    FaultCause,
    FaultPolicy,
    HouseSeat,
    MatchStatus,
    RemoteSeat,
    TimeControl,
    run_match,
)
from referee import EndReason, GameConfig
from referee.replay import loads, validate

CRASH = "tests.protocol.testbots:CrashingHouseBot"
CHEAT = "tests.protocol.testbots:CheatingHouseBot"
SLOW = "tests.protocol.testbots:SlowHouseBot"


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("mode", ["simple", "advanced"])
def test_house_bots_play_whole_matches(seats: int, mode: str) -> None:
    config = GameConfig.for_seats(seats, mode)
    specs = ["random", "greedy", "search:20", "random"]
    players = [HouseSeat(specs[s], s) for s in range(seats)]
    outcome = run_match(players, config, 7, match_id="house")
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    final = validate(loads(outcome.record.dumps()))  # the replay survives JSON
    assert final.over and outcome.result is not None
    decisions = outcome.record.decisions
    assert sum(r.decisions + r.auto_decisions for r in outcome.seats) == len(decisions)
    asked = [d for d in decisions if d.latency_ms is not None]
    assert len(asked) == sum(r.decisions for r in outcome.seats)
    assert outcome.to_json()["result"] == outcome.result.to_json()


def test_a_crashing_house_bot_forfeits() -> None:
    outcome = run_match(
        [HouseSeat("random", 1), HouseSeat(CRASH, 2)], GameConfig.for_seats(2), 3, match_id="c"
    )
    [fault] = outcome.faults
    assert (fault.seat, fault.cause, fault.detail) == (1, FaultCause.CRASH, "RuntimeError: boom")
    assert outcome.result is not None and outcome.result.reason is EndReason.FORFEIT
    assert outcome.result.winner == 0
    validate(outcome.record)


def test_an_illegal_answer_forfeits() -> None:
    outcome = run_match(
        [HouseSeat(CHEAT, 1), HouseSeat("random", 2)], GameConfig.for_seats(2), 3, match_id="i"
    )
    assert [f.cause for f in outcome.faults] == [FaultCause.ILLEGAL_ACTION]


def test_the_time_bank_pays_for_slow_answers_until_it_runs_out() -> None:
    tc = TimeControl(decision_ms=10, bank_ms=100)
    outcome = run_match(
        [HouseSeat(SLOW, 1), HouseSeat("random", 2)],
        GameConfig.for_seats(2),
        3,
        match_id="slow",
        time_control=tc,
    )
    slow = outcome.seats[0]
    assert slow.fault is not None and slow.fault.cause == FaultCause.TIMEOUT
    assert slow.decisions >= 2, "the bank covered the first answers"
    assert slow.bank_left_ms == 0
    assert outcome.seats[1].bank_left_ms == 100, "fast answers cost nothing"


def test_the_policy_may_abort_instead() -> None:
    policy = FaultPolicy.forfeit_except(crash=FaultAction.ABORT)
    outcome = run_match(
        [HouseSeat("random", 1), HouseSeat(CRASH, 2)],
        GameConfig.for_seats(2),
        3,
        match_id="a",
        policy=policy,
    )
    assert outcome.status == MatchStatus.ABORTED and outcome.result is None
    assert outcome.winner_team is None
    assert outcome.record.result is None


def test_no_shows_on_both_teams_leave_nobody_to_win() -> None:
    relay = InProcessRelay()
    seats = [RemoteSeat("1", "a", relay), RemoteSeat("2", "b", relay)]
    outcome = run_match(seats, GameConfig.for_seats(2), 1, match_id="empty")
    assert outcome.status == MatchStatus.ABORTED
    assert [(f.seat, f.cause) for f in outcome.faults] == [
        (0, FaultCause.NO_SHOW),
        (1, FaultCause.NO_SHOW),
    ]


def test_seat_count_must_match() -> None:
    with pytest.raises(ValueError, match="needs 3 seats"):
        run_match([HouseSeat("random", 1)], GameConfig.for_seats(3), 1, match_id="x")
