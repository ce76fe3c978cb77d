"""The site's indexes: every bot (searchable by name or owner) and every league."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Max, Q, Sum

from arena.models import Bot, listed_q
from arena.ratings.models import LiveRating

#: bots listed per page of /bots/
BOTS_PER_PAGE = 50
#: a search longer than this is cut (nothing is named longer)
MAX_QUERY = 64


@dataclass(frozen=True)
class BotLine:
    name: str
    kind: str
    owner: str
    leagues: int
    games: int
    best: Decimal | None  # the highest live Elo over its leagues


@dataclass(frozen=True)
class BotIndex:
    query: str
    lines: list[BotLine]
    page: int
    has_next: bool


def bot_index(query: str = "", page: int = 1) -> BotIndex:
    """Bots by name (case-insensitive substring of the name or the owner's username), with
    their league count, games and best live Elo: one grouped query per page."""
    query = query.strip()[:MAX_QUERY]
    bots = Bot.objects.filter(active=True)
    if query:
        bots = bots.filter(Q(name__icontains=query) | Q(owner__username__icontains=query))
    start = (page - 1) * BOTS_PER_PAGE
    rows = list(
        bots.order_by("name").values_list("id", "name", "kind", "owner__username")[
            start : start + BOTS_PER_PAGE + 1
        ]
    )
    ids = [r[0] for r in rows[:BOTS_PER_PAGE]]
    stats = {
        s["bot_id"]: s
        for s in LiveRating.objects.filter(listed_q("league__"), bot_id__in=ids)
        .values("bot_id")
        .annotate(n=Count("league_id", distinct=True), games=Sum("games"), best=Max("rating"))
    }
    lines = [
        BotLine(
            name, kind, owner or "", stats.get(pk, {}).get("n", 0),
            stats.get(pk, {}).get("games") or 0, stats.get(pk, {}).get("best"),
        )
        for pk, name, kind, owner in rows[:BOTS_PER_PAGE]
    ]  # fmt: skip
    return BotIndex(query, lines, page, len(rows) > BOTS_PER_PAGE)
