"""What the season pages, the league page's season panel, the bot page and the API read.

An ended season is read from its frozen rows (``SeasonStanding``); the running one is
the table as it stands (``arena.seasons.table``, without a mirrored game whose partner
is still playing), cached under the league's standings version.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.core.cache import cache

from arena.models import Bot, League
from arena.ratings.standings import withheld_matches
from arena.seasons.models import Season, SeasonSettings, SeasonStanding, SeasonStatus
from arena.seasons.rules import by_division, describe, zones
from arena.seasons.table import season_table


@dataclass
class Line:
    bot: str
    division: int | None
    place: int
    rating: Decimal
    start: Decimal
    games: int
    wins: int
    losses: int
    forfeits: int
    live: Decimal
    fit_elo: float | None = None
    fit_low: float | None = None
    fit_high: float | None = None
    fit_rank: int | None = None
    #: "up" / "down": in the promotion or relegation zone (running) or moved (ended)
    zone: str = ""
    next_division: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = dict(vars(self))
        for k in ("rating", "start", "live"):
            out[k] = float(out[k])
        return out


@dataclass
class SeasonView:
    season: Season
    rule: str
    divisions: list[tuple[int | None, list[Line]]] = field(default_factory=list)
    #: (bot names, rows of (bot, [cell text or None]))
    crosstable: tuple[list[str], list[tuple[str, list[str | None]]]] = ([], [])

    @property
    def final(self) -> bool:
        return self.season.status == SeasonStatus.ENDED

    def to_json(self) -> dict[str, Any]:
        s = self.season
        return {
            **season_summary(s),
            "rule": self.rule,
            "divisions": [
                {"division": d, "standings": [x.to_json() for x in lines]}
                for d, lines in self.divisions
            ],
            "crosstable": {
                "bots": self.crosstable[0],
                "rows": [{"bot": b, "cells": cells} for b, cells in self.crosstable[1]],
            },
        }


def rule_of(season: Season) -> str:
    return describe(
        season.start_rule, season.soft_factor, season.divisions, season.promote,
        season.placement_games,
    )  # fmt: skip


def season_summary(s: Season) -> dict[str, Any]:
    return {
        "number": s.number,
        "status": s.status,
        "started_at": s.started_at.isoformat(),
        "ends_at": s.ends_at.isoformat() if s.ends_at else None,
        "rounds": s.rounds,
        "first_round": s.first_round,
        "last_round": s.last_round,
        "ended_at": s.ended_at.isoformat() if s.ended_at else None,
        "start_rule": s.start_rule,
        "soft_factor": s.soft_factor,
        "divisions_count": s.divisions,
        "promote": s.promote,
        "placement_games": s.placement_games,
    }


def seasons_of(league: League) -> list[Season]:
    return list(Season.objects.filter(league=league).order_by("-number"))


def _frozen(season: Season) -> list[Line]:
    return [
        Line(
            r.bot.name,
            r.division,
            r.place,
            r.rating,
            r.start_rating,
            r.games,
            r.wins,
            r.losses,
            r.forfeits,
            r.live_rating,
            r.fit_elo,
            r.fit_low,
            r.fit_high,
            r.fit_rank,
            "" if r.movement in ("stay", "left") else r.movement,
            r.next_division,
        )  # fmt: skip
        for r in SeasonStanding.objects.filter(season=season)
        .select_related("bot")
        .order_by("division", "place")
    ]


def _live(league: League, season: Season) -> tuple[list[Line], dict[tuple[int, int], list[int]]]:
    table = season_table(league, season, hidden=withheld_matches(league))
    names = dict(Bot.objects.filter(pk__in=list(table.rows)).values_list("pk", "name"))
    split = season.divisions > 1
    grouped = by_division(table.lines())
    marks = zones([len(grouped[d]) for d in sorted(grouped)], season.promote) if split else []
    out = []
    for i, d in enumerate(sorted(grouped)):
        for place, line in enumerate(grouped[d], 1):
            r = table.rows[line.bot_id]
            zone = ""
            if split:
                up, down = marks[i]
                n = len(grouped[d])
                zone = "up" if place <= up else "down" if place > n - down else ""
            fit = r.fit
            out.append(
                Line(
                    names[line.bot_id], d if split else None, place, r.rating, r.start,
                    r.games, r.wins, r.losses, r.forfeits, r.live,
                    fit.elo if fit else None, fit.low if fit else None,
                    fit.high if fit else None, fit.rank if fit else None, zone,
                )
            )  # fmt: skip
    by_name = {
        (names[a], names[b]): cell for (a, b), cell in table.cells.items()
    }  # fmt: skip
    return out, by_name  # type: ignore[return-value]


def season_view(league: League, season: Season) -> SeasonView:
    view = SeasonView(season, rule_of(season))
    if view.final:
        lines = _frozen(season)
        ids = dict(Bot.objects.filter(pk__in=season.crosstable.get("bots", [])).values_list(
            "pk", "name"))  # fmt: skip
        cells = {
            (ids[int(a)], ids[int(b)]): cell
            for key, cell in season.crosstable.get("cells", {}).items()
            for a, b in [key.split(":")]
            if int(a) in ids and int(b) in ids
        }
    else:
        lines, cells = _live(league, season)  # type: ignore[assignment]
    groups: dict[int | None, list[Line]] = {}
    for x in lines:
        groups.setdefault(x.division, []).append(x)
    view.divisions = sorted(groups.items(), key=lambda kv: kv[0] or 0)
    bots = [x.bot for x in lines]
    view.crosstable = (
        bots,
        [
            (a, [None if a == b or (a, b) not in cells else f"{cells[a, b][0]}/{cells[a, b][1]}"
                 for b in bots])
            for a in bots
        ],
    )  # fmt: skip
    return view


def find_season(league: League, number: int) -> Season | None:
    if not 0 < number < 2**31:  # no such season (and no number PostgreSQL's column takes)
        return None
    return Season.objects.filter(league=league, number=number).first()


@dataclass
class Panel:
    """The league page's season panel."""

    current: SeasonView | None
    past: list[Season]


def _league_seasons(league: League) -> list[Season] | None:
    """The league's seasons, newest first, and whether it runs in seasons at all (None:
    it does not), in one statement: its settings' row joined to its seasons."""
    settings, season = SeasonSettings._meta.db_table, Season._meta.db_table
    sql = (
        f"SELECT s.*, st.id AS settings_id FROM {settings} st"
        f" LEFT JOIN {season} s ON s.league_id = st.league_id"
        " WHERE st.league_id = %s ORDER BY s.number DESC"
    )
    found = list(Season.objects.raw(sql, [league.pk]))
    if not found:
        return None
    return [s for s in found if s.pk is not None]


def league_panel(league: League, version: str) -> Panel | None:
    """None: the league does not run in seasons. The running season's table is cached
    under the league's standings ``version`` (which moves with every result it counts)."""
    seasons = _league_seasons(league)
    if seasons is None:
        return None
    running = next((s for s in seasons if s.status == SeasonStatus.RUNNING), None)
    current = None
    if running is not None:
        digest = hashlib.sha256(version.encode()).hexdigest()[:32]
        key = f"season-panel:{league.pk}:{running.pk}:{digest}"
        current = cache.get(key)
        if current is None:
            current = season_view(league, running)
            cache.set(key, current, 600)
    return Panel(current, [s for s in seasons if s.status == SeasonStatus.ENDED])


@dataclass(frozen=True)
class BotSeason:
    league: League
    number: int
    division: int | None
    place: int
    games: int
    wins: int
    rating: Decimal
    movement: str


def bot_seasons(bot: Bot) -> list[BotSeason]:
    """The bot's past seasons, newest first, in every league."""
    return [
        BotSeason(
            r.season.league,
            r.season.number,
            r.division,
            r.place,
            r.games,
            r.wins,
            r.rating,
            r.movement,
        )  # fmt: skip
        for r in SeasonStanding.objects.filter(bot=bot, season__status=SeasonStatus.ENDED)
        .select_related("season__league")
        .order_by("-season__ended_at", "-season__number")
    ]
