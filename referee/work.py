"""A mutable working copy of ``State`` used inside one ``apply`` call.

``apply`` copies the frozen state into a ``Work``, lets the rules mutate it, and freezes
the result into a new ``State``; callers never see a ``Work``. The primitives here (draw,
move, recruit, log) are the only places that touch hands, the deck and the meeples.
"""

from __future__ import annotations

from typing import Final

from referee.actions import Decision, Side
from referee.cards import (
    BOARD_SIZE,
    HAND_SIZE,
    Agent,
    BlackMarket,
    Counts,
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
_sum: Final = sum

#: the events ``note`` and ``note_amount`` build, interned by their fields: an event is an
#: immutable value, a game repeats a few hundred distinct ones, and building a NamedTuple
#: costs four tuple allocations where a look-up costs one. Bounded, so memory is too.
_NOTES: Final[dict[tuple[EventKind, int, int, Agent | None], Event]] = {}
_AMOUNTS: Final[dict[tuple[EventKind, int, int, Agent | None, int, int], Event]] = {}
_CHOICES: Final[dict[tuple[int, Agent, Side], Event]] = {}
_INTERNED_MAX: Final = 4096


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
        members = self.config.teams[team]
        return members[self.turns_done[team] % len(members)]

    def team_of(self, seat: int) -> int:
        return 0 if seat in self.config.teams[0] else 1

    # --- primitives ----------------------------------------------------------------------

    def emit(self, event: Event) -> None:
        self.log = (event, self.log)

    # The frequent events are built positionally: a NamedTuple call with keywords costs
    # several times more, and these run on every turn of every game.

    def note(self, kind: EventKind, team: int, seat: int, agent: Agent | None) -> None:
        key = (kind, team, seat, agent)
        event = _NOTES.get(key)
        if event is None:
            event = _new(_EVENT, (kind, team, seat, agent, None, 0, -1, None, None))
            if len(_NOTES) < _INTERNED_MAX:
                _NOTES[key] = event
        self.log = (event, self.log)

    def note_amount(
        self,
        kind: EventKind,
        team: int,
        seat: int,
        agent: Agent | None,
        amount: int,
        space: int = -1,
    ) -> None:
        key = (kind, team, seat, agent, amount, space)
        event = _AMOUNTS.get(key)
        if event is None:
            event = _new(_EVENT, (kind, team, seat, agent, None, amount, space, None, None))
            if len(_AMOUNTS) < _INTERNED_MAX:
                _AMOUNTS[key] = event
        self.log = (event, self.log)

    def note_choice(self, team: int, revealed: Agent, side: Side) -> None:
        """The recruit choice: which side ``team`` took, and the face-down card revealed."""
        key = (team, revealed, side)
        event = _CHOICES.get(key)
        if event is None:
            event = _new(_EVENT, (EventKind.CHOSE, team, -1, revealed, None, 0, -1, side, None))
            _CHOICES[key] = event  # at most 2 teams x 8 agents x 2 sides
        self.log = (event, self.log)

    def ask(self, decision: Decision, seat: int) -> None:
        self.decision = decision
        self.actor = seat

    def change_hand(self, seat: int, agent: int, n: int) -> None:
        hands = list(self.hands)
        hand = list(hands[seat])
        hand[agent] += n
        hands[seat] = tuple(hand)
        self.hands = tuple(hands)

    def change_play(self, team: int, agent: int, n: int) -> int:
        """Add ``n`` copies to a team's play area; returns the copies it has now."""
        play = list(self.in_play[team])
        play[agent] += n
        areas = list(self.in_play)
        areas[team] = tuple(play)
        self.in_play = (areas[0], areas[1])
        return play[agent]

    def refill(self, seat: int) -> None:
        """Draw back up to 4 while the deck lasts; a larger hand is kept."""
        need = HAND_SIZE - _sum(self.hands[seat])
        if need > 0 and self.deck:
            self.exchange(seat, (), need)

    def exchange(self, seat: int, out: tuple[Agent, ...], draw: int) -> None:
        """Take ``out`` from a hand and draw ``draw`` cards (fewer if the deck runs out),
        in one rebuild of the hand: the discard and play steps do this every turn."""
        hand = list(self.hands[seat])
        for card in out:
            hand[card] -= 1
        if draw > 0 and self.deck:
            drawn = self.deck[:draw]
            self.deck = self.deck[draw:]
            for card in drawn:
                hand[card] += 1
            self.note_amount(EventKind.DREW, -1, seat, None, len(drawn))
        hands = list(self.hands)
        hands[seat] = tuple(hand)
        self.hands = tuple(hands)

    def play_out(self, seat: int, cards: tuple[Agent, ...]) -> None:
        """Play cards from a hand, then draw back up to 4 (spec 4, Step 1.3)."""
        self.exchange(seat, cards, HAND_SIZE - _sum(self.hands[seat]) + len(cards))

    def move(self, team: int, delta: int) -> None:
        """Move a meeple; the gap is unwrapped so passing shows at the End step (spec 2)."""
        pos = list(self.pos)
        pos[team] = (pos[team] + delta) % BOARD_SIZE
        self.pos = (pos[0], pos[1])
        self.gap += -delta if team == 0 else delta
        self.note_amount(EventKind.MOVED, team, -1, None, delta, pos[team])

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
