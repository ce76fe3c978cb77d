"""Placement by provisional games: a newcomer's games across the divisions, and its place.

A league in divisions whose season has ``placement_games`` N > 0 (the ``provisional``
setting) treats an active entry with no division as a **newcomer**:

* **Its games** (``provisional_pairs``, asked by both formats when a round is written:
  ``arena.services.matchmade.outside_divisions``): it is left out of the divisions' own
  pairings and meets, each round, opponents from **every** division, drawn in each as
  information matchmaking draws (``arena.seasons.rules.provisional_opponents``): one a
  division in round robin (each pairing a pair of games, teams swapped, as every pairing
  is), ``games_per_bot / divisions`` (at least one) in the information format. Games
  against every division tie it, in the one fit over all the league's games, to each of
  them, so its rating is comparable with theirs however strong it is.
* **Its place** (``do_place_newcomers``, before each round is scheduled and at a season's
  end): once it has N finished games in the league, the division whose median batch-fit
  rating is nearest its own (``rules.placement_division``). The division grows by it
  until the season's end cuts the divisions to their size again (``rules.next_divisions``
  sends a division's overflow down besides the swap: nobody's promotion is taken).

**Exactly once.** The fit that places it runs first, outside any lock, when the stored
one does not cover the league's finished matches. Then one transaction locks the league
row and the season row (the order ``arena.seasons.ending`` takes them), reads the
newcomers again, and writes each one's division with a conditional update (``division IS
NULL``) and its ``Placement`` row (unique per season and entry). A second worker waits on
the lock and finds no newcomer left to place; a worker killed midway leaves nothing but a
fit (which the next one reuses), and the next check places the newcomer once.
"""

from __future__ import annotations

import logging
import random
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence

from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from arena.models import Entry, League, LeagueFormat, Match, MatchStatus, Participation
from arena.ratings.models import BatchRating, LiveRating
from arena.ratings.services import fit_batch_ratings
from arena.seasons.models import Placement, Season, SeasonStatus
from arena.seasons.rules import START, placement_division, provisional_opponents
from arena.services.matchmade import candidates_of

logger = logging.getLogger(__name__)

#: called between the steps with the step's name (tests stop a process there)
Between = Callable[[str], None]


def provisional_season(league: League) -> Season | None:
    """The league's running season if it places newcomers by provisional games."""
    return Season.objects.filter(
        league=league, status=SeasonStatus.RUNNING, placement_games__gt=0, divisions__gt=1
    ).first()


def provisional_pairs(
    league: League,
    entries: Sequence[Entry],
    rng: random.Random,
    taken: Collection[tuple[int, int]] = (),
) -> tuple[set[int], list[tuple[int, int]]]:
    """The round's newcomers (entry ids, left out of the divisions' pairings) and their
    pairs (newcomer, opponent); ``taken``: the pairs the round has already (a scheduling
    run that stopped midway), which count against each newcomer's games. Nothing when the
    season does not place by provisional games."""
    newcomers = [e for e in entries if e.division is None]
    placed = [e for e in entries if e.division is not None]
    # (no statement for a league that is not split, or has no newcomer)
    if not newcomers or not placed or provisional_season(league) is None:
        return set(), []
    by_entry = {c.entry: c for c in candidates_of(league, entries)}
    division_of = {e.pk: e.division for e in placed if e.division is not None}
    divisions: dict[int, list[int]] = defaultdict(list)
    for entry_id, d in division_of.items():
        divisions[d].append(entry_id)
    per_division = (
        max(1, round(league.games_per_bot / len(divisions)))
        if league.format == LeagueFormat.INFORMATION
        else 1
    )
    pairs: list[tuple[int, int]] = []
    for e in sorted(newcomers, key=lambda x: x.pk):
        met = {b if a == e.pk else a for a, b in taken if e.pk in (a, b)}
        had: dict[int, int] = defaultdict(int)
        for other in met:
            if other in division_of:
                had[division_of[other]] += 1
        for d, members in sorted(divisions.items()):
            need = per_division - had[d]
            if need <= 0:
                continue
            pool = [by_entry[m] for m in members]
            for other in provisional_opponents(by_entry[e.pk], {d: pool}, need, rng, met):
                pairs.append((e.pk, other))
    return {e.pk for e in newcomers}, pairs


def finished_games(league: League, entry_ids: Collection[int]) -> dict[int, int]:
    rows = (
        Participation.objects.filter(
            league=league, entry_id__in=list(entry_ids), match__status=MatchStatus.FINISHED
        )
        .values("entry_id")
        .annotate(n=Count("id"))
        .values_list("entry_id", "n")
    )
    return dict(rows)


def _due(league: League, season: Season) -> dict[int, int]:
    """Newcomers with their N games: {entry id: finished games}."""
    ids = list(
        Entry.objects.filter(
            league=league, active=True, bot__active=True, division__isnull=True
        ).values_list("id", flat=True)
    )
    games = finished_games(league, ids)
    return {e: n for e, n in games.items() if n >= season.placement_games}


def _fit_matches(league: League) -> int | None:
    return BatchRating.objects.filter(league=league).values_list("matches", flat=True).first()


def place_due(league: League, season: Season, fitted: int) -> list[Placement]:
    """Place the newcomers that have their games, in the caller's transaction (the
    league and season rows locked by it); ``fitted``: the finished matches the league's
    stored fit covers. Returns the placements written."""
    due = _due(league, season)
    if not due:
        return []
    fit = dict(BatchRating.objects.filter(league=league).values_list("bot_id", "elo"))
    live = dict(LiveRating.objects.filter(league=league).values_list("bot_id", "rating"))

    def rating(bot_id: int) -> float:
        return fit[bot_id] if bot_id in fit else float(live.get(bot_id, START))

    placed: dict[int, list[float]] = defaultdict(list)
    for bot_id, division in Entry.objects.filter(
        league=league, active=True, bot__active=True, division__isnull=False
    ).values_list("bot_id", "division"):
        placed[division].append(rating(bot_id))  # type: ignore[index]
    lowest = max(placed) if placed else season.divisions
    now = timezone.now()
    out = []
    for entry in Entry.objects.filter(pk__in=list(due)).order_by("id"):
        if entry.bot_id not in fit:
            continue  # not in the fit yet: the next check places it
        division = placement_division(fit[entry.bot_id], placed, lowest)
        if Entry.objects.filter(pk=entry.pk, division__isnull=True).update(division=division):
            out.append(
                Placement.objects.create(
                    season=season, entry=entry, division=division, rating=fit[entry.bot_id],
                    games=due[entry.pk], fit_matches=fitted, placed_at=now,
                )
            )  # fmt: skip
    return out


def do_place_newcomers(league: League | int, *, between: Between | None = None) -> list[Placement]:
    """Place every newcomer of the league's running season that has its provisional
    games, once (see the module doc). One statement for a league that does not place by
    provisional games, two more when it has no newcomer due."""
    step = between or (lambda name: None)
    if not isinstance(league, League):
        league = League.objects.get(pk=league)
    season = provisional_season(league)
    if season is None or not _due(league, season):
        return []
    finished = Match.objects.filter(league=league, status=MatchStatus.FINISHED).count()
    if _fit_matches(league) != finished:
        fit_batch_ratings(league.pk)  # outside the lock: it may take seconds
    step("fit")
    with transaction.atomic():
        League.objects.select_for_update().get(pk=league.pk)
        season = Season.objects.select_for_update().get(pk=season.pk)
        if season.status != SeasonStatus.RUNNING:
            return []  # its end placed them (or will)
        done = place_due(league, season, _fit_matches(league) or 0)
        step("placed")
    for p in done:
        logger.info(
            "league %s: entry %d placed in division %d (%d games, fit %.0f)",
            league.name, p.entry_id, p.division, p.games, p.rating,
        )  # fmt: skip
    return done


def place_before_round(league: League) -> None:
    """``arena.services.rounds.before_round``: the newcomers with their games are placed
    before the round is paired."""
    do_place_newcomers(league)
