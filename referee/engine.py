"""The game API: ``new_game``, ``legal_actions``, ``apply``, ``result`` and ``forfeit``.

``apply`` hands each decision to its handler: the simple turn's discard and solo play to
``direct.py`` (applied to the state itself), the others to ``turn.py`` (on a working copy,
run forward to the next decision or the end); ``legal_actions`` (legal.py) says which
answers a decision takes.
"""

from __future__ import annotations

import _random
import random
from collections.abc import Sequence
from typing import Final, NamedTuple, TypeVar

from referee import direct, effects
from referee.actions import Action, Decision, IllegalAction
from referee.cards import (
    AGENTS,
    BLACK_MARKET_CARDS,
    EMPTY,
    FULL_DECK,
    HAND_SIZE,
    HOMES,
    MARKET_SIZE,
    START_GAP,
    Agent,
    BlackMarket,
    counts_of,
)
from referee.config import ConfigError, GameConfig, Mode
from referee.legal import legal_actions as legal_actions  # re-exported: callers import it here
from referee.state import EndReason, Outcome, State
from referee.turn import (
    HANDLERS,
    NO_EFFECTS_USED,
    begin_turn,
    on_name_face_up,
    on_play_face_down,
    on_play_face_up,
    on_recruit,
)
from referee.work import Work

T = TypeVar("T")
_new: Final = tuple.__new__

# Final aliases of names from other modules, read on every decision: the compiled build
# (mypyc) keeps a Final in a C static, where it looks a plain imported name up in the
# module's dict (and an enum member then in its class) on every use.
_STATE: Final = State
_RANDOM: Final = random.Random
_RANDOM_NEW: Final = random.Random.__new__
_SEED: Final = _random.Random.seed
_DISCARD: Final = Decision.DISCARD
_PLAY: Final = Decision.PLAY
_NAME_FACE_UP: Final = Decision.NAME_FACE_UP
_PLAY_FACE_UP: Final = Decision.PLAY_FACE_UP
_PLAY_FACE_DOWN: Final = Decision.PLAY_FACE_DOWN
_RECRUIT: Final = Decision.RECRUIT


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
    begin_turn(w)
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
        on_recruit(w, action)
    elif decision is _NAME_FACE_UP:  # a team game's turn
        on_name_face_up(w, action)
    elif decision is _PLAY_FACE_UP:
        on_play_face_up(w, action)
    elif decision is _PLAY_FACE_DOWN:
        on_play_face_down(w, action)
    else:
        HANDLERS[decision](w, action)
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
