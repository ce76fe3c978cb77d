"""What a recompute from the results found: the stored rows it checked against what the
results say, the differences it found, and whether it wrote the results' figures back."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CheckReport:
    league: str
    #: human-readable differences between the stored and the recomputed values
    mismatches: list[str] = field(default_factory=list)
    fixed: bool = False

    @property
    def exact(self) -> bool:
        return not self.mismatches

    def counts(self) -> dict[str, object]:
        """What the recompute went through (each report's own)."""
        return {}

    def to_json(self) -> dict[str, object]:
        return {
            "league": self.league,
            **self.counts(),
            "exact": self.exact,
            "mismatches": self.mismatches[:100],
            "fixed": self.fixed,
        }
