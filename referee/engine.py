"""The game API: ``new_game``, ``legal_actions``, ``apply``, ``result`` and ``forfeit``.

The turn is a state machine over decisions (spec 4 and 8). Each handler below answers one
``Decision`` and runs the turn forward until the next decision or the end of the game;
``legal_actions`` (legal.py) says which answers a decision takes.
"""

from __future__ import annotations

import _random
import random
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple, TypeVar

from referee import direct, effects, work
from referee.actions import (
    Action,
    ChooseAgent,
    Decision,
    Discard,
    IllegalAction,
    NameFaceUp,
    Play,
    PlayFaceDown,
    PlayFaceUp,
    Recruit,
    Retrieve,
    Side,
    TakeBlackMarket,
)
from referee.cards import (
    AGENTS,
    BLACK_MARKET_CARDS,
    EMPTY,
    FULL_DECK,
    HAND_SIZE,
    HOMES,
    INSTANT,
    MARKET_SIZE,
    START_GAP,
    Agent,
    BlackMarket,
    counts_of,
    size,
)
from referee.config import ConfigError, GameConfig, Mode
from referee.legal import legal_actions as legal_actions  # re-exported: callers import it here
from referee.state import EndReason, Event, EventKind, Outcome, State
from referee.work import Work

T = TypeVar("T")
_new: Final = tuple.__new__
#: typed as a tuple of any length: see the per-team pairs in work.py
NO_EFFECTS_USED: Final[tuple[frozenset[str], ...]] = (frozenset(), frozenset())

# Final aliases of names from other modules, read on every decision: the compiled build
# (mypyc) keeps a Final in a C static, where it looks a plain imported name up in the
# module's dict (and an enum member then in its class) on every use.
_STATE: Final = State
_EVENT: Final = Event
_OUTCOME: Final = Outcome
_RANDOM: Final = random.Random
_RANDOM_NEW: Final = random.Random.__new__
_SEED: Final = _random.Random.seed
_DISCARD: Final = Decision.DISCARD
_PLAY: Final = Decision.PLAY
_NAME_FACE_UP: Final = Decision.NAME_FACE_UP
_PLAY_FACE_UP: Final = Decision.PLAY_FACE_UP
_PLAY_FACE_DOWN: Final = Decision.PLAY_FACE_DOWN
_RECRUIT: Final = Decision.RECRUIT
_MIND_CONTROL: Final = Decision.MIND_CONTROL
_DOUBLE_TROUBLE: Final = Decision.DOUBLE_TROUBLE
_FACE_UP: Final = Side.FACE_UP
_CATCH: Final = effects.catch
_CODEBREAKERS: Final = effects.three_codebreakers
_DAREDEVILS: Final = effects.three_daredevils
_DISCARD_ACTION: Final = Discard
_PLAY_ACTION: Final = Play
_NAME_FACE_UP_ACTION: Final = NameFaceUp
_PLAY_FACE_UP_ACTION: Final = PlayFaceUp
_PLAY_FACE_DOWN_ACTION: Final = PlayFaceDown
_RECRUIT_ACTION: Final = Recruit


def shuffled(items: Sequence[T], rng: random.Random) -> list[T]:
    """Fisher-Yates with the match's own RNG (never the global one)."""
    out = list(items)
    rand = rng.random
    for i in range(len(out) - 1, 0, -1):
        j = int(rand() * (i + 1))
        out[i], out[j] = out[j], out[i]
    return out


def _coin(rng: random.Random) -> int:
    """``rng.randrange(2)`` drawn as it draws (``Random._randbelow``: ``getrandbits(2)``
    until below 2), without its two Python-level frames."""
    r = rng.getrandbits(2)
    while r >= 2:
        r = rng.getrandbits(2)
    return r


def new_game(
    config: GameConfig,
    seed: int,
    *,
    deck: Sequence[Agent] | None = None,
    bm_deck: Sequence[BlackMarket] | None = None,
) -> State:
    """Deal a new game. ``deck``/``bm_deck`` fix the shuffled orders (replays, tests)."""
    # random.Random(seed), seeded by the C method directly: the same generator, the same
    # state and so the same deals, without Random.__init__ and Random.seed in Python (which
    # for an int seed only call the C seed and reset the Gaussian cache, unused here).
    # Any other seed goes through random.Random, which hashes a str with SHA-512 where the
    # C method would take its per-process hash.
    if type(seed) is int:
        rng = _RANDOM_NEW(_RANDOM)
        _SEED(rng, seed)
    else:
        rng = _RANDOM(seed)
    # Drawn before the shuffles so that a game dealt from explicit decks starts the same.
    first = config.first_team if config.first_team is not None else _coin(rng)
    if deck is None:
        order = tuple(shuffled(FULL_DECK, rng))
    else:
        order = tuple(AGENTS[a] for a in deck)
        if sorted(order) != list(FULL_DECK):
            raise ConfigError("the agent deck must hold exactly the 38 agent cards")
    bm_order: tuple[BlackMarket, ...] = ()
    if config.mode is Mode.ADVANCED:
        if bm_deck is None:
            bm_order = tuple(shuffled(BLACK_MARKET_CARDS, rng))
        else:
            bm_order = tuple(BLACK_MARKET_CARDS[b] for b in bm_deck)
            if sorted(bm_order) != list(BLACK_MARKET_CARDS):
                raise ConfigError("the Black Market deck must hold each of the 15 cards once")
    seats = config.seats
    hands = tuple(counts_of(order[HAND_SIZE * s : HAND_SIZE * (s + 1)]) for s in range(seats))
    # positional: new_game runs once per game and keywords cost a fifth of its time
    state = _new(
        _STATE,
        (
            config,
            order[HAND_SIZE * seats :],  # deck
            hands,
            (EMPTY,) * seats,  # discards
            (EMPTY, EMPTY),  # in_play
            HOMES,  # pos
            START_GAP,  # gap
            first,  # active
            0,  # turn
            (0, 0),  # turns_done
            None,  # decision
            -1,  # actor
            -1,  # face_up_seat
            None,  # offer_up
            None,  # offer_down
            bm_order[:MARKET_SIZE],  # market
            bm_order[MARKET_SIZE:],  # bm_deck
            (frozenset(), frozenset()),  # ongoing
            (),  # bm_discard
            (),  # tasks
            NO_EFFECTS_USED,
            None,  # log
            None,  # outcome
            order,  # deck_order
            bm_order,
            seed,
            effects.compile_phases(config.mode, config.ruleset),
        ),
    )
    w = Work(state)
    _begin_turn(w)
    return w.freeze()


# --- apply -------------------------------------------------------------------------------------


def apply(state: State, action: Action) -> State:
    """The state after ``state.actor`` takes ``action``; ``IllegalAction`` if it may not."""
    if state.decision is None:
        raise IllegalAction("the game is over: no action can be applied")
    legal = legal_actions(state)
    for candidate in legal:  # identity first: dataclass __eq__ is slow and bots pass ours
        if candidate is action:
            break
    else:
        if action in legal:
            return _apply(state, action)
        options = ", ".join(a.describe() for a in legal)
        what = action.describe() if isinstance(action, Action) else repr(action)
        raise IllegalAction(
            f"{what!r} is not legal: seat {state.actor} is deciding "
            f"{state.decision.value} and may: {options}"
        )
    return _apply(state, action)


def _apply(state: State, action: Action) -> State:
    decision = state.decision
    assert decision is not None
    # the simple turn's discard and play straight on the state (direct.py); the rest, the
    # recruit first (called by name, where a function found in a dict is called through
    # the Python convention), on a working copy
    if decision is _DISCARD:
        return direct.discard(state, action)
    if decision is _PLAY:
        return direct.play(state, action)
    w = Work(state)
    if decision is _RECRUIT:
        _on_recruit(w, action)
    elif decision is _NAME_FACE_UP:  # a team game's turn
        _on_name_face_up(w, action)
    elif decision is _PLAY_FACE_UP:
        _on_play_face_up(w, action)
    elif decision is _PLAY_FACE_DOWN:
        _on_play_face_down(w, action)
    else:
        _HANDLERS[decision](w, action)
    return w.freeze()


def forfeit(state: State, seat: int) -> State:
    """End the game now: ``seat``'s team loses (a bot fault, decided by the match runner)."""
    if state.outcome is not None:
        raise IllegalAction("the game is already over")
    if not 0 <= seat < state.config.seats:
        raise IllegalAction(f"there is no seat {seat}")
    w = Work(state)
    w.finish(Outcome(1 - w.team_of(seat), EndReason.FORFEIT, forfeit_seat=seat))
    return w.freeze()


class GameResult(NamedTuple):
    winner: int
    reason: EndReason
    tiebreak: bool
    forfeit_seat: int | None
    positions: tuple[int, int]
    gap: int
    turns: int

    def to_json(self) -> dict[str, object]:
        return {
            "winner": self.winner,
            "reason": self.reason.value,
            "tiebreak": self.tiebreak,
            "forfeit_seat": self.forfeit_seat,
            "positions": list(self.positions),
            "gap": self.gap,
            "turns": self.turns,
        }


def result(state: State) -> GameResult | None:
    """Winner team (0 = A, 1 = B), reason and final positions; None while the game goes on."""
    out = state.outcome
    if out is None:
        return None
    seat = out.forfeit_seat if out.forfeit_seat >= 0 else None
    return GameResult(out.winner, out.reason, out.tiebreak, seat, state.pos, state.gap, state.turn)


# --- the turn ----------------------------------------------------------------------------------


def _begin_turn(w: Work) -> None:
    w.turn += 1
    w.effects_used = NO_EFFECTS_USED
    w.face_up_seat = -1
    w.note(work.TURN_STARTED, w.active, -1)
    members = w.config.team_members[w.active]
    if len(members) == 1:
        _ask_play(w, members[0], may_discard=True)
    else:
        w.ask(_NAME_FACE_UP, w.captain(w.active))


def _ask_play(w: Work, seat: int, may_discard: bool) -> None:
    ask = direct.next_play(w.config, w.deck, w.discards, w.offer_up, w.active, seat, may_discard)
    w.ask(ask, seat)


# The discard and the solo play are in direct.py: they are applied to the state itself.


def _on_name_face_up(w: Work, action: Action) -> None:
    assert isinstance(action, _NAME_FACE_UP_ACTION)
    w.face_up_seat = action.seat
    w.note(work.NAMED_FACE_UP, w.active, action.seat)
    _ask_play(w, action.seat, may_discard=True)


def _on_play_face_up(w: Work, action: Action) -> None:
    assert isinstance(action, _PLAY_FACE_UP_ACTION)
    seat = w.actor
    w.offer_up = action.card
    w.note(work.PLAYED_FACE_UP, -1, seat, action.card)
    w.play_out(seat, (action.card,))
    mate = next(m for m in w.config.team_members[w.active] if m != seat)
    _ask_play(w, mate, may_discard=True)


def _on_play_face_down(w: Work, action: Action) -> None:
    assert isinstance(action, _PLAY_FACE_DOWN_ACTION)
    seat = w.actor
    w.offer_down = action.card
    w.note(work.PLAYED_FACE_DOWN, -1, seat)
    w.play_out(seat, (action.card,))
    w.ask(_RECRUIT, w.captain(1 - w.active))


def _on_recruit(w: Work, action: Action) -> None:
    assert isinstance(action, _RECRUIT_ACTION)
    assert w.offer_up is not None and w.offer_down is not None
    active, other = w.active, 1 - w.active
    up, down = w.offer_up, w.offer_down
    side = action.side
    chosen, left = (up, down) if side is _FACE_UP else (down, up)
    w.note_choice(other, down, side)
    w.offer_up = w.offer_down = None
    delta_other = effects.recruit(w, other, chosen)
    delta_active = effects.recruit(w, active, left)
    # Both meeples move at once (the active team's first), then Getaway Car for each, then
    # the landings (spec 7); written out, where a loop over the pairs builds and iterates
    # tuples of objects in the compiled build.
    if delta_active:
        w.move(active, delta_active)
    if delta_other:
        w.move(other, delta_other)
    if w.phases.after_move:
        if delta_active:
            effects.after_move(w, active)
        if delta_other:
            effects.after_move(w, other)
    if w.phases.landing_spaces:  # a stack: pushed last, the active team's landing goes first
        if delta_other:
            effects.note_landing(w, other)
        if delta_active:
            effects.note_landing(w, active)
    _run(w)


def _on_black_market(w: Work, action: Action) -> None:
    assert isinstance(action, TakeBlackMarket)
    team = w.team_of(w.actor)
    card = action.card
    w.market = tuple(c for c in w.market if c is not card)
    w.emit(Event(EventKind.MARKET_TAKEN, team=team, seat=action.taker, bm=card))
    if w.bm_deck:  # refill before resolving the card; an empty deck is not reshuffled
        w.market += w.bm_deck[:1]
        w.bm_deck = w.bm_deck[1:]
        w.emit(Event(EventKind.MARKET_REVEALED, bm=w.market[-1]))
    if card in INSTANT:
        w.bm_discard += (card,)
        if effects.INSTANTS[card](w, team, action.taker):
            return  # the taker answers the card's own choice next
        w.refill(action.taker)
    else:
        ongoing = list(w.ongoing)
        ongoing[team] = ongoing[team] | {card}
        w.ongoing = (ongoing[0], ongoing[1])
    _run(w)


def _on_choose_agent(w: Work, action: Action) -> None:
    assert isinstance(action, ChooseAgent)
    seat, team, card = w.actor, w.team_of(w.actor), action.card
    if w.decision is _MIND_CONTROL:
        w.change_play(1 - team, card, -1)
        w.change_hand(seat, card, 1)
        w.note(work.STOLEN, team, seat, card)
    else:
        if w.decision is _DOUBLE_TROUBLE:
            w.note(work.SHOWN_PAIR, team, seat, card)
        w.change_hand(seat, card, -1)
        effects.move_and_land(w, team, effects.recruit(w, team, card))
    w.refill(seat)
    _run(w)


def _on_retrieve(w: Work, action: Action) -> None:
    assert isinstance(action, Retrieve)
    seat, team, card = w.actor, w.team_of(w.actor), action.card
    w.change_play(team, card, -1)
    w.note(work.RETRIEVED, team, seat, card)
    if action.recruit:
        effects.move_and_land(w, team, effects.recruit(w, team, card))
    else:
        w.change_hand(seat, card, 1)
    w.refill(seat)
    _run(w)


_HANDLERS: Final[dict[Decision, Callable[[Work, Action], None]]] = {
    Decision.NAME_FACE_UP: _on_name_face_up,
    Decision.PLAY_FACE_UP: _on_play_face_up,
    Decision.PLAY_FACE_DOWN: _on_play_face_down,
    Decision.RECRUIT: _on_recruit,
    Decision.BLACK_MARKET: _on_black_market,
    Decision.SECRET_RECRUIT: _on_choose_agent,
    Decision.DOUBLE_TROUBLE: _on_choose_agent,
    Decision.MIND_CONTROL: _on_choose_agent,
    Decision.SPYCATION: _on_retrieve,
    Decision.RECALL: _on_retrieve,
}


def _run(w: Work) -> None:
    """Resolve pending landings (top of the stack first), then the End step."""
    while w.tasks:
        task = w.tasks[-1]
        w.tasks = w.tasks[:-1]
        for landing in w.phases.landings:
            if landing(w, task):
                return
    _end_step(w)


def _end_step(w: Work) -> None:
    candidates: dict[int, EndReason] | None = None  # most End steps end nothing
    for check in w.phases.end_checks:
        # the simple mode's checks called by name (natively), the others through the list
        if check is _CATCH:
            ends = effects.catch(w)
        elif check is _CODEBREAKERS:
            ends = effects.three_codebreakers(w)
        elif check is _DAREDEVILS:
            ends = effects.three_daredevils(w)
        else:
            ends = check(w)
        for team, reason in ends:
            if candidates is None:
                candidates = {}
            candidates.setdefault(team, reason)
    if candidates:
        tie = len(candidates) == 2
        winner = w.active if tie else next(iter(candidates))
        w.finish(_new(_OUTCOME, (winner, candidates[winner], tie, -1)))
    elif not w.deck and _next_team_out_of_cards(w):
        closer = 0 if w.gap < START_GAP else 1 if w.gap > START_GAP else w.active
        w.finish(_new(_OUTCOME, (closer, EndReason.OUT_OF_CARDS, w.gap == START_GAP, -1)))
    else:
        w.turns_done = (
            (w.turns_done[0] + 1, w.turns_done[1])
            if w.active == 0
            else (w.turns_done[0], w.turns_done[1] + 1)
        )
        w.active = 1 - w.active
        _begin_turn(w)


def _next_team_out_of_cards(w: Work) -> bool:
    """A solo player next needs 2 cards; each player of a team of two needs 1 (spec 4, 8)."""
    members = w.config.team_members[1 - w.active]
    if len(members) == 1:
        return size(w.hands[members[0]]) < 2
    return any(size(w.hands[m]) == 0 for m in members)
