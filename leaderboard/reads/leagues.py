"""Leagues: the list, standings with uncertainty, the crosstable, rounds."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Q
from django.utils import timezone

from arena.models import Entry, League, LeagueStatus, Match, MatchStatus, Participation, Round
from leaderboard.crosstable import Cell, crosstable
from leaderboard.models import BatchRating, LiveRating

#: a bot is marked provisional in a league until it has played this many games there
PROVISIONAL_GAMES = 20
#: the crosstable shows at most this many bots (the top of the standings)
CROSSTABLE_MAX = 30
#: rounds listed on the standings page
RECENT_ROUNDS = 8


@dataclass(frozen=True)
class LeagueSummary:
    league: League
    entries: int
    played: int
    live: int
    next_round: datetime | None
    #: "by hand", "paused", "finished" or "" when ``next_round`` says it
    schedule_note: str


def next_round_at(league: League, now: datetime | None = None) -> tuple[datetime | None, str]:
    if league.status == LeagueStatus.FINISHED:
        return None, "finished"
    if league.status == LeagueStatus.PAUSED:
        return None, "paused"
    task = league.schedule
    if task is None:
        return None, "by hand"
    if not task.enabled:
        return None, "paused"
    now = now or timezone.now()
    try:
        remaining = task.schedule.remaining_estimate(task.last_run_at or now)
    except Exception:  # noqa: BLE001 - a schedule celery cannot read: say so, do not fail
        return None, "unknown"
    return max(now, now + remaining), ""


def league_summaries() -> list[LeagueSummary]:
    """Every league with its counts: 3 grouped queries (not one per league)."""
    leagues = list(
        League.objects.select_related("schedule__interval", "schedule__crontab").order_by(
            "status", "name"
        )
    )
    entries = dict(
        Entry.objects.filter(active=True)
        .values("league_id")
        .annotate(n=Count("id"))
        .values_list("league_id", "n")
    )
    played: dict[int, int] = {}
    live: dict[int, int] = {}
    for league_id, status, n in (
        Match.objects.filter(status__in=[MatchStatus.FINISHED, MatchStatus.RUNNING])
        .values("league_id", "status")
        .annotate(n=Count("id"))
        .values_list("league_id", "status", "n")
    ):
        (played if status == MatchStatus.FINISHED else live)[league_id] = n
    now = timezone.now()
    out = []
    for league in leagues:
        when, note = next_round_at(league, now)
        out.append(
            LeagueSummary(
                league, entries.get(league.pk, 0), played.get(league.pk, 0),
                live.get(league.pk, 0), when, note,
            )
        )  # fmt: skip
    return out


# ------------------------------------------------------------------ standings


@dataclass(frozen=True)
class StandingRow:
    rank: int
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
                "rank_low": b.rank_low,
                "rank_high": b.rank_high,
                "games": b.games,
                "computed_at": b.computed_at.isoformat(),
            },
        }


SORT_KEYS = {
    "rank": lambda r: r.rank,
    "bot": lambda r: r.bot.lower(),
    "owner": lambda r: r.owner.lower(),
    "rating": lambda r: r.rating,
    "batch": lambda r: r.batch.elo if r.batch else float("-inf"),
    "games": lambda r: r.games,
    "wins": lambda r: r.wins,
    "losses": lambda r: r.losses,
    "forfeits": lambda r: r.forfeits,
}
#: numbers sort high-first when asked without a sign, names and ranks low-first
_DESCENDING_FIRST = {"rating", "batch", "games", "wins", "losses", "forfeits"}


class BadSort(ValueError):
    pass


def parse_sort(text: str | None) -> tuple[str, bool]:
    """``rating`` / ``-rating`` -> (key, descending). A bare number key sorts high-first;
    a leading ``-`` flips the natural order."""
    if not text:
        return "rank", False
    flip = text.startswith("-")
    key = text.lstrip("-")
    if key not in SORT_KEYS:
        raise BadSort(f"cannot sort by {text!r}: use one of {', '.join(SORT_KEYS)}")
    return key, (key in _DESCENDING_FIRST) != flip


@dataclass(frozen=True)
class Standings:
    rows: list[StandingRow]
    #: changes whenever a match of the league is rated (keys caches)
    version: str
    batch_at: datetime | None


def league_standings(league: League, sort: str | None = None) -> Standings:
    """Two queries: live ratings with bots and owners, and the batch fit."""
    key, descending = parse_sort(sort)
    batch = {b.bot_id: b for b in BatchRating.objects.filter(league=league)}
    entered = set(
        Entry.objects.filter(league=league, active=True).values_list("bot_id", flat=True)
    )
    ratings = list(
        LiveRating.objects.filter(league=league)
        .select_related("bot__owner")
        .order_by("-rating", "bot__name")
    )
    rows = [
        StandingRow(
            rank=i,
            bot_id=r.bot_id,
            bot=r.bot.name,
            owner=r.bot.owner.get_username() if r.bot.owner else "",
            kind=r.bot.kind,
            rating=r.rating,
            games=r.games,
            wins=r.wins,
            losses=r.losses,
            forfeits=r.forfeits,
            batch=batch.get(r.bot_id),
            provisional=r.games < PROVISIONAL_GAMES,
            entered=r.bot_id in entered,
        )
        for i, r in enumerate(ratings, 1)
    ]
    if key != "rank" or descending:
        rows.sort(key=SORT_KEYS[key], reverse=descending)
    latest = max((r.updated_at for r in ratings), default=None)
    version = f"{len(ratings)}:{latest.timestamp() if latest else 0}"
    batch_at = max((b.computed_at for b in batch.values()), default=None)
    return Standings(rows, version, batch_at)


# ------------------------------------------------------------------ crosstable


@dataclass(frozen=True)
class Crosstable:
    players: list[tuple[int, str]]
    #: rows[i][j]: players[i]'s record against players[j] (None on the diagonal)
    rows: list[list[Cell | None]]
    truncated_from: int

    @property
    def lines(self) -> list[tuple[tuple[int, str], list[Cell | None]]]:
        return list(zip(self.players, self.rows, strict=True))


def league_crosstable(league: League, standings: Standings) -> Crosstable:
    """Head-to-head records of the top ``CROSSTABLE_MAX`` bots, shaded by a two-sided
    binomial test. One grouped query; cached until the next rated match."""
    ranked = sorted(standings.rows, key=lambda r: r.rank)
    top = [(r.bot_id, r.bot) for r in ranked[:CROSSTABLE_MAX]]
    cache_key = f"crosstable:v1:{league.pk}:{standings.version}:{CROSSTABLE_MAX}"
    cached = cache.get(cache_key)
    if isinstance(cached, Crosstable):
        return cached
    ids = [b for b, _ in top]
    # (loser, winner, games): a winner's seat and a loser's seat of the same match
    pairs = (
        Participation.objects.filter(
            league=league, won=False, bot_id__in=ids,
            match__participations__won=True, match__participations__bot_id__in=ids,
        )
        .values_list("bot_id", "match__participations__bot_id")
        .annotate(n=Count("id"))
    )  # fmt: skip
    results: list[tuple[int, int]] = []
    for loser, winner, n in pairs:
        results.extend([(winner, loser)] * n)
    cells = crosstable(ids, results)
    rows = [[None if a == b else cells[(a, b)] for b in ids] for a in ids]
    table = Crosstable(top, rows, len(ranked))
    cache.set(cache_key, table, timeout=3600)
    return table


# ------------------------------------------------------------------ rounds


@dataclass(frozen=True)
class RoundSummary:
    round: Round
    matches: int
    finished: int
    live: int


def recent_rounds(league: League, limit: int = RECENT_ROUNDS) -> list[RoundSummary]:
    rounds = list(Round.objects.filter(league=league).order_by("-number")[:limit])
    counts = {
        r["round_id"]: r
        for r in Match.objects.filter(round__in=rounds)
        .values("round_id")
        .annotate(
            n=Count("id"),
            finished=Count("id", filter=Q(status=MatchStatus.FINISHED)),
            live=Count("id", filter=Q(status=MatchStatus.RUNNING)),
        )
    }
    out = []
    for r in rounds:
        c = counts.get(r.pk, {"n": 0, "finished": 0, "live": 0})
        out.append(RoundSummary(r, c["n"], c["finished"], c["live"]))
    return out
