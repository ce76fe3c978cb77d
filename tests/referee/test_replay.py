"""Replay records: JSON round trip, re-simulation, and refusal of tampered records."""

from __future__ import annotations

import json
import random

import pytest

from referee import (
    EndReason,
    GameConfig,
    IllegalAction,
    Play,
    StopDiscarding,
    apply,
    forfeit,
    legal_actions,
    new_game,
    result,
)
from referee.bots import make_bot
from referee.cards import Agent
from referee.play import play_game
from referee.replay import (
    SCHEMA_VERSION,
    Record,
    Recorder,
    ReplayError,
    from_json,
    loads,
    record_game,
    replay,
    validate,
)


def played_record(mode: str = "advanced", seats: int = 2, seed: int = 4) -> Record:
    config = GameConfig.for_seats(seats, mode)
    bots = [make_bot("greedy", seed + s) for s in range(seats)]
    return play_game(config, seed, bots).record


def test_record_is_self_contained_json() -> None:
    record = played_record()
    data = json.loads(record.dumps())
    assert data["schema_version"] == SCHEMA_VERSION
    assert data["config"]["ruleset"] == "standard" and data["config"]["ruleset_version"] == 1
    assert len(data["deck"]) == 38 and len(data["black_market_deck"]) == 15
    assert data["config"]["first_team"] in (0, 1)
    assert all({"seat", "kind", "action"} <= set(d) for d in data["decisions"])
    assert data["result"]["reason"]
    assert loads(record.dumps()) == record
    assert validate(loads(record.dumps())).outcome is not None


def test_replay_yields_every_state_in_order() -> None:
    config = GameConfig.for_seats(2, "simple", first_team=0)
    state = new_game(config, seed=9)
    actions, states = [], [state]
    rng = random.Random(1)
    while not state.over:
        actions.append(rng.choice(legal_actions(state)))
        state = apply(state, actions[-1])
        states.append(state)
    assert list(replay(record_game(states[0], actions))) == states


def tamper(record: Record, **changes: object) -> dict[str, object]:
    data = record.to_json()
    data.update(changes)
    return data


def test_an_illegal_recorded_action_is_refused_with_its_index() -> None:
    record = played_record("simple")
    data = record.to_json()
    decisions = data["decisions"]
    assert isinstance(decisions, list)
    first_play = next(i for i, d in enumerate(decisions) if d["kind"] == "play")
    decisions[first_play]["action"] = Play(Agent.MOLE, Agent.MOLE).to_json()
    with pytest.raises(ReplayError, match=rf"decision {first_play}: .*not legal"):
        validate(from_json(data))


def test_a_wrong_result_is_refused() -> None:
    record = played_record("simple")
    data = record.to_json()
    result = data["result"]
    assert isinstance(result, dict)
    result["winner"] = 1 - int(result["winner"])
    with pytest.raises(ReplayError, match="the record claims team"):
        validate(from_json(data))


def test_a_truncated_record_does_not_pass_as_finished() -> None:
    record = played_record("simple")
    data = record.to_json()
    decisions = data["decisions"]
    assert isinstance(decisions, list)
    data["decisions"] = decisions[:-3]
    with pytest.raises(ReplayError, match="an unfinished game"):
        validate(from_json(data))


def test_a_decision_by_the_wrong_seat_is_refused() -> None:
    record = played_record("simple")
    data = record.to_json()
    decisions = data["decisions"]
    assert isinstance(decisions, list)
    decisions[0]["seat"] = 1 - decisions[0]["seat"]
    with pytest.raises(ReplayError, match="decision 0: recorded seat"):
        validate(from_json(data))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"schema_version": 99}, "schema version 99 is not supported"),
        ({"deck": ["MOLE"] * 38}, "38 agent cards"),
        ({"deck": ["NOT_A_CARD"]}, "malformed replay"),
        ({"config": {"mode": "chess", "teams": [[0], [1]]}}, "malformed match configuration"),
        (
            {"config": {"mode": "simple", "teams": [[0], [1]], "ruleset": "house-rules"}},
            "unknown ruleset",
        ),
        ({"config": {"mode": "simple", "teams": [[0], [1]], "ruleset_version": 7}}, "version 7"),
        ({"seed": "seven"}, "seed must be an integer"),
    ],
)
def test_malformed_records_get_clear_errors(changes: dict[str, object], message: str) -> None:
    data = tamper(played_record("simple"), **changes)
    with pytest.raises(ReplayError, match=message):
        validate(from_json(data))


def test_unparseable_text_and_actions() -> None:
    with pytest.raises(ReplayError, match="not JSON"):
        loads("{nope")
    data = played_record("simple").to_json()
    decisions = data["decisions"]
    assert isinstance(decisions, list)
    decisions[0]["action"] = {"type": "teleport"}
    with pytest.raises(ReplayError, match="unknown action type 'teleport'"):
        from_json(data)


def test_forfeit_is_recorded_and_replayed() -> None:
    config = GameConfig.for_seats(2, "simple", first_team=0)
    state = new_game(config, seed=3)
    recorder = Recorder(state)
    for _ in range(5):
        action = legal_actions(state)[0]
        recorder.add(state, action)
        state = apply(state, action)
    final = forfeit(state, 1)
    r = result(final)
    assert r is not None and r.winner == 0 and r.reason is EndReason.FORFEIT and r.forfeit_seat == 1
    record = loads(recorder.finish(final).dumps())
    assert validate(record).outcome == final.outcome
    with pytest.raises(IllegalAction, match="already over"):
        forfeit(final, 0)
    with pytest.raises(IllegalAction, match="game is over"):
        apply(final, StopDiscarding())
