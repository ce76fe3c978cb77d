"""Hidden information on the wire: recording SDK bots capture every message of many games
(simple, advanced, team, the summary-board ruleset), and each one is checked against the
referee's own per-seat view of the state re-simulated from the replay, and against the
full state: redealing every card the seat cannot see must not change a single byte."""

from __future__ import annotations

import random
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.runner import MatchResult, MatchStatus, TimeControl
from avenue_sdk.protocol import convert
from referee import GameConfig, legal_actions
from referee.observation import observe
from referee.replay import replay
from referee.state import State
from tests.protocol.harness import Arena
from tests.protocol.testbots import read_records
from tests.referee.hidden import perturb

pytestmark = pytest.mark.processes

RECORDER = "tests.protocol.testbots:RecordingBot"
#: (seats, mode, ruleset, games)
PLAN = [
    (2, "simple", "standard", 6),
    (2, "advanced", "standard", 6),
    (3, "simple", "standard", 2),
    (3, "advanced", "standard", 3),
    (4, "simple", "standard", 2),
    (4, "advanced", "standard", 4),
    (2, "advanced", "summary-board", 2),
    (4, "simple", "summary-board", 1),
]


def test_every_message_shows_only_what_its_seat_may_know(arena: Arena, tmp_path: Path) -> None:
    names = [f"rec{i}" for i in range(4)]
    files = {name: tmp_path / f"{name}.bin" for name in names}
    for i, name in enumerate(names):
        env = {"AVENUE_TEST_RECORD": str(files[name]), "AVENUE_TEST_SEED": str(i)}
        arena.sdk_bot(name, RECORDER, env=env, args=("--max-matches", "4"))
    jobs = []
    for seats, mode, ruleset, games in PLAN:
        for g in range(games):
            config = GameConfig.for_seats(seats, mode, ruleset=ruleset)
            order = names[g % 4 :] + names[: g % 4]  # every bot sits everywhere
            jobs.append((config, order[:seats], 100 * seats + g))
    with ThreadPoolExecutor(4) as pool:
        futures = [
            pool.submit(
                arena.play,
                [arena.remote(n) for n in seated],
                config,
                seed,
                time_control=TimeControl(10_000, 10_000),
            )
            for config, seated, seed in jobs
        ]
        results = {r.match_id: r for r in (f.result(timeout=120) for f in futures)}
    assert all(r.status == MatchStatus.FINISHED and not r.faults for r in results.values())
    for process in arena.processes:
        process.stop()  # flushes and closes the record files

    bot_ids = {name: arena.bot_id(name) for name in names}
    requests = 0
    for name in names:
        requests += check_recording(read_records(files[name]), results, bot_ids, name)
    assert requests >= 300, "enough decisions to mean something"


def check_recording(
    records: list[tuple[str, bytes]],
    results: dict[str, MatchResult],
    bot_ids: dict[str, str],
    name: str,
) -> int:
    rng = random.Random(name)
    states: dict[str, list[State]] = {}
    sent: dict[tuple[str, int], int] = defaultdict(int)  # events already sent to a seat
    checked = 0
    merged = [pb.DecisionRequest.FromString(data) for tag, data in records if tag == "M"]
    wire = [pb.ArenaMessage.FromString(data) for tag, data in records if tag == "W"]
    for message in wire:
        kind = message.WhichOneof("kind")
        if kind == "match_started":
            started = message.match_started
            outcome = results[started.match_id]
            assert outcome.seats[started.seat].name == name, "only its own seats"
            expected = convert.match_started(
                match_id=started.match_id,
                seat=started.seat,
                config=outcome.record.config,
                first_team=outcome.record.config.first_team or 0,
                names=[s.name for s in outcome.seats],
                decision_ms=10_000,
                bank_ms=10_000,
            )
            assert message.SerializeToString() == expected
        elif kind == "decision_request":
            request = message.decision_request
            outcome = results[request.match_id]
            assert outcome.seats[request.seat].name == name, "only its own seats"
            if request.match_id not in states:
                states[request.match_id] = list(replay(outcome.record))
            state = states[request.match_id][request.seq - 1]
            assert state.actor == request.seat
            key = (request.match_id, request.seat)
            assert request.observation.history_start == sent[key]
            # Byte for byte what the referee's view of this seat gives, and unchanged
            # when every card the seat cannot see is dealt differently.
            for view_of in (
                state,
                perturb(state, request.seat, rng),
                perturb(state, request.seat, rng),
            ):
                assert rebuild(view_of, request, outcome) == message.SerializeToString()
            sent[key] = len(observe(state, request.seat).history)
            checked += 1
        elif kind == "match_ended":
            ended = message.match_ended
            assert results[ended.match_id].seats[ended.seat].name == name
    # The SDK handed the bot the whole history, not only the events on the wire.
    assert len(merged) == checked
    for request in merged:
        state = states[request.match_id][request.seq - 1]
        full = observe(state, request.seat).history
        expected = pb.Observation()
        convert.fill_observation(expected, observe(state, request.seat), 0, 0)
        assert list(request.observation.history) == list(expected.history)
        assert len(full) == len(request.observation.history)
    return checked


def rebuild(state: State, request: pb.DecisionRequest, outcome: MatchResult) -> bytes:
    return convert.decision_request(
        match_id=request.match_id,
        seq=request.seq,
        obs=observe(state, request.seat),
        first_team=outcome.record.config.first_team or 0,
        legal=legal_actions(state),
        history_start=request.observation.history_start,
        decision_ms=request.decision_ms,
        bank_ms=request.bank_ms,
        previous_latency_ms=request.previous_latency_ms or None,
    )
