"""The time control: what a seat may spend per decision, and the clock that charges it.

The arena's runner and the SDK's local arena both keep one ``SeatClock`` per seat, so a
bot times out locally exactly when it would on the arena, and both put each decision to a
seat as an ``Ask`` with the time it has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from referee import Action
from referee.observation import Observation


@dataclass(frozen=True)
class TimeControl:
    """Each decision may take ``decision_ms``; time beyond it comes out of the seat's bank
    of ``bank_ms`` for the whole match. A seat that runs past both times out."""

    decision_ms: int = 5_000
    bank_ms: int = 60_000


@dataclass
class SeatClock:
    """One seat's time over a match: the bank left and every answer's latency."""

    decision_ms: int
    bank_ms: float
    latencies: list[float] = field(default_factory=list)
    #: decisions with one legal option, taken without asking the seat
    auto: int = 0

    @classmethod
    def start(cls, tc: TimeControl) -> SeatClock:
        return cls(tc.decision_ms, float(tc.bank_ms))

    @property
    def allowance_ms(self) -> float:
        """What the next decision may take: its own time plus what is left of the bank."""
        return self.decision_ms + int(self.bank_ms)

    def charge(self, latency_ms: float) -> None:
        self.latencies.append(latency_ms)
        self.bank_ms = max(0.0, self.bank_ms - max(0.0, latency_ms - self.decision_ms))


@dataclass(frozen=True)
class Ask:
    """One decision put to a seat: its ``seq`` in the match, what the seat sees, the legal
    actions and the time it has (the decision's own and what is left of its bank)."""

    seq: int
    obs: Observation
    legal: Sequence[Action]
    decision_ms: int
    bank_ms: int

    @property
    def allowance_s(self) -> float:
        return (self.decision_ms + self.bank_ms) / 1000

    @property
    def allowance_ms(self) -> float:
        return float(self.decision_ms + self.bank_ms)
