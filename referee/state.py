"""The frozen game state.

``State`` is a ``NamedTuple``: immutable, cheap to build, compared by value. Hands, discards
and play areas are count vectors indexed by ``Agent``; the deck is a tuple, top card first.
Only ``observe`` (observation.py) decides what of it a seat may see.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from referee.actions import Decision
from referee.cards import Agent, BlackMarket, Counts
from referee.config import GameConfig
from referee.events import EndReason, Event, EventKind, Log, Outcome, Task, log_events
from referee.phases import Phases

# The event types live in events.py; they are named here too, where callers have always
# found them.
__all__ = ["EndReason", "Event", "EventKind", "Log", "Outcome", "State", "Task", "log_events"]


class State(NamedTuple):
    config: GameConfig
    deck: tuple[Agent, ...]
    hands: tuple[Counts, ...]  # per seat
    discards: tuple[Counts, ...]  # per seat, secret to all but the owner
    in_play: tuple[Counts, Counts]  # per team
    pos: tuple[int, int]  # per team, space 0..13
    gap: int  # clockwise distance from A's meeple to B's, unwrapped during a turn
    active: int  # active team
    turn: int  # turns started, from 1
    turns_done: tuple[int, int]  # each team's own turns completed (captain rule)
    decision: Decision | None  # None once the game is over
    actor: int  # seat to decide, -1 once over
    face_up_seat: int  # the seat that plays (or played) face up this turn
    offer_up: Agent | None
    offer_down: Agent | None  # secret until the recruit choice
    market: tuple[BlackMarket, ...]
    bm_deck: tuple[BlackMarket, ...]
    ongoing: tuple[frozenset[BlackMarket], frozenset[BlackMarket]]
    bm_discard: tuple[BlackMarket, ...]
    tasks: tuple[Task, ...]
    #: summary-board effects already triggered this turn, per team ("home_bonus", "recall")
    effects_used: tuple[frozenset[str], frozenset[str]]
    log: Log
    outcome: Outcome | None
    deck_order: tuple[Agent, ...]  # the shuffled order the game was dealt from
    bm_order: tuple[BlackMarket, ...]
    seed: int | None
    #: the compiled rule lists (phases.py); the state only carries them
    phases: Phases[Any]

    @property
    def over(self) -> bool:
        return self.outcome is not None

    def events(self) -> tuple[Event, ...]:
        return log_events(self.log)

    def captain(self, team: int) -> int:
        """Teammate ``n mod 2`` of the team, n = the team's own turns completed (spec 8)."""
        members = self.config.team_members[team]
        return members[self.turns_done[team] % len(members)]

    def face_down_seat(self) -> int:
        members = self.config.team_members[self.active]
        if len(members) == 1:
            return members[0]
        return members[1] if members[0] == self.face_up_seat else members[0]
