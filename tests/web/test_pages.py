"""The server-rendered pages: what each shows, sorting, and error pages (never a 500)."""

from __future__ import annotations

import pytest
from django.test import Client

from arena.models import BotVersion, Match, MatchStatus
from arena.services.bots import record_hello
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def league():  # noqa: ANN201
    return make_league("Page League", ["random", "greedy", "random"], rounds=2)


def test_home_lists_leagues_with_counts(client: Client, league) -> None:  # noqa: ANN001
    html = client.get("/").content.decode()
    assert 'href="/leagues/page-league/"' in html
    assert f'<td class="num">{Match.objects.count()}</td>' in html
    for link in ('href="/healthz"', 'href="/admin/"', 'href="/api/schema/"', 'href="/api/docs/"'):
        assert link in html
    assert "No match is being played right now." in html


def test_standings_crosstable_and_rounds(client: Client, league) -> None:  # noqa: ANN001
    response = client.get("/leagues/page-league/")
    html = response.content.decode()
    rows = response.context["standings"].rows
    assert [r.rank for r in rows] == [None, None, None]  # all provisional: 8 games each
    for r in rows:
        assert f'href="/bots/{r.bot}/?league=page-league"' in html
        assert r.batch is not None and f"[{r.batch.low:.0f}, {r.batch.high:.0f}]" in html
    assert html.count('class="prov"') >= 3  # provisional marks (and the legend)
    assert 'id="crosstable"' in html and 'class="self"' in html
    table = response.context["crosstable"]
    games = sum(c.games for row in table.rows for c in row if c is not None)
    assert games == 2 * Match.objects.filter(status=MatchStatus.FINISHED).count()
    assert "Round 2" in html and 'href="/matches/' in html
    by_games = client.get("/leagues/page-league/?sort=-bot").context["standings"].rows
    assert [r.bot for r in by_games] == sorted((r.bot for r in rows), reverse=True)
    assert client.get("/leagues/page-league/?round=1").context["shown_round"].number == 1


def test_bot_page(client: Client, league) -> None:  # noqa: ANN001
    record_hello("999999", protocol_version=1, bot_version="ignored")  # unknown bot: no row
    bot = league.entries.first().bot
    record_hello(str(bot.pk), protocol_version=1, bot_version="v1.0")
    record_hello(str(bot.pk), protocol_version=1, bot_version="v1.1")
    record_hello(str(bot.pk), protocol_version=1, bot_version="v1.1")
    assert BotVersion.objects.filter(bot=bot).count() == 2
    response = client.get(f"/bots/{bot.name}/")
    html = response.content.decode()
    assert response.status_code == 200
    assert '<svg class="chart"' in html and "<polyline" in html
    stats = response.context["profile"].stats
    assert sum(o.games for o in stats.opponents) == 8
    assert 'id="opponents"' in html and 'id="faults"' in html and 'id="latency"' in html
    assert 'id="recent"' in html and html.count('href="/matches/') >= 8


def test_match_page_mounts_the_viewer(client: Client, league) -> None:  # noqa: ANN001
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    html = client.get(f"/matches/{match.pk}/").content.decode()
    assert f'data-frames-url="/api/matches/{match.pk}/frames/"' in html
    assert 'data-live="false"' in html and "viewer.js" in html
    assert f'href="/api/matches/{match.pk}/replay/?download=1"' in html
    assert 'id="match-result"' in html
    # the fixture's league deals every game its own deck: no "pair" is promised
    assert match.league.deals == "independent"
    assert (
        f"game {match.mirror + 1} of 2 of this pairing (teams swapped, each game its own deal)"
        in html
    )
    assert "of a pair" not in html and "mirrored" not in html


def test_crafted_urls_give_error_pages_not_500(client: Client, league) -> None:  # noqa: ANN001
    for url, status in [
        ("/leagues/nope/", 404), ("/leagues/page-league/?sort=password", 400),
        ("/leagues/page-league/?round=999", 404), ("/leagues/page-league/?round=-1", 400),
        ("/bots/nobody/", 404), ("/bots/page-league-0/?league=nope", 404),
        ("/matches/99999999/", 404), ("/matches/99999999999999999999999/", 404),
        ("/matches/?status=sideways", 400), ("/matches/?before=abc", 400),
        ("/matches/?league=%00", 400), ("/my/bots/../../etc/passwd", 404), ("/nothing", 404),
    ]:  # fmt: skip
        response = client.get(url)
        assert response.status_code == status, url
        assert "<h1>" in response.content.decode(), url


def test_cached_fragments_follow_new_results(client: Client, league) -> None:  # noqa: ANN001
    from arena.adapters.play.matches import play_match
    from arena.services.rounds import do_schedule_round

    bot = league.entries.first().bot
    before_league = client.get("/leagues/page-league/").content.decode()
    before_bot = client.get(f"/bots/{bot.name}/").content.decode()
    before_api = client.get("/api/matches/?limit=200").json()["results"]
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first = scheduled.matches[0]
    assert "Round 3" not in before_league
    queued = client.get("/leagues/page-league/").content.decode()
    assert "Round 3" in queued and "queued" in queued
    for match_id in scheduled.matches:
        play_match(match_id)
    after_league = client.get("/leagues/page-league/").content.decode()
    after_bot = client.get(f"/bots/{bot.name}/").content.decode()
    after_api = client.get("/api/matches/?limit=200").json()["results"]
    assert after_league != before_league and "queued" not in after_league
    assert f'href="/matches/{first}/"' in after_bot or len(after_bot) != len(before_bot)
    assert len(after_api) == len(before_api) + len(scheduled.matches)
    assert {m["status"] for m in after_api} == {"finished"}
