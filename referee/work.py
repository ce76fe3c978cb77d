"""A mutable working copy of ``State`` used inside one ``apply`` call.

``apply`` copies the frozen state into a ``Work``, lets the rules mutate it, and freezes
the result into a new ``State``; callers never see a ``Work``. The primitives here (draw,
move, recruit, log) are the only places that touch hands, the deck and the meeples.
"""

from __future__ import annotations

from typing import Final

from referee.actions import Decision, Side
from referee.cards import (
    AGENTS,
    BOARD_SIZE,
    HAND_SIZE,
    Agent,
    BlackMarket,
    Counts,
    size,
)
from referee.config import GameConfig
from referee.events import Event, EventKind, Log, Outcome, Task
from referee.phases import Phases
from referee.state import State

_new: Final = tuple.__new__
# Final aliases: the compiled build (mypyc) keeps these in C statics, where a plain name
# imported from another module is looked up in the module's dict on every use.
_STATE: Final = State
_EVENT: Final = Event

#: the event kinds ``note`` takes by number (its callers pass these constants)
KINDS: Final = tuple(EventKind)
TURN_STARTED: Final = KINDS.index(EventKind.TURN_STARTED)
DISCARDED: Final = KINDS.index(EventKind.DISCARDED)
NAMED_FACE_UP: Final = KINDS.index(EventKind.NAMED_FACE_UP)
PLAYED_FACE_UP: Final = KINDS.index(EventKind.PLAYED_FACE_UP)
PLAYED_FACE_DOWN: Final = KINDS.index(EventKind.PLAYED_FACE_DOWN)
RETRIEVED: Final = KINDS.index(EventKind.RETRIEVED)
STOLEN: Final = KINDS.index(EventKind.STOLEN)
SHOWN_PAIR: Final = KINDS.index(EventKind.SHOWN_PAIR)
_DREW: Final = EventKind.DREW
_MOVED: Final = EventKind.MOVED
_RECRUITED: Final = EventKind.RECRUITED
_CHOSE: Final = EventKind.CHOSE
_FACE_UP: Final = Side.FACE_UP
_AGENTS: Final = AGENTS

#: the frequent events, interned: an event is an immutable value, a game repeats a few
#: hundred distinct ones, and building a NamedTuple costs four tuple allocations. Each
#: table is a list indexed by the event's fields packed into one int (no key to build and
#: hash); a value outside a table's range builds its event uninterned.
_NOTES: Final[list[Event | None]] = [None] * (len(KINDS) * 3 * 5 * 9)  # team, seat, agent
_DREWS: Final[list[Event | None]] = [None] * (4 * 16)  # seat, cards drawn
_MOVES: Final[list[Event | None]] = [None] * (2 * 64 * BOARD_SIZE)  # team, move, space
_RECRUITS: Final[list[Event | None]] = [None] * (2 * 8 * 8)  # team, agent, copies
_CHOICES: Final[list[Event | None]] = [None] * (2 * 8 * 2)  # team, agent, side


# The state-level primitives: Work's methods and the simple turn's direct path (direct.py)
# both use these. The events are built positionally: a NamedTuple call with keywords costs
# several times more, and these run on every turn of every game.


def noted(kind: int, team: int, seat: int, agent: int = -1) -> Event:
    """An event of ``KINDS[kind]``; team, seat and agent -1 for none (seat < 4)."""
    i = ((kind * 3 + team + 1) * 5 + seat + 1) * 9 + agent + 1
    event = _NOTES[i]
    if event is None:
        who = None if agent < 0 else _AGENTS[agent]
        event = _new(_EVENT, (KINDS[kind], team, seat, who, None, 0, -1, None, None))
        _NOTES[i] = event
    return event


def cons(event: Event, log: Log) -> Log:
    """The log with ``event`` added (built here as one object: a caller that built the pair
    itself and passed it on as a ``Log`` would have it unboxed and boxed again)."""
    return (event, log)


def drew(seat: int, n: int) -> Event:
    i = seat * 16 + n
    event = _DREWS[i] if n < 16 else None
    if event is None:
        event = _new(_EVENT, (_DREW, -1, seat, None, None, n, -1, None, None))
        if n < 16:
            _DREWS[i] = event
    return event


# Agents are indexes here: an index typed ``int`` is native in the compiled build, where an
# ``Agent`` (an int subclass to mypyc's eyes) goes through Python's item protocol; and
# ``c[i] = c[i] + n`` adds natively where mypyc compiles ``c[i] += n`` as objects.


def replaced(items: tuple[Counts, ...], i: int, item: Counts) -> tuple[Counts, ...]:
    """``items`` with item ``i`` replaced (per seat: hands, discards)."""
    if len(items) == 2:  # two seats: no list to build
        return (item, items[1]) if i == 0 else (items[0], item)
    rebuilt = list(items)
    rebuilt[i] = item
    return tuple(rebuilt)


def exchanged(
    hands: tuple[Counts, ...],
    deck: tuple[Agent, ...],
    log: Log,
    seat: int,
    out: tuple[int, ...],
    draw: int,
) -> tuple[tuple[Counts, ...], tuple[Agent, ...], Log]:
    """Take ``out`` from a hand and draw ``draw`` cards (fewer if the deck runs out), in one
    rebuild of the hand: the discard and play steps do this every turn. The hands, deck
    and log after it."""
    hand = list(hands[seat])
    for card in out:
        hand[card] = hand[card] - 1
    if draw > 0 and deck:
        n = draw if draw < len(deck) else len(deck)
        for i in range(n):
            drawn: int = deck[i]
            hand[drawn] = hand[drawn] + 1
        deck = deck[n:]
        log = (drew(seat, n), log)
    return replaced(hands, seat, tuple(hand)), deck, log


class Work:
    __slots__ = State._fields

    # The per-team pairs are typed as tuples of any length here though they hold two: the
    # compiled build keeps a fixed-length tuple attribute unboxed in the object and would
    # build a new tuple for each of them in every freeze(); these are shared with the state.
    config: GameConfig
    deck: tuple[Agent, ...]
    hands: tuple[Counts, ...]
    discards: tuple[Counts, ...]
    in_play: tuple[Counts, ...]
    pos: tuple[int, ...]
    gap: int
    active: int
    turn: int
    turns_done: tuple[int, ...]
    decision: Decision | None
    actor: int
    face_up_seat: int
    offer_up: Agent | None
    offer_down: Agent | None
    market: tuple[BlackMarket, ...]
    bm_deck: tuple[BlackMarket, ...]
    ongoing: tuple[frozenset[BlackMarket], ...]
    bm_discard: tuple[BlackMarket, ...]
    tasks: tuple[Task, ...]
    effects_used: tuple[frozenset[str], ...]
    log: Log
    outcome: Outcome | None
    deck_order: tuple[Agent, ...]
    bm_order: tuple[BlackMarket, ...]
    seed: int | None
    phases: Phases[Work]

    def __init__(self, s: State) -> None:
        (
            self.config,
            self.deck,
            self.hands,
            self.discards,
            self.in_play,
            self.pos,
            self.gap,
            self.active,
            self.turn,
            self.turns_done,
            self.decision,
            self.actor,
            self.face_up_seat,
            self.offer_up,
            self.offer_down,
            self.market,
            self.bm_deck,
            self.ongoing,
            self.bm_discard,
            self.tasks,
            self.effects_used,
            self.log,
            self.outcome,
            self.deck_order,
            self.bm_order,
            self.seed,
            self.phases,
        ) = s

    def freeze(self) -> State:
        # tuple.__new__ directly: NamedTuple's own __new__ is a Python-level call
        return _new(
            _STATE,
            (
                self.config,
                self.deck,
                self.hands,
                self.discards,
                self.in_play,
                self.pos,
                self.gap,
                self.active,
                self.turn,
                self.turns_done,
                self.decision,
                self.actor,
                self.face_up_seat,
                self.offer_up,
                self.offer_down,
                self.market,
                self.bm_deck,
                self.ongoing,
                self.bm_discard,
                self.tasks,
                self.effects_used,
                self.log,
                self.outcome,
                self.deck_order,
                self.bm_order,
                self.seed,
                self.phases,
            ),
        )

    # --- reading -------------------------------------------------------------------------

    def captain(self, team: int) -> int:
        members = self.config.team_members[team]
        return members[self.turns_done[team] % len(members)]

    def team_of(self, seat: int) -> int:
        return 0 if seat in self.config.team_members[0] else 1

    # --- primitives ----------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self.log = (event, self.log)

    def note(self, kind: int, team: int, seat: int, agent: int = -1) -> None:
        self.log = (noted(kind, team, seat, agent), self.log)

    def note_drew(self, seat: int, n: int) -> None:
        self.log = (drew(seat, n), self.log)

    def note_moved(self, team: int, delta: int, space: int) -> None:
        inside = -32 <= delta < 32
        i = ((team * 64 + delta + 32) * BOARD_SIZE + space) if inside else 0
        event = _MOVES[i] if inside else None
        if event is None:
            event = _new(_EVENT, (_MOVED, team, -1, None, None, delta, space, None, None))
            if inside:
                _MOVES[i] = event
        self.log = (event, self.log)

    def note_recruited(self, team: int, agent: int, copies: int) -> None:
        i = (team * 8 + agent) * 8 + copies
        event = _RECRUITS[i] if copies < 8 else None
        if event is None:
            fields = (_RECRUITED, team, -1, _AGENTS[agent], None, copies, -1, None, None)
            event = _new(_EVENT, fields)
            if copies < 8:
                _RECRUITS[i] = event
        self.log = (event, self.log)

    def note_choice(self, team: int, revealed: int, side: Side) -> None:
        """The recruit choice: which side ``team`` took, and the face-down card revealed."""
        i = (team * 8 + revealed) * 2 + (0 if side is _FACE_UP else 1)
        event = _CHOICES[i]
        if event is None:
            fields = (_CHOSE, team, -1, _AGENTS[revealed], None, 0, -1, side, None)
            event = _CHOICES[i] = _new(_EVENT, fields)
        self.log = (event, self.log)

    def ask(self, decision: Decision, seat: int) -> None:
        self.decision = decision
        self.actor = seat

    def set_hand(self, seat: int, hand: Counts) -> None:
        self.hands = replaced(self.hands, seat, hand)

    def set_discards(self, seat: int, discards: Counts) -> None:
        self.discards = replaced(self.discards, seat, discards)

    def change_hand(self, seat: int, agent: int, n: int) -> None:
        hand = list(self.hands[seat])
        hand[agent] = hand[agent] + n
        self.set_hand(seat, tuple(hand))

    def change_play(self, team: int, agent: int, n: int) -> int:
        """Add ``n`` copies to a team's play area; returns the copies it has now."""
        areas = self.in_play
        play = list(areas[team])
        play[agent] = play[agent] + n
        copies = play[agent]
        area = tuple(play)
        self.in_play = (area, areas[1]) if team == 0 else (areas[0], area)
        return copies

    def refill(self, seat: int) -> None:
        """Draw back up to 4 while the deck lasts; a larger hand is kept."""
        need = HAND_SIZE - size(self.hands[seat])
        if need > 0 and self.deck:
            self.exchange(seat, (), need)

    def exchange(self, seat: int, out: tuple[int, ...], draw: int) -> None:
        """Take ``out`` from a hand and draw ``draw`` cards (fewer if the deck runs out)."""
        self.hands, self.deck, self.log = exchanged(
            self.hands, self.deck, self.log, seat, out, draw
        )

    def play_out(self, seat: int, cards: tuple[int, ...]) -> None:
        """Play cards from a hand, then draw back up to 4 (spec 4, Step 1.3)."""
        self.exchange(seat, cards, HAND_SIZE - size(self.hands[seat]) + len(cards))

    def move(self, team: int, delta: int) -> None:
        """Move a meeple; the gap is unwrapped so passing shows at the End step (spec 2)."""
        pos = self.pos
        space = (pos[team] + delta) % BOARD_SIZE
        self.pos = (space, pos[1]) if team == 0 else (pos[0], space)
        self.gap += -delta if team == 0 else delta
        self.note_moved(team, delta, space)

    def use_effect(self, team: int, name: str) -> bool:
        """Mark a once-per-turn board effect; False if the meeple already had it this turn."""
        if name in self.effects_used[team]:
            return False
        used = list(self.effects_used)
        used[team] = used[team] | {name}
        self.effects_used = (used[0], used[1])
        return True

    def push(self, task: Task) -> None:
        self.tasks = self.tasks + (task,)

    def finish(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.decision = None
        self.actor = -1
        fields = (EventKind.GAME_ENDED, outcome.winner, -1, None, None, 0, -1, None, outcome.reason)
        self.emit(_new(_EVENT, fields))
