"""What a seat may know: the one door hidden information leaves the engine through.

``observe(state, seat)`` returns a frozen ``Observation`` built only from the seat's own
cards and public information (rules section 6 and the contract in the referee issue);
``spectator_view`` is the same with no seat. Nothing else in the referee hands out
another seat's hand or discards, the deck order, the Black Market deck order, or a
face-down card before it is revealed.
"""

from __future__ import annotations

from dataclasses import dataclass

from referee.actions import Decision
from referee.cards import Agent, BlackMarket, Counts, cards_of
from referee.config import GameConfig
from referee.state import Event, Outcome, State, Task


@dataclass(frozen=True)
class SeatInfo:
    """Public facts about one seat."""

    seat: int
    team: int
    hand_size: int
    discards_used: int
    discards_left: int


@dataclass(frozen=True)
class Observation:
    config: GameConfig
    seat: int | None  # None for a spectator
    team: int | None
    turn: int
    active: int
    decision: Decision | None
    actor: int  # the seat deciding now (-1 once over)
    captains: tuple[int, int]
    face_up_seat: int
    # private to this seat
    hand: Counts | None
    discards: Counts | None
    my_face_down: Agent | None  # our own face-down card until it is revealed
    # public
    seats: tuple[SeatInfo, ...]
    in_play: tuple[Counts, Counts]
    positions: tuple[int, int]
    gap: int
    deck_size: int
    offer_up: Agent | None
    face_down_offered: bool
    market: tuple[BlackMarket, ...]
    bm_deck_size: int
    bm_discard: tuple[BlackMarket, ...]
    ongoing: tuple[frozenset[BlackMarket], frozenset[BlackMarket]]
    pending_landings: tuple[Task, ...]
    effects_used: tuple[frozenset[str], frozenset[str]]
    history: tuple[Event, ...]
    outcome: Outcome | None

    @property
    def hand_cards(self) -> tuple[Agent, ...]:
        return cards_of(self.hand) if self.hand is not None else ()

    def to_json(self) -> dict[str, object]:
        def counts(c: Counts) -> dict[str, int]:
            return {Agent(a).name: n for a, n in enumerate(c) if n}

        return {
            "seat": self.seat,
            "team": self.team,
            "turn": self.turn,
            "active_team": self.active,
            "decision": self.decision.value if self.decision else None,
            "actor": self.actor,
            "captains": list(self.captains),
            "face_up_seat": self.face_up_seat,
            "hand": counts(self.hand) if self.hand is not None else None,
            "discards": counts(self.discards) if self.discards is not None else None,
            "my_face_down": self.my_face_down.name if self.my_face_down is not None else None,
            "seats": [
                {
                    "seat": s.seat,
                    "team": s.team,
                    "hand_size": s.hand_size,
                    "discards_used": s.discards_used,
                    "discards_left": s.discards_left,
                }
                for s in self.seats
            ],
            "in_play": [counts(c) for c in self.in_play],
            "positions": list(self.positions),
            "gap": self.gap,
            "deck_size": self.deck_size,
            "offer_up": self.offer_up.name if self.offer_up is not None else None,
            "face_down_offered": self.face_down_offered,
            "market": [c.name for c in self.market],
            "bm_deck_size": self.bm_deck_size,
            "bm_discard": [c.name for c in self.bm_discard],
            "ongoing": [sorted(c.name for c in team) for team in self.ongoing],
            "pending_landings": [{"team": t.team, "space": t.space} for t in self.pending_landings],
            "history": [e.to_json() for e in self.history],
            "outcome": None
            if self.outcome is None
            else {
                "winner": self.outcome.winner,
                "reason": self.outcome.reason.value,
                "tiebreak": self.outcome.tiebreak,
            },
        }


def observe(state: State, seat: int | None) -> Observation:
    """Everything ``seat`` may know now; ``seat=None`` is a spectator (public only)."""
    config = state.config
    if seat is not None and not 0 <= seat < config.seats:
        raise ValueError(f"there is no seat {seat} in a {config.seats}-seat game")
    own_face_down = None
    if seat is not None and state.offer_down is not None and state.face_down_seat() == seat:
        own_face_down = state.offer_down
    seats = tuple(
        SeatInfo(
            seat=s,
            team=config.team_of(s),
            hand_size=sum(state.hands[s]),
            discards_used=sum(state.discards[s]),
            discards_left=config.discard_limit(config.team_of(s)) - sum(state.discards[s]),
        )
        for s in range(config.seats)
    )
    return Observation(
        config=config,
        seat=seat,
        team=None if seat is None else config.team_of(seat),
        turn=state.turn,
        active=state.active,
        decision=state.decision,
        actor=state.actor,
        captains=(state.captain(0), state.captain(1)),
        face_up_seat=state.face_up_seat,
        hand=None if seat is None else state.hands[seat],
        discards=None if seat is None else state.discards[seat],
        my_face_down=own_face_down,
        seats=seats,
        in_play=state.in_play,
        positions=state.pos,
        gap=state.gap,
        deck_size=len(state.deck),
        offer_up=state.offer_up,
        face_down_offered=state.offer_down is not None,
        market=state.market,
        bm_deck_size=len(state.bm_deck),
        bm_discard=state.bm_discard,
        ongoing=state.ongoing,
        pending_landings=state.tasks,
        effects_used=state.effects_used,
        history=state.events(),
        outcome=state.outcome,
    )


def spectator_view(state: State) -> Observation:
    """Public information only: no hand, no discards, no face-down card."""
    return observe(state, None)
