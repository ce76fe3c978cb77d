"""Bot analytics as the bot page and the API show them (``arena.analytics`` keeps the
counters): overall and per opponent, in one league or over all of them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db import connection

from arena.analytics.models import LATENCY_BUCKETS_MS, LATENCY_LABELS, BotAnalytics
from arena.models import Bot, League, Match, MatchStatus, Participation
from leaderboard.replays import EMBARGO_PARAMS, WITHHELD_SQL


@dataclass
class Analytics:
    opponent: str | None  # None: every opponent
    games: int = 0
    offers: int = 0
    face_down_taken: int = 0
    gain_total: float = 0.0
    handed_third_daredevil: int = 0
    handed_third_codebreaker: int = 0
    end_for: dict[str, int] = field(default_factory=dict)
    end_against: dict[str, int] = field(default_factory=dict)
    decisions: int = 0
    latency: list[int] = field(default_factory=lambda: [0] * (len(LATENCY_BUCKETS_MS) + 1))

    def add(self, row: BotAnalytics | Analytics) -> None:
        """Count ``row``'s games in (a league's counters, or another ``Analytics``)."""
        for name in ("games", "offers", "face_down_taken", "gain_total", "decisions",
                     "handed_third_daredevil", "handed_third_codebreaker"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(row, name))
        for mine, theirs in ((self.end_for, row.end_for), (self.end_against, row.end_against)):
            for reason, n in theirs.items():
                mine[reason] = mine.get(reason, 0) + n
        if row.latency:
            self.latency = [a + b for a, b in zip(self.latency, row.latency, strict=True)]

    @property
    def taken_rate(self) -> float | None:
        """How often the opponent took this bot's face-down card."""
        return self.face_down_taken / self.offers if self.offers else None

    @property
    def mean_gain(self) -> float | None:
        """Per offer: spaces the offering team gained over the choice the opponent passed up
        (positive: the opponent chose what suited this bot)."""
        return self.gain_total / self.offers if self.offers else None

    @property
    def end_rows(self) -> list[tuple[str, int, int]]:
        reasons = sorted(set(self.end_for) | set(self.end_against))
        return [
            (r.replace("_", " "), self.end_for.get(r, 0), self.end_against.get(r, 0))
            for r in reasons
        ]

    @property
    def latency_rows(self) -> list[tuple[str, int, float]]:
        total = sum(self.latency) or 1
        return [
            (label, n, n / total) for label, n in zip(LATENCY_LABELS, self.latency, strict=True)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "opponent": self.opponent,
            "games": self.games,
            "offers": self.offers,
            "face_down_taken": self.face_down_taken,
            "face_down_taken_rate": None if self.taken_rate is None else round(self.taken_rate, 4),
            "mean_gain_per_offer": None if self.mean_gain is None else round(self.mean_gain, 3),
            "handed_third_daredevil": self.handed_third_daredevil,
            "handed_third_codebreaker": self.handed_third_codebreaker,
            "end_reasons_won": dict(sorted(self.end_for.items())),
            "end_reasons_lost": dict(sorted(self.end_against.items())),
            "decisions": self.decisions,
            "decision_ms": {
                label: n for label, n in zip(LATENCY_LABELS, self.latency, strict=True)
            },
        }


@dataclass
class BotAnalyticsView:
    overall: Analytics
    opponents: list[Analytics]
    #: as of before a mirrored pair's game that is not out yet (``shown_bot_analytics``)
    held: bool = False


def bot_analytics(bot: Bot, league: League | None = None) -> BotAnalyticsView:
    """One query: the bot's rows (in ``league``, or summed over its leagues)."""
    rows = BotAnalytics.objects.filter(bot=bot).select_related("opponent")
    if league is not None:
        rows = rows.filter(league=league)
    overall = Analytics(None)
    by_opponent: dict[str, Analytics] = {}
    for row in rows:
        if row.opponent is None:
            overall.add(row)
        else:
            name = row.opponent.name
            by_opponent.setdefault(name, Analytics(name)).add(row)
    opponents = sorted(by_opponent.values(), key=lambda a: (-a.games, a.opponent or ""))
    return BotAnalyticsView(overall, opponents)


def shown_bot_analytics_all(bot: Bot) -> BotAnalyticsView:
    """Over all the bot's leagues, each as ``shown_bot_analytics`` shows it: a league with
    one of the bot's games withheld counts as it was before that game (``held``)."""
    league_ids = BotAnalytics.objects.filter(bot=bot).values_list("league_id", flat=True)
    overall = Analytics(None)
    by_opponent: dict[str, Analytics] = {}
    held = False
    # a challenge league's games are requested ones, not the bot's record (arena.models.leagues)
    for league in League.objects.with_pages().filter(pk__in=league_ids.distinct()).order_by("pk"):
        view = shown_bot_analytics(bot, league)
        held = held or view.held
        overall.add(view.overall)
        for theirs in view.opponents:
            assert theirs.opponent is not None
            by_opponent.setdefault(theirs.opponent, Analytics(theirs.opponent)).add(theirs)
    opponents = sorted(by_opponent.values(), key=lambda a: (-a.games, a.opponent or ""))
    return BotAnalyticsView(overall, opponents, held=held)


def _has_withheld(bot: Bot, league: League) -> bool:
    """Whether one of the bot's finished games in ``league`` is withheld (its mirrored
    partner is queued or running): only rounds with a match in play can hold one."""
    match, part = Match._meta.db_table, Participation._meta.db_table
    sql = (
        f"SELECT EXISTS (SELECT 1 FROM {match} m JOIN {part} p ON p.match_id = m.id"
        "  AND p.bot_id = %s"
        f" WHERE m.round_id IN (SELECT DISTINCT round_id FROM {match}"
        "   WHERE league_id = %s AND status IN (%s, %s))"
        f" AND {WITHHELD_SQL})"
    )
    params: list[Any] = [bot.pk, league.pk, str(MatchStatus.QUEUED), str(MatchStatus.RUNNING)]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *EMBARGO_PARAMS])
        return bool(cursor.fetchone()[0])


def shown_bot_analytics(bot: Bot, league: League) -> BotAnalyticsView:
    """The bot page's analytics in a league, without a withheld game: the counters are
    added as each result arrives, so while one of the bot's mirrored games is withheld
    the page shows them as they were last with none (``held``; empty if never)."""
    key = f"analytics-shown:v1:{bot.pk}:{league.pk}"
    if _has_withheld(bot, league):
        found = cache.get(key)
        if isinstance(found, BotAnalyticsView):
            return BotAnalyticsView(found.overall, found.opponents, held=True)
        return BotAnalyticsView(Analytics(None), [], held=True)
    view = bot_analytics(bot, league)
    cache.set(key, view, timeout=7 * 86400)
    return view
