"""The frozen game state and the public event log.

``State`` is a ``NamedTuple``: immutable, cheap to build, compared by value. Hands, discards
and play areas are count vectors indexed by ``Agent``; the deck is a tuple, top card first.
Only ``observe`` (observation.py) decides what of it a seat may see.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Optional

from referee.actions import Decision, Side
from referee.cards import Agent, BlackMarket, Counts, FastEnum
from referee.config import GameConfig

if TYPE_CHECKING:
    from referee.effects import Phases


class EndReason(FastEnum):
    CATCH = "catch"
    CODEBREAKERS = "three_codebreakers"
    DAREDEVILS = "three_daredevils"
    LEADER_OF_THE_PACK = "leader_of_the_pack"
    MASTERPLAN = "masterplan"
    SECURITY_SYSTEM = "security_system"
    HOME_SPACE = "home_space"
    OUT_OF_CARDS = "out_of_cards"
    FORFEIT = "forfeit"


class EventKind(FastEnum):
    TURN_STARTED = "turn_started"  # team
    DISCARDED = "discarded"  # seat (the card stays secret; it drew one)
    NAMED_FACE_UP = "named_face_up"  # team, seat
    PLAYED_FACE_UP = "played_face_up"  # seat, agent
    PLAYED_FACE_DOWN = "played_face_down"  # seat
    DREW = "drew"  # seat, amount
    CHOSE = "chose"  # team that recruited, side, agent = the face-down card, now revealed
    RECRUITED = "recruited"  # team, agent, amount = copies in play now
    MOVED = "moved"  # team, amount, space (where it stopped)
    MARKET_TAKEN = "market_taken"  # team, seat, bm
    MARKET_REVEALED = "market_revealed"  # bm (refilled from the Black Market deck)
    EFFECT_IGNORED = "effect_ignored"  # team, bm (could not be carried out)
    RETRIEVED = "retrieved"  # team, seat, agent (Spycation / recall: play area -> hand)
    STOLEN = "stolen"  # team, seat, agent (Mind Control: opponent's play area -> hand)
    SHOWN_PAIR = "shown_pair"  # seat, agent (Double Trouble)
    GAME_ENDED = "game_ended"  # team = winner, reason


class Event(NamedTuple):
    kind: EventKind
    team: int = -1
    seat: int = -1
    agent: Agent | None = None
    bm: BlackMarket | None = None
    amount: int = 0
    space: int = -1
    side: Side | None = None
    reason: EndReason | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind.value}
        if self.team >= 0:
            out["team"] = self.team
        if self.seat >= 0:
            out["seat"] = self.seat
        if self.agent is not None:
            out["agent"] = self.agent.name
        if self.bm is not None:
            out["black_market"] = self.bm.name
        if self.kind in (EventKind.MOVED, EventKind.DREW, EventKind.RECRUITED):
            out["amount"] = self.amount
        if self.space >= 0:
            out["space"] = self.space
        if self.side is not None:
            out["side"] = self.side.value
        if self.reason is not None:
            out["reason"] = self.reason.value
        return out


#: the event log is a cons list (event, older) so appending stays O(1) on frozen state
Log = Optional[tuple[Event, "Log"]]  # noqa: UP045 - a runtime alias, kept explicit


def log_events(log: Log) -> tuple[Event, ...]:
    out: list[Event] = []
    while log is not None:
        out.append(log[0])
        log = log[1]
    out.reverse()
    return tuple(out)


class Task(NamedTuple):
    """A landing still to resolve in this turn's Black Market step (stack, top last)."""

    team: int
    space: int


class Outcome(NamedTuple):
    winner: int
    reason: EndReason
    #: two teams met an end condition and the active team won the tie
    tiebreak: bool = False
    forfeit_seat: int = -1


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
    phases: Phases

    @property
    def over(self) -> bool:
        return self.outcome is not None

    def events(self) -> tuple[Event, ...]:
        return log_events(self.log)

    def captain(self, team: int) -> int:
        """Teammate ``n mod 2`` of the team, n = the team's own turns completed (spec 8)."""
        members = self.config.teams[team]
        return members[self.turns_done[team] % len(members)]

    def face_down_seat(self) -> int:
        members = self.config.teams[self.active]
        if len(members) == 1:
            return members[0]
        return members[1] if members[0] == self.face_up_seat else members[0]
