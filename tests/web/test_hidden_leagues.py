"""The one rule for the leagues that lists leave out (``arena.models.leagues``,
docs/rulings.md "Hidden leagues"), on every surface: listed leagues in lists, ratings and the
bot index; an event's league listed under /events/ only, its pages kept, its games marked
with the event; a challenge league with no page at all (404 saying why), its games shown
marked "requested" on the match list, the bot page, TV and My bots."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from arena.challenges.services import do_challenge
from arena.events.advance import do_start
from arena.models import Bot, BotKind, League, Match, MatchStatus
from tests.events.factory import house_event, play_queued
from tests.leagues.factory import house_league

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def _world() -> dict[str, Any]:
    """A listed league, a rated event played out, and a challenge whose game is over."""
    listed = house_league("Main Hidden", ["random", "greedy"])
    cup = house_event("Spring Cup", "knockout", ["greedy", "random"], rated=True)
    do_start(cup, enqueue=False)
    play_queued(cup)
    alice = User.objects.create_user("alice-h", password="pw-alice-123")
    mine = Bot.objects.create(
        name="alice-h-bot", kind=BotKind.HOUSE, house_spec="greedy", owner=alice
    )
    sparring = Bot.objects.create(name="house-h", kind=BotKind.HOUSE, house_spec="random")
    challenge = do_challenge(alice, mine, sparring, 1, online={mine.pk: True, sparring.pk: True})
    game = Match.objects.get(round=challenge.round)
    Match.objects.filter(pk=game.pk).update(status=MatchStatus.FINISHED, finished_at=timezone.now())
    client = Client()
    client.force_login(alice)
    return {
        "listed": listed, "cup": cup, "event_league": cup.league, "alice": client,
        "mine": mine, "game": game.pk, "hidden": challenge.league,
    }  # fmt: skip


def test_league_lists_and_the_match_filter_hold_listed_leagues_only() -> None:
    w = _world()
    c = Client()
    api = {x["slug"] for x in c.get("/api/leagues/").json()}
    assert w["listed"].slug in api
    assert w["event_league"].slug not in api and w["hidden"].slug not in api
    leagues = c.get("/leagues/").content.decode()
    assert f"/leagues/{w['listed'].slug}/" in leagues
    # the match filter's choices
    choices = c.get("/matches/").content.decode().split('name="league"')[1].split("</select>")[0]
    assert f'value="{w["listed"].slug}"' in choices
    for page in (leagues, choices):
        assert w["event_league"].slug not in page and w["hidden"].slug not in page
    # the event is listed under /events/
    assert f"/events/{w['cup'].slug}/" in c.get("/events/").content.decode()


def test_a_challenge_league_has_no_page_and_says_why() -> None:
    w = _world()
    slug = w["hidden"].slug
    c = Client()
    for path in (
        f"/leagues/{slug}/", f"/leagues/{slug}/seasons/", f"/leagues/{slug}/seasons/1/",
        f"/leagues/{slug}/games/{slug}-2026-12.pgn.gz",
        f"/leagues/{slug}/h2h/{w['mine'].name}/house-h/",
    ):  # fmt: skip
        r = c.get(path)
        assert r.status_code == 404, path
        assert "unrated and have no league page" in r.content.decode(), path
    for path in (
        f"/api/leagues/{slug}/", f"/api/leagues/{slug}/standings/",
        f"/api/leagues/{slug}/seasons/", f"/api/games/?league={slug}",
        f"/api/bots/{w['mine'].name}/analytics/?league={slug}",
    ):  # fmt: skip
        r = c.get(path)
        assert r.status_code == 404, path
        assert "unrated and have no league page" in r.json()["error"], path
    assert c.get("/leagues/no-such-league/").status_code == 404


def test_an_events_league_keeps_its_pages_but_no_rating_list_shows_it() -> None:
    w = _world()
    ev = w["event_league"]
    c = Client()
    assert c.get(f"/leagues/{ev.slug}/").status_code == 200
    assert c.get(f"/api/leagues/{ev.slug}/").json()["slug"] == ev.slug
    assert c.get(f"/api/leagues/{ev.slug}/standings/").status_code == 200
    entrant = ev.entries.select_related("bot").first().bot
    # its ratings are the event's table's, not the bot's ratings (API, page, index)
    assert c.get(f"/api/bots/{entrant.name}/").json()["leagues"] == []
    page = c.get(f"/bots/{entrant.name}/").content.decode()
    assert '<table class="ratings">' not in page
    # its games are on the bot's page, marked with the event and linking to it
    assert (
        f'href="/events/{w["cup"].slug}/">Spring Cup</a> <span class="tag event">event</span>'
        in page
    )
    assert f'/leagues/{ev.slug}/"' not in page.split('id="recent"')[-1]
    index = c.get(f"/bots/?q={entrant.name}").content.decode()
    assert entrant.name in index


def test_a_challenge_game_shows_marked_requested_everywhere_a_bots_games_do() -> None:
    w = _world()
    c = Client()
    tag = '<span class="tag requested"'
    listing = c.get("/matches/").content.decode()
    assert f"/matches/{w['game']}/" in listing and tag in listing
    bot_page = c.get(f"/bots/{w['mine'].name}/").content.decode()
    assert tag in bot_page and f"/leagues/{w['hidden'].slug}/" not in bot_page
    tv = c.get("/tv/").content.decode()
    assert f"/matches/{w['game']}/" in tv and tag in tv
    followed = c.get(f"/bots/{w['mine'].name}/tv/").content.decode()
    assert f"/matches/{w['game']}/" in followed and tag in followed
    match_page = c.get(f"/matches/{w['game']}/").content.decode()
    assert tag in match_page and f"/leagues/{w['hidden'].slug}/" not in match_page
    # the API says where each game was played (the list, cached once over, and one match)
    for _ in range(2):
        listed = {m["id"]: m["played_in"] for m in c.get("/api/matches/").json()["results"]}
        assert listed[w["game"]] == "challenge"
        events = Match.objects.filter(league=w["event_league"]).values_list("pk", flat=True)
        assert {listed[pk] for pk in events} == {"event"}
    assert c.get(f"/api/matches/{w['game']}/").json()["played_in"] == "challenge"
    # the embed and its oEmbed title name no hidden league
    embed = c.get(f"/matches/{w['game']}/embed/").content.decode()
    assert f"Match {w['game']} · requested on" in embed
    url = f"http://testserver/matches/{w['game']}/"
    title = c.get("/oembed/", {"url": url}).json()["title"]
    assert title.startswith(f"Match {w['game']} (requested): ")
    my = w["alice"].get("/my/bots/").content.decode()
    assert "+1 requested" in my
    assert League.objects.listed().filter(pk=w["hidden"].pk).count() == 0
