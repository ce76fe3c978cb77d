"""Fixed-size arrays for learning agents: an observation vector and one index per possible
action (``ACTIONS``), so that a policy's output layer and its action mask never change size.

The same functions serve the PettingZoo environment (``avenue_sdk.env``) and a trained
policy playing as an SDK bot: ``request_features(request)`` gives the vector, the mask and
the request's legal index of each action index (see ``sdk/README.md``). numpy only.

The layout is data: ``OBSERVATION_FIELDS`` (one ``Field(name, start, length, meaning,
labels)`` per block, in order) is the table ``observation_vector`` is built from, so
``observation_names()`` ("hand.SENTINEL", "in_play.mine.MOLE", "position.mine", ...) cannot
drift from the vector; ``ACTION_GROUPS`` and ``action_names()`` do the same for ``ACTIONS``.
``python -m avenue_sdk.features`` prints both tables as Markdown (they are in sdk/README.md).

Numbering. Seats and teams count from 0 everywhere: in the engine, in this vector, in the
environment (agents ``seat_0`` .. ``seat_{n-1}``, ``seat_i`` is seat ``i``) and in the
protocol's plain integer fields (``seat``, ``team``, ``winner_team``, ...); team 0 is team A,
team 1 team B. Card kinds are 0-based in the engine (``referee.Agent.DOUBLE_AGENT == 0`` ..
``Agent.MOLE == 7``, ``referee.BlackMarket.LEADER_OF_THE_PACK == 0`` .. ``MIND_CONTROL ==
14``), and the vector's entries and the action order follow them (``hand.DOUBLE_AGENT`` is
``hand``'s first float). The protocol's enums start at 1, because 0 is ``..._UNSPECIFIED``:
``pb.AGENT_DOUBLE_AGENT == 1`` .. ``pb.AGENT_MOLE == 8``, so ``pb.Agent`` value == engine
``Agent`` value + 1, and the same for ``pb.BlackMarketCard``; ``pb.DecisionKind`` and
``pb.Side`` number the engine's (string-valued) ``Decision`` and ``Side`` members 1, 2, ...
in declaration order. Convert by name with ``avenue_sdk.protocol.convert``:
``convert.AGENT[Agent.MOLE] == pb.AGENT_MOLE`` and ``convert.AGENT_FROM[8] is Agent.MOLE``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

import numpy as np

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.protocol.decode import legal_of, observation_of
from referee import (
    Action,
    Agent,
    BlackMarket,
    ChooseAgent,
    Decision,
    Discard,
    NameFaceUp,
    Play,
    PlayFaceDown,
    PlayFaceUp,
    Recruit,
    Retrieve,
    Side,
    StopDiscarding,
    TakeBlackMarket,
)
from referee.observation import Observation, SeatInfo

_AGENTS = tuple(Agent)
_BM = tuple(BlackMarket)
_DECISIONS = tuple(Decision)
MAX_SEATS = 4


class Field(NamedTuple):
    """One block of the observation vector: ``vector[start : start + length]``."""

    name: str
    start: int
    length: int
    meaning: str
    labels: tuple[str, ...]  # one per entry; () for a single number

    def names(self) -> tuple[str, ...]:
        return tuple(f"{self.name}.{x}" for x in self.labels) if self.labels else (self.name,)


def _one_hot(i: int | None, n: int) -> list[float]:
    out = [0.0] * n
    if i is not None and 0 <= i < n:
        out[i] = 1.0
    return out


def _agent_hot(a: Agent | None) -> list[float]:
    return _one_hot(None if a is None else int(a), len(_AGENTS))


def _bm_row(cards: Iterable[BlackMarket]) -> list[float]:
    row = [0.0] * len(_BM)
    for c in cards:
        row[int(c)] = 1.0
    return row


def _per_seat(obs: Observation, of: Callable[[SeatInfo], int]) -> list[float]:
    row = [0.0] * MAX_SEATS
    for s in obs.seats:
        row[s.seat] = float(of(s))
    return row


_A = tuple(a.name for a in _AGENTS)
_B = tuple(c.name for c in _BM)
_S = tuple(f"seat_{s}" for s in range(MAX_SEATS))
_Get = Callable[[Observation, int, int], list[float]]  # (obs, my team, their team) -> entries

#: (name, labels, meaning, entries): the single source of the vector and of its names
_SPEC: tuple[tuple[str, tuple[str, ...], str, _Get], ...] = (
    (
        "seat",
        tuple(map(str, range(MAX_SEATS))),
        "this seat's number (from 0), one-hot",
        lambda o, me, th: _one_hot(o.seat, MAX_SEATS),
    ),
    ("team", (), "this seat's team: 0 = A, 1 = B", lambda o, me, th: [float(me)]),
    (
        "decision",
        tuple(d.value for d in _DECISIONS),
        "the decision asked now, one-hot (all 0 once over)",
        lambda o, me, th: _one_hot(
            _DECISIONS.index(o.decision) if o.decision else None, len(_DECISIONS)
        ),
    ),
    (
        "to_act",
        (),
        "1 if this seat is the one deciding now",
        lambda o, me, th: [float(o.actor == o.seat)],
    ),
    (
        "my_turn",
        (),
        "1 if it is this seat's team's turn",
        lambda o, me, th: [float(o.active == me)],
    ),
    ("turn", (), "turn number (the first turn is 1)", lambda o, me, th: [float(o.turn)]),
    (
        "hand",
        _A,
        "copies of each agent in this seat's hand",
        lambda o, me, th: [float(n) for n in (o.hand or (0,) * len(_AGENTS))],
    ),
    (
        "discards",
        _A,
        "copies of each agent this seat has discarded (out of the game)",
        lambda o, me, th: [float(n) for n in (o.discards or (0,) * len(_AGENTS))],
    ),
    (
        "in_play.mine",
        _A,
        "copies of each agent in our team's play area",
        lambda o, me, th: [float(n) for n in o.in_play[me]],
    ),
    (
        "in_play.theirs",
        _A,
        "copies of each agent in the other team's play area",
        lambda o, me, th: [float(n) for n in o.in_play[th]],
    ),
    (
        "gap",
        (),
        "spaces our meeple still needs to catch theirs (7 at the start; <= 0 caught)",
        lambda o, me, th: [float(o.gap if me == 0 else 14 - o.gap)],
    ),
    (
        "position.mine",
        (),
        "our meeple's space, 0..13 (team A's home is 0, B's is 7)",
        lambda o, me, th: [float(o.positions[me])],
    ),
    (
        "position.theirs",
        (),
        "the other meeple's space, 0..13",
        lambda o, me, th: [float(o.positions[th])],
    ),
    ("deck_size", (), "cards left in the draw deck", lambda o, me, th: [float(o.deck_size)]),
    (
        "offer_up",
        _A,
        "the face-up card of the offer being recruited from, one-hot",
        lambda o, me, th: _agent_hot(o.offer_up),
    ),
    (
        "face_down_offered",
        (),
        "1 if the offer has a face-down card",
        lambda o, me, th: [float(o.face_down_offered)],
    ),
    (
        "my_face_down",
        _A,
        "the offer's face-down card when this seat played it, one-hot",
        lambda o, me, th: _agent_hot(o.my_face_down),
    ),
    (
        "market",
        _B,
        "Black Market cards face up for the taking (advanced mode)",
        lambda o, me, th: _bm_row(o.market),
    ),
    (
        "ongoing.mine",
        _B,
        "ongoing Black Market cards our team holds",
        lambda o, me, th: _bm_row(o.ongoing[me]),
    ),
    (
        "ongoing.theirs",
        _B,
        "ongoing Black Market cards the other team holds",
        lambda o, me, th: _bm_row(o.ongoing[th]),
    ),
    (
        "bm_discard",
        _B,
        "Black Market cards in the discard",
        lambda o, me, th: _bm_row(o.bm_discard),
    ),
    (
        "bm_deck_size",
        (),
        "cards left in the Black Market deck",
        lambda o, me, th: [float(o.bm_deck_size)],
    ),
    (
        "hand_size",
        _S,
        "cards in each seat's hand (0 for a seat the game does not have)",
        lambda o, me, th: _per_seat(o, lambda s: s.hand_size),
    ),
    (
        "discards_left",
        _S,
        "discards each seat may still make this game",
        lambda o, me, th: _per_seat(o, lambda s: s.discards_left),
    ),
)


def _fields() -> tuple[Field, ...]:
    out, start = [], 0
    for name, labels, meaning, _ in _SPEC:
        length = len(labels) or 1
        out.append(Field(name, start, length, meaning, labels))
        start += length
    return tuple(out)


#: the observation's blocks in order; ``OBSERVATION_SLICES[name]`` is a block's slice
OBSERVATION_FIELDS: tuple[Field, ...] = _fields()
OBSERVATION_SLICES = {f.name: slice(f.start, f.start + f.length) for f in OBSERVATION_FIELDS}
OBSERVATION_SIZE = sum(f.length for f in OBSERVATION_FIELDS)


def observation_names() -> tuple[str, ...]:
    """One name per float of ``observation_vector``, e.g. ``"hand.SENTINEL"``."""
    return tuple(n for f in OBSERVATION_FIELDS for n in f.names())


def observation_vector(obs: Observation) -> np.ndarray:
    """The seat's view as float32, from its own side: "mine" is the seat's team."""
    assert obs.seat is not None and obs.team is not None
    me, them = obs.team, 1 - obs.team
    v: list[float] = []
    for field, (_, _, _, entries) in zip(OBSERVATION_FIELDS, _SPEC, strict=True):
        block = entries(obs, me, them)
        if len(block) != field.length:
            raise AssertionError(
                f"{field.name}: {len(block)} entries, the layout says {field.length}"
            )
        v += block
    return np.asarray(v, dtype=np.float32)


def named(vector: np.ndarray, nonzero: bool = True) -> dict[str, float]:
    """``{name: value}`` of an observation vector (its non-zero entries by default)."""
    return {
        n: float(x) for n, x in zip(observation_names(), vector, strict=True) if x or not nonzero
    }


# --- actions ------------------------------------------------------------------------------


class ActionGroup(NamedTuple):
    """The actions of one kind: ``ACTIONS[start : start + length]``."""

    name: str
    start: int
    length: int
    meaning: str


#: (group, meaning, [(label, action)]): the single source of ACTIONS and of its names
_ACTION_SPEC: tuple[tuple[str, str, tuple[tuple[str, Action], ...]], ...] = (
    ("stop_discarding", "discard: stop discarding", (("", StopDiscarding()),)),
    (
        "discard",
        "discard: discard one card of this agent",
        tuple((a.name, Discard(a)) for a in _AGENTS),
    ),
    (
        "play",
        "play: .UP.DOWN plays UP face up and DOWN face down",
        tuple((f"{u.name}.{d.name}", Play(u, d)) for u in _AGENTS for d in _AGENTS),
    ),
    (
        "name_face_up",
        "name_face_up: the captain names this seat to play face up",
        tuple((f"seat_{s}", NameFaceUp(s)) for s in range(MAX_SEATS)),
    ),
    (
        "play_face_up",
        "play_face_up: this seat plays this agent face up",
        tuple((a.name, PlayFaceUp(a)) for a in _AGENTS),
    ),
    (
        "play_face_down",
        "play_face_down: this seat plays this agent face down",
        tuple((a.name, PlayFaceDown(a)) for a in _AGENTS),
    ),
    (
        "recruit",
        "recruit: take the face-up or the face-down card of the offer",
        tuple((side.value, Recruit(side)) for side in Side),
    ),
    (
        "take_black_market",
        "black_market: .CARD.seat_N: seat N takes CARD from the market",
        tuple((f"{c.name}.seat_{s}", TakeBlackMarket(c, s)) for c in _BM for s in range(MAX_SEATS)),
    ),
    (
        "choose_agent",
        "secret_recruit, double_trouble, mind_control: this agent (a hand card, a pair, theirs)",
        tuple((a.name, ChooseAgent(a)) for a in _AGENTS),
    ),
    (
        "retrieve",
        "spycation, recall: take this agent from our play area to hand (.recruit: and recruit it)",
        tuple(
            (f"{a.name}{'.recruit' if r else ''}", Retrieve(a, r))
            for a in _AGENTS
            for r in (False, True)
        ),
    ),
)

#: every action any decision can offer, in a fixed order
ACTIONS: tuple[Action, ...] = tuple(a for _, _, items in _ACTION_SPEC for _, a in items)
ACTION_INDEX = {a: i for i, a in enumerate(ACTIONS)}
N_ACTIONS = len(ACTIONS)


def _groups() -> tuple[ActionGroup, ...]:
    out, start = [], 0
    for name, meaning, items in _ACTION_SPEC:
        out.append(ActionGroup(name, start, len(items), meaning))
        start += len(items)
    return tuple(out)


#: the blocks of ``ACTIONS`` in order (the text before ":" in ``meaning`` names the decision)
ACTION_GROUPS: tuple[ActionGroup, ...] = _groups()


def action_names() -> tuple[str, ...]:
    """One name per action index, e.g. ``"play.ENFORCER.MOLE"``, ``"recruit.face_down"``."""
    return tuple(
        f"{group}.{label}" if label else group
        for group, _, items in _ACTION_SPEC
        for label, _ in items
    )


def action_mask(legal: Sequence[Action]) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    for action in legal:
        mask[ACTION_INDEX[action]] = 1
    return mask


def request_features(request: pb.DecisionRequest) -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
    """(observation vector, action mask, action index -> the request's legal index)."""
    legal = legal_of(request)
    obs = observation_of(request.observation, history=False)
    to_request = {ACTION_INDEX[a]: i for i, a in enumerate(legal)}
    return observation_vector(obs), action_mask(legal), to_request


# --- the tables of sdk/README.md ----------------------------------------------------------


def layout_markdown() -> str:
    """The observation and action tables as Markdown (sdk/README.md holds this text)."""
    lines = ["| indices | name | entries | meaning |", "|---|---|---|---|"]
    for f in OBSERVATION_FIELDS:
        span = f"{f.start}" if f.length == 1 else f"{f.start}-{f.start + f.length - 1}"
        entries = f"`.{f.labels[0]}` ... `.{f.labels[-1]}`" if f.labels else "1 number"
        lines.append(f"| {span} | `{f.name}` | {entries} | {f.meaning} |")
    lines += ["", "| indices | action group | meaning |", "|---|---|---|"]
    for g in ACTION_GROUPS:
        span = f"{g.start}" if g.length == 1 else f"{g.start}-{g.start + g.length - 1}"
        lines.append(f"| {span} | `{g.name}` | {g.meaning} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(layout_markdown(), end="")
