"""The simple turn's discard and play decisions, applied straight to the frozen state.

Two of every three decisions of a simple game are a discard (or stopping) and the play of
two cards. Each changes a handful of the state's fields, so ``apply`` builds the next
``State`` from the last one here, without the working copy (work.py) that the other
decisions go through: that copy's allocation, its 27 fields copied in and out, and its
release were a third of such a decision's time in the compiled build. The rules are the
same functions the working copy uses (``exchanged``, ``noted``, ``next_play``).

The fields passed on unchanged are read from the state as a ``tuple[object, ...]``: read
by name, the per-team pairs (typed ``tuple[X, X]``) would be unboxed by the compiled
build and boxed again into new tuples (see ``Work``).
"""

from __future__ import annotations

from typing import Final, cast

from referee.actions import Action, Decision, Discard, Play
from referee.cards import HAND_SIZE, Agent, Counts, add, size
from referee.config import GameConfig
from referee.state import State
from referee.work import (
    DISCARDED,
    PLAYED_FACE_DOWN,
    PLAYED_FACE_UP,
    cons,
    exchanged,
    noted,
    replaced,
)

_new: Final = tuple.__new__
# Final aliases: C statics in the compiled build (see engine.py)
_STATE: Final = State
_DISCARD: Final = Decision.DISCARD
_PLAY: Final = Decision.PLAY
_PLAY_FACE_UP: Final = Decision.PLAY_FACE_UP
_PLAY_FACE_DOWN: Final = Decision.PLAY_FACE_DOWN
_RECRUIT: Final = Decision.RECRUIT
_DISCARD_ACTION: Final = Discard
_PLAY_ACTION: Final = Play


def next_play(
    config: GameConfig,
    deck: tuple[Agent, ...],
    discards: tuple[Counts, ...],
    offer_up: Agent | None,
    active: int,
    seat: int,
    may_discard: bool,
) -> Decision:
    """What ``seat`` of the active team decides next in the play step (spec 4, Step 1):
    discard while the deck lasts and its limit allows, else play (a team: face up, then
    face down)."""
    if may_discard and deck and size(discards[seat]) < config.discard_limits[seat]:
        return _DISCARD
    if len(config.team_members[active]) == 1:
        return _PLAY
    return _PLAY_FACE_UP if offer_up is None else _PLAY_FACE_DOWN


def discard(s: State, action: Action) -> State:
    """``Discard``: the card to the seat's discards, one card drawn (even into a hand
    larger than 4), and the seat decides again; ``StopDiscarding``: the seat plays."""
    seat = s.actor
    if isinstance(action, _DISCARD_ACTION):
        card: int = action.card
        discards = replaced(s.discards, seat, add(s.discards[seat], card))
        noted_log = cons(noted(DISCARDED, -1, seat), s.log)
        hands, deck, log = exchanged(s.hands, s.deck, noted_log, seat, (card,), 1)
        may_discard = True
    else:
        discards, hands, deck, log = s.discards, s.hands, s.deck, s.log
        may_discard = False
    decision = next_play(s.config, deck, discards, s.offer_up, s.active, seat, may_discard)
    r: tuple[object, ...] = s  # the fields passed on, read as objects (module docstring)
    return _new(
        _STATE,
        (
            r[0],  # config
            deck,
            hands,
            discards,
            r[4],  # in_play
            r[5],  # pos
            r[6],  # gap
            r[7],  # active
            r[8],  # turn
            r[9],  # turns_done
            decision,
            seat,  # actor
            r[12],  # face_up_seat
            r[13],  # offer_up
            r[14],  # offer_down
            r[15],  # market
            r[16],  # bm_deck
            r[17],  # ongoing
            r[18],  # bm_discard
            r[19],  # tasks
            r[20],  # effects_used
            log,
            r[22],  # outcome
            r[23],  # deck_order
            r[24],  # bm_order
            r[25],  # seed
            r[26],  # phases
        ),
    )


def play(s: State, action: Action) -> State:
    """A solo player's two cards, one face up and one face down; it draws back up to 4
    and the other team's captain chooses which to recruit."""
    assert isinstance(action, _PLAY_ACTION)
    seat, up, down = s.actor, action.up, action.down
    shown = cons(
        noted(PLAYED_FACE_DOWN, -1, seat), cons(noted(PLAYED_FACE_UP, -1, seat, up), s.log)
    )
    draw = HAND_SIZE - size(s.hands[seat]) + 2
    hands, deck, log = exchanged(s.hands, s.deck, shown, seat, (up, down), draw)
    other = 1 - s.active
    members = s.config.team_members[other]
    r: tuple[object, ...] = s  # the fields passed on, read as objects (module docstring)
    done = cast(tuple[int, ...], r[9])  # turns_done, not unboxed to be indexed
    captain = members[done[other] % len(members)]
    return _new(
        _STATE,
        (
            r[0],  # config
            deck,
            hands,
            s.discards,
            r[4],  # in_play
            r[5],  # pos
            r[6],  # gap
            r[7],  # active
            r[8],  # turn
            r[9],  # turns_done
            _RECRUIT,
            captain,  # actor
            seat,  # face_up_seat
            up,  # offer_up
            down,  # offer_down
            r[15],  # market
            r[16],  # bm_deck
            r[17],  # ongoing
            r[18],  # bm_discard
            r[19],  # tasks
            r[20],  # effects_used
            log,
            r[22],  # outcome
            r[23],  # deck_order
            r[24],  # bm_order
            r[25],  # seed
            r[26],  # phases
        ),
    )
