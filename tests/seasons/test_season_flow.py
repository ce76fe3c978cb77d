"""A league in seasons and divisions, in this process against PostgreSQL: rounds within
divisions, the season's end frozen once, promotion applied, the next season's start."""

from __future__ import annotations

import pytest

from arena.models import Entry, League, Participation
from arena.seasons.ending import do_end_due_seasons, do_end_season
from arena.seasons.models import Movement, Season, SeasonStanding, SeasonStatus
from arena.services.errors import LeagueError
from arena.services.rounds import do_schedule_round
from arena.signals import season_ended
from tests.seasons.helpers import play_round, running, season_league

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _divisions(league: League) -> dict[int, int]:
    rows = Entry.objects.filter(league=league).values_list("bot_id", "division")
    return {bot: division for bot, division in rows if division is not None}


def test_a_season_of_two_rounds_ends_once_and_promotes() -> None:
    league = season_league("Seasoned", 6, rounds_per_season=2, divisions=2, division_size=3,
                           promote=1)  # fmt: skip
    before = _divisions(league)
    assert sorted(before.values()) == [1, 1, 1, 2, 2, 2]
    heard: list[dict[str, object]] = []

    def listen(sender: object, **kw: object) -> None:
        heard.append(kw)

    season_ended.connect(listen)
    try:
        for _ in range(2):
            rnd = play_round(league)
            # every match within one division
            for match in rnd.matches.all():
                bots = Participation.objects.filter(match=match).values_list("bot_id", flat=True)
                assert len({before[b] for b in bots}) == 1
        with pytest.raises(LeagueError, match="has its 2 rounds"):
            do_schedule_round(league, enqueue=False)
        ended = do_end_due_seasons(league.pk)
        assert [e.season for e in ended] == [1]
        assert do_end_season(Season.objects.get(league=league, number=1).pk) is None
    finally:
        season_ended.disconnect(listen)
    assert len(heard) == 1 and heard[0]["league"] == league
    first = Season.objects.get(league=league, number=1)
    assert first.status == SeasonStatus.ENDED and first.last_round == 2
    rows = list(SeasonStanding.objects.filter(season=first))
    assert len(rows) == 6
    up = [r for r in rows if r.movement == Movement.UP]
    down = [r for r in rows if r.movement == Movement.DOWN]
    assert [(r.division, r.place) for r in up] == [(2, 1)]
    assert [(r.division, r.place) for r in down] == [(1, 3)]
    after = _divisions(league)
    assert after[up[0].bot_id] == 1 and after[down[0].bot_id] == 2
    assert sorted(after.values()) == [1, 1, 1, 2, 2, 2]
    # the table: games of the season only, the season's Elo from its start
    assert sum(r.games for r in rows) == Participation.objects.filter(league=league).count()
    assert all(r.fit_elo is not None for r in rows)
    nxt = running(league)
    assert nxt.number == 2 and nxt.first_round == 3
    # carry-over: the second season starts where the first ended
    starts = {int(b): v for b, v in nxt.start_ratings.items()}
    assert starts == {r.bot_id: str(r.rating) for r in rows}
    play_round(league)  # season 2's first round, with the new divisions


def _within_divisions(league: League, rnd_matches: list[int]) -> None:
    divisions = _divisions(league)
    assert rnd_matches
    for match_id in rnd_matches:
        bots = Participation.objects.filter(match_id=match_id).values_list("bot_id", flat=True)
        assert len({divisions[b] for b in bots}) == 1, match_id


def test_information_matchmaking_pairs_within_divisions() -> None:
    from arena.seasons.services import SeasonConfig, do_configure_seasons
    from tests.leagues.factory import house_league

    league = house_league("Informed", ["random"] * 8, format="information", games_per_bot=3)
    do_configure_seasons(
        league, SeasonConfig(rounds_per_season=3, divisions=2, division_size=4, promote=1)
    )
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    _within_divisions(league, scheduled.matches)
    # every bot plays: both divisions are paired
    seated = set(Participation.objects.filter(league=league).values_list("bot_id", flat=True))
    assert len(seated) == 8


def test_a_newcomer_plays_in_the_lowest_division() -> None:
    from arena.services import leagues as svc

    league = season_league("Newcomers", 4, rounds_per_season=3, divisions=2, division_size=2,
                           promote=1)  # fmt: skip
    bot = svc.do_create_house_bot("newcomer-random", "random")
    svc.do_enter(league, bot)
    assert Entry.objects.get(league=league, bot=bot).division is None
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    opponents = set(
        Participation.objects.filter(league=league, match__participations__bot=bot)
        .exclude(bot=bot)
        .values_list("bot_id", flat=True)
    )
    divisions = _divisions(league)
    assert opponents and {divisions[b] for b in opponents} == {2}


def test_a_season_by_time_ends_after_its_last_round_and_a_withdrawn_bot_leaves() -> None:
    from datetime import timedelta

    from django.utils import timezone

    from arena.services import leagues as svc

    league = season_league("Timed", 4, seconds_per_season=3600, divisions=2, division_size=2,
                           promote=1, start_rule="reset")  # fmt: skip
    season = running(league)
    assert season.rounds is None and season.ends_at is not None
    play_round(league)
    assert do_end_due_seasons(league.pk) == []  # its time is not up
    gone = Entry.objects.filter(league=league).order_by("id").first()
    assert gone is not None
    svc.do_withdraw(league, gone.bot)
    Season.objects.filter(pk=season.pk).update(ends_at=timezone.now() - timedelta(seconds=1))
    with pytest.raises(LeagueError, match="its time is up"):
        do_schedule_round(league, enqueue=False)
    assert [e.season for e in do_end_due_seasons(league.pk)] == [1]
    row = SeasonStanding.objects.get(season=season, bot=gone.bot)
    assert row.movement == Movement.LEFT and row.next_division is None
    assert Entry.objects.get(pk=gone.pk).division is None
    nxt = running(league)
    # reset: every bot starts season 2 at 1500, the withdrawn one is not in it
    assert nxt.start_ratings == {
        str(e.bot_id): "1500.0000" for e in Entry.objects.filter(league=league, active=True)
    }
    # three bots left: division 1 full (2), the lowest takes the rest
    assert sorted(d for d in _divisions(league).values()) == [1, 1, 2]
