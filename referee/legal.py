"""The legal actions of a state: what ``state.actor`` may answer its decision with.

Actions are interned (one instance per hand and decision), so that ``apply`` finds the
action a bot passes back by identity before it compares values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from referee import effects
from referee.actions import (
    Action,
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
from referee.cards import INSTANT, Agent, Counts
from referee.state import State

STOP: Final = StopDiscarding()
RECRUIT_CHOICES: Final = (Recruit(Side.FACE_UP), Recruit(Side.FACE_DOWN))
# Final aliases: C statics in the compiled build, where an imported name is a dict look-up
_DISCARD: Final = Decision.DISCARD
_PLAY: Final = Decision.PLAY
_RECRUIT: Final = Decision.RECRUIT
_NAME_FACE_UP: Final = Decision.NAME_FACE_UP
_PLAY_FACE_UP: Final = Decision.PLAY_FACE_UP
_PLAY_FACE_DOWN: Final = Decision.PLAY_FACE_DOWN

#: the last state asked about (a bot asks, then apply() checks the same state again): one
#: cell holding a (state, legal) pair, replaced whole, so a thread never reads one state's
#: pair with another's actions; a Final list is a C static in the compiled build
_LAST: Final[list[tuple[object, tuple[Action, ...]]]] = [(None, ())]
_DISCARDS: Final[dict[Counts, tuple[Action, ...]]] = {}
_PLAYS: Final[dict[Counts, tuple[Action, ...]]] = {}


def _discard_actions(hand: Counts) -> tuple[Action, ...]:
    acts = _DISCARDS.get(hand)
    if acts is None:
        acts = _DISCARDS[hand] = (*(Discard(a) for a in effects.ids_in(hand)), STOP)
    return acts


def _play_actions(hand: Counts) -> tuple[Action, ...]:
    acts = _PLAYS.get(hand)
    if acts is None:
        ids = effects.ids_in(hand)
        if len(ids) == 1:  # every card the same id: the identical pair is allowed
            acts = (Play(ids[0], ids[0]),)
        else:
            acts = tuple(Play(u, d) for u in ids for d in ids if u != d)
        _PLAYS[hand] = acts
    return acts


#: a team game's decisions, interned the same way: by team, by hand, by hand and face-up card
_NAMES: Final[dict[tuple[int, ...], tuple[Action, ...]]] = {}
_FACE_UPS: Final[dict[Counts, tuple[Action, ...]]] = {}
_FACE_DOWNS: Final[dict[tuple[Counts, Agent | None], tuple[Action, ...]]] = {}


def _name_actions(members: tuple[int, ...]) -> tuple[Action, ...]:
    acts = _NAMES.get(members)
    if acts is None:
        acts = _NAMES[members] = tuple(NameFaceUp(m) for m in members)
    return acts


def _face_up_actions(hand: Counts) -> tuple[Action, ...]:
    acts = _FACE_UPS.get(hand)
    if acts is None:
        acts = _FACE_UPS[hand] = tuple(PlayFaceUp(a) for a in effects.ids_in(hand))
    return acts


def _face_down_actions(state: State) -> tuple[Action, ...]:
    hand, up = state.hands[state.actor], state.offer_up
    key = (hand, up)
    acts = _FACE_DOWNS.get(key)
    if acts is None:
        ids = effects.ids_in(hand)
        other = tuple(PlayFaceDown(a) for a in ids if a is not up)
        acts = _FACE_DOWNS[key] = other or (PlayFaceDown(ids[0]),)
    return acts


def legal_actions(state: State) -> tuple[Action, ...]:
    """The actions open to ``state.actor``, in a stable order; empty once the game is over."""
    last = _LAST[0]
    if last[0] is state:
        return last[1]
    decision = state.decision
    # The decisions of every simple turn first, by name: the compiled build calls a
    # function it finds in a dict through the Python calling convention, these directly.
    if decision is _DISCARD:
        legal = _discard_actions(state.hands[state.actor])
    elif decision is _PLAY:
        legal = _play_actions(state.hands[state.actor])
    elif decision is _RECRUIT:
        legal = RECRUIT_CHOICES
    elif decision is _NAME_FACE_UP:  # and a team game's
        legal = _name_actions(state.config.team_members[state.active])
    elif decision is _PLAY_FACE_UP:
        legal = _face_up_actions(state.hands[state.actor])
    elif decision is _PLAY_FACE_DOWN:
        legal = _face_down_actions(state)
    else:
        legal = () if decision is None else _LEGAL[decision](state)
    _LAST[0] = (state, legal)
    return legal


def _team_play(state: State) -> Counts:
    return state.in_play[state.config.team_of(state.actor)]


def _market_actions(state: State) -> tuple[Action, ...]:
    team = state.config.team_of(state.actor)
    members = state.config.team_members[team]
    out: list[Action] = []
    for card in sorted(state.market):
        takers = members if card in INSTANT else (state.actor,)
        out.extend(TakeBlackMarket(card, seat) for seat in takers)
    return tuple(out)


def _retrieve_actions(state: State) -> tuple[Action, ...]:
    ids = effects.ids_in(_team_play(state))
    return tuple(Retrieve(a, r) for a in ids for r in (False, True))


_LEGAL: Final[dict[Decision, Callable[[State], tuple[Action, ...]]]] = {
    Decision.DISCARD: lambda s: _discard_actions(s.hands[s.actor]),
    Decision.PLAY: lambda s: _play_actions(s.hands[s.actor]),
    Decision.NAME_FACE_UP: lambda s: _name_actions(s.config.team_members[s.active]),
    Decision.PLAY_FACE_UP: lambda s: _face_up_actions(s.hands[s.actor]),
    Decision.PLAY_FACE_DOWN: _face_down_actions,
    Decision.RECRUIT: lambda s: RECRUIT_CHOICES,
    Decision.BLACK_MARKET: _market_actions,
    Decision.SECRET_RECRUIT: lambda s: tuple(
        ChooseAgent(a) for a in effects.secret_recruit_options(s.hands[s.actor], _team_play(s))
    ),
    Decision.DOUBLE_TROUBLE: lambda s: tuple(
        ChooseAgent(a) for a in effects.ids_in(s.hands[s.actor], 2)
    ),
    Decision.SPYCATION: _retrieve_actions,
    Decision.RECALL: _retrieve_actions,
    Decision.MIND_CONTROL: lambda s: tuple(
        ChooseAgent(a) for a in effects.ids_in(s.in_play[1 - s.config.team_of(s.actor)])
    ),
}
