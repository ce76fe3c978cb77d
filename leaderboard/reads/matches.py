"""Match lists (filtered, keyset-paginated: no COUNT over the whole table) and details."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from arena.models import Bot, League, Match, MatchStatus, Participation

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,80}")
_BOT_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
#: ids beyond this are not ours (PostgreSQL bigint) and would make the query fail
MAX_ID = 2**63 - 1


class BadFilter(ValueError):
    """A filter value that cannot be used; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class MatchFilter:
    league: str | None = None
    bot: str | None = None
    status: str | None = None
    round: int | None = None
    finished_after: datetime | None = None
    finished_before: datetime | None = None
    before: int | None = None
    limit: int = DEFAULT_LIMIT

    def query(self) -> dict[str, str]:
        """As URL parameters (for the next page's link), without ``before``."""
        out: dict[str, str] = {}
        for key in ("league", "bot", "status", "round"):
            value = getattr(self, key)
            if value is not None:
                out[key] = str(value)
        for key in ("finished_after", "finished_before"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value.isoformat()
        if self.limit != DEFAULT_LIMIT:
            out["limit"] = str(self.limit)
        return out


def _int(field: str, text: str, low: int, high: int) -> int:
    if not text.isdigit() or len(text) > 19 or not low <= int(text) <= high:
        raise BadFilter(field, f"{field} must be a whole number from {low} to {high}")
    return int(text)


def _when(field: str, text: str, end_of_day: bool) -> datetime:
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            value = datetime.combine(day, time.max if end_of_day else time.min)
        else:
            value = datetime.fromisoformat(text)
    except ValueError:
        raise BadFilter(
            field, f"{field} must be a date (2026-01-31) or an ISO date-time, not {text[:40]!r}"
        ) from None
    if timezone.is_naive(value):
        value = timezone.make_aware(value, timezone.get_current_timezone())
    return value


def parse_filter(params: Any) -> MatchFilter:
    """From query parameters (a QueryDict or a dict of strings); raises ``BadFilter``."""

    def get(key: str) -> str | None:
        value = params.get(key)
        return None if value in (None, "") else str(value)

    status = get("status")
    if status is not None and status not in MatchStatus.values:
        raise BadFilter("status", f"status must be one of {', '.join(MatchStatus.values)}")
    raw_round, raw_before, raw_limit = get("round"), get("before"), get("limit")
    after, before_t = get("finished_after"), get("finished_before")
    league, bot = get("league"), get("bot")
    if league is not None and not _SLUG.fullmatch(league):
        raise BadFilter("league", "league must be a league's slug (letters, digits, '-', '_')")
    if bot is not None and not _BOT_NAME.fullmatch(bot):
        raise BadFilter("bot", "bot must be a bot's name (letters, digits, '-', '_', '.')")
    return MatchFilter(
        league=league,
        bot=bot,
        status=status,
        round=None if raw_round is None else _int("round", raw_round, 1, 10**9),
        finished_after=None if after is None else _when("finished_after", after, False),
        finished_before=None if before_t is None else _when("finished_before", before_t, True),
        before=None if raw_before is None else _int("before", raw_before, 1, MAX_ID),
        limit=DEFAULT_LIMIT if raw_limit is None else _int("limit", raw_limit, 1, MAX_LIMIT),
    )


def seats_prefetch() -> Prefetch:
    return Prefetch(
        "participations",
        queryset=Participation.objects.select_related("bot").order_by("seat"),
    )


#: match filters that participations hold themselves (index ``participation_league_bot``)
_SEAT_LOOKUP = {"pk__lt": "match_id__lt", "league_id": "league_id"}


@dataclass(frozen=True)
class MatchPage:
    matches: list[Match]
    #: ``before`` for the next (older) page, or None on the last page
    next_before: int | None


def match_page(f: MatchFilter) -> MatchPage:
    """Newest first, ``f.limit`` per page, continued with ``before=<next_before>``.
    Unknown league or bot names are ``BadFilter``. 3-4 queries, all on indexes: the
    matches of a bot come from its participations (``participation_bot_recent``)."""
    where: dict[str, Any] = {}
    if f.league is not None:
        league_id = League.objects.filter(slug=f.league).values_list("pk", flat=True).first()
        if league_id is None:
            raise BadFilter("league", f"no league {f.league!r}")
        where["league_id"] = league_id
    if f.status is not None:
        where["status"] = f.status
    if f.round is not None:
        where["round__number"] = f.round
    if f.finished_after is not None:
        where["finished_at__gte"] = f.finished_after
    if f.finished_before is not None:
        where["finished_at__lte"] = f.finished_before
    if f.before is not None:
        where["pk__lt"] = f.before
    qs: QuerySet[Match]
    if f.bot is None:
        qs = Match.objects.filter(**where)
    else:
        bot_id = Bot.objects.filter(name=f.bot).values_list("pk", flat=True).first()
        if bot_id is None:
            raise BadFilter("bot", f"no bot named {f.bot!r}")
        # walk the bot's seats newest first on (bot, -match), not the whole match table
        seats = Participation.objects.filter(
            bot_id=bot_id,
            **{_SEAT_LOOKUP.get(k, f"match__{k}"): v for k, v in where.items()},
        )
        ids = list(
            seats.order_by("-match_id").values_list("match_id", flat=True)[: f.limit + 1]
        )
        qs = Match.objects.filter(pk__in=ids)
    rows = list(
        qs.select_related("league", "round")
        .prefetch_related(seats_prefetch())
        .order_by("-id")[: f.limit + 1]
    )
    more = len(rows) > f.limit
    rows = rows[: f.limit]
    return MatchPage(rows, rows[-1].pk if more and rows else None)


def match_summary(m: Match) -> dict[str, Any]:
    """A match as the API lists it (no deck seed, no worker details)."""
    return {
        "id": m.pk,
        "league": m.league.slug,
        "round": m.round.number,
        "status": m.status,
        "created_at": m.created_at.isoformat(),
        "started_at": m.started_at.isoformat() if m.started_at else None,
        "finished_at": m.finished_at.isoformat() if m.finished_at else None,
        "winner_team": m.winner_team,
        "end_reason": m.end_reason or None,
        "turns": m.turns,
        "rated": m.rated,
        "seats": [
            {
                "seat": p.seat,
                "team": p.team,
                "bot": p.bot.name,
                "won": p.won,
                "rating_change": None if p.rating_change is None else float(p.rating_change),
                "fault": p.fault_cause or None,
            }
            for p in m.participations.all()
        ],
    }


def match_detail(match_id: int) -> Match | None:
    if not 0 < match_id <= MAX_ID:
        return None
    return (
        Match.objects.select_related("league", "round")
        .prefetch_related(seats_prefetch())
        .filter(pk=match_id)
        .first()
    )


def seat_json(p: Participation) -> dict[str, Any]:
    def num(value: Any) -> float | None:
        return None if value is None else float(value)

    return {
        "seat": p.seat,
        "team": p.team,
        "bot": p.bot.name,
        "won": p.won,
        "rating_before": num(p.rating_before),
        "rating_after": num(p.rating_after),
        "rating_change": num(p.rating_change),
        "decisions": p.decisions,
        "auto_decisions": p.auto_decisions,
        "latency_mean_ms": p.latency_mean_ms,
        "latency_p50_ms": p.latency_p50_ms,
        "latency_p90_ms": p.latency_p90_ms,
        "latency_max_ms": p.latency_max_ms,
        "bank_left_ms": p.bank_left_ms,
        "fault": p.fault_cause or None,
        "fault_detail": p.fault_detail or None,
    }


def match_json(m: Match, replay: str) -> dict[str, Any]:
    out = match_summary(m)
    out.update(
        mirror=m.mirror,
        pair_index=m.pair_index,
        first_team=m.first_team,
        duration_ms=m.duration_ms,
        decisions=m.decisions,
        replay=replay,
        seats=[seat_json(p) for p in m.participations.all()],
    )
    return out
