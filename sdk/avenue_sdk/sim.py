"""A forward model for search bots: full game states from what a seat has seen, and the
rules engine to play them forward.

    from avenue_sdk import sim

    def decide(self, request):
        pos = sim.Position(request)
        state = pos.sample(rng)                   # one world the seat cannot tell from the real one
        after = sim.apply(state, pos.legal[k])    # referee actions, in the request's order
        final = sim.rollout(after, rng)           # to the end with the fast default policy
        won = sim.winner(final) == pos.team
        ...
        return pos.index(best)                    # the request's legal index of an action

``Position.sample`` deals every card the seat cannot see (other hands and discards, the draw
pile, an opponent's face-down card, the Black Market deck) at random from the cards
unaccounted for, respecting every count the request gives and every card the public
history told the seat of (``referee.bots.knowledge``: cards Spycation, a recall or Mind
Control put into a hand, Double Trouble's pair, what an ignored instant card says a hand
lacked): the determinization the house bots use (``referee.bots.determinize``). It never
knows the true hidden cards: the request does not carry them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.protocol import convert
from avenue_sdk.protocol.decode import legal_of, observation_of
from avenue_sdk.session import check_engine
from referee import Action, GameResult, State, apply, legal_actions, result
from referee.bots.determinize import determinize
from referee.bots.policy import quick_action
from referee.observation import Observation

__all__ = [
    "Action",
    "GameResult",
    "Position",
    "State",
    "apply",
    "default_policy",
    "is_over",
    "legal_actions",
    "result",
    "rollout",
    "to_move",
    "team_of",
    "winner",
]


class Position:
    """The decision a ``DecisionRequest`` asks, as the referee sees it from this seat."""

    def __init__(self, request: pb.DecisionRequest) -> None:
        check_engine(request.observation.config)
        self.request = request
        #: the seat's view (its history left out: sampling does not need it)
        self.observation: Observation = observation_of(request.observation, history=False)
        #: the legal actions, index ``i`` being ``request.legal[i]``
        self.legal: tuple[Action, ...] = legal_of(request)
        self.seat: int = request.seat
        self.team: int = request.observation.team
        self._index = {a: i for i, a in enumerate(self.legal)}

    def sample(self, rng: random.Random | None = None) -> State:
        """One full state consistent with everything this seat has seen; the seat to move
        is this one and ``legal_actions`` of it are ``self.legal``."""
        return determinize(self.observation, rng or random.Random())

    def index(self, action: Action) -> int:
        """The request's legal index of ``action`` (``ValueError`` if it is not legal)."""
        try:
            return self._index[action]
        except KeyError:
            raise ValueError(f"{action!r} is not one of this request's legal choices") from None

    def choice(self, action: Action) -> pb.Choice:
        """The protocol form of ``action`` (what ``request.legal`` holds)."""
        return convert.choice(action)


def is_over(state: State) -> bool:
    return state.decision is None


def to_move(state: State) -> int:
    """The seat deciding now (-1 once the game is over)."""
    return state.actor


def team_of(state: State, seat: int) -> int:
    return state.config.team_of(seat)


def winner(state: State) -> int | None:
    """The winning team of a finished state, None while it goes on."""
    final = result(state)
    return None if final is None else final.winner


def default_policy(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    """A fast one-ply rollout policy (the house search bot's): arithmetic, no ``apply``."""
    return quick_action(state, legal, rng)


def rollout(state: State, rng: random.Random, random_share: float = 0.2) -> State:
    """Play ``state`` to the end: ``default_policy``, with a share of random moves."""
    while state.decision is not None:
        legal = legal_actions(state)
        if rng.random() < random_share:
            action = legal[int(rng.random() * len(legal))]
        else:
            action = quick_action(state, legal, rng)
        state = apply(state, action)
    return state
