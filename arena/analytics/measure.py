"""What one finished game says about each seat (pure: a replay in, counts out)."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from arena.analytics.models import LATENCY_BUCKETS_MS
from referee import apply, legal_actions
from referee.actions import Decision
from referee.cards import Agent
from referee.replay import Record, replay
from referee.state import EventKind, State


@dataclass
class Offer:
    #: the seat that played the face-down card, and the seat that chose
    offerer: int
    chooser: int
    face_down_taken: bool
    #: the offering team's advantage after the choice minus after the other choice
    gain: float
    handed_third: Agent | None


@dataclass
class GameFacts:
    offers: list[Offer] = field(default_factory=list)
    #: per seat: decision latencies by bucket
    latency: dict[int, list[int]] = field(default_factory=dict)


def advantage(state: State, team: int) -> int:
    """How far ``team`` is ahead in the chase: team A closes the gap, team B opens it."""
    return -state.gap if team == 0 else state.gap


def bucket(latency_ms: float) -> int:
    return bisect.bisect_right(LATENCY_BUCKETS_MS, latency_ms)


def measure(record: Record) -> GameFacts:
    facts = GameFacts(
        latency={s: [0] * (len(LATENCY_BUCKETS_MS) + 1) for s in range(record.config.seats)}
    )
    states = list(replay(record))
    for i, d in enumerate(record.decisions):
        if d.latency_ms is not None:
            facts.latency[d.seat][bucket(d.latency_ms)] += 1
        if d.kind is not Decision.RECRUIT:
            continue
        before, after = states[i], states[i + 1]
        team = before.active
        others = [a for a in legal_actions(before) if a != d.action]
        gain = 0.0
        if others:
            gain = float(advantage(after, team) - advantage(apply(before, others[0]), team))
        new = after.events()[len(before.events()) :]
        handed = next(
            (
                e.agent for e in new
                if e.kind is EventKind.RECRUITED and e.team == 1 - team and e.amount == 3
                and e.agent in (Agent.DAREDEVIL, Agent.CODEBREAKER)
            ),
            None,
        )  # fmt: skip
        side = getattr(d.action, "side", None)
        facts.offers.append(
            Offer(
                offerer=before.face_down_seat(), chooser=d.seat,
                face_down_taken=side is not None and side.value == "face_down",
                gain=gain, handed_third=handed,
            )
        )  # fmt: skip
    return facts
