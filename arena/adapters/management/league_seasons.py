"""``manage.py league seasons``: a league's seasons from the command line.

league seasons NAME                   its season settings and running season (or: none)
league seasons NAME --rounds 10 --divisions 2 --division-size 8 --promote 2 ...
                                      store settings (merged with the stored ones; season 1
                                      starts if none runs), through ``do_configure_seasons``
league seasons NAME --end-now         end the running season now (``do_end_season``, forced:
                                      exactly once, never while a round of it is playing)

No ``--off``: a league does not leave seasons cleanly yet (without its settings, the
running season still ends, and the entries' divisions it writes keep splitting rounds).
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.core.management.base import CommandError
from django.db import transaction
from django.db.models import Count

from arena.models import Entry, League, Round
from arena.seasons.ending import Ended, do_end_season
from arena.seasons.models import (
    PlacementRule,
    Season,
    SeasonSettings,
    SeasonStanding,
    SeasonStatus,
    StartRule,
)
from arena.seasons.rules import describe
from arena.seasons.services import (
    SeasonConfig,
    check_season_config,
    do_configure_seasons,
    rounds_complete,
    running_season,
)
from arena.services import leagues as svc
from arena.services.errors import LeagueError
from arena.services.schedules import ScheduleSpec

Write = Callable[[str], object]

#: SeasonConfig's fields and the options that set them
OPTIONS = {
    "rounds_per_season": "--rounds",
    "seconds_per_season": "--seconds",
    "start_rule": "--start",
    "soft_factor": "--soft-factor",
    "divisions": "--divisions",
    "division_size": "--division-size",
    "promote": "--promote",
    "placement": "--placement",
    "placement_games": "--placement-games",
}
#: ``--rounds none`` / ``--seconds none``: no limit of that kind (the other one ends it)
NONE = "none"


def _rounds(text: str) -> int | str:
    if text.strip().lower() == NONE:
        return NONE
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of rounds, or none") from None


def _seconds(text: str) -> int | str:
    """Seconds, or a duration as schedules are written (``90s``, ``30m``, ``12h``, ``7d``:
    ``ScheduleSpec.parse``), or none."""
    t = text.strip().lower()
    if t == NONE:
        return NONE
    if t.isdigit():
        return int(t)
    try:
        spec = ScheduleSpec.parse(t)
    except LeagueError:
        spec = ScheduleSpec()
    if spec.every_s is None:
        raise argparse.ArgumentTypeError(f"{text!r}: seconds, a duration (30m, 12h, 7d) or none")
    return spec.every_s


def add_parser(sub: Any) -> None:
    """The subcommand, on ``league``'s subparsers."""
    p = sub.add_parser(
        "seasons",
        help="show a league's seasons, configure them (merged with the stored settings), "
        "or end the running season now",
    )
    p.add_argument("name")
    p.add_argument(
        "--rounds",
        dest="rounds_per_season",
        type=_rounds,
        metavar="N",
        help="a season ends after N rounds (none: by time only)",
    )
    p.add_argument(
        "--seconds",
        dest="seconds_per_season",
        type=_seconds,
        metavar="S",
        help="... or S seconds after it started: 86400, 30m, 12h, 7d (none: by "
        "rounds only); whichever comes first",
    )
    p.add_argument(
        "--start",
        dest="start_rule",
        choices=StartRule.values,
        help="a bot's season Elo starts at 1500 (reset), where it ended (carry) or "
        "toward the mean (soft)",
    )
    p.add_argument(
        "--soft-factor",
        dest="soft_factor",
        type=float,
        metavar="F",
        help="soft: the share of its distance from the mean a bot keeps, 0..1",
    )
    p.add_argument(
        "--divisions",
        dest="divisions",
        type=int,
        metavar="N",
        help="1: not split; else N divisions by rating",
    )
    p.add_argument(
        "--division-size",
        dest="division_size",
        type=int,
        metavar="N",
        help="bots per division (the lowest takes the rest)",
    )
    p.add_argument(
        "--promote",
        dest="promote",
        type=int,
        metavar="K",
        help="the top K of a division go up, the bottom K down",
    )
    p.add_argument(
        "--placement",
        dest="placement",
        choices=PlacementRule.values,
        help="a new bot: in the lowest division, or placed after provisional games",
    )
    p.add_argument(
        "--placement-games",
        dest="placement_games",
        type=int,
        metavar="N",
        help="provisional: the games a newcomer plays before it is placed",
    )
    p.add_argument(
        "--end-now",
        action="store_true",
        help="end the running season now (its table frozen, promotion applied, the "
        "next season started)",
    )


def do_seasons(o: dict[str, Any], write: Write) -> None:
    league = svc.get_league(o["name"])
    given = {f: o[f] for f in OPTIONS if o.get(f) is not None}
    if given and o["end_now"]:
        raise CommandError("--end-now ends the running season: give the settings separately")
    if o["end_now"]:
        _end_now(league, write)
    elif given:
        _configure(league, given, write)
    else:
        _show(league, write)


def _configure(league: League, given: dict[str, Any], write: Write) -> None:
    with transaction.atomic():
        # the league's row first (as do_configure_seasons does): no other change to its
        # settings between the read that is merged here and the write
        league = League.objects.select_for_update().get(pk=league.pk)
        stored = SeasonSettings.objects.filter(league=league).first()
        base = SeasonConfig() if stored is None else SeasonConfig.of(stored)
        changes: dict[str, Any] = {f: None if v == NONE else v for f, v in given.items()}
        config = dataclasses.replace(base, **changes)
        try:
            check_season_config(config, league.seats)
        except LeagueError as exc:
            raise CommandError(f"{_option(exc, config)}: {exc}") from None
        running = running_season(league)
        season = do_configure_seasons(league, config)
    write(f"{league.name}: season settings stored: {settings_line(config)}")
    if running is not None:
        write("  (they apply from the next season on; the running one keeps its rules)")
    else:
        write(f"  season {season.number} started")
    _show_season(league, season, write)


def _option(exc: LeagueError, config: SeasonConfig) -> str:
    if config.rounds_per_season is None and config.seconds_per_season is None:
        return "--rounds or --seconds"
    return OPTIONS.get(exc.field or "", "seasons")


def _show(league: League, write: Write) -> None:
    stored = SeasonSettings.objects.filter(league=league).first()
    season = running_season(league)
    if stored is None:
        write(
            f"{league.name} runs as one endless table (no seasons). Configure them with e.g. "
            f"`manage.py league seasons {league.slug} --rounds 10 --divisions 2 "
            "--division-size 8 --promote 2` (or in the admin: Seasons > Season settings)."
        )
    else:
        config = SeasonConfig(**{f: getattr(stored, f) for f in OPTIONS})
        write(f"{league.name}: {settings_line(config)}")
    if season is not None:
        _show_season(league, season, write)
    elif stored is not None:
        write("  no season running")
    past = Season.objects.filter(league=league, status=SeasonStatus.ENDED).count()
    if past:
        write(f"  {past} past season{'s' if past != 1 else ''}: /leagues/{league.slug}/seasons/")


def settings_line(c: SeasonConfig) -> str:
    ends = " or ".join(
        part
        for part in (
            f"{c.rounds_per_season} rounds" if c.rounds_per_season is not None else "",
            _duration(c.seconds_per_season) if c.seconds_per_season is not None else "",
        )
        if part
    )
    start = {"reset": "reset to 1500", "carry": "carry-over",
             "soft": f"soft reset ({c.soft_factor:g})"}.get(c.start_rule, c.start_rule)  # fmt: skip
    both = c.rounds_per_season is not None and c.seconds_per_season is not None
    out = f"seasons of {ends}{' (whichever comes first)' if both else ''}, season Elo {start}"
    if c.divisions <= 1:
        return out + ", not split in divisions"
    newcomer = (
        f"{c.placement_games} provisional games, then placed"
        if c.placement == PlacementRule.PROVISIONAL
        else "the lowest division"
    )
    return (
        out + f", {c.divisions} divisions of {c.division_size}, top {c.promote} up and "
        f"bottom {c.promote} down, a new bot: {newcomer}"
    )


def _duration(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds % size == 0:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M UTC")


def _show_season(league: League, season: Season, write: Write) -> None:
    played = Round.objects.filter(league=league, number__gte=season.first_round).count()
    ends = []
    if season.ends_at is not None:
        ends.append(f"at {_when(season.ends_at)}")
    if season.rounds is not None:
        ends.append(f"after its {season.rounds} rounds ({played} started)")
    write(
        f"  season {season.number} running since {_when(season.started_at)} "
        f"(from round {season.first_round}), ends {' or '.join(ends)}"
    )
    write(
        "  "
        + describe(
            season.start_rule, season.soft_factor, season.divisions, season.promote,
            season.placement_games,
        )
    )  # fmt: skip
    if season.divisions <= 1:
        bots = Entry.objects.filter(league=league, active=True).count()
        write(f"  one table of {bots} bots")
        return
    counts = dict(
        Entry.objects.filter(league=league, active=True)
        .values_list("division")
        .annotate(n=Count("id"))
        .values_list("division", "n")
    )
    for division in sorted(d for d in counts if d is not None):
        write(f"  division {division}: {counts[division]} bots")
    if counts.get(None):
        where = "playing provisional games" if season.placement_games else "in the lowest division"
        write(f"  not placed yet ({where}): {counts[None]} bots")


def _end_now(league: League, write: Write) -> None:
    season = running_season(league)
    if season is None:
        raise CommandError(f"{league.name} has no running season to end")
    if not rounds_complete(season):
        raise CommandError(
            f"a round of season {season.number} of {league.name} is still playing: end the "
            "season once it completes (pause the league meanwhile: `league pause`)"
        )
    ended = do_end_season(season.pk, force=True)
    season.refresh_from_db()
    if ended is None:
        if season.status == SeasonStatus.RUNNING:
            raise CommandError(
                f"a round of season {season.number} of {league.name} started meanwhile: end "
                "the season once it completes"
            )
        write(f"season {season.number} of {league.name} was ended meanwhile, by another process")
    else:
        write(ended_line(ended))
    print_frozen(season, write)
    following = running_season(league)
    if following is not None:
        _show_season(league, following, write)


def ended_line(e: Ended) -> str:
    out = (
        f"season {e.season} of {e.league} ended: {e.bots} bots, {len(e.promoted)} promoted, "
        f"{len(e.relegated)} relegated"
    )
    if e.placed:
        out += f", {len(e.placed)} placed after their provisional games"
    return out + (f"; season {e.next_season} starts" if e.next_season else "")


def print_frozen(season: Season, write: Write) -> None:
    """The season's frozen table (``SeasonStanding``), by division."""
    rows = SeasonStanding.objects.filter(season=season).select_related("bot")
    write(f"  frozen table of season {season.number} (rounds {season.first_round}-"
          f"{season.last_round}):")  # fmt: skip
    write(
        f"  {'div':>3} {'#':>3}  {'bot':<20} {'season Elo':>10} {'games':>5} {'W':>4} "
        f"{'L':>4}  next"
    )
    for r in rows:
        nxt = r.get_movement_display()
        if r.next_division is not None and r.movement != "stay":
            nxt += f" (division {r.next_division})"
        write(
            f"  {r.division or '-':>3} {r.place:>3}  {r.bot.name:<20} {float(r.rating):10.1f} "
            f"{r.games:>5} {r.wins:>4} {r.losses:>4}  {nxt}"
        )
