"""Placement by provisional games, in this process against PostgreSQL: a newcomer plays
its games against every division (round robin and information matchmaking), is placed
once by the batch fit into the division the rule picks, then plays there; the lowest
placement is unchanged (tests/seasons/test_season_flow.py)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from arena.models import Entry, League, Participation, Round
from arena.ratings.models import BatchRating
from arena.ratings.services import fit_batch_ratings
from arena.seasons.ending import do_end_due_seasons
from arena.seasons.models import Placement, SeasonStanding
from arena.seasons.placement import do_place_newcomers
from arena.seasons.rules import placement_division
from arena.seasons.services import SeasonConfig, do_configure_seasons
from arena.services import leagues as svc
from arena.services.errors import LeagueError
from tests.leagues.factory import house_league
from tests.seasons.helpers import play_round, running

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def provisional_league(
    name: str, games: int, rounds: int = 6, **settings: object
) -> tuple[League, list[Entry]]:
    """Division 1: three greedy bots, division 2: three random ones; then two newcomers
    (greedy and random) in a league placing by ``games`` provisional games."""
    league = house_league(name, ["greedy"] * 3 + ["random"] * 3, **settings)
    do_configure_seasons(league, SeasonConfig(
        rounds_per_season=rounds, divisions=2, division_size=3, promote=1,
        placement="provisional", placement_games=games,
    ))  # fmt: skip
    for i, e in enumerate(Entry.objects.filter(league=league).order_by("id")):
        Entry.objects.filter(pk=e.pk).update(division=1 if i < 3 else 2)
    newcomers = []
    for spec in ("greedy", "random"):
        bot = svc.do_create_house_bot(f"{league.slug}-new-{spec}", spec)
        newcomers.append(svc.do_enter(league, bot))
    return league, newcomers


def _opponents(rnd: Round) -> dict[int, list[int]]:
    """{entry: the entries it met in the round (once a game)}."""
    seats: dict[int, list[int]] = defaultdict(list)
    for match_id, entry_id in Participation.objects.filter(match__round=rnd).values_list(
        "match_id", "entry_id"
    ):
        seats[match_id].append(entry_id)
    out: dict[int, list[int]] = defaultdict(list)
    for a, b in seats.values():
        out[a].append(b)
        out[b].append(a)
    return out


def _expected(league: League, entry: Entry) -> int:
    """The division the rule gives the entry on the league's stored fit."""
    fit = dict(BatchRating.objects.filter(league=league).values_list("bot_id", "elo"))
    placed: dict[int, list[float]] = defaultdict(list)
    for bot_id, d in Entry.objects.filter(league=league, division__isnull=False).values_list(
        "bot_id", "division"
    ):
        placed[int(d or 0)].append(fit[bot_id])
    return placement_division(fit[entry.bot_id], placed, 2)


@pytest.mark.parametrize("fmt", ["round_robin", "information"])
def test_a_newcomer_plays_every_division_then_is_placed_once_by_the_fit(fmt: str) -> None:
    settings: dict[str, object] = (
        {"format": fmt, "games_per_bot": 4} if fmt == "information" else {}
    )
    league, newcomers = provisional_league(f"Provisional {fmt}", 8, 6, **settings)
    division = {
        e: d or 0 for e, d in Entry.objects.filter(league=league).values_list("id", "division")
    }
    ids = {e.pk for e in newcomers}
    # round robin: a pair of games against one bot of each division a round (4 games);
    # information: games_per_bot / 2 divisions = 2 single games against each (4 games)
    for _ in range(2):
        met = _opponents(play_round(league))
        for e in newcomers:
            assert sorted(division[o] for o in met[e.pk]) == [1, 1, 2, 2], met[e.pk]
        for entry_id, others in met.items():  # the placed play within their division
            if entry_id not in ids:
                assert {division[o] for o in others if o not in ids} <= {division[entry_id]}
    assert not Placement.objects.exists()
    fit_batch_ratings(league.pk)  # the fit placement will use (it covers every game)
    expected = {e.pk: _expected(league, e) for e in newcomers}
    rnd = play_round(league)  # placed before it is paired
    placements = {p.entry_id: p for p in Placement.objects.filter(season=running(league))}
    assert {e: p.division for e, p in placements.items()} == expected
    assert all(p.games == 8 for p in placements.values())
    now = dict(Entry.objects.filter(league=league).values_list("id", "division"))
    assert {e: now[e] for e in ids} == expected
    # placed: it plays within its division only, which has grown by it
    for entry_id, others in _opponents(rnd).items():
        assert {now[o] for o in others} == {now[entry_id]}
    assert do_place_newcomers(league.pk) == []  # once


def test_the_seasons_end_places_a_newcomer_with_its_games_and_keeps_one_without() -> None:
    league, newcomers = provisional_league("Provisional end", 4, rounds=1)
    season = running(league)
    play_round(league)  # both newcomers have their 4 games, and the season its round
    late = svc.do_enter(league, svc.do_create_house_bot("late-random", "random"))
    [ended] = do_end_due_seasons(league.pk)
    assert sorted(ended.placed) == sorted(e.bot_id for e in newcomers)
    assert Placement.objects.filter(season=season).count() == 2
    divisions: dict[int, int | None] = dict(
        Entry.objects.filter(league=league).values_list("id", "division")
    )
    assert divisions[late.pk] is None  # no game yet: its provisional games go on
    assert all(divisions[e.pk] is not None for e in newcomers)
    assert SeasonStanding.objects.get(season=season, bot=late.bot).next_division is None
    # the next season's first round: the late one plays both divisions
    met = _opponents(play_round(league))
    assert sorted(divisions[o] or 0 for o in met[late.pk]) == [1, 1, 2, 2]


def test_provisional_placement_is_refused_where_it_cannot_work() -> None:
    league = house_league("Provisional teams", ["random"] * 8, seats=4)
    with pytest.raises(LeagueError, match="two-seat leagues only"):
        do_configure_seasons(league, SeasonConfig(
            rounds_per_season=2, divisions=2, division_size=4, promote=1,
            placement="provisional",
        ))  # fmt: skip
    with pytest.raises(LeagueError, match="for a league in divisions"):
        do_configure_seasons(league, SeasonConfig(rounds_per_season=2, placement="provisional"))
    with pytest.raises(LeagueError, match="unknown placement 'top'"):
        do_configure_seasons(league, SeasonConfig(rounds_per_season=2, placement="top"))
