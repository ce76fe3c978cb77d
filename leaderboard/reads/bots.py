"""Bot pages: ratings per league, rating history, results by opponent, faults, latency,
recent matches, reported versions, and whether the bot is connected now."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeVar

from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Count, Model, Sum

from arena.adapters.relay import RelayError, runner_relay
from arena.analytics.models import BotAnalytics
from arena.hosting.models import CodeVersion
from arena.models import (
    Bot,
    BotKind,
    BotVersion,
    Entry,
    League,
    Match,
    MatchStatus,
    Participation,
    has_page_q,
)
from arena.ratings.models import BatchRating, LiveRating, VersionFit, VersionRating
from arena.seasons.models import SeasonStanding
from leaderboard.reads.bot_stats import LeagueStats, league_stats
from leaderboard.replays import EMBARGO_PARAMS, WITHHELD_SQL

logger = logging.getLogger(__name__)

RECENT_MATCHES = 20
T = TypeVar("T", bound=Model)


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
    #: one of this version's games in the league is withheld (its mirrored partner is not
    #: over): its games leave it out, and its live rating, which has it, is not shown
    held: bool = False
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
            "rating": None if self.held else self.rating,
            "held": self.held,
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
    for league_id, version_id, number, games, wins, held in _version_games(bot):
        v = rec(leagues[league_id], version_id, number)
        v.games, v.wins, v.losses, v.held = games, wins, games - wins, bool(held)
    return sorted(out.values(), key=lambda v: (v.league, -v.number))


def _version_games(bot: Bot) -> list[tuple[int, int, int, int, int, int]]:
    """(league, version, its number, games, wins, withheld games) of a hosted bot's results,
    the withheld ones (a mirrored pair's game whose partner is not over) left out of the
    games and wins, as the standings leave them out."""
    part, match = Participation._meta.db_table, Match._meta.db_table
    sql = (
        "SELECT p.league_id, p.code_version_id, v.number,"
        " SUM(CASE WHEN w.held THEN 0 ELSE 1 END),"
        " SUM(CASE WHEN p.won AND NOT w.held THEN 1 ELSE 0 END),"
        " SUM(CASE WHEN w.held THEN 1 ELSE 0 END)"
        f" FROM {part} p JOIN {CodeVersion._meta.db_table} v ON v.id = p.code_version_id"
        f" JOIN (SELECT m.id, ({WITHHELD_SQL}) AS held FROM {match} m) w ON w.id = p.match_id"
        " WHERE p.bot_id = %s AND p.won IS NOT NULL"
        " GROUP BY p.league_id, p.code_version_id, v.number"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*EMBARGO_PARAMS, bot.pk])
        return [tuple(int(x) for x in row) for row in cursor.fetchall()]  # type: ignore[misc]


@dataclass
class BotProfile:
    bot: Bot
    ratings: list[LeagueRating]
    selected: LeagueRating | None
    #: the cached stats' key: what they are computed from (the selected league's results
    #: that are out)
    stats_key: str
    #: a hosted bot's versions in the selected league
    code_versions: list[VersionRecord]

    @cached_property
    def versions(self) -> list[BotVersion]:
        """The versions it reported (read only when their fragment is stale)."""
        return list(BotVersion.objects.filter(bot=self.bot).order_by("-last_seen")[:20])

    @cached_property
    def stats(self) -> LeagueStats | None:
        """The selected league's statistics (read only when their fragment is stale)."""
        if self.selected is None:
            return None
        found = cache.get(self.stats_key)
        if not isinstance(found, LeagueStats):
            found = league_stats(self.bot, self.selected.league)
            cache.set(self.stats_key, found, timeout=3600)
        return found


def _league_ratings(bot: Bot) -> list[LeagueRating]:
    """The bot's rating rows with their leagues and fits, in one plain statement (the
    ORM's two queries cost more to compile than to answer)."""
    models = (LiveRating, League, BatchRating)
    listed_sql, listed_params = League.objects.listed().values("id").query.sql_with_params()
    fields = [[f.attname for f in m._meta.concrete_fields] for m in models]
    columns = ", ".join(
        f"{alias}.{f.column}"
        for alias, m in zip(("lr", "lg", "br"), models, strict=True)
        for f in m._meta.concrete_fields
    )
    sql = (
        f"SELECT {columns} FROM {LiveRating._meta.db_table} lr"
        f" JOIN {League._meta.db_table} lg ON lg.id = lr.league_id"
        f" LEFT JOIN {BatchRating._meta.db_table} br"
        "   ON br.league_id = lr.league_id AND br.bot_id = lr.bot_id"
        " WHERE lr.bot_id = %s"
        # a bot's ratings are its listed leagues' (arena.models.leagues)
        f" AND lr.league_id IN ({listed_sql})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [bot.pk, *listed_params])
        found = cursor.fetchall()
    a, b = len(fields[0]), len(fields[0]) + len(fields[1])
    # the fields that convert what the database sends (a JSON column comes as text)
    convert = [
        [(i, f) for i, f in enumerate(m._meta.concrete_fields) if hasattr(f, "from_db_value")]
        for m in models
    ]

    def make(model: type[T], k: int, values: tuple[Any, ...]) -> T:
        values_list = list(values)
        for i, f in convert[k]:
            values_list[i] = f.from_db_value(values_list[i], None, connection)
        return model.from_db(DEFAULT_DB_ALIAS, fields[k], values_list)  # type: ignore[return-value]

    out = []
    for row in found:
        fit = None if row[b] is None else make(BatchRating, 2, row[b:])
        out.append(LeagueRating(make(League, 1, row[a:b]), make(LiveRating, 0, row[:a]), fit))
    return out


def bot_profile(bot: Bot, league_slug: str | None = None) -> BotProfile:
    """Everything on a bot page. ``league_slug`` picks the league the chart and tables are
    about (default: where the bot played most)."""
    ratings = sorted(_league_ratings(bot), key=lambda lr: (-lr.live.shown_games, lr.league.name))
    selected = None
    if league_slug:
        selected = next((lr for lr in ratings if lr.league.slug == league_slug), None)
    elif ratings:
        selected = ratings[0]
    key = ""
    if selected is not None:
        # the results that are out change these (a withheld game changes none of them)
        live = selected.live
        shown = f"{live.shown_games}:{live.shown_wins}:{live.shown_forfeits}:{live.shown_rating}"
        key = f"botstats:v2:{bot.pk}:{selected.league.pk}:{shown}"
    code_versions = [
        v
        for v in version_records(bot)
        if selected is not None and v.league_slug == selected.league.slug
    ]
    return BotProfile(
        bot=bot,
        ratings=ratings,
        selected=selected,
        stats_key=key,
        code_versions=code_versions,
    )


@dataclass(frozen=True)
class BotVersions:
    """Versions of a bot page's parts: each changes whenever its part would."""

    #: any of the below, and a match starting (the page's cached body)
    page: str
    #: the ratings table and a hosted bot's versions: a rated game, a fit, a version switch
    ratings: str
    #: the analytics counters of any of its leagues, and a match of it starting or ending
    #: (a mirrored partner ending void releases a game without a new count)
    analytics: str
    #: the versions it reported (a Hello)
    hello: str
    #: whether it has a row in a season's frozen table (else the page's past seasons,
    #: ``seasons.bot_seasons``, are not read)
    seasons: bool = False


def bot_with_version(
    name: str | None = None, *, pk: int | None = None
) -> tuple[Bot, BotVersions] | None:
    """The bot (with ``owner_name``) and versions that change whenever its page would:
    a rated game moves its rating rows' ``updated_at`` (and a shown one the sum of their
    shown games, which moves even when results commit out of order), a fit its batch
    rows, a scheduled match the latest participation, a match starting the count of
    running ones, a Hello its versions, a hosted bot's switch of version its version rows,
    a recorded game its analytics rows (their ``updated_at`` and the sum of their games);
    and whether it has a past season to show. One plain SQL statement (see
    ``leagues.league_with_version``); the versions key the
    page's cached parts. The bot by its ``name`` or its ``pk``."""
    t = {m.__name__: m._meta.db_table for m in (LiveRating, BatchRating, Participation,
                                                 Match, BotVersion, VersionRating,
                                                 BotAnalytics)}  # fmt: skip
    user_table = Bot._meta.get_field("owner").related_model._meta.db_table  # type: ignore[union-attr]
    sql = (
        f"SELECT b.*, (SELECT username FROM {user_table} WHERE id = b.owner_id) AS owner_name,"
        f" (SELECT MAX(updated_at) FROM {t['LiveRating']} WHERE bot_id = b.id) AS v_rated,"
        # sums that every shown game and every recorded game add to, whatever order results
        # commit in (results in two leagues do not wait for each other: the one stamped
        # first can commit last and leave the MAX(updated_at)s where the other put them)
        f" (SELECT SUM(shown_games) FROM {t['LiveRating']} WHERE bot_id = b.id) AS v_shown,"
        f" (SELECT SUM(games) FROM {t['BotAnalytics']} WHERE bot_id = b.id) AS v_counted,"
        f" (SELECT MAX(computed_at) FROM {t['BatchRating']} WHERE bot_id = b.id) AS v_fit,"
        f" (SELECT MAX(match_id) FROM {t['Participation']} WHERE bot_id = b.id) AS v_latest,"
        f" (SELECT COUNT(*) FROM {t['Participation']} p JOIN {t['Match']} m"
        f"   ON m.id = p.match_id WHERE p.bot_id = b.id AND m.status = %s) AS v_running,"
        f" (SELECT MAX(last_seen) FROM {t['BotVersion']} WHERE bot_id = b.id) AS v_hello,"
        f" (SELECT MAX(updated_at) FROM {t['VersionRating']} WHERE bot_id = b.id) AS v_code,"
        f" (SELECT MAX(updated_at) FROM {t['BotAnalytics']} WHERE bot_id = b.id) AS v_analytics,"
        f" EXISTS (SELECT 1 FROM {SeasonStanding._meta.db_table} WHERE bot_id = b.id) AS v_seasons"
        f" FROM {Bot._meta.db_table} b WHERE b.{'name' if pk is None else 'id'} = %s"
    )
    found = list(Bot.objects.raw(sql, [MatchStatus.RUNNING, name if pk is None else pk]))
    if not found:
        return None
    bot = found[0]

    def join(*keys: str) -> str:
        return ":".join(str(getattr(bot, f"v_{k}")) for k in keys)

    return bot, BotVersions(
        join("rated", "shown", "fit", "latest", "running", "hello", "code", "analytics", "counted"),
        join("rated", "shown", "fit", "code"),
        join("analytics", "counted", "running"),
        join("hello"),
        bool(getattr(bot, "v_seasons")),  # noqa: B009 - SQLite answers EXISTS with 0 or 1
    )


def group_by_team(parts: list[Participation]) -> dict[int, list[str]]:
    teams: dict[int, list[str]] = defaultdict(list)
    for p in parts:
        teams[p.team].append(p.bot.name)
    return dict(teams)


def bot_summaries(bots: list[Bot]) -> list[dict[str, Any]]:
    """For a user's bot list: games and leagues per bot (2 queries) and presence."""
    ids = [b.pk for b in bots]
    games = dict(
        # league games (a challenge's are requested ones, counted below)
        LiveRating.objects.filter(has_page_q("league__"), bot_id__in=ids)
        .values("bot_id")
        .annotate(n=Sum("games"))
        .values_list("bot_id", "n")
    )
    leagues: dict[int, list[str]] = defaultdict(list)
    for bot_id, name in (
        Entry.objects.filter(has_page_q("league__"), bot_id__in=ids, active=True)
        .order_by("league__name")
        .values_list("bot_id", "league__name")
    ):
        leagues[bot_id].append(name)
    requested = dict(
        Participation.objects.filter(~has_page_q("match__league__"), bot_id__in=ids)
        .values("bot_id")
        .annotate(n=Count("id"))
        .values_list("bot_id", "n")
    )
    presence = connected_now([b.pk for b in bots if b.kind == BotKind.REMOTE])
    return [
        {
            "bot": b,
            "games": games.get(b.pk, 0),
            "requested": requested.get(b.pk, 0),
            "leagues": leagues.get(b.pk, []),
            "connected": presence.get(b.pk),
        }
        for b in bots
    ]


def match_seats(match: Match) -> list[Participation]:
    return list(match.participations.select_related("bot").order_by("seat"))
