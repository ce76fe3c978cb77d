"""What a match run returns: the replay, the result, per-seat statistics and faults."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import models

from arena.terms.faults import Fault
from referee.engine import GameResult
from referee.replay import Record


@dataclass
class DropCounts:
    """Inbound messages a runner ignored."""

    #: from the bot being asked, but for another decision (an old or future seq)
    stale: int = 0
    #: from a bot that is not the one being asked (out of turn, or not in the match)
    foreign: int = 0


class MatchStatus(models.TextChoices):
    #: the game has a winner (possibly by a forfeit)
    FINISHED = "finished", "finished"
    #: stopped without a result by the fault policy (or no-shows on both teams)
    ABORTED = "aborted", "aborted"


@dataclass(frozen=True)
class LatencyStats:
    """Answer latencies of one seat, in milliseconds, as the runner measured them."""

    count: int
    mean: float
    p50: float
    p90: float
    max: float

    @classmethod
    def of(cls, values: Sequence[float]) -> LatencyStats:
        if not values:
            return cls(0, 0.0, 0.0, 0.0, 0.0)
        ordered = sorted(values)

        def pct(q: float) -> float:
            return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

        return cls(len(ordered), statistics.fmean(ordered), pct(0.5), pct(0.9), ordered[-1])

    def to_json(self) -> dict[str, object]:
        return {
            "count": self.count,
            "mean_ms": round(self.mean, 3),
            "p50_ms": round(self.p50, 3),
            "p90_ms": round(self.p90, 3),
            "max_ms": round(self.max, 3),
        }


@dataclass(frozen=True)
class SeatReport:
    seat: int
    team: int
    name: str
    kind: str
    #: decisions the seat was asked (and answered)
    decisions: int
    #: decisions with a single legal option, taken for the seat
    auto_decisions: int
    latency: LatencyStats
    bank_left_ms: float
    fault: Fault | None

    @classmethod
    def build(
        cls,
        *,
        seat: int,
        team: int,
        name: str,
        kind: str,
        latencies: Sequence[float],
        auto_decisions: int,
        bank_left_ms: float,
        fault: Fault | None,
    ) -> SeatReport:
        return cls(
            seat,
            team,
            name,
            kind,
            len(latencies),
            auto_decisions,
            LatencyStats.of(latencies),
            bank_left_ms,
            fault,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "seat": self.seat,
            "team": self.team,
            "name": self.name,
            "kind": self.kind,
            "decisions": self.decisions,
            "auto_decisions": self.auto_decisions,
            "latency": self.latency.to_json(),
            "bank_left_ms": round(self.bank_left_ms),
            "fault": None if self.fault is None else self.fault.to_json(),
        }


@dataclass(frozen=True)
class Resume:
    """A bot whose stream dropped mid-match and came back within the reconnect grace: the
    match went on and nothing was charged (its clock did not run while it was away)."""

    #: the bot's seats in the match (two when it plays both seats of a team)
    seats: tuple[int, ...]
    bot: str
    #: how long it was away, from the drop the runner saw to its new stream (None: it was
    #: back on a new stream before the runner saw the old one end)
    away_s: float | None
    #: the arena's doing (its gateway drained or died) rather than the bot's
    arena: bool
    #: what ended its stream, as the runner learnt it ("its stream closed", ...)
    why: str

    def to_json(self) -> dict[str, object]:
        return {
            "seats": list(self.seats),
            "bot": self.bot,
            "away_s": None if self.away_s is None else round(self.away_s, 1),
            "arena": self.arena,
            "why": self.why,
        }


@dataclass(frozen=True)
class MatchResult:
    match_id: str
    replay_id: str
    status: MatchStatus
    #: the replay: re-simulates through the referee (``referee.replay.validate``)
    record: Record
    #: None when aborted
    result: GameResult | None
    seats: tuple[SeatReport, ...]
    faults: tuple[Fault, ...]
    #: inbound messages the runner ignored (stale seq, or from a bot not being asked)
    drops: DropCounts
    started_at: float
    duration_s: float
    #: remote bots that dropped and came back within the grace, in order
    resumes: tuple[Resume, ...] = ()

    @property
    def winner_team(self) -> int | None:
        return None if self.result is None else self.result.winner

    def replay_json(self) -> dict[str, object]:
        return self.record.to_json()

    def to_json(self) -> dict[str, object]:
        """Everything but the replay (``replay_json``), e.g. for logs or a task result."""
        return {
            "match_id": self.match_id,
            "replay_id": self.replay_id,
            "status": self.status.value,
            "result": None if self.result is None else self.result.to_json(),
            "seats": [s.to_json() for s in self.seats],
            "faults": [f.to_json() for f in self.faults],
            "dropped": {"stale": self.drops.stale, "foreign": self.drops.foreign},
            "resumes": [r.to_json() for r in self.resumes],
            "duration_s": round(self.duration_s, 3),
        }
