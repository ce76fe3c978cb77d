"""Helpers for the scripted rule scenarios (tests/referee/test_rules_*.py).

A scenario is: a deal ("these cards first"), optionally a mid-game board set up on the
freshly dealt state, a script of actions, and the expected state or error. Everything the
helpers build is an ordinary ``referee`` state; they only save typing.

    s = deal([[ENF, SAB, CB, SEN], [DD, DA, CB, SEN]], draw=[MOLE, SK])
    s = play(s, Play(ENF, SAB), DOWN)   # the DISCARD decision is answered with "stop"
    assert s.pos == (1, 6)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee import (
    Action,
    Agent,
    BlackMarket,
    Decision,
    Discard,
    GameConfig,
    GameResult,
    IllegalAction,
    Mode,
    Recruit,
    Side,
    State,
    StopDiscarding,
    apply,
    legal_actions,
    new_game,
    result,
)
from referee.cards import BLACK_MARKET_CARDS, FULL_DECK, cards_of, counts_of
from referee.state import Event, EventKind

DA = Agent.DOUBLE_AGENT
ENF = Agent.ENFORCER
CB = Agent.CODEBREAKER
SAB = Agent.SABOTEUR
DD = Agent.DAREDEVIL
SEN = Agent.SENTINEL
SK = Agent.SIDEKICK
MOLE = Agent.MOLE

UP = Recruit(Side.FACE_UP)
DOWN = Recruit(Side.FACE_DOWN)
STOP = StopDiscarding()

A, B = 0, 1  # teams

BM = BlackMarket


def agent_deck(first: Sequence[Agent]) -> list[Agent]:
    """The 38-card deck with ``first`` on top, in order, then the rest of the full deck."""
    rest = list(FULL_DECK)
    for card in first:
        rest.remove(card)  # ValueError: more copies asked for than the deck holds
    return [*first, *rest]


def bm_deck(first: Sequence[BlackMarket]) -> list[BlackMarket]:
    """The 15 Black Market cards with ``first`` on top, then the rest in id order."""
    rest = [c for c in BLACK_MARKET_CARDS if c not in first]
    assert len(set(first)) == len(first), "each Black Market card exists once"
    return [*first, *rest]


def deal(
    hands: Sequence[Sequence[Agent]],
    draw: Sequence[Agent] = (),
    *,
    mode: str = "simple",
    first_team: int = A,
    ruleset: str = "standard",
    teams: tuple[tuple[int, ...], tuple[int, ...]] | None = None,
    market: Sequence[BlackMarket] = (),
    bm_next: Sequence[BlackMarket] = (),
    seed: int = 1,
) -> State:
    """A new game: seat i holds ``hands[i]``, the draw pile starts with ``draw``.

    ``market`` is the face-up Black Market (advanced mode), ``bm_next`` the next cards of
    the Black Market deck in the order they refill the market.
    """
    assert all(len(h) == 4 for h in hands), "every seat is dealt 4 cards"
    if teams is None:
        config = GameConfig.for_seats(len(hands), mode, first_team=first_team, ruleset=ruleset)
    else:
        config = GameConfig(Mode(mode), teams, first_team, ruleset)
    assert config.seats == len(hands)
    deck = agent_deck([c for h in hands for c in h] + list(draw))
    bm: list[BlackMarket] | None = None
    if config.mode is Mode.ADVANCED:
        assert len(market) == 3, "the market shows 3 cards at the start"
        bm = bm_deck([*market, *bm_next])
    else:
        assert not market and not bm_next, "the Black Market is an advanced-mode component"
    return new_game(config, seed, deck=deck, bm_deck=bm)


def board(
    state: State,
    *,
    a: int | None = None,
    b: int | None = None,
    play_a: Iterable[Agent] = (),
    play_b: Iterable[Agent] = (),
    ongoing_a: Iterable[BlackMarket] = (),
    ongoing_b: Iterable[BlackMarket] = (),
    deck: Sequence[Agent] | None = None,
    hands: Sequence[Sequence[Agent]] | None = None,
    bm_deck_left: Sequence[BlackMarket] | None = None,
) -> State:
    """Set up a mid-game position on a freshly dealt state.

    Positions set ``gap`` to the clockwise distance A -> B (1..13, as between turns). Agents
    put in play are taken from the bottom of the draw pile and ongoing cards from the Black
    Market deck, so every card still exists exactly once. ``deck`` and ``hands`` replace the
    draw pile and the hands outright (a late-game position); ``bm_deck_left`` replaces the
    Black Market deck.
    """
    assert state.turn == 1 and state.decision is not None
    pos = (state.pos[A] if a is None else a, state.pos[B] if b is None else b)
    gap = (pos[B] - pos[A]) % 14
    assert 1 <= gap <= 13, "the meeples never share a space between turns"
    pile = list(state.deck if deck is None else deck)
    play_a, play_b = list(play_a), list(play_b)
    if deck is None:
        for card in play_a + play_b:
            idx = len(pile) - 1 - pile[::-1].index(card)  # ValueError: no copy left
            del pile[idx]
    ongoing = (frozenset(ongoing_a), frozenset(ongoing_b))
    bm_pile = [c for c in state.bm_deck if c not in ongoing[A] | ongoing[B]]
    assert not (ongoing[A] | ongoing[B]) & set(state.market), "an ongoing card is not on sale"
    if bm_deck_left is not None:
        bm_pile = list(bm_deck_left)
    if hands is not None:
        assert len(hands) == state.config.seats
        state = state._replace(hands=tuple(counts_of(list(h)) for h in hands))
    if not pile and state.decision is Decision.DISCARD:
        # the deal asked for a discard; with an empty deck the turn starts at the play
        state = state._replace(decision=Decision.PLAY)
    return state._replace(
        pos=pos,
        gap=gap,
        deck=tuple(pile),
        in_play=(counts_of(play_a), counts_of(play_b)),
        ongoing=ongoing,
        bm_deck=tuple(bm_pile),
    )


def play(state: State, *actions: Action, auto_stop: bool = True) -> State:
    """Apply ``actions`` in order.

    With ``auto_stop``, a DISCARD decision met by an action that is neither a discard nor
    "stop" is first answered with "stop" (every scenario that is about discarding passes
    ``auto_stop=False`` or scripts the decisions explicitly).
    """
    for i, action in enumerate(actions):
        if (
            auto_stop
            and state.decision is Decision.DISCARD
            and not isinstance(action, (Discard, StopDiscarding))
        ):
            state = apply(state, STOP)
        try:
            state = apply(state, action)
        except IllegalAction as exc:
            raise AssertionError(f"step {i} ({action!r}) was refused: {exc}") from None
    return state


def play_on(state: State, *actions: Action) -> State:
    """Like ``play`` but lets ``IllegalAction`` through (for the error scenarios)."""
    for action in actions:
        state = apply(state, action)
    return state


def new_events(before: State, after: State) -> list[Event]:
    """The events ``after`` logged since ``before``."""
    return list(after.events()[len(before.events()) :])


def events_of(state: State, kind: EventKind) -> list[Event]:
    return [e for e in state.events() if e.kind is kind]


def moves(state: State, since: State | None = None) -> list[tuple[int, int, int]]:
    """(team, amount, space) of every MOVED event (since ``since``)."""
    evs = state.events() if since is None else new_events(since, state)
    return [(e.team, e.amount, e.space) for e in evs if e.kind is EventKind.MOVED]


def outcome(state: State) -> GameResult:
    """The result of a finished game (fails the test if the game is still on)."""
    r = result(state)
    assert r is not None, f"the game is not over: {state.decision} for seat {state.actor}"
    return r


def hand(state: State, seat: int) -> list[Agent]:
    return list(cards_of(state.hands[seat]))


def in_play(state: State, team: int) -> list[Agent]:
    return list(cards_of(state.in_play[team]))


def options(state: State) -> set[Action]:
    return set(legal_actions(state))


def decision(state: State) -> tuple[Decision | None, int]:
    return state.decision, state.actor
