"""TV (issue 26 §5): the choice rule (``leaderboard.reads.tv``), ``/api/tv/`` and the TV
pages in Django's client, over matches really claimed by a worker (running, not played).
The browser test, where a match is really played and TV moves on when it ends, is in
tests/web/test_site_tv.py."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from arena.adapters.play.matches import do_claim_match, play_match
from arena.models import League, Match, MatchStatus
from arena.ratings.models import LiveRating
from arena.services import leagues as svc
from arena.services.rounds import do_schedule_round
from leaderboard.reads import tv as tv_reads

pytestmark = pytest.mark.django_db


def running(
    name: str, ratings: tuple[int, int], *, deals: str = "independent", minutes_ago: int = 10
) -> Match:
    """A league of two house bots with these shown ratings whose first game is being played
    (claimed) and whose second is queued; the running game."""
    league = svc.do_create_league(svc.LeagueSettings(name=name, deals=deals))
    bots = []
    for i, rating in enumerate(ratings):
        bot = svc.do_create_house_bot(f"{league.slug}-{i}", "random")
        svc.do_enter(league, bot)
        LiveRating.objects.update_or_create(
            league=league, bot=bot,
            defaults={"rating": Decimal(rating), "shown_rating": Decimal(rating)},
        )  # fmt: skip
        bots.append(bot)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first = sorted(scheduled.matches)[0]
    assert do_claim_match(first, "tv-test") is not None
    Match.objects.filter(pk=first).update(
        started_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    match = Match.objects.get(pk=first)
    assert match.status == MatchStatus.RUNNING
    return match


def chosen(client: Client, query: str = "") -> dict:  # type: ignore[type-arg]
    response = client.get(f"/api/tv/{query}")
    assert response.status_code == 200, response.content
    return response.json()  # type: ignore[no-any-return]


def test_the_rule_picks_the_highest_mean_rating_then_the_closest(client: Client) -> None:
    wide = running("TV Wide", (1600, 1400))  # mean 1500
    best = running("TV Best", (1550, 1550))  # mean 1550, gap 0
    close = running("TV Close", (1560, 1540))  # mean 1550, gap 20
    data = chosen(client)
    assert data["match"] == best.pk and data["url"] == f"/matches/{best.pk}/"
    assert [c["match"] for c in data["live"]] == [best.pk, close.pk, wide.pk]
    assert "mean rating 1550" in data["reason"] and "0 between the teams" in data["reason"]
    assert data["rule"] == tv_reads.RULE and data["tv_url"] == "/tv/"
    page = client.get("/tv/").content.decode()
    assert f'data-frames-url="/api/matches/{best.pk}/frames/"' in page
    assert 'data-live="true"' in page and f'data-on-end="/tv/?ended={best.pk}"' in page
    assert escape(tv_reads.RULE) in page and "8 seconds" in page


def test_ties_go_to_the_most_recently_started(client: Client) -> None:
    older = running("TV Older", (1500, 1500), minutes_ago=20)
    newer = running("TV Newer", (1500, 1500), minutes_ago=5)
    assert chosen(client)["match"] == newer.pk
    Match.objects.filter(pk=older.pk).update(started_at=timezone.now())
    assert chosen(client)["match"] == older.pk


def test_a_game_whose_pair_partner_is_not_over_comes_after_the_watchable_ones(
    client: Client,
) -> None:
    # the mirrored game shares its deck with the queued partner: only its deal is shown
    deal_only = running("TV Mirrored", (1900, 1900), deals="mirrored")
    watchable = running("TV Plain", (1400, 1400))
    data = chosen(client)
    assert data["match"] == watchable.pk
    assert [(c["match"], c["watchable"]) for c in data["live"]] == [
        (watchable.pk, True), (deal_only.pk, False),
    ]  # fmt: skip
    # alone, it is shown (its deal), and the reason says so
    Match.objects.filter(pk=watchable.pk).update(status=MatchStatus.VOID)
    data = chosen(client)
    assert data["match"] == deal_only.pk and "only its deal" in data["reason"]
    # once its partner is over, it is watchable
    partner = Match.objects.filter(league=deal_only.league).exclude(pk=deal_only.pk).get()
    play_match(partner.pk)
    assert chosen(client)["live"][0] == {
        "match": deal_only.pk, "url": f"/matches/{deal_only.pk}/", "watchable": True,
        "mean_rating": 1900.0, "gap": 0.0,
    }  # fmt: skip


def test_nothing_live_answers_none_and_lists_recent_matches(client: Client) -> None:
    league = svc.do_create_league(svc.LeagueSettings(name="TV Quiet"))
    for i in range(2):
        svc.do_enter(league, svc.do_create_house_bot(f"{league.slug}-{i}", "random"))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    for match_id in scheduled.matches:
        play_match(match_id)
    data = chosen(client)
    assert data["match"] is None and data["url"] is None and data["live"] == []
    assert data["reason"] == "no match is being played now"
    page = client.get("/tv/").content.decode()
    assert 'data-state="none"' in page and "No match is being played now" in page
    assert "checks every 15 seconds" in page
    for match_id in scheduled.matches:
        assert f'href="/matches/{match_id}/"' in page  # recent finished matches
    assert 'id="viewer"' not in page


def test_following_a_bot_shows_its_match_or_says_it_is_not_playing(client: Client) -> None:
    theirs = running("TV Follow", (1400, 1400))
    running("TV Other", (1700, 1700))
    name = theirs.participations.order_by("seat").first().bot.name  # type: ignore[union-attr]
    data = chosen(client, f"?bot={name}")
    assert data["bot"] == name and data["match"] == theirs.pk
    assert data["tv_url"] == f"/bots/{name}/tv/"
    page = client.get(f"/bots/{name}/tv/").content.decode()
    assert f'data-frames-url="/api/matches/{theirs.pk}/frames/"' in page
    assert f'data-on-end="/bots/{name}/tv/?ended={theirs.pk}"' in page
    assert f'href="/bots/{name}/tv/"' in client.get(f"/bots/{name}/").content.decode()
    # a bot that is not playing: none, and the page waits for its next match
    idle = svc.do_create_house_bot("tv-idle", "random")
    data = chosen(client, f"?bot={idle.name}")
    assert data["match"] is None and data["reason"] == "tv-idle is not playing now"
    page = client.get(f"/bots/{idle.name}/tv/").content.decode()
    assert 'data-state="none"' in page and "tv-idle is not playing now" in page
    assert f'data-api-url="/api/tv/?bot={idle.name}"' in page


def test_an_ended_match_is_shown_at_its_end_then_tv_moves_on(client: Client) -> None:
    live = running("TV Ended", (1500, 1500))
    done = Match.objects.filter(league=live.league).exclude(pk=live.pk).get()
    play_match(done.pk)
    page = client.get(f"/tv/?ended={done.pk}").content.decode()
    assert 'data-state="ended"' in page and 'data-live="false"' in page
    last = len(client.get(f"/api/matches/{done.pk}/frames/").json()["frames"]) - 1
    assert f'data-last-step="{last}"' in page and "stays 8 seconds" in page
    # a match still being played is no ended match: TV shows what is live
    page = client.get(f"/tv/?ended={live.pk}").content.decode()
    assert 'data-state="live"' in page
    # following a bot, only its own matches end there
    other = running("TV Elsewhere", (1500, 1500))
    name = other.participations.first().bot.name  # type: ignore[union-attr]
    page = client.get(f"/bots/{name}/tv/?ended={done.pk}").content.decode()
    assert 'data-state="live"' in page and f"?ended={other.pk}" in page


def test_bad_input_gets_a_clear_answer(client: Client) -> None:
    response = client.get("/api/tv/?bot=nobody-here")
    assert response.status_code == 404 and "nobody-here" in response.json()["error"]
    for query in ("?bot=..bad", "?bot=" + "x" * 65, "?bot=a%00b", "?channel=1", "?bot=a&x=1"):
        response = client.get(f"/api/tv/{query}")
        assert response.status_code == 400, query
        assert response.json()["error"], query
    assert client.get("/bots/nobody-here/tv/").status_code == 404
    # the page ignores an ended id it cannot use
    for query in ("?ended=abc", "?ended=99999999", "?ended=" + "9" * 30, "?ended=%00"):
        response = client.get(f"/tv/{query}")
        assert response.status_code == 200 and b'data-state="none"' in response.content
    assert League.objects.count() == 0
