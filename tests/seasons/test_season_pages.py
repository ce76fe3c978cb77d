"""The season pages, the league page's panel, the bot page and the API show the frozen
table and the rule (Django's test client against PostgreSQL)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.models import Bot
from arena.seasons.ending import do_end_due_seasons
from arena.seasons.models import Movement, SeasonStanding
from tests.seasons.helpers import play_round, season_league

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_pages_show_the_frozen_table_the_rule_and_the_zones() -> None:
    league = season_league("Paged", 4, rounds_per_season=1, divisions=2, division_size=2,
                           promote=1, start_rule="soft", soft_factor=0.5)  # fmt: skip
    client = Client()
    page = client.get(f"/leagues/{league.slug}/").content.decode()
    # running: the rule, both divisions, one bot in each zone of each division
    assert "Season 1" in page and "soft reset" not in page  # the sentence, not the name
    assert "the top 1 of each move up and the bottom 1 move down" in page
    assert 'id="division-1"' in page and 'id="division-2"' in page
    assert page.count('class="zone-up"') == 1 and page.count('class="zone-down"') == 1
    play_round(league)
    assert [e.season for e in do_end_due_seasons(league.pk)] == [1]
    up = SeasonStanding.objects.get(season__number=1, movement=Movement.UP)
    down = SeasonStanding.objects.get(season__number=1, movement=Movement.DOWN)

    final = client.get(f"/leagues/{league.slug}/seasons/1/")
    assert final.status_code == 200
    html = final.content.decode()
    assert "final standings, frozen" in html
    assert "plus 0.5 times its distance from the mean" in html
    assert html.count("▲ promoted") == 1 and html.count("▼ relegated") == 1
    assert re.search(rf"{up.bot.name}</a>.*?▲ promoted", html, re.S)
    assert 'id="season-crosstable"' in html
    listing = client.get(f"/leagues/{league.slug}/seasons/").content.decode()
    assert "Season 1" in listing and "Season 2" in listing and "ended" in listing
    assert client.get(f"/leagues/{league.slug}/seasons/9/").status_code == 404
    # the league page links the last season's final table, and shows season 2 running
    page = client.get(f"/leagues/{league.slug}/").content.decode()
    assert "Season 2" in page and "s final table</a>" in page
    # the bot page lists its past season, division and place
    bot_page = client.get(f"/bots/{down.bot.name}/").content.decode()
    assert 'id="bot-seasons"' in bot_page and "▼ relegated" in bot_page

    api = client.get(f"/api/leagues/{league.slug}/seasons/1/").json()
    assert api["status"] == "ended" and api["start_rule"] == "soft"
    lines = [x for d in api["divisions"] for x in d["standings"]]
    assert {x["bot"]: x["zone"] for x in lines if x["zone"]} == {
        up.bot.name: "up", down.bot.name: "down",
    }  # fmt: skip
    assert all(x["fit_elo"] is not None for x in lines)
    assert [s["number"] for s in client.get(f"/api/leagues/{league.slug}/seasons/").json()] == [
        2, 1,
    ]  # fmt: skip
    assert client.get(f"/api/leagues/{league.slug}/seasons/7/").status_code == 404
    assert Bot.objects.filter(season_rows__isnull=False).distinct().count() == 4


def test_a_league_without_seasons_is_as_before() -> None:
    from tests.leagues.factory import house_league

    league = house_league("Plain", ["random"] * 2)
    page = Client().get(f"/leagues/{league.slug}/").content.decode()
    assert 'id="season"' not in page
    assert Client().get(f"/api/leagues/{league.slug}/seasons/").json() == []


def test_the_pages_and_the_api_say_how_a_new_bot_is_placed() -> None:
    lowest = season_league("Placed lowest", 4, rounds_per_season=2, divisions=2,
                           division_size=2, promote=1)  # fmt: skip
    provisional = season_league("Placed provisionally", 4, rounds_per_season=2, divisions=2,
                                division_size=2, promote=1, placement="provisional",
                                placement_games=6)  # fmt: skip
    client = Client()
    page = client.get(f"/leagues/{lowest.slug}/").content.decode()
    assert "a new bot starts in the lowest division" in page
    assert client.get(f"/api/leagues/{lowest.slug}/seasons/").json()[0]["placement_games"] == 0
    page = client.get(f"/leagues/{provisional.slug}/").content.decode()
    assert "a new bot first plays 6 provisional games against bots of every division" in page
    assert "lowest division" not in page
    api = client.get(f"/api/leagues/{provisional.slug}/seasons/1/").json()
    assert api["placement_games"] == 6 and "6 provisional games" in api["rule"]
