"""Whole matches through the real path: runner -> relay -> gateway -> SDK bot processes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import timezone

from arena.adapters.runner import HouseSeat, MatchStatus, TimeControl
from arena.models import Bot
from referee import EndReason, GameConfig
from referee.replay import validate
from tests.protocol.harness import Arena, wait_for

pytestmark = pytest.mark.processes

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"
HEURISTIC = "avenue_sdk.examples.heuristic_bot:HeuristicBot"


def test_full_match_between_two_sdk_bots(arena: Arena, tmp_path: Path) -> None:
    before = timezone.now()
    alice = arena.sdk_bot("alice", RANDOM, args=("--log-dir", str(tmp_path / "logs")))
    arena.sdk_bot("bob", HEURISTIC)
    for seed in (1, 2):
        outcome = arena.play([arena.remote("alice"), arena.remote("bob")], seed=seed)
        assert outcome.status == MatchStatus.FINISHED and not outcome.faults
        assert outcome.result is not None and outcome.result.reason is not EndReason.FORFEIT
        final = validate(outcome.record)  # the replay re-simulates to the same result
        assert final.over
        for report in outcome.seats:
            assert report.decisions > 0 and report.fault is None
            assert 0 < report.latency.p50 < 1_000
        recorded = sum(1 for d in outcome.record.decisions if d.latency_ms is not None)
        assert recorded == sum(r.decisions for r in outcome.seats)
        assert outcome.drops.stale == outcome.drops.foreign == 0
    row = Bot.objects.get(name="alice")
    assert row.protocol_version == 1 and row.last_seen_at is not None
    assert row.last_seen_at >= before
    logs = list((tmp_path / "logs").glob("*.log"))
    assert len(logs) == 2, "one log file per match"
    # the bot's process writes a match's end a moment after the runner sent it
    wait_for(lambda: all("ended" in log.read_text() for log in logs), 30, "the logs' ends")
    assert all("started" in log.read_text() for log in logs)
    assert alice.stop() == 0, alice.output()
    assert "interrupted" in alice.output()


@pytest.mark.parametrize("mode", ["simple", "advanced"])
def test_a_team_match_mixing_house_and_remote_seats(arena: Arena, mode: str) -> None:
    arena.sdk_bot("carol", RANDOM, args=("--max-matches", "2"))
    config = GameConfig.for_seats(4, mode)
    # carol holds seats 0 and 2 (both of team A): one MatchStarted per seat.
    seats = [
        arena.remote("carol"),
        HouseSeat("greedy", 1),
        arena.remote("carol"),
        HouseSeat("random", 2),
    ]
    outcome = arena.play(seats, config, seed=11, time_control=TimeControl(5_000, 5_000))
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    validate(outcome.record)
    assert {r.kind for r in outcome.seats} == {"house", "remote"}


def test_a_bot_whose_decide_runs_its_own_event_loop_plays_its_own_choices(
    arena: Arena, tmp_path: Path
) -> None:
    """The SDK decides on the stream's event loop; ``asyncio.run`` cannot run there, so the
    client asks that decision again on a thread, and every later one: the bot's own
    choices, never the first-legal-choice fallback of a bot that failed."""
    record = tmp_path / "choices.txt"
    process = arena.sdk_bot(
        "own-loop",
        "tests.protocol.testbots:OwnLoopBot",
        env={"AVENUE_TEST_RECORD": str(record)},
    )
    outcome = arena.play([arena.remote("own-loop"), HouseSeat("random", 3)], seed=5)
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    mine = [d for d in outcome.record.decisions if d.seat == 0 and d.latency_ms is not None]
    asked = outcome.seats[0].decisions
    assert asked > 1 and len(mine) == asked
    made = [line.split() for line in record.read_text().splitlines()]
    # each decision made once by the bot itself: the first one's try on the loop raised
    # before it could record anything
    assert len(made) == asked and len({(m, seq) for m, seq, _ in made}) == asked
    output = process.output()
    assert output.count("runs an event loop of its own") == 1, output
    assert "failed on decision" not in output, output
