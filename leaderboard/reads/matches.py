"""Match lists (filtered, keyset-paginated: no COUNT over the whole table) and details."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

from django.core.cache import cache
from django.db.models import Prefetch, QuerySet
from django.utils import timezone

from arena import names
from arena.models import Bot, League, Match, MatchReplay, MatchStatus, Participation
from leaderboard.league_marks import mark_of
from leaderboard.replays import withheld_ids, withhold, withhold_summary

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
#: a league slug (Django's slug converter), as a filter or query parameter may name it
SLUG = re.compile(r"[-a-zA-Z0-9_]{1,80}")
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
    if league is not None and not SLUG.fullmatch(league):
        raise BadFilter("league", "league must be a league's slug (letters, digits, '-', '_')")
    if bot is not None and not names.is_valid(bot):
        raise BadFilter("bot", f"bot must be a bot's name ({names.RULE})")
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
_SEAT_LOOKUP = {"pk__lt": "match_id__lt", "league__slug": "league__slug"}


@dataclass(frozen=True)
class MatchPage:
    matches: list[Match]
    #: ``before`` for the next (older) page, or None on the last page
    next_before: int | None


def filtered_matches(f: MatchFilter) -> QuerySet[Match]:
    """The matches ``f`` asks for (not yet ordered or cut), as one query: league and bot
    are matched by name through joins, and the matches of a bot come from its
    participations, newest first on the index ``participation_bot_recent``, cut to the
    page in a subquery. ``check_names`` tells an unknown name from an empty page."""
    where: dict[str, Any] = {}
    if f.league is not None:
        where["league__slug"] = f.league
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
    if f.bot is None:
        return Match.objects.filter(**where)
    # the bot's id first: a constant lets PostgreSQL walk (bot, -match) and stop at the
    # page's end, where a join on the name reads all of the bot's seats
    bot_id = Bot.objects.filter(name=f.bot).values_list("pk", flat=True).first()
    if bot_id is None:
        raise BadFilter("bot", f"no bot named {f.bot!r}")
    seats = Participation.objects.filter(
        bot_id=bot_id, **{_SEAT_LOOKUP.get(k, f"match__{k}"): v for k, v in where.items()}
    )
    page = seats.order_by("-match_id").values("match_id")[: f.limit + 1]
    return Match.objects.filter(pk__in=page)


def check_names(f: MatchFilter) -> None:
    """``BadFilter`` for a league or bot that does not exist (asked on empty pages only)."""
    if f.league is not None and not League.objects.filter(slug=f.league).exists():
        raise BadFilter("league", f"no league {f.league!r}")
    if f.bot is not None and not Bot.objects.filter(name=f.bot).exists():
        raise BadFilter("bot", f"no bot named {f.bot!r}")


def match_page(f: MatchFilter) -> MatchPage:
    """Newest first, ``f.limit`` per page, continued with ``before=<next_before>``: 3-5
    queries, all on indexes, whatever the size of the table (no COUNT)."""
    rows = list(
        filtered_matches(f)
        .select_related("league", "round")
        .prefetch_related(seats_prefetch())
        .order_by("-id")[: f.limit + 1]
    )
    if not rows:
        check_names(f)
    more = len(rows) > f.limit
    rows = rows[: f.limit]
    withhold(rows)
    return MatchPage(rows, rows[-1].pk if more and rows else None)


_SUMMARY_FIELDS = (
    "id", "league__slug", "round__number", "status", "created_at", "started_at",
    "finished_at", "winner_team", "end_reason", "turns", "rated",
)  # fmt: skip
_SEAT_FIELDS = ("match_id", "seat", "team", "bot__name", "won", "rating_change", "fault_cause")


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _summaries(ids: list[int]) -> dict[int, dict[str, Any]]:
    """The API's summaries of these matches, read as plain rows (two queries, no model
    instances)."""
    seats: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
    for match_id, seat, team, bot, won, change, fault in (
        Participation.objects.filter(match_id__in=ids)
        .order_by("match_id", "seat")
        .values_list(*_SEAT_FIELDS)
    ):
        seats[match_id].append(
            {"seat": seat, "team": team, "bot": bot, "won": won,
             "rating_change": None if change is None else float(change),
             "fault": fault or None}
        )  # fmt: skip
    return {
        pk: {
            "id": pk, "league": league, "played_in": mark_of(league).kind, "round": number,
            "status": status, "created_at": created.isoformat(), "started_at": _iso(started),
            "finished_at": _iso(finished), "winner_team": winner, "end_reason": reason or None,
            "turns": turns, "rated": rated, "withheld": False, "seats": seats[pk],
        }
        for (pk, league, number, status, created, started, finished, winner, reason, turns,
             rated) in Match.objects.filter(pk__in=ids).values_list(*_SUMMARY_FIELDS)
    }  # fmt: skip


def _summary_key(pk: int, finished: datetime) -> str:
    return f"matchsummary:v2:{pk}:{finished.timestamp()}"


def match_summaries(f: MatchFilter) -> tuple[list[dict[str, Any]], int | None]:
    """``match_page`` as the API lists it: one query for the page's ids; the summaries of
    matches that are over come from the cache (nothing in them changes once a match is
    over), the others from two more queries."""
    page = list(
        filtered_matches(f)
        .order_by("-id")
        .values_list("id", "status", "finished_at")[: f.limit + 1]
    )
    if not page:
        check_names(f)
    next_before = page[f.limit - 1][0] if len(page) > f.limit else None
    page = page[: f.limit]
    keys = {
        pk: _summary_key(pk, finished)
        for pk, status, finished in page
        if status in (MatchStatus.FINISHED, MatchStatus.VOID) and finished is not None
    }
    cached = cache.get_many(list(keys.values()))
    known = {pk: cached[key] for pk, key in keys.items() if key in cached}
    missing = [pk for pk, _, _ in page if pk not in known]
    if missing:
        fresh = _summaries(missing)
        known.update(fresh)
        # a withheld summary is cached in full like any other: ``withhold_summary`` hides
        # its result on the way out, for as long as its partner is being played
        cache.set_many({keys[pk]: fresh[pk] for pk in missing if pk in keys}, timeout=3600)
    hidden = withheld_ids(pk for pk, status, _ in page if status == MatchStatus.FINISHED)
    out = []
    for pk, _, _ in page:
        if pk in known:
            out.append(withhold_summary(known[pk]) if pk in hidden else known[pk])
    return out, next_before


def match_summary(m: Match) -> dict[str, Any]:
    """A match as the API lists it (no deck seed, no worker details)."""
    return {
        "id": m.pk,
        "league": m.league.slug,
        "played_in": mark_of(m.league.slug).kind,
        "round": m.round.number,
        "status": m.status,
        "created_at": m.created_at.isoformat(),
        "started_at": m.started_at.isoformat() if m.started_at else None,
        "finished_at": m.finished_at.isoformat() if m.finished_at else None,
        "winner_team": m.winner_team,
        "end_reason": m.end_reason or None,
        "turns": m.turns,
        "rated": m.rated,
        "withheld": False,
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


def runner_notes(match_id: int) -> tuple[dict[str, int] | None, list[dict[str, Any]]]:
    """What the runner noted about a finished match (its report), beyond the game:

    * the messages it ignored: ``stale`` came from the bot being asked but for another
      decision (a late answer to an earlier request), ``foreign`` from a bot that was not
      being asked; None before the match has a report;
    * the resumes: every remote bot whose stream dropped mid-match and that came back
      within the reconnect grace (``seats``, ``bot``, ``away_s``, ``arena``: the arena's
      doing, ``why``), in order. Nobody was charged for them."""
    found = MatchReplay.objects.filter(match_id=match_id).values_list("report", flat=True).first()
    if not isinstance(found, dict):
        return None, []
    raw = found.get("dropped")
    dropped = None
    if isinstance(raw, dict):
        dropped = {"stale": int(raw.get("stale", 0)), "foreign": int(raw.get("foreign", 0))}
    resumes = [
        {
            "seats": [int(s) for s in r.get("seats", [])],
            "bot": str(r.get("bot", "")),
            "away_s": None if r.get("away_s") is None else float(r["away_s"]),
            "arena": bool(r.get("arena", False)),
            "why": str(r.get("why", "")),
        }
        for r in found.get("resumes") or []
        if isinstance(r, dict)
    ]
    return dropped, resumes


def match_json(m: Match, replay: str) -> dict[str, Any]:
    """The API's match detail; a finished game whose mirrored partner is still being
    played (``replay == "withheld"``) shows no result, statistics or rating change."""
    out = match_summary(m)
    dropped, resumes = runner_notes(m.pk)
    out.update(
        mirror=m.mirror,
        pair_index=m.pair_index,
        first_team=m.first_team,
        duration_ms=m.duration_ms,
        decisions=m.decisions,
        replay=replay,
        dropped=dropped,
        resumes=resumes,
        seats=[seat_json(p) for p in m.participations.all()],
    )
    return withhold_summary(out) if replay == "withheld" else out
