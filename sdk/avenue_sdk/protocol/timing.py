"""The time control: what a seat may spend per decision, and the clock that charges it.

The arena's runner and the SDK's local arena both keep one ``SeatClock`` per seat, so a
bot times out locally exactly when it would on the arena.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
