"""``GET /api/bots/<name>/analytics/`` keeps the pair embargo as the bot page does: the
counters are added as each result arrives, so while one of a bot's mirrored games is
withheld (its partner still to be played) the API answers them as they were before it."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from arena.adapters.play.matches import play_match
from arena.analytics.models import BotAnalytics
from arena.models import Match, MatchStatus
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round

pytestmark = pytest.mark.django_db


def _analytics(client: Client, name: str, league: str | None) -> dict:  # type: ignore[type-arg]
    query = f"?league={league}" if league else ""
    response = client.get(f"/api/bots/{name}/analytics/{query}")
    assert response.status_code == 200, response.content
    return response.json()


def test_the_analytics_api_counts_a_mirrored_game_only_once_it_is_out(client: Client) -> None:
    cache.clear()
    mirrored = svc.do_create_league(svc.LeagueSettings(name="Held Analytics", deals="mirrored"))
    open_league = svc.do_create_league(svc.LeagueSettings(name="Open Analytics"))
    a = svc.do_create_house_bot("held-analytics-a", "random")
    b = svc.do_create_house_bot("held-analytics-b", "greedy")
    for league in (mirrored, open_league):
        svc.do_enter(league, a)
        svc.do_enter(league, b)
    # one finished game in the independent league: out at once, counted everywhere
    open_round = do_schedule_round(open_league, enqueue=False)
    assert open_round is not None
    assert play_match(sorted(open_round.matches)[0]) is PlayOutcome.FINISHED
    scheduled = do_schedule_round(mirrored, enqueue=False)
    assert scheduled is not None
    first, second = sorted(scheduled.matches)
    assert play_match(first) is PlayOutcome.FINISHED
    assert Match.objects.get(pk=second).status == MatchStatus.QUEUED
    # the counters have the withheld game already; the API must not tell it
    assert BotAnalytics.objects.filter(bot=a, league=mirrored, opponent=None).get().games == 1

    for name in (a.name, b.name):
        held = _analytics(client, name, mirrored.slug)
        assert held["held"] is True
        assert held["overall"]["games"] == 0 and held["opponents"] == []
        everywhere = _analytics(client, name, None)
        assert everywhere["held"] is True
        assert everywhere["overall"]["games"] == 1  # the independent league's game only
        assert [o["games"] for o in everywhere["opponents"]] == [1]
        assert _analytics(client, name, open_league.slug)["held"] is False

    assert play_match(second) is PlayOutcome.FINISHED
    for name in (a.name, b.name):
        out = _analytics(client, name, mirrored.slug)
        assert out["held"] is False and out["overall"]["games"] == 2
        everywhere = _analytics(client, name, None)
        assert everywhere["held"] is False and everywhere["overall"]["games"] == 3
        assert [o["games"] for o in everywhere["opponents"]] == [3]
        assert everywhere["overall"]["decisions"] == sum(
            row.decisions for row in BotAnalytics.objects.filter(bot__name=name, opponent=None)
        )
