"""Bot pages: ratings per league, rating history, results by opponent, faults, latency,
recent matches, reported versions, and whether the bot is connected now."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Avg, Count, Max, Prefetch, Q, Sum

from arena.models import Bot, BotKind, BotVersion, Entry, League, Match, MatchStatus, Participation
from arena.ratings.models import BatchRating, LiveRating, VersionFit, VersionRating
from arena.relay import RelayError, runner_relay
from leaderboard.charts import elo_band, rating_by_game_svg
from leaderboard.replays import withhold_seats

logger = logging.getLogger(__name__)

RECENT_MATCHES = 20
#: the chart draws at most this many points (the latest games)
HISTORY_POINTS = 1000


def connected_now(bot_ids: list[int]) -> dict[int, bool | None]:
    """Whether each bot holds a stream to a gateway now, as the relay knows it (None: the
    relay cannot be asked). In embedded mode only gateways of this process are known."""
    if not bot_ids:
        return {}
    try:
        relay = runner_relay()
    except Exception:  # noqa: BLE001 - a page must render without the relay
        logger.warning("relay unavailable for presence", exc_info=True)
        return dict.fromkeys(bot_ids)
    out: dict[int, bool | None] = {}
    try:
        for bot_id in bot_ids:
            out[bot_id] = relay.is_connected(str(bot_id))
    except RelayError:
        logger.warning("relay unavailable for presence", exc_info=True)
        return dict.fromkeys(bot_ids)
    finally:
        relay.close()
    return out


@dataclass(frozen=True)
class LeagueRating:
    league: League
    live: LiveRating
    batch: BatchRating | None


@dataclass
class OpponentRecord:
    bot: str
    games: int = 0
    wins: int = 0

    @property
    def losses(self) -> int:
        return self.games - self.wins


@dataclass
class LeagueStats:
    """The per-league part of a bot page (cached until the bot's next rated game)."""

    chart_svg: str
    points: int
    opponents: list[OpponentRecord]
    faults: dict[str, int]
    latency: dict[str, float | None]
    decisions: int
    auto_decisions: int


@dataclass
class VersionRecord:
    """A hosted bot's version in one league: its record, live rating and batch fit."""

    league_slug: str
    league: str
    number: int
    #: the bot's row carries this version's rating
    current: bool = False
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    rating: float | None = None
    start: float | None = None
    elo: float | None = None
    low: float | None = None
    high: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "league": self.league_slug,
            "version": self.number,
            "current": self.current,
            "games": self.games,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "rating": self.rating,
            "start_rating": self.start,
            "batch": None
            if self.elo is None
            else {"elo": round(self.elo, 1), "low": round(self.low or 0, 1),
                  "high": round(self.high or 0, 1)},
        }  # fmt: skip


def version_records(bot: Bot) -> list[VersionRecord]:
    """Every version of a hosted bot in every league it played (3 queries), newest version
    first within a league; empty for other bots."""
    if bot.kind != BotKind.HOSTED:
        return []
    out: dict[tuple[int, int], VersionRecord] = {}

    def rec(league: League, version_id: int, number: int) -> VersionRecord:
        key = (league.pk, version_id)
        if key not in out:
            out[key] = VersionRecord(league.slug, league.name, number)
        return out[key]

    for r in VersionRating.objects.filter(bot=bot).select_related("league", "version"):
        v = rec(r.league, r.version_id, r.version.number)
        v.current, v.rating, v.start = r.current, float(r.rating), float(r.start)
    for f in VersionFit.objects.filter(bot=bot).select_related("league", "version"):
        v = rec(f.league, f.version_id, f.version.number)
        v.elo, v.low, v.high = f.elo, f.low, f.high
    leagues = {lg.pk: lg for lg in League.objects.filter(participations__bot=bot).distinct()}
    for league_id, version_id, number, games, wins in (
        Participation.objects.filter(bot=bot, code_version__isnull=False, won__isnull=False)
        .values("league_id", "code_version_id", "code_version__number")
        .annotate(games=Count("id"), wins=Count("id", filter=Q(won=True)))
        .values_list("league_id", "code_version_id", "code_version__number", "games", "wins")
    ):
        v = rec(leagues[league_id], version_id, number)
        v.games, v.wins, v.losses = games, wins, games - wins
    return sorted(out.values(), key=lambda v: (v.league, -v.number))


@dataclass
class BotProfile:
    bot: Bot
    ratings: list[LeagueRating]
    selected: LeagueRating | None
    stats: LeagueStats | None
    #: the cached stats fragment's key
    stats_key: str
    versions: list[BotVersion]
    #: a hosted bot's versions in the selected league
    code_versions: list[VersionRecord]


def _league_stats(bot: Bot, league: League) -> LeagueStats:
    mine = Participation.objects.filter(league=league, bot=bot)
    rated = mine.filter(rating_after__isnull=False)
    history = list(
        rated.order_by("-match_id").values_list("match__finished_at", "rating_after")[
            :HISTORY_POINTS
        ]
    )
    history.reverse()
    points: list[tuple[datetime, float]] = [
        (t, float(r)) for t, r in history if t is not None and r is not None
    ]
    # by game number (the latest HISTORY_POINTS games), each with its approximate 95% band
    first = rated.count() - len(points) + 1
    ratings = [v for _, v in points]
    band = [elo_band(v, first + i) for i, v in enumerate(ratings)]
    middle = sorted(ratings)[len(ratings) // 2] if ratings else 0.0
    chart = rating_by_game_svg(
        ratings, first_game=first, band=band, clip=(middle - 400, middle + 400),
        title=f"{bot.name}: Elo in {league.name} by game, with its 95% band",
    )  # fmt: skip
    # opponents: the other team's seats of every finished match of the bot in the league
    played = {
        m: (team, won)
        for m, team, won in mine.filter(won__isnull=False).values_list("match_id", "team", "won")
    }
    by_opponent: dict[int, OpponentRecord] = {}
    others = (
        Participation.objects.filter(league=league, match_id__in=mine.filter(won__isnull=False)
                                     .values("match_id"))
        .exclude(bot=bot)
        .values_list("match_id", "team", "bot_id", "bot__name")
    )  # fmt: skip
    for match_id, team, other_id, other_name in others:
        my_team, won = played.get(match_id, (team, None))
        if team == my_team or won is None:
            continue
        rec = by_opponent.setdefault(other_id, OpponentRecord(other_name))
        rec.games += 1
        rec.wins += int(won)
    faults = dict(
        mine.exclude(fault_cause="")
        .values("fault_cause")
        .annotate(n=Count("id"))
        .values_list("fault_cause", "n")
    )
    agg = mine.filter(won__isnull=False).aggregate(
        mean=Avg("latency_mean_ms"),
        p50=Avg("latency_p50_ms"),
        p90=Avg("latency_p90_ms"),
        max=Max("latency_max_ms"),
        decisions=Sum("decisions"),
        auto=Sum("auto_decisions"),
    )
    return LeagueStats(
        chart_svg=chart,
        points=len(points),
        opponents=sorted(by_opponent.values(), key=lambda r: (-r.games, r.bot)),
        faults=dict(sorted(faults.items(), key=lambda kv: -kv[1])),
        latency={k: agg[k] for k in ("mean", "p50", "p90", "max")},
        decisions=agg["decisions"] or 0,
        auto_decisions=agg["auto"] or 0,
    )


def recent_participations(bot: Bot, limit: int = RECENT_MATCHES) -> list[Participation]:
    """The bot's latest matches with every seat of each (3 queries in all)."""
    seats = Participation.objects.select_related("bot").only(
        "match_id", "seat", "team", "won", "bot__name", "fault_cause"
    )
    rows = list(
        Participation.objects.filter(bot=bot)
        .select_related("match__league", "match__round")
        .prefetch_related(Prefetch("match__participations", queryset=seats.order_by("seat")))
        .order_by("-match_id")[:limit]
    )
    withhold_seats(rows)
    return rows


def bot_profile(bot: Bot, league_slug: str | None = None) -> BotProfile:
    """Everything on a bot page. ``league_slug`` picks the league the chart and tables are
    about (default: where the bot played most)."""
    lives = list(LiveRating.objects.filter(bot=bot).select_related("league"))
    batches = {b.league_id: b for b in BatchRating.objects.filter(bot=bot)}
    ratings = sorted(
        (LeagueRating(r.league, r, batches.get(r.league_id)) for r in lives),
        key=lambda lr: (-lr.live.games, lr.league.name),
    )
    selected = None
    if league_slug:
        selected = next((lr for lr in ratings if lr.league.slug == league_slug), None)
    elif ratings:
        selected = ratings[0]
    stats = None
    key = ""
    if selected is not None:
        version = f"{selected.live.games}:{selected.live.updated_at.timestamp()}"
        key = f"botstats:v1:{bot.pk}:{selected.league.pk}:{version}"
        stats = cache.get(key)
        if stats is None:
            stats = _league_stats(bot, selected.league)
            cache.set(key, stats, timeout=3600)
    versions = list(BotVersion.objects.filter(bot=bot).order_by("-last_seen")[:20])
    code_versions = [
        v
        for v in version_records(bot)
        if selected is not None and v.league_slug == selected.league.slug
    ]
    return BotProfile(
        bot=bot,
        ratings=ratings,
        selected=selected,
        stats=stats,
        stats_key=key,
        versions=versions,
        code_versions=code_versions,
    )


def bot_with_version(name: str) -> tuple[Bot, str] | None:
    """The bot (with ``owner_name``) and a version that changes whenever its page would:
    a rated game moves its rating rows' ``updated_at``, a fit its batch rows, a scheduled
    match the latest participation, a match starting the count of running ones, a Hello its
    versions, a hosted bot's switch of version its version rows. One plain SQL statement
    (see ``leagues.league_with_version``); the version keys the page's cached body."""
    t = {m.__name__: m._meta.db_table for m in (LiveRating, BatchRating, Participation,
                                                 Match, BotVersion, VersionRating)}  # fmt: skip
    user_table = Bot._meta.get_field("owner").related_model._meta.db_table  # type: ignore[union-attr]
    sql = (
        f"SELECT b.*, (SELECT username FROM {user_table} WHERE id = b.owner_id) AS owner_name,"
        f" (SELECT MAX(updated_at) FROM {t['LiveRating']} WHERE bot_id = b.id) AS v_rated,"
        f" (SELECT MAX(computed_at) FROM {t['BatchRating']} WHERE bot_id = b.id) AS v_fit,"
        f" (SELECT MAX(match_id) FROM {t['Participation']} WHERE bot_id = b.id) AS v_latest,"
        f" (SELECT COUNT(*) FROM {t['Participation']} p JOIN {t['Match']} m"
        f"   ON m.id = p.match_id WHERE p.bot_id = b.id AND m.status = %s) AS v_running,"
        f" (SELECT MAX(last_seen) FROM {t['BotVersion']} WHERE bot_id = b.id) AS v_hello,"
        f" (SELECT MAX(updated_at) FROM {t['VersionRating']} WHERE bot_id = b.id) AS v_code"
        f" FROM {Bot._meta.db_table} b WHERE b.name = %s"
    )
    found = list(Bot.objects.raw(sql, [MatchStatus.RUNNING, name]))
    if not found:
        return None
    bot = found[0]
    keys = ("rated", "fit", "latest", "running", "hello", "code")
    return bot, ":".join(str(getattr(bot, f"v_{k}")) for k in keys)


def opponents_of(p: Participation) -> list[Participation]:
    """The other seats of ``p``'s match (prefetched by ``recent_participations``)."""
    return [o for o in p.match.participations.all() if o.seat != p.seat]


def group_by_team(parts: list[Participation]) -> dict[int, list[str]]:
    teams: dict[int, list[str]] = defaultdict(list)
    for p in parts:
        teams[p.team].append(p.bot.name)
    return dict(teams)


def bot_summaries(bots: list[Bot]) -> list[dict[str, Any]]:
    """For a user's bot list: games and leagues per bot (2 queries) and presence."""
    ids = [b.pk for b in bots]
    games = dict(
        LiveRating.objects.filter(bot_id__in=ids)
        .values("bot_id")
        .annotate(n=Sum("games"))
        .values_list("bot_id", "n")
    )
    leagues: dict[int, list[str]] = defaultdict(list)
    for bot_id, name in (
        Entry.objects.filter(bot_id__in=ids, active=True)
        .order_by("league__name")
        .values_list("bot_id", "league__name")
    ):
        leagues[bot_id].append(name)
    presence = connected_now([b.pk for b in bots if b.kind == BotKind.REMOTE])
    return [
        {
            "bot": b,
            "games": games.get(b.pk, 0),
            "leagues": leagues.get(b.pk, []),
            "connected": presence.get(b.pk),
        }
        for b in bots
    ]


def match_seats(match: Match) -> list[Participation]:
    return list(match.participations.select_related("bot").order_by("seat"))
