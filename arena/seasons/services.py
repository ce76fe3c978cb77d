"""Seasons of a league: switching them on, starting one, and what the scheduler asks.

``do_configure_seasons`` stores a league's settings and, when it has no running season,
starts season 1: the league's active entries are split into divisions by rating (the
batch fit, else the live Elo), and each bot's season Elo starts by the rule. The end of a
season is ``arena.seasons.ending``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_interval_entry
from arena.models import Entry, League, Round, RoundStatus
from arena.ratings.models import BatchRating, LiveRating
from arena.seasons.models import (
    PlacementRule,
    Season,
    SeasonSettings,
    SeasonStanding,
    SeasonStatus,
    StartRule,
)
from arena.seasons.rules import START, cut, start_ratings
from arena.services.errors import LeagueError


@dataclass(frozen=True)
class SeasonConfig:
    """A league's season settings: ``manage.py league seasons NAME --rounds N ...``
    (``arena/adapters/management/league_seasons.py``) or the admin; checked by
    ``check_season_config``, stored by ``do_configure_seasons``."""

    rounds_per_season: int | None = None
    seconds_per_season: int | None = None
    start_rule: str = StartRule.CARRY
    soft_factor: float = 0.5
    divisions: int = 1
    division_size: int = 8
    promote: int = 2
    #: a new bot: "lowest" (the lowest division until the season's end) or "provisional"
    #: (``placement_games`` games against every division, then placed: ``placement``)
    placement: str = PlacementRule.LOWEST
    placement_games: int = 10

    @classmethod
    def of(cls, stored: SeasonSettings) -> SeasonConfig:
        """The settings a league's row holds."""
        return cls(**{f.name: getattr(stored, f.name) for f in dataclasses.fields(cls)})


#: the most provisional games a newcomer may be given
MAX_PLACEMENT_GAMES = 1000


def check_season_config(c: SeasonConfig, seats: int = 2) -> None:
    if c.rounds_per_season is None and c.seconds_per_season is None:
        raise LeagueError(
            "a season ends after a number of rounds, a time, or both: give at least one",
            "rounds_per_season",
        )
    if c.rounds_per_season is not None and not 1 <= c.rounds_per_season <= 10_000:
        raise LeagueError("a season has 1 to 10000 rounds", "rounds_per_season")
    if c.seconds_per_season is not None and not 60 <= c.seconds_per_season <= 366 * 86400:
        raise LeagueError("a season lasts from a minute to a year (in seconds)",
                          "seconds_per_season")  # fmt: skip
    if c.start_rule not in StartRule.values:
        raise LeagueError(
            f"unknown start rule {c.start_rule!r}: reset, carry or soft", "start_rule"
        )
    if not 0.0 <= c.soft_factor <= 1.0:
        raise LeagueError("the soft reset keeps 0 to 1 of a bot's distance from the mean",
                          "soft_factor")  # fmt: skip
    if not 1 <= c.divisions <= 20:
        raise LeagueError("a league has 1 to 20 divisions", "divisions")
    if not 2 <= c.division_size <= 10_000:
        raise LeagueError("a division holds 2 to 10000 bots", "division_size")
    if c.divisions > 1 and not 1 <= c.promote <= c.division_size // 2:
        raise LeagueError(
            f"promote 1 to {c.division_size // 2} bots (half a division of "
            f"{c.division_size}), not {c.promote}",
            "promote",
        )
    if c.placement not in PlacementRule.values:
        raise LeagueError(f"unknown placement {c.placement!r}: lowest or provisional", "placement")
    if c.placement == PlacementRule.PROVISIONAL:
        if c.divisions <= 1:
            raise LeagueError("provisional placement is for a league in divisions (2 or more)",
                              "placement")  # fmt: skip
        if seats != 2:
            raise LeagueError("provisional placement pairs a newcomer with single opponents: "
                              "two-seat leagues only", "placement")  # fmt: skip
        if not 1 <= c.placement_games <= MAX_PLACEMENT_GAMES:
            raise LeagueError(f"a newcomer plays 1 to {MAX_PLACEMENT_GAMES} provisional games",
                              "placement_games")  # fmt: skip


def rating_order(league: League, bots: list[int]) -> list[int]:
    """Bots best first: the batch fit (one fit over all games), else the live Elo."""
    fit = dict(BatchRating.objects.filter(league=league).values_list("bot_id", "elo"))
    live = dict(LiveRating.objects.filter(league=league).values_list("bot_id", "rating"))
    return sorted(bots, key=lambda b: (-fit.get(b, float("-inf")), -live.get(b, START), b))


def last_ratings(league: League, bots: list[int]) -> dict[int, Decimal]:
    """What the next season's rule starts from: each bot's Elo at the last season's end,
    else its live Elo now."""
    last = Season.objects.filter(league=league, status=SeasonStatus.ENDED).first()
    out = dict(LiveRating.objects.filter(league=league, bot_id__in=bots).values_list(
        "bot_id", "rating"))  # fmt: skip
    if last is not None:
        out.update(SeasonStanding.objects.filter(season=last).values_list("bot_id", "rating"))
    return out


def new_season(league: League, s: SeasonSettings, number: int, first_round: int,
               last: dict[int, Decimal], now: datetime) -> Season:  # fmt: skip
    """The season's row, in the caller's transaction."""
    bots = list(Entry.objects.filter(league=league, active=True).values_list("bot_id", flat=True))
    starts = start_ratings(s.start_rule, s.soft_factor, last, bots)
    return Season.objects.create(
        league=league,
        number=number,
        started_at=now,
        ends_at=None if s.seconds_per_season is None
        else now + timedelta(seconds=s.seconds_per_season),
        rounds=s.rounds_per_season,
        first_round=first_round,
        start_rule=s.start_rule,
        soft_factor=s.soft_factor,
        divisions=s.divisions,
        promote=s.promote if s.divisions > 1 else 0,
        placement_games=s.placement_games
        if s.placement == PlacementRule.PROVISIONAL and s.divisions > 1 else 0,
        start_ratings={str(b): str(r) for b, r in starts.items()},
    )  # fmt: skip


def next_round_number(league: League) -> int:
    last = league.rounds.order_by("-number").values_list("number", flat=True).first()
    return 1 if last is None else last + 1


#: the beat entry that ends due seasons (``arena.end_due_seasons``)
SEASON_TASK_NAME = "arena: end due seasons"
SEASON_CHECK_EVERY_S = 10


def ensure_season_check() -> PeriodicTask:
    """The beat entry that checks for due seasons every ``SEASON_CHECK_EVERY_S``."""
    return ensure_interval_entry(SEASON_TASK_NAME, "arena.end_due_seasons", SEASON_CHECK_EVERY_S)


@transaction.atomic
def do_configure_seasons(league: League, c: SeasonConfig) -> Season:
    """Store the settings (they apply from the next season on; the running one keeps its
    length unless it has none) and start season 1 if none runs. Locks the league row."""
    league = League.objects.select_for_update().get(pk=league.pk)
    check_season_config(c, league.seats)
    s, _ = SeasonSettings.objects.update_or_create(league=league, defaults=vars(c))
    ensure_season_check()
    running = Season.objects.filter(league=league, status=SeasonStatus.RUNNING).first()
    if running is not None:
        return running
    bots = list(Entry.objects.filter(league=league, active=True).values_list("bot_id", flat=True))
    divisions = cut(rating_order(league, bots), s.divisions, s.division_size)
    for bot, division in divisions.items():
        Entry.objects.filter(league=league, bot_id=bot).update(
            division=division if s.divisions > 1 else None
        )
    first = next_round_number(league)
    number = 1 + (Season.objects.filter(league=league).count())
    return new_season(league, s, number, first, last_ratings(league, bots), timezone.now())


def running_season(league: League) -> Season | None:
    return Season.objects.filter(league=league, status=SeasonStatus.RUNNING).first()


def check_season_room(league: League, now: datetime | None = None) -> None:
    """Refuse a new round once the running season has all its rounds or its time is up:
    the next round starts after the season's end (its promotion applied)."""
    season = running_season(league)
    if season is None:
        return
    now = now or timezone.now()
    if season.ends_at is not None and now >= season.ends_at:
        raise LeagueError(
            f"season {season.number} of {league.name} is over (its time is up); the next "
            "round starts once its end is applied"
        )
    if season.rounds is not None:
        made = Round.objects.filter(league=league, number__gte=season.first_round).count()
        if made >= season.rounds:
            raise LeagueError(
                f"season {season.number} of {league.name} has its {season.rounds} rounds; "
                "the next round starts once its end is applied"
            )


def is_due(season: Season, now: datetime | None = None) -> bool:
    """Whether the season is over: its rounds are all complete, or its time is up and no
    round of it is still playing."""
    now = now or timezone.now()
    if not rounds_complete(season):
        return False
    rounds = Round.objects.filter(league_id=season.league_id, number__gte=season.first_round)
    if season.rounds is not None and rounds.count() >= season.rounds:
        return True
    return season.ends_at is not None and now >= season.ends_at


def rounds_complete(season: Season) -> bool:
    """Whether no round of the season is still being scheduled or played (a season ends
    between rounds only: a round's games all belong to one season's table)."""
    return not (
        Round.objects.filter(league_id=season.league_id, number__gte=season.first_round)
        .exclude(status=RoundStatus.COMPLETE)
        .exists()
    )
