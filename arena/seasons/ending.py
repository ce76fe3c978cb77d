"""A season's end, exactly once.

``do_end_season`` first fits the league's batch ratings, over all its games (one fit:
comparable across divisions), **outside any lock**: the fit replaces the stored one as a
whole and is idempotent, and no round of the league starts while the season is due
(``check_season_room``). Then it does everything in **one transaction** that starts by
locking the league row and then the season's row (``SELECT ... FOR UPDATE``) and checking
that the season is still ``running`` and due:

1. the fit again, inside, only if the league's finished matches changed since (one
   finished or was voided: ``finished_matches``), and the newcomers that have their
   provisional games placed by it (``arena.seasons.placement``);
2. the season's table (``arena.seasons.table``) frozen into ``SeasonStanding`` rows, with
   the crosstable on the season;
3. promotion and relegation (``arena.seasons.rules.next_divisions``) written on the
   entries;
4. the season marked ``ended`` and the next one created (its start ratings by the rule).

A second worker that reaches the same season waits on the row lock and then finds it
ended: it does nothing. A worker that dies midway (killed, its connection lost) leaves
nothing but the fit: the transaction rolls back, the season is still running and due, and the next
check ends it. ``arena.signals.season_ended`` is sent after the commit, by the worker
that ended it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import Count, Max, Sum
from django.utils import timezone

from arena.models import Entry, League, Match, MatchStatus
from arena.ratings.models import BatchRating
from arena.ratings.services import fit_batch_ratings
from arena.seasons.models import Movement, Season, SeasonSettings, SeasonStanding, SeasonStatus
from arena.seasons.placement import place_due
from arena.seasons.rules import by_division, next_divisions
from arena.seasons.services import (
    is_due,
    last_ratings,
    new_season,
    next_round_number,
    rounds_complete,
)
from arena.seasons.table import season_table
from arena.signals import season_ended

logger = logging.getLogger(__name__)

#: called between the steps with the step's name (tests stop a process there)
Between = Callable[[str], None]


@dataclass
class Ended:
    league: str
    season: int
    bots: int
    promoted: list[int]
    relegated: list[int]
    next_season: int
    #: newcomers placed by this end, after their provisional games (bot ids)
    placed: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return vars(self).copy()


def do_end_season(
    season_id: int, *, force: bool = False, between: Between | None = None
) -> Ended | None:
    """End the season if it is running and due (``force``: due or not, as long as no round
    of it is still playing: ``league seasons NAME --end-now``). None: it was not (ended
    already, by this or another worker, not due yet, or a round of it still playing).
    See the module doc."""
    step = between or (lambda name: None)

    def ready(s: Season) -> bool:
        return s.status == SeasonStatus.RUNNING and (rounds_complete(s) if force else is_due(s))

    ahead = Season.objects.filter(pk=season_id).first()
    if ahead is None or not ready(ahead):
        return None
    # the fit first, outside the lock (seconds for a large league): the league's next
    # round waits for the end anyway (check_season_room), and the fit is idempotent
    seen = finished_matches(ahead.league_id)
    fit_batch_ratings(ahead.league_id)
    step("fit")
    with transaction.atomic():
        league = League.objects.select_for_update().get(pk=ahead.league_id)
        season = Season.objects.select_for_update().get(pk=season_id)
        if not ready(season):  # under the league's lock: no round starts meanwhile
            return None
        if finished_matches(league.pk) != seen:
            # a match finished or was voided since (a challenge, a rerun): fit again here
            if connection.vendor == "postgresql":
                with connection.cursor() as cur:  # the fit replays the league in Python
                    cur.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
            fit_batch_ratings(league.pk)
        step("locked")
        fit_matches = (
            BatchRating.objects.filter(league=league).values_list("matches", flat=True).first() or 0
        )
        placed = place_due(league, season, fit_matches) if season.placement_games > 0 else []
        # a newcomer still short of its provisional games stays unplaced: it goes on with
        # them next season
        waiting = set(
            Entry.objects.filter(league=league, division__isnull=True).values_list(
                "bot_id", flat=True
            )
        ) if season.placement_games > 0 else set()  # fmt: skip
        last_round = next_round_number(league) - 1
        table = season_table(league, season, last_round=last_round)
        split = season.divisions > 1
        places = {
            line.bot_id: place
            for lines in by_division(table.lines()).values()
            for place, line in enumerate(lines, 1)
        }
        active = set(
            Entry.objects.filter(league=league, active=True, bot__active=True).values_list(
                "bot_id", flat=True
            )
        )
        settings = SeasonSettings.objects.filter(league=league).first()
        count = settings.divisions if settings is not None else season.divisions
        size = settings.division_size if settings is not None else 1 << 30
        promote = settings.promote if settings is not None else season.promote
        lines = [line for line in table.lines() if line.bot_id in active - waiting]
        moved = next_divisions(lines, count, size, promote) if count > 1 else {}
        division_of = {line.bot_id: line.division for line in table.lines()}
        rows = []
        for bot_id, r in table.rows.items():
            division = division_of[bot_id] if split else None
            nxt = moved.get(bot_id)
            if bot_id not in active:
                movement = Movement.LEFT
            elif not split or nxt is None or division is None or nxt == division:
                movement = Movement.STAY
            else:
                movement = Movement.UP if nxt < division else Movement.DOWN
            rows.append(
                SeasonStanding(
                    season=season, bot_id=bot_id, division=division,
                    place=places[bot_id], start_rating=r.start, rating=r.rating,
                    games=r.games, wins=r.wins, losses=r.losses, forfeits=r.forfeits,
                    live_rating=r.live, fit_elo=None if r.fit is None else r.fit.elo,
                    fit_low=None if r.fit is None else r.fit.low,
                    fit_high=None if r.fit is None else r.fit.high,
                    fit_rank=None if r.fit is None else r.fit.rank,
                    movement=movement, next_division=nxt,
                )
            )  # fmt: skip
        SeasonStanding.objects.bulk_create(rows)
        step("standings")
        for bot_id, division in moved.items():
            Entry.objects.filter(league=league, bot_id=bot_id).update(division=division)
        # not split, withdrawn, or still provisional: no division (a bot entering again
        # starts in the lowest, or plays its provisional games)
        unplaced = Entry.objects.filter(league=league)
        if count > 1:
            unplaced = unplaced.exclude(bot_id__in=list(moved))
        unplaced.update(division=None)
        step("divisions")
        now = timezone.now()
        season.status = SeasonStatus.ENDED
        season.ended_at = now
        season.last_round = last_round
        season.fit_matches = fit_matches
        season.crosstable = {
            "bots": sorted(table.rows),
            "cells": {f"{a}:{b}": cell for (a, b), cell in sorted(table.cells.items())},
        }
        season.save()
        following = None
        if settings is not None:
            bots = sorted(active)
            following = new_season(
                league, settings, season.number + 1, last_round + 1,
                last_ratings(league, bots) | {r.bot_id: r.rating for r in rows}, now,
            )  # fmt: skip
        step("next season")
        ended = Ended(
            league.name,
            season.number,
            len(rows),
            sorted(r.bot_id for r in rows if r.movement == Movement.UP),
            sorted(r.bot_id for r in rows if r.movement == Movement.DOWN),
            0 if following is None else following.number,
            sorted(p.entry.bot_id for p in placed),
        )
        bot_ids = sorted(table.rows)
        transaction.on_commit(
            lambda: season_ended.send(sender=Season, league=league, season=season, bot_ids=bot_ids)
        )
    logger.info(
        "league %s: season %d ended (%d bots; up %s, down %s)",
        league.name, season.number, len(rows), ended.promoted, ended.relegated,
    )  # fmt: skip
    return ended


def finished_matches(league_id: int) -> tuple[int, int, int]:
    """The league's finished matches as (count, largest id, sum of ids): it changes when
    one finishes or is voided (a fit over them is then out of date)."""
    got = Match.objects.filter(league_id=league_id, status=MatchStatus.FINISHED).aggregate(
        n=Count("id"), top=Max("id"), total=Sum("id")
    )
    return (got["n"] or 0, got["top"] or 0, got["total"] or 0)


def do_end_due_seasons(league_id: int | None = None) -> list[Ended]:
    """End every running season that is due (of one league, or of all): the beat's job."""
    running = Season.objects.filter(status=SeasonStatus.RUNNING)
    if league_id is not None:
        running = running.filter(league_id=league_id)
    out = []
    for season in running.order_by("id"):
        if is_due(season):
            done = do_end_season(season.pk)
            if done is not None:
                out.append(done)
    return out
