"""Right after a result, with nothing run for the pages after its commit, the standings
page and a bot page viewed (and cached) before it show it, and they are exactly the pages
a visitor builds from the database with nothing cached (new standings, crosstable and
statistics, a withheld mirrored game hidden as before, released when its partner ends
void); with the cache unreachable the result is written and the pages answer right from
the database. What they show is kept by the result's own transaction (the shown
standings, the head-to-head records, the rounds' counts), and each cached part is keyed
by what it shows.

Real commits (``transaction=True``), as in a worker."""

from __future__ import annotations

import re
import uuid

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from arena.adapters.play.matches import play_match
from arena.models import League, Match, MatchStatus
from arena.ratings.models import LiveRating
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome, do_claim_match, do_void_attempt
from arena.services.rounds import do_schedule_round
from tests.web.helpers import make_league
from tests.web.test_pages_after_result import _counts, _match_row, _rows_by_bot, _table

pytestmark = pytest.mark.django_db(transaction=True)


def _get(client: Client, url: str) -> tuple[str, list[str]]:
    """The page and the SQL statements its request ran."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode(), [q["sql"] for q in queries.captured_queries]


def _built_fresh(client: Client, url: str) -> str:
    """The page as a visitor builds it from the database, with nothing cached."""
    cache.clear()
    page, _ = _get(client, url)
    return page


def _league_parts(page: str) -> list[str]:
    """What a result changes on the standings page: the standings, the crosstable, the
    rounds and the shown round's matches."""
    return [_table(page, css) for css in ("standings", "crosstable", "rounds", "matches")]


def _shown(league: League) -> dict[str, list[int]]:
    return {
        name: [g, w, lo, f]
        for name, g, w, lo, f in LiveRating.objects.filter(league=league).values_list(
            "bot__name", "shown_games", "shown_wins", "shown_losses", "shown_forfeits"
        )
    }


def _opponent_games(page: str) -> int:
    opponents = _table(page, "opponents")
    return sum(int(n) for n in re.findall(r'</a></td><td class="num">(\d+)</td>', opponents))


def test_a_page_cached_before_a_result_is_current_right_after_it(
    page_cache: str, client: Client
) -> None:
    league = make_league("Watched League", ["random", "greedy", "random", "greedy"], rounds=1)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    url = f"/leagues/{league.slug}/"
    played = Match.objects.get(pk=scheduled.matches[0])
    seats = sorted(p.bot.name for p in played.participations.select_related("bot"))
    pages = [url] + [f"/bots/{name}/" for name in seats]
    for page_url in pages:
        client.get(page_url)  # every part cached
    before, _ = _get(client, url)

    assert play_match(played.pk) is PlayOutcome.FINISHED

    assert _get(client, url)[0] != before
    shown = _shown(league)
    after, _ = _get(client, url)
    rows = _rows_by_bot(after, "standings")
    assert {name: _counts(row) for name, row in rows.items()} == shown
    for name in seats:
        assert _counts(rows[name])[0] == _counts(_rows_by_bot(before, "standings")[name])[0] + 1
    assert re.search(r"team [AB] · ", _match_row(after, played.pk))
    bot_pages = {name: _get(client, f"/bots/{name}/")[0] for name in seats}
    for name, page in bot_pages.items():
        assert _counts(_rows_by_bot(page, "ratings")[league.slug]) == shown[name]
        assert _opponent_games(page) == shown[name][0]
        assert re.search(r'<span class="(won|lost)">', _match_row(page, played.pk))
    # exactly what a visitor builds from the database
    assert _league_parts(after) == _league_parts(_built_fresh(client, url))
    for name, page in bot_pages.items():
        assert page == _built_fresh(client, f"/bots/{name}/")


def test_a_withheld_mirrored_game_stays_hidden_right_after_its_result(
    page_cache: str, client: Client
) -> None:
    league = svc.do_create_league(svc.LeagueSettings(name="Watched Pair", deals="mirrored"))
    names = []
    for i, spec in enumerate(["random", "greedy"]):
        bot = svc.do_create_house_bot(f"{league.slug}-{i}", spec)
        svc.do_enter(league, bot)
        names.append(bot.name)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first, second = sorted(scheduled.matches)
    url = f"/leagues/{league.slug}/"
    pages = [url] + [f"/bots/{name}/" for name in names]
    for page_url in pages:
        client.get(page_url)  # every part cached

    assert play_match(first) is PlayOutcome.FINISHED
    assert Match.objects.get(pk=second).status == MatchStatus.QUEUED
    page, _ = _get(client, url)
    for name, row in _rows_by_bot(page, "standings").items():
        assert _counts(row) == [0, 0, 0, 0], name
    row = _match_row(page, first)
    assert 'class="status-finished"' in row and "team A" not in row and "team B" not in row
    bot_pages = {name: _get(client, f"/bots/{name}/")[0] for name in names}
    for bot_page in bot_pages.values():
        assert _counts(_rows_by_bot(bot_page, "ratings")[league.slug]) == [0, 0, 0, 0]
        assert "No finished game yet." in _table(bot_page, "opponents")
        assert "(0 games shown)" in bot_page
        recent = _match_row(bot_page, first)
        assert 'class="won"' not in recent and 'class="lost"' not in recent
    assert _league_parts(page) == _league_parts(_built_fresh(client, url))
    for name, bot_page in bot_pages.items():
        assert bot_page == _built_fresh(client, f"/bots/{name}/")

    for page_url in pages:
        client.get(page_url)  # cached again after the fresh builds cleared the cache
    assert play_match(second) is PlayOutcome.FINISHED
    page, _ = _get(client, url)
    for name, row in _rows_by_bot(page, "standings").items():
        games, wins, losses, _ = _counts(row)
        assert games == 2 and wins + losses == 2, name
    assert re.search(r"team [AB] · ", _match_row(page, first))
    for name in names:
        bot_page, _ = _get(client, f"/bots/{name}/")
        assert _counts(_rows_by_bot(bot_page, "ratings")[league.slug])[0] == 2
        assert _opponent_games(bot_page) == 2
        assert "(2 games shown)" in bot_page
        assert bot_page == _built_fresh(client, f"/bots/{name}/")


def test_with_the_cache_unreachable_results_are_written_and_pages_are_current(
    settings,
    client: Client,  # noqa: ANN001 - pytest-django's settings
) -> None:
    league = make_league("Outage League", ["random", "greedy", "random"], rounds=1)
    settings.CACHES = {
        "default": {
            "BACKEND": "arena.cache.ResilientRedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens: refused at once
            "KEY_PREFIX": f"test-outage-{uuid.uuid4().hex}",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 2.0},
        }
    }
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    url = f"/leagues/{league.slug}/"
    client.get(url)
    for match_id in scheduled.matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
        page, _ = _get(client, url)
        rows = _rows_by_bot(page, "standings")
        assert {name: _counts(row) for name, row in rows.items()} == _shown(league)
        assert re.search(r"team [AB] · ", _match_row(page, match_id))
    for name, counts in _shown(league).items():
        bot_page, _ = _get(client, f"/bots/{name}/")
        assert _counts(_rows_by_bot(bot_page, "ratings")[league.slug]) == counts
        assert _opponent_games(bot_page) == counts[0]


def test_a_partner_void_after_its_last_attempt_releases_the_result_on_the_page(
    page_cache: str,
    client: Client,
    settings,  # noqa: ANN001 - pytest-django's settings
) -> None:
    """The game is out once its mirrored partner is over, also when that partner ends void
    (``do_void_attempt``'s last attempt): the standings page, cached before, shows it."""
    settings.ARENA_MAX_ATTEMPTS = 1
    league = svc.do_create_league(svc.LeagueSettings(name="Void Pair", deals="mirrored"))
    for i, spec in enumerate(["random", "greedy"]):
        svc.do_enter(league, svc.do_create_house_bot(f"{league.slug}-{i}", spec))
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first, second = sorted(scheduled.matches)
    url = f"/leagues/{league.slug}/"
    assert play_match(first) is PlayOutcome.FINISHED
    page, _ = _get(client, url)  # cached with the game withheld
    assert all(_counts(row)[0] == 0 for row in _rows_by_bot(page, "standings").values())
    claim = do_claim_match(second, "test-worker")
    assert claim is not None
    assert do_void_attempt(claim, "the runner's host went away") is PlayOutcome.VOID
    page, _ = _get(client, url)
    rows = _rows_by_bot(page, "standings")
    assert {name: _counts(row) for name, row in rows.items()} == _shown(league)
    assert all(_counts(row)[0] == 1 for row in rows.values())
