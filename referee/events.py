"""The public event log and the small values every part of a game shares.

``Event`` is what the log records (a cons list, so appending stays O(1) on frozen state);
``Task`` and ``Outcome`` are pieces of ``State``. This module knows nothing of ``State``
itself, so the rule lists (phases.py) can name these types without importing the state.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, cast

from referee.actions import Side
from referee.cards import Agent, BlackMarket, FastEnum


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


#: the event log is a cons list (event, older) so appending stays O(1) on frozen state.
#: The tail is another ``Log``; it is typed ``object`` because mypyc (the compiled build,
#: referee/setup.py) recurses without end on a recursive alias.
Log = Optional[tuple[Event, object]]  # noqa: UP045 - a runtime alias, kept explicit


def log_events(log: Log) -> tuple[Event, ...]:
    out: list[Event] = []
    while log is not None:
        out.append(log[0])
        log = cast(Log, log[1])
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
