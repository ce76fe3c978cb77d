"""The ranking the standings explain: the batch fit's order among established bots, ties
shared, provisional bots apart (``rank_rows``), and rank intervals that treat identical fits
alike (``tied_intervals``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

from arena.ratings.models import BatchRating


@dataclass(frozen=True)
class StandingRow:
    #: the position the page explains: batch-fit order among established bots (identical
    #: fits share a rank), then live Elo for bots not in a fit yet; None for a provisional bot
    rank: int | None
    bot_id: int
    bot: str
    owner: str
    kind: str
    rating: Decimal
    games: int
    wins: int
    losses: int
    forfeits: int
    batch: BatchRating | None
    provisional: bool
    entered: bool
    #: the fit's 95% rank interval, the same for identical fits (the bootstrap breaks ties
    #: by index); None without a fit
    rank_low: int | None = None
    rank_high: int | None = None
    #: the row's place in the default order (established first): the ``rank`` sort key
    order: int = 0

    def to_json(self) -> dict[str, Any]:
        b = self.batch
        return {
            "rank": self.rank,
            "bot": self.bot,
            "owner": self.owner or None,
            "kind": self.kind,
            "rating": float(self.rating),
            "games": self.games,
            "wins": self.wins,
            "losses": self.losses,
            "forfeits": self.forfeits,
            "provisional": self.provisional,
            "entered": self.entered,
            "batch": None
            if b is None
            else {
                "elo": round(b.elo, 1),
                "low": round(b.low, 1),
                "high": round(b.high, 1),
                "rank": b.rank,
                "rank_low": self.rank_low,
                "rank_high": self.rank_high,
                "games": b.games,
                "computed_at": b.computed_at.isoformat(),
            },
        }


def _fit_key(b: BatchRating) -> tuple[float, float, float]:
    return (round(b.elo, 1), round(b.low, 1), round(b.high, 1))


def tied_intervals(batch: dict[int, BatchRating]) -> dict[int, tuple[int, int]]:
    """Rank intervals with identical fits merged: the bootstrap breaks ties by index, so
    two bots with the same fit get 1-3 and 1-4; both get 1-4."""
    groups: dict[tuple[float, float, float], list[BatchRating]] = {}
    for b in batch.values():
        groups.setdefault(_fit_key(b), []).append(b)
    out = {}
    for group in groups.values():
        low, high = min(b.rank_low for b in group), max(b.rank_high for b in group)
        for b in group:
            out[b.bot_id] = (low, high)
    return out


def rank_rows(rows: list[StandingRow]) -> list[StandingRow]:
    """The ranking the page explains: established bots by batch Elo (identical fits share
    a rank), those without a fit yet after them by live Elo; provisional bots last and
    unranked, so a bot with one lucky game is never placed above one with sixty."""

    def key(r: StandingRow) -> tuple[Any, ...]:
        return (r.provisional, r.batch is None, -(r.batch.elo if r.batch else 0), -r.rating,
                r.bot)  # fmt: skip

    ordered = sorted(rows, key=key)
    out: list[StandingRow] = []
    prev: tuple[Any, ...] | None = None
    rank = 0
    for i, r in enumerate(ordered):
        if r.provisional:
            out.append(replace(r, rank=None, order=i))
            continue
        tie = (round(r.batch.elo, 1),) if r.batch else ("live", r.rating)
        if tie != prev:
            rank = sum(1 for x in out if x.rank is not None) + 1
            prev = tie
        out.append(replace(r, rank=rank, order=i))
    return out
