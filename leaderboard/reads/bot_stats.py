"""A bot's statistics in one league, as its page shows them: the rating chart, results by
opponent, faults and decision latency, over the results that are out.

Results by opponent are the league's head-to-head rows of the bot (``HeadToHead``, kept
by each result's transaction: ``arena.ratings.headtohead``), one indexed statement; the
rest comes from the bot's own seats in the league, one statement on the index
(league, bot, match), summed here. A finished game of a mirrored pair whose partner is
still queued or running counts nowhere (its rating change, outcome, fault or latency
would tell the withheld result): it joins when its partner is over, as in the standings
(``arena.ratings.standings``).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from arena.models import Bot, League, Match, MatchStatus, Participation
from arena.ratings.models import HeadToHead
from leaderboard.charts import elo_band, rating_by_game_svg
from leaderboard.replays import EMBARGO_PARAMS, WITHHELD_SQL

#: the chart draws at most this many points (the latest games)
HISTORY_POINTS = 1000


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
    """The per-league part of a bot page (cached until its shown results change)."""

    chart_svg: str
    points: int
    opponents: list[OpponentRecord]
    faults: dict[str, int]
    latency: dict[str, float | None]
    decisions: int
    auto_decisions: int


def league_stats(bot: Bot, league: League) -> LeagueStats:
    part, match = Participation._meta.db_table, Match._meta.db_table
    # each of the bot's seats; whether its match has finished, not when (the chart is by
    # game number, and parsing 400 timestamps costs more than the statement's heap reads)
    # a seat is withheld only in a round with a match still to play: the embargo's
    # subquery is asked for those rounds' seats alone (the league's queued and running
    # matches, on the status index), not for each of the bot's 400
    sql = (
        "SELECT p.match_id, p.team, p.won, p.rating_after, p.fault_cause, p.latency_mean_ms,"
        " p.latency_p50_ms, p.latency_p90_ms, p.latency_max_ms, p.decisions,"
        " p.auto_decisions, m.finished_at IS NOT NULL,"
        f" CASE WHEN m.round_id IN (SELECT round_id FROM {match}"
        "   WHERE league_id = %s AND status IN (%s, %s))"
        f" THEN {WITHHELD_SQL} ELSE FALSE END"
        f" FROM {part} p JOIN {match} m ON m.id = p.match_id"
        " WHERE p.league_id = %s AND p.bot_id = %s ORDER BY p.match_id"
    )
    playing = [str(MatchStatus.QUEUED), str(MatchStatus.RUNNING)]
    with connection.cursor() as cursor:
        cursor.execute(sql, [league.pk, *playing, *EMBARGO_PARAMS, league.pk, bot.pk])
        mine = [r for r in cursor.fetchall() if not r[12]]
    rated = [(done, float(after)) for _, _, _, after, *_, done, _ in mine if after is not None]
    shown = rated[-HISTORY_POINTS:]
    # by game number (the latest HISTORY_POINTS games), each with its approximate 95% band
    ratings = [r for done, r in shown if done]
    first = len(rated) - len(ratings) + 1
    band = [elo_band(v, first + i) for i, v in enumerate(ratings)]
    middle = sorted(ratings)[len(ratings) // 2] if ratings else 0.0
    chart = rating_by_game_svg(
        ratings, first_game=first, band=band, clip=(middle - 400, middle + 400),
        title=f"{bot.name}: Elo in {league.name} by game, with its 95% band",
    )  # fmt: skip
    opponents = [
        OpponentRecord(name, games, wins)
        for name, games, wins in HeadToHead.objects.filter(
            league=league, bot=bot, games__gt=0
        ).values_list("opponent__name", "games", "wins")
    ]
    faults: dict[str, int] = {}
    for r in mine:
        if r[4]:
            faults[r[4]] = faults.get(r[4], 0) + 1
    finished = [r for r in mine if r[2] is not None]

    def mean(i: int) -> float | None:
        values = [r[i] for r in finished if r[i] is not None]
        return sum(values) / len(values) if values else None

    peaks = [r[8] for r in finished if r[8] is not None]
    return LeagueStats(
        chart_svg=chart,
        points=len(ratings),
        opponents=sorted(opponents, key=lambda r: (-r.games, r.bot)),
        faults=dict(sorted(faults.items(), key=lambda kv: -kv[1])),
        latency={
            "mean": mean(5),
            "p50": mean(6),
            "p90": mean(7),
            "max": max(peaks) if peaks else None,
        },
        decisions=sum(r[9] or 0 for r in finished),
        auto_decisions=sum(r[10] or 0 for r in finished),
    )
