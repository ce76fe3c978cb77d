"""``manage.py league seasons``: shown, configured (merged with the stored settings),
refused with the option at fault, and the running season ended now, once; against
PostgreSQL, rounds played in this process."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from arena.adapters.play.matches import play_match
from arena.models import Entry, League
from arena.seasons.ending import do_end_season
from arena.seasons.models import Season, SeasonSettings, SeasonStanding, SeasonStatus
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import house_league
from tests.seasons.helpers import play_round, running

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def _seasons(league: League, *options: str) -> str:
    out = StringIO()
    call_command("league", "seasons", league.slug, *options, stdout=out)
    return out.getvalue()


def _settings(league: League) -> dict[str, object]:
    return dict(SeasonSettings.objects.filter(league=league).values().get())


def test_a_league_without_seasons_is_shown_as_one_endless_table() -> None:
    league = house_league("No Seasons", ["random"] * 3)
    out = _seasons(league)
    assert "No Seasons runs as one endless table (no seasons)" in out
    assert f"league seasons {league.slug} --rounds 10" in out
    assert not SeasonSettings.objects.exists() and not Season.objects.exists()
    with pytest.raises(CommandError, match="No Seasons has no running season to end"):
        _seasons(league, "--end-now")


def test_configure_then_merge_a_second_call_then_show() -> None:
    league = house_league("CLI Seasons", ["random"] * 4)
    out = _seasons(league, "--rounds", "3", "--seconds", "7d", "--start", "soft",
                   "--soft-factor", "0.25", "--divisions", "2", "--division-size", "2",
                   "--promote", "1")  # fmt: skip
    stored = _settings(league)
    assert (stored["rounds_per_season"], stored["seconds_per_season"]) == (3, 7 * 86400)
    assert (stored["start_rule"], stored["soft_factor"]) == ("soft", 0.25)
    assert (stored["divisions"], stored["division_size"], stored["promote"]) == (2, 2, 1)
    assert (stored["placement"], stored["placement_games"]) == ("lowest", 10)  # the defaults
    season = running(league)
    assert (season.number, season.rounds, season.start_rule, season.divisions) == (1, 3, "soft", 2)
    assert season.ends_at is not None
    assert season.ends_at - season.started_at == timedelta(days=7)
    divisions = Entry.objects.filter(league=league).values_list("division", flat=True)
    assert sorted(d or 0 for d in divisions) == [1, 1, 2, 2]
    assert "season settings stored: seasons of 3 rounds or 7d (whichever comes first)" in out
    assert "season 1 started" in out
    assert "division 1: 2 bots" in out and "division 2: 2 bots" in out

    # a second call changes what it names and keeps the rest
    out = _seasons(league, "--start", "reset", "--placement", "provisional",
                   "--placement-games", "4", "--seconds", "none")  # fmt: skip
    stored = _settings(league)
    assert (stored["rounds_per_season"], stored["seconds_per_season"]) == (3, None)
    assert (stored["start_rule"], stored["soft_factor"]) == ("reset", 0.25)
    assert (stored["divisions"], stored["division_size"], stored["promote"]) == (2, 2, 1)
    assert (stored["placement"], stored["placement_games"]) == ("provisional", 4)
    assert "4 provisional games, then placed" in out
    assert "they apply from the next season on" in out
    # the running season keeps the rules it started with
    assert running(league).pk == season.pk
    assert (running(league).start_rule, running(league).placement_games) == ("soft", 0)
    assert Season.objects.filter(league=league).count() == 1

    shown = _seasons(league)
    assert "CLI Seasons: seasons of 3 rounds, season Elo reset" in shown
    assert "season 1 running since" in shown and "after its 3 rounds (0 started)" in shown
    assert "division 1: 2 bots" in shown


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--rounds", "0"], "--rounds: a season has 1 to 10000 rounds"),
        (["--divisions", "2"], "--rounds or --seconds: a season ends after a number of rounds"),
        (["--rounds", "2", "--seconds", "10"], "--seconds: a season lasts from a minute"),
        (["--rounds", "2", "--soft-factor", "1.5"], "--soft-factor: the soft reset keeps 0 to 1"),
        (["--rounds", "2", "--divisions", "1", "--placement", "provisional"],
         "--placement: provisional placement is for a league in divisions"),
        (["--rounds", "2", "--divisions", "2", "--division-size", "4", "--promote", "3"],
         "--promote: promote 1 to 2 bots \\(half a division of 4\\), not 3"),
        (["--rounds", "2", "--divisions", "2", "--placement", "provisional",
          "--placement-games", "0"], "--placement-games: a newcomer plays 1 to 1000"),
        (["--rounds", "2", "--divisions", "21"], "--divisions: a league has 1 to 20 divisions"),
        (["--rounds", "2", "--start", "sudden"], "invalid choice: 'sudden'"),
        (["--rounds", "2", "--placement", "highest"], "invalid choice: 'highest'"),
        (["--seconds", "5x"], "'5x': seconds, a duration"),
        (["--seconds", "*/5 * * * *"], "seconds, a duration"),
        (["--rounds", "ten"], "'ten': a number of rounds, or none"),
        (["--rounds", "2", "--end-now"], "give the settings separately"),
    ],
)  # fmt: skip
def test_invalid_settings_are_refused_naming_the_option(options: list[str], message: str) -> None:
    league = house_league("Refused Seasons", ["random"] * 4)
    with pytest.raises(CommandError, match=message):
        _seasons(league, *options)
    assert not SeasonSettings.objects.exists() and not Season.objects.exists()


def test_a_refused_change_keeps_the_stored_settings() -> None:
    league = house_league("Kept Seasons", ["random"] * 4)
    _seasons(league, "--rounds", "2", "--divisions", "2", "--division-size", "2",
             "--promote", "1")  # fmt: skip
    before = _settings(league)
    with pytest.raises(CommandError, match="--promote: promote 1 to 1 bots"):
        _seasons(league, "--promote", "2")
    with pytest.raises(CommandError, match="--rounds or --seconds"):
        _seasons(league, "--rounds", "none")
    assert _settings(league) == before


def test_end_now_freezes_the_table_once_and_starts_the_next_season() -> None:
    league = house_league("Ended Now", ["random"] * 4)
    _seasons(league, "--rounds", "5", "--divisions", "2", "--division-size", "2",
             "--promote", "1")  # fmt: skip
    first = running(league)
    play_round(league)  # one of its five rounds: not due
    # a round of it still playing: refused, nothing ended
    assert do_schedule_round(league, enqueue=False) is not None
    with pytest.raises(CommandError, match="a round of season 1 of Ended Now is still playing"):
        _seasons(league, "--end-now")
    assert do_end_season(first.pk, force=True) is None  # the service refuses it too
    assert running(league).pk == first.pk and not SeasonStanding.objects.exists()
    # the round played out: ended now
    for match in league.rounds.order_by("-number").first().matches.all():  # type: ignore[union-attr]
        play_match(match.pk)
    out = _seasons(league, "--end-now")
    first.refresh_from_db()
    assert first.status == SeasonStatus.ENDED and first.last_round == 2
    assert "season 1 of Ended Now ended: 4 bots, 1 promoted, 1 relegated; season 2 starts" in out
    assert "frozen table of season 1 (rounds 1-2)" in out
    assert out.count("promoted (division 1)") == 1 and out.count("relegated (division 2)") == 1
    assert SeasonStanding.objects.filter(season=first).count() == 4
    second = running(league)
    assert (second.number, second.first_round) == (2, 3)
    assert "season 2 running since" in out
    # once: the same end again does nothing
    assert do_end_season(first.pk, force=True) is None
    assert SeasonStanding.objects.filter(season=first).count() == 4
    assert Season.objects.filter(league=league).count() == 2
