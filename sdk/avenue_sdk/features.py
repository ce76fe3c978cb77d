"""Fixed-size arrays for learning agents: an observation vector and one index per possible
action (``ACTIONS``), so that a policy's output layer and its action mask never change size.

The same functions serve the PettingZoo environment (``avenue_sdk.env``) and a trained
policy playing as an SDK bot: ``request_features(request)`` gives the vector, the mask and
the request's legal index of each action index (see ``sdk/README.md``). numpy only.
"""

from __future__ import annotations

from collections.abc import Sequence

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
from referee.observation import Observation

_AGENTS = tuple(Agent)
_BM = tuple(BlackMarket)
_DECISIONS = tuple(Decision)
MAX_SEATS = 4

#: every action any decision can offer, in a fixed order
ACTIONS: tuple[Action, ...] = (
    (StopDiscarding(),)
    + tuple(Discard(a) for a in _AGENTS)
    + tuple(Play(u, d) for u in _AGENTS for d in _AGENTS)
    + tuple(NameFaceUp(s) for s in range(MAX_SEATS))
    + tuple(PlayFaceUp(a) for a in _AGENTS)
    + tuple(PlayFaceDown(a) for a in _AGENTS)
    + tuple(Recruit(side) for side in Side)
    + tuple(TakeBlackMarket(c, s) for c in _BM for s in range(MAX_SEATS))
    + tuple(ChooseAgent(a) for a in _AGENTS)
    + tuple(Retrieve(a, r) for a in _AGENTS for r in (False, True))
)
ACTION_INDEX = {a: i for i, a in enumerate(ACTIONS)}
N_ACTIONS = len(ACTIONS)


def _counts(c: Sequence[int]) -> list[float]:
    return [float(n) for n in c]


def _one_hot(i: int | None, n: int) -> list[float]:
    out = [0.0] * n
    if i is not None and 0 <= i < n:
        out[i] = 1.0
    return out


def observation_vector(obs: Observation) -> np.ndarray:
    """The seat's view as float32, from its own side: "mine" is the seat's team."""
    assert obs.seat is not None and obs.team is not None
    me, them = obs.team, 1 - obs.team
    agent_ix = {a: i for i, a in enumerate(_AGENTS)}
    bm_ix = {c: i for i, c in enumerate(_BM)}
    v: list[float] = []
    v += _one_hot(obs.seat, MAX_SEATS)
    v += [float(me)]
    v += _one_hot(_DECISIONS.index(obs.decision) if obs.decision else None, len(_DECISIONS))
    v += [float(obs.actor == obs.seat), float(obs.active == me), float(obs.turn)]
    v += _counts(obs.hand or (0,) * len(_AGENTS))
    v += _counts(obs.discards or (0,) * len(_AGENTS))
    v += _counts(obs.in_play[me]) + _counts(obs.in_play[them])
    # the gap from our side: spaces we still need to catch them (team B counts the other way)
    v += [float(obs.gap if me == 0 else 14 - obs.gap)]
    v += [float(obs.positions[me]), float(obs.positions[them]), float(obs.deck_size)]
    v += _one_hot(agent_ix.get(obs.offer_up) if obs.offer_up is not None else None, len(_AGENTS))
    v += [float(obs.face_down_offered)]
    mine_down = obs.my_face_down
    v += _one_hot(agent_ix.get(mine_down) if mine_down is not None else None, len(_AGENTS))
    for cards in (obs.market, obs.ongoing[me], obs.ongoing[them], obs.bm_discard):
        row = [0.0] * len(_BM)
        for c in cards:
            row[bm_ix[c]] = 1.0
        v += row
    v += [float(obs.bm_deck_size)]
    sizes = [0.0] * (2 * MAX_SEATS)
    for s in obs.seats:
        sizes[s.seat] = float(s.hand_size)
        sizes[MAX_SEATS + s.seat] = float(s.discards_left)
    v += sizes
    return np.asarray(v, dtype=np.float32)


OBSERVATION_SIZE = 4 + 1 + len(_DECISIONS) + 3 + 4 * len(_AGENTS) + 4 + 2 * len(_AGENTS) + 1
OBSERVATION_SIZE += 4 * len(_BM) + 1 + 2 * MAX_SEATS


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
