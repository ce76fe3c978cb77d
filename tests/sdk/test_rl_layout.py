"""The observation and action layouts of ``avenue_sdk.features``: one unique name per float
and per action index, each named block moving exactly when the thing it names changes, the
action groups answering the decisions they say, and sdk/README.md's tables matching the code."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import features
from avenue_sdk.env import AvenueEnv
from avenue_sdk.protocol import convert
from referee import (
    Agent,
    BlackMarket,
    ChooseAgent,
    Decision,
    Discard,
    GameConfig,
    NameFaceUp,
    Play,
    PlayFaceDown,
    PlayFaceUp,
    Recruit,
    Retrieve,
    Side,
    StopDiscarding,
    TakeBlackMarket,
    apply,
    legal_actions,
    new_game,
)
from referee.observation import Observation, observe

README = Path(__file__).resolve().parents[2] / "sdk" / "README.md"


def test_one_unique_name_per_float_and_per_action() -> None:
    names = features.observation_names()
    assert len(names) == features.OBSERVATION_SIZE == 142
    assert len(set(names)) == len(names)
    assert AvenueEnv.observation_names == names
    fields = features.OBSERVATION_FIELDS
    assert fields[0].start == 0
    for a, b in zip(fields, fields[1:], strict=False):
        assert b.start == a.start + a.length, "the blocks tile the vector"
    assert fields[-1].start + fields[-1].length == features.OBSERVATION_SIZE
    for f in fields:
        assert names[features.OBSERVATION_SLICES[f.name]] == f.names()
    actions = features.action_names()
    assert len(actions) == features.N_ACTIONS and len(set(actions)) == len(actions)
    assert AvenueEnv.action_names == actions


def _base() -> Observation:
    """Seat 3 of a four-seat advanced game (team B, so "mine" is team 1), seat 1 to act."""
    state = new_game(GameConfig.for_seats(4, "advanced"), 5)
    obs = observe(state, 3)
    assert obs.team == 1 and obs.actor == 1 and obs.active == 1 and obs.offer_up is None
    return obs


def _seats(obs: Observation, seat: int, **change: int) -> Any:
    return tuple(dataclasses.replace(s, **change) if s.seat == seat else s for s in obs.seats)


BASE = _base()
IN_PLAY, ONGOING = BASE.in_play, BASE.ongoing
# (what changes, the blocks that must move, entries the vector must then hold)
CASES: list[tuple[dict[str, Any], set[str], dict[str, float]]] = [
    ({"seat": 1}, {"seat", "to_act"}, {"seat.1": 1, "seat.3": 0, "to_act": 1}),
    (
        {"decision": Decision.RECALL},
        {"decision"},
        {"decision.recall": 1, "decision.name_face_up": 0},
    ),
    ({"actor": 3}, {"to_act"}, {"to_act": 1}),
    ({"active": 0}, {"my_turn"}, {"my_turn": 0}),
    ({"turn": 9}, {"turn"}, {"turn": 9}),
    (
        {"hand": (0, 1, 0, 0, 0, 3, 0, 0)},
        {"hand"},
        {"hand.ENFORCER": 1, "hand.SENTINEL": 3, "hand.MOLE": 0},
    ),
    ({"discards": (2, 0, 0, 0, 0, 0, 0, 0)}, {"discards"}, {"discards.DOUBLE_AGENT": 2}),
    (
        {"in_play": (IN_PLAY[0], (0, 0, 0, 0, 0, 0, 0, 1))},
        {"in_play.mine"},
        {"in_play.mine.MOLE": 1},
    ),
    (
        {"in_play": ((0, 0, 2, 0, 0, 0, 0, 0), IN_PLAY[1])},
        {"in_play.theirs"},
        {"in_play.theirs.CODEBREAKER": 2},
    ),
    ({"gap": 3}, {"gap"}, {"gap": 11}),  # team B needs 14 - 3 spaces
    ({"positions": (BASE.positions[0], 4)}, {"position.mine"}, {"position.mine": 4}),
    ({"positions": (11, BASE.positions[1])}, {"position.theirs"}, {"position.theirs": 11}),
    ({"deck_size": 5}, {"deck_size"}, {"deck_size": 5}),
    ({"offer_up": Agent.SABOTEUR}, {"offer_up"}, {"offer_up.SABOTEUR": 1}),
    ({"face_down_offered": True}, {"face_down_offered"}, {"face_down_offered": 1}),
    ({"my_face_down": Agent.MOLE}, {"my_face_down"}, {"my_face_down.MOLE": 1}),
    ({"market": (BlackMarket.OUTPOST,)}, {"market"}, {"market.OUTPOST": 1, "market.LOOKOUT": 0}),
    (
        {"ongoing": (ONGOING[0], frozenset({BlackMarket.GETAWAY_CAR}))},
        {"ongoing.mine"},
        {"ongoing.mine.GETAWAY_CAR": 1},
    ),
    (
        {"ongoing": (frozenset({BlackMarket.LOOKOUT}), ONGOING[1])},
        {"ongoing.theirs"},
        {"ongoing.theirs.LOOKOUT": 1},
    ),
    ({"bm_discard": (BlackMarket.SPYCATION,)}, {"bm_discard"}, {"bm_discard.SPYCATION": 1}),
    ({"bm_deck_size": 2}, {"bm_deck_size"}, {"bm_deck_size": 2}),
    ({"seats": _seats(BASE, 2, hand_size=1)}, {"hand_size"}, {"hand_size.seat_2": 1}),
    ({"seats": _seats(BASE, 0, discards_left=0)}, {"discards_left"}, {"discards_left.seat_0": 0}),
]


@pytest.mark.parametrize(
    ("change", "moved", "expect"), CASES, ids=["+".join(sorted(c[1])) for c in CASES]
)
def test_each_named_block_moves_when_its_thing_changes(
    change: dict[str, Any], moved: set[str], expect: dict[str, float]
) -> None:
    before = features.observation_vector(BASE)
    after = features.observation_vector(dataclasses.replace(BASE, **change))
    index = {n: i for i, n in enumerate(features.observation_names())}
    for name, value in expect.items():
        assert after[index[name]] == value, name
    for f in features.OBSERVATION_FIELDS:
        s = features.OBSERVATION_SLICES[f.name]
        assert np.array_equal(before[s], after[s]) != (f.name in moved), f.name


def test_every_block_is_covered_by_a_case_and_named_reads_a_vector() -> None:
    covered = set().union(*(c[1] for c in CASES)) | {"team"}
    assert covered == {f.name for f in features.OBSERVATION_FIELDS}
    assert features.named(features.observation_vector(BASE))["team"] == 1.0
    assert features.named(features.observation_vector(BASE))["seat.3"] == 1.0


def _action(name: str) -> object:
    group, _, rest = name.partition(".")
    parts = rest.split(".") if rest else []
    seat = lambda p: int(p.removeprefix("seat_"))  # noqa: E731
    build = {
        "stop_discarding": lambda: StopDiscarding(),
        "discard": lambda: Discard(Agent[parts[0]]),
        "play": lambda: Play(Agent[parts[0]], Agent[parts[1]]),
        "name_face_up": lambda: NameFaceUp(seat(parts[0])),
        "play_face_up": lambda: PlayFaceUp(Agent[parts[0]]),
        "play_face_down": lambda: PlayFaceDown(Agent[parts[0]]),
        "recruit": lambda: Recruit(Side(parts[0])),
        "take_black_market": lambda: TakeBlackMarket(BlackMarket[parts[0]], seat(parts[1])),
        "choose_agent": lambda: ChooseAgent(Agent[parts[0]]),
        "retrieve": lambda: Retrieve(Agent[parts[0]], parts[1:] == ["recruit"]),
    }
    return build[group]()


def test_each_action_name_says_which_action_it_is() -> None:
    for name, action in zip(features.action_names(), features.ACTIONS, strict=True):
        assert _action(name) == action, name
    groups = features.ACTION_GROUPS
    assert groups[0].start == 0 and groups[-1].start + groups[-1].length == features.N_ACTIONS
    for a, b in zip(groups, groups[1:], strict=False):
        assert b.start == a.start + a.length


def test_the_action_groups_answer_the_decisions_they_name() -> None:
    decisions = {}
    for g in features.ACTION_GROUPS:
        named = [d.strip() for d in g.meaning.split(":")[0].split(",")]
        decisions[g.name] = {Decision(d) for d in named}
    group_of = {
        i: g.name for g in features.ACTION_GROUPS for i in range(g.start, g.start + g.length)
    }
    seen = set()
    for seats, mode in ((2, "simple"), (2, "advanced"), (4, "advanced")):
        for game in range(40):
            state, rng = new_game(GameConfig.for_seats(seats, mode), game), random.Random(game)
            while state.decision is not None:
                legal = legal_actions(state)
                for action in legal:
                    group = group_of[features.ACTION_INDEX[action]]
                    assert state.decision in decisions[group], (group, state.decision)
                    seen.add(group)
                state = apply(state, rng.choice(legal))
    assert seen >= {"discard", "play", "recruit", "take_black_market", "name_face_up"}


def test_the_proto_enums_are_the_engine_numbers_plus_one() -> None:
    """What sdk/README.md's note on numbering says."""
    for a in Agent:
        assert convert.AGENT[a] == int(a) + 1 == pb.Agent.Value(f"AGENT_{a.name}")
    for c in BlackMarket:
        assert pb.BlackMarketCard.Value(f"BLACK_MARKET_CARD_{c.name}") == int(c) + 1
    for i, d in enumerate(Decision):
        assert pb.DecisionKind.Value(f"DECISION_KIND_{d.name}") == i + 1
    assert pb.AGENT_UNSPECIFIED == 0


def test_the_readme_tables_are_the_code() -> None:
    text = README.read_text()
    found = re.search(r"<!-- layout:begin[^>]*-->\n(.*?)<!-- layout:end -->", text, re.S)
    assert found, "sdk/README.md lost its layout markers"
    assert found.group(1) == features.layout_markdown(), (
        "regenerate the table: python -m avenue_sdk.features"
    )
