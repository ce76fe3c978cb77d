"""Replay viewer frames: a stored replay re-simulated through the referee, one frame per
decision, as a chosen perspective may see it.

Perspectives: ``seat:N`` (what seat N knew), ``spectator`` (public information only) and
``omniscient`` (everything, including the deck order). Frames come from ``referee.replay``
and ``referee.observation.observe``, so the viewer can never disagree with the rules or
show a seat more than it knew. Pure: no ORM, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.cards import Agent, Counts, cards_of, title
from referee.narrate import describe
from referee.observation import Observation, observe
from referee.replay import Record, replay
from referee.state import State

Json = dict[str, Any]  # JSON-ready data for the viewer

SPECTATOR = "spectator"
OMNISCIENT = "omniscient"


class PerspectiveError(ValueError):
    """A perspective name that does not exist for this match."""


@dataclass(frozen=True)
class Perspective:
    kind: str  # "seat", SPECTATOR or OMNISCIENT
    seat: int | None = None

    @property
    def name(self) -> str:
        return f"seat:{self.seat}" if self.kind == "seat" else self.kind


def perspectives(record: Record) -> list[Perspective]:
    seats = [Perspective("seat", s) for s in range(record.config.seats)]
    return [*seats, Perspective(SPECTATOR), Perspective(OMNISCIENT)]


def parse_perspective(name: str, record: Record) -> Perspective:
    for p in perspectives(record):
        if p.name == name:
            return p
    known = ", ".join(p.name for p in perspectives(record))
    raise PerspectiveError(f"unknown perspective {name!r}: this match has {known}")


def _cards(counts: Counts) -> list[str]:
    return [c.name for c in cards_of(counts)]


def _grouped(counts: Counts) -> dict[str, int]:
    return {Agent(a).name: n for a, n in enumerate(counts) if n}


def _frame(state: State, obs: Observation, omniscient: bool, events: list[str], step: int) -> Json:
    seats = []
    for info in obs.seats:
        mine = obs.seat == info.seat
        show_hand = omniscient or mine
        seats.append(
            {
                "seat": info.seat,
                "team": info.team,
                "hand_size": info.hand_size,
                "hand": _cards(state.hands[info.seat]) if show_hand else None,
                "discards_used": info.discards_used,
                "discards": _cards(state.discards[info.seat]) if show_hand else None,
            }
        )
    face_down: str | None = None
    if obs.face_down_offered:
        if omniscient and state.offer_down is not None:
            face_down = state.offer_down.name
        elif obs.my_face_down is not None:
            face_down = obs.my_face_down.name
    out: Json = {
        "step": step,
        "turn": obs.turn,
        "active_team": obs.active,
        "decision": obs.decision.value if obs.decision else None,
        "actor": obs.actor,
        "positions": list(obs.positions),
        "gap": obs.gap,
        "in_play": [_grouped(c) for c in obs.in_play],
        "seats": seats,
        "deck_size": obs.deck_size,
        "offer": {
            "face_up": obs.offer_up.name if obs.offer_up else None,
            "face_down_offered": obs.face_down_offered,
            "face_down": face_down,
        },
        "market": [c.name for c in obs.market],
        "ongoing": [sorted(c.name for c in team) for team in obs.ongoing],
        "bm_deck_size": obs.bm_deck_size,
        "bm_discard": [c.name for c in obs.bm_discard],
        "events": events,
        "outcome": None
        if obs.outcome is None
        else {"winner": obs.outcome.winner, "reason": obs.outcome.reason.value},
        "captains": list(obs.captains),
    }
    if omniscient:
        out["deck"] = [c.name for c in state.deck]
        out["bm_deck"] = [c.name for c in state.bm_deck]
    return out


def frames(record: Record, perspective: Perspective) -> list[Json]:
    """One frame per state of the game (the deal, then after each decision)."""
    out = []
    seen = 0
    omniscient = perspective.kind == OMNISCIENT
    for step, state in enumerate(replay(record)):
        obs = observe(state, perspective.seat if perspective.kind == "seat" else None)
        events = [describe(e) for e in obs.history[seen:]]
        seen = len(obs.history)
        out.append(_frame(state, obs, omniscient, events, step))
    return out


def viewer_payload(
    record: Record, perspective: Perspective, names: list[str] | None = None
) -> Json:
    """Everything the viewer needs for one perspective, as JSON-ready data."""
    config = record.config
    return {
        "perspective": perspective.name,
        "perspectives": [p.name for p in perspectives(record)],
        "mode": config.mode.value,
        "ruleset": config.ruleset,
        "teams": [list(t) for t in config.teams],
        "seat_names": names or [f"seat {s}" for s in range(config.seats)],
        "agents": {a.name: title(a) for a in Agent},
        "frames": frames(record, perspective),
    }
