"""Referee <-> protocol conversions: complete, lossless, and a function of the seat's view."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.runner import FaultCause
from avenue_sdk import view
from avenue_sdk.protocol import convert, faults
from referee import (
    Agent,
    BlackMarket,
    Decision,
    EndReason,
    EventKind,
    GameConfig,
    Play,
    Recruit,
    Side,
    apply,
    legal_actions,
    new_game,
)
from referee.observation import observe
from referee.state import State
from tests.referee.hidden import perturb

CONFIGS = [
    GameConfig.for_seats(seats, mode, ruleset=ruleset)
    for seats in (2, 3, 4)
    for mode in ("simple", "advanced")
    for ruleset in ("standard", "summary-board")
]


def playout(config: GameConfig, seed: int) -> list[State]:
    rng = random.Random(seed)
    state = new_game(config, seed)
    states = [state]
    while state.decision is not None:
        state = apply(state, rng.choice(legal_actions(state)))
        states.append(state)
    return states


def test_every_referee_enum_has_its_protocol_twin() -> None:
    tables: list[tuple[object, dict[Any, int]]] = [
        (Agent, convert.AGENT),
        (BlackMarket, convert.BLACK_MARKET),
        (Decision, convert.DECISION),
        (Side, convert.SIDE),
        (EndReason, convert.END_REASON),
        (EventKind, convert.EVENT_KIND),
        (faults.FaultCause, convert.FAULT_CAUSE),
    ]
    for members, table in tables:
        assert set(table) == set(members)  # type: ignore[call-overload]
        assert 0 not in table.values(), "UNSPECIFIED (0) means none on the wire"
        assert len(set(table.values())) == len(table)
    # the server's database choices are the protocol's causes
    assert {(c.value, c.label) for c in FaultCause} == {
        (c.value, c.label) for c in faults.FaultCause
    }


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.seats}-{c.mode.value}-{c.ruleset}")
def test_observations_and_choices_convert_without_loss(config: GameConfig) -> None:
    rng = random.Random(3)
    for seed in range(4):
        states = playout(config, seed)
        first = states[0].active
        for state in states[:-1]:
            seat = state.actor
            obs = observe(state, seat)
            msg = pb.Observation()
            convert.fill_observation(msg, obs, first)
            # The SDK's dict view of the message is the referee's own JSON of the view.
            assert view.observation_dict(msg) == obs.to_json()
            used = [sorted(convert.BOARD_EFFECT[e] for e in team) for team in obs.effects_used]
            assert [list(t.effects_used) for t in msg.teams] == used
            legal = legal_actions(state)
            for action in legal:
                choice = convert.choice(action)
                assert convert.action_of(choice) == action
                assert view.describe(choice) == action.describe()
            # Nothing but the seat's view goes in: redeal what it cannot see, same bytes.
            again = pb.Observation()
            convert.fill_observation(again, observe(perturb(state, seat, rng), seat), first)
            assert again.SerializeToString() == msg.SerializeToString()


def test_history_travels_in_slices() -> None:
    states = playout(GameConfig.for_seats(2, "advanced"), 5)
    obs = observe(states[-2], states[-2].actor)
    full, tail = pb.Observation(), pb.Observation()
    convert.fill_observation(full, obs, 0, 0)
    convert.fill_observation(tail, obs, 0, 7)
    assert tail.history_start == 7
    assert list(tail.history) == list(full.history)[7:]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.seats}-{c.mode.value}-{c.ruleset}")
def test_a_request_carries_each_event_and_choice_as_built_one_by_one(config: GameConfig) -> None:
    """``decision_request`` merges cached serialized entries; the message is the one built
    entry by entry from ``convert.event`` and ``convert.choice``, in the same order."""
    for seed in range(3):
        states = playout(config, seed)
        seen: dict[int, int] = {}
        for seq, state in enumerate(states[:-1], 1):
            seat = state.actor
            obs, legal = observe(state, seat), legal_actions(state)
            start = seen.get(seat, 0)
            seen[seat] = len(obs.history)
            got = pb.ArenaMessage.FromString(
                convert.decision_request(
                    match_id="m",
                    seq=seq,
                    obs=obs,
                    first_team=states[0].active,
                    legal=legal,
                    history_start=start,
                    decision_ms=900,
                    bank_ms=800,
                    previous_latency_ms=1.5,
                )  # fmt: skip
            ).decision_request
            assert list(got.legal) == [convert.choice(a) for a in legal]
            assert list(got.observation.history) == [convert.event(e) for e in obs.history[start:]]
            assert got.observation.history_start == start
            assert obs.hand is not None and obs.discards is not None
            assert list(got.observation.hand) == _counts(obs.hand)
            assert list(got.observation.discards) == _counts(obs.discards)
            assert list(got.observation.seats) == [
                pb.SeatInfo(
                    seat=s.seat,
                    team=s.team,
                    hand_size=s.hand_size,
                    discards_used=s.discards_used,
                    discards_left=s.discards_left,
                )
                for s in obs.seats
            ]
            assert list(got.observation.teams) == [
                pb.TeamInfo(
                    team=t,
                    position=obs.positions[t],
                    in_play=_counts(obs.in_play[t]),
                    ongoing=sorted(convert.BLACK_MARKET[c] for c in obs.ongoing[t]),
                    effects_used=sorted(convert.BOARD_EFFECT[e] for e in obs.effects_used[t]),
                )
                for t in (0, 1)
            ]


def _counts(counts: tuple[int, ...]) -> list[pb.CardCount]:
    """A count vector as the protocol's entries, built one by one: every non-zero count."""
    agents = [convert.AGENT[a] for a in Agent]
    return [pb.CardCount(agent=agents[i], count=n) for i, n in enumerate(counts) if n]


def _action(**fields: object) -> pb.Action:
    return pb.Action(match_id="m", seq=3, **fields)  # type: ignore[arg-type]


def test_reading_answers() -> None:
    legal = [Recruit(Side.FACE_UP), Recruit(Side.FACE_DOWN)]
    up, down = (convert.choice(a) for a in legal)
    assert convert.read_answer(_action(choice_index=1), legal) == legal[1]
    assert convert.read_answer(_action(choice_index=0, choice=up), legal) == legal[0]
    assert convert.read_answer(_action(choice=down), legal) == legal[1]
    cases = [
        (_action(), FaultCause.MALFORMED_ACTION, "no choice_index or choice"),
        (_action(choice_index=2), FaultCause.ILLEGAL_ACTION, "out of range"),
        (_action(choice_index=0, choice=down), FaultCause.MALFORMED_ACTION, "but the choice says"),
        (
            _action(choice=convert.choice(Play(Agent.MOLE, Agent.SIDEKICK))),
            FaultCause.ILLEGAL_ACTION,
            "is not legal now",
        ),
        (
            _action(choice=pb.Choice(recruit=pb.Choice.Recruit(side=0))),
            FaultCause.MALFORMED_ACTION,
            "unreadable choice",
        ),
        (
            _action(choice=pb.Choice(discard=pb.Choice.Discard(card=99))),
            FaultCause.MALFORMED_ACTION,
            "unreadable choice",
        ),
        # out-of-range enum values (protobuf keeps them): MALFORMED_ACTION, as documented
        (
            _action(choice=pb.Choice(recruit=pb.Choice.Recruit(side=7))),
            FaultCause.MALFORMED_ACTION,
            "unreadable choice: 7 is not a side",
        ),
        (
            _action(choice=pb.Choice(take_black_market=pb.Choice.TakeBlackMarket(card=77))),
            FaultCause.MALFORMED_ACTION,
            "unreadable choice: 77 is not a Black Market card",
        ),
        (
            _action(choice=pb.Choice(choose_agent=pb.Choice.ChooseAgent(card=2**31 - 1))),
            FaultCause.MALFORMED_ACTION,
            "unreadable choice",
        ),
    ]
    for message, cause, words in cases:
        with pytest.raises(convert.AnswerError, match=words) as caught:
            convert.read_answer(message, legal)
        assert caught.value.cause == cause


def test_spectator_and_finished_views_are_never_sent() -> None:
    state = new_game(GameConfig.for_seats(2), 1)
    with pytest.raises(ValueError, match="spectator"):
        convert.fill_observation(pb.Observation(), observe(state, None), 0)
