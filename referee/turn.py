"""The turn: a state machine over decisions (spec 4 and 8). Each handler answers one
``Decision`` on a working copy (``work.Work``) and runs the turn forward until the next
decision or the end of the game; ``engine.apply`` picks the handler, ``legal.py`` says which
answers a decision takes. The simple turn's discard and solo play are in ``direct.py``: they
are applied to the state itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from referee import direct, effects, work
from referee.actions import (
    Action,
    ChooseAgent,
    Decision,
    NameFaceUp,
    PlayFaceDown,
    PlayFaceUp,
    Recruit,
    Retrieve,
    Side,
    TakeBlackMarket,
)
from referee.cards import INSTANT, START_GAP, size
from referee.state import EndReason, Event, EventKind, Outcome
from referee.work import Work

_new: Final = tuple.__new__
#: typed as a tuple of any length: see the per-team pairs in work.py
NO_EFFECTS_USED: Final[tuple[frozenset[str], ...]] = (frozenset(), frozenset())

# Final aliases of names from other modules, read on every decision: the compiled build
# (mypyc) keeps a Final in a C static, where it looks a plain imported name up in the
# module's dict (and an enum member then in its class) on every use.
_OUTCOME: Final = Outcome
_NAME_FACE_UP: Final = Decision.NAME_FACE_UP
_RECRUIT: Final = Decision.RECRUIT
_MIND_CONTROL: Final = Decision.MIND_CONTROL
_DOUBLE_TROUBLE: Final = Decision.DOUBLE_TROUBLE
_FACE_UP: Final = Side.FACE_UP
_CATCH: Final = effects.catch
_CODEBREAKERS: Final = effects.three_codebreakers
_DAREDEVILS: Final = effects.three_daredevils
_NAME_FACE_UP_ACTION: Final = NameFaceUp
_PLAY_FACE_UP_ACTION: Final = PlayFaceUp
_PLAY_FACE_DOWN_ACTION: Final = PlayFaceDown
_RECRUIT_ACTION: Final = Recruit


def begin_turn(w: Work) -> None:
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


def on_name_face_up(w: Work, action: Action) -> None:
    assert isinstance(action, _NAME_FACE_UP_ACTION)
    w.face_up_seat = action.seat
    w.note(work.NAMED_FACE_UP, w.active, action.seat)
    _ask_play(w, action.seat, may_discard=True)


def on_play_face_up(w: Work, action: Action) -> None:
    assert isinstance(action, _PLAY_FACE_UP_ACTION)
    seat = w.actor
    w.offer_up = action.card
    w.note(work.PLAYED_FACE_UP, -1, seat, action.card)
    w.play_out(seat, (action.card,))
    mate = next(m for m in w.config.team_members[w.active] if m != seat)
    _ask_play(w, mate, may_discard=True)


def on_play_face_down(w: Work, action: Action) -> None:
    assert isinstance(action, _PLAY_FACE_DOWN_ACTION)
    seat = w.actor
    w.offer_down = action.card
    w.note(work.PLAYED_FACE_DOWN, -1, seat)
    w.play_out(seat, (action.card,))
    w.ask(_RECRUIT, w.captain(1 - w.active))


def on_recruit(w: Work, action: Action) -> None:
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


def on_black_market(w: Work, action: Action) -> None:
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


def on_choose_agent(w: Work, action: Action) -> None:
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


def on_retrieve(w: Work, action: Action) -> None:
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


HANDLERS: Final[dict[Decision, Callable[[Work, Action], None]]] = {
    Decision.NAME_FACE_UP: on_name_face_up,
    Decision.PLAY_FACE_UP: on_play_face_up,
    Decision.PLAY_FACE_DOWN: on_play_face_down,
    Decision.RECRUIT: on_recruit,
    Decision.BLACK_MARKET: on_black_market,
    Decision.SECRET_RECRUIT: on_choose_agent,
    Decision.DOUBLE_TROUBLE: on_choose_agent,
    Decision.MIND_CONTROL: on_choose_agent,
    Decision.SPYCATION: on_retrieve,
    Decision.RECALL: on_retrieve,
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
        begin_turn(w)


def _next_team_out_of_cards(w: Work) -> bool:
    """A solo player next needs 2 cards; each player of a team of two needs 1 (spec 4, 8)."""
    members = w.config.team_members[1 - w.active]
    if len(members) == 1:
        return size(w.hands[members[0]]) < 2
    return any(size(w.hands[m]) == 0 for m in members)
