"""Pages read what a result's own transaction keeps (the shown standings, the head-to-head
records): right after a result, with nothing run for the pages, the standings page's
crosstable and a bot page's results by opponent show it, though every part of both was
cached just before (their keys move with what the result wrote)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from arena.adapters.play.matches import play_match
from arena.models import Match, MatchStatus
from arena.ratings.models import BatchRating
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from leaderboard import match_rows
from leaderboard.reads import leagues as league_reads
from tests.leagues.factory import house_league
from tests.ratings.test_head_to_head import _stored

pytestmark = pytest.mark.services


def _cell(page: str, a: str, b: str) -> str:
    """The crosstable cell of row bot ``a`` against column bot ``b`` (its title)."""
    found = re.search(rf'title="{re.escape(a)} against {re.escape(b)}: ([^"]+)"', page)
    return found.group(1) if found else ""


@pytest.mark.django_db
def test_pages_show_a_result_at_once_from_the_records(page_cache: str, client: Client) -> None:
    """Viewed before a result (every part cached), the standings page's crosstable and a
    bot page's results by opponent show the result on the next request: nothing ran for
    the pages after the result; their keys moved with what the result wrote."""
    league = house_league("Records shown", ["random", "greedy"])
    a, b = sorted(league.entries.values_list("bot__name", flat=True))
    url = f"/leagues/{league.slug}/"
    for _ in range(2):
        scheduled = do_schedule_round(league, enqueue=False)
        assert scheduled is not None
        for match_id in scheduled.matches:
            before = client.get(url).content.decode(), client.get(f"/bots/{a}/").content.decode()
            assert play_match(match_id) is PlayOutcome.FINISHED
            record = _stored(league)
            games, wins = record[(league.entries.get(bot__name=a).bot_id,
                                  league.entries.get(bot__name=b).bot_id)]  # fmt: skip
            page = client.get(url).content.decode()
            assert (
                _cell(page, a, b)
                == f"{wins} won, {games - wins} lost of {games}, "
                + (_cell(page, a, b).split(", ")[-1])
            )
            assert _cell(page, a, b) != _cell(before[0], a, b)
            bot_page = client.get(f"/bots/{a}/").content.decode()
            opponents = bot_page.split('id="opponents"')[1].split("</table>")[0]
            assert f'<td class="num">{games}</td><td class="num">{wins}</td>' in opponents
            assert bot_page != before[1]


@pytest.mark.django_db
def test_the_standings_page_shows_a_large_rounds_latest_matches_and_links_to_all(
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A round with more matches than the page shows (``ROUND_MATCHES``; 3 here): the
    one being played first, then the latest to end; the match list has all of them."""
    monkeypatch.setattr(match_rows, "ROUND_MATCHES", 3)
    league = house_league("Big round", ["random", "greedy", "random"])
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None and len(scheduled.matches) == 6
    first, second, *rest = sorted(scheduled.matches)
    for match_id in (first, second, rest[0]):
        assert play_match(match_id) is PlayOutcome.FINISHED
    Match.objects.filter(pk=rest[1]).update(status=MatchStatus.RUNNING)
    page = client.get(f"/leagues/{league.slug}/").content.decode()
    table = page.split('id="round"')[1].split("</table>")[0]
    shown = {int(m) for m in re.findall(r'href="/matches/(\d+)/"', table)}
    assert shown == {rest[1], rest[0], second}
    more = page.split('id="round-more"')[1].split("</p>")[0]
    assert "3 of its 6 matches" in more
    assert f"?league={league.slug}&amp;round=1" in more
    listed = client.get(f"/matches/?league={league.slug}&round=1").content.decode()
    assert all(f'href="/matches/{m}/"' in listed for m in scheduled.matches)


def _crosstable(page: str) -> str:
    return page.split('id="crosstable"')[1].split("</table>")[0]


@pytest.mark.django_db
def test_the_crosstable_is_cached_by_what_it_shows(
    page_cache: str,
    client: Client,
    settings,
    monkeypatch: pytest.MonkeyPatch,  # noqa: ANN001
) -> None:
    """The crosstable section is cached under the top bots and their wins against each
    other (``CROSSTABLE_MAX``: 2 of 3 here, in the order of a fit that stays put), not
    the standings' version: after each result, whether it was between the top bots or
    not, the page viewed just before it shows what a page built from nothing cached
    shows."""
    monkeypatch.setattr(league_reads, "CROSSTABLE_MAX", 2)
    league = house_league("Top two", ["random", "greedy", "random"])
    now = timezone.now()
    for i, entry in enumerate(league.entries.order_by("bot__name")):
        elo = 1600.0 - 100 * i
        BatchRating.objects.create(
            league=league, bot_id=entry.bot_id, elo=elo, low=elo - 50, high=elo + 50,
            rank=i + 1, rank_low=i + 1, rank_high=i + 1, games=0, bootstrap=0, matches=0,
            computed_at=now,
        )  # fmt: skip
    url = f"/leagues/{league.slug}/"
    caches = settings.CACHES
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None and len(scheduled.matches) == 6
    for match_id in scheduled.matches:
        settings.CACHES = caches
        client.get(url)
        assert play_match(match_id) is PlayOutcome.FINISHED
        warm = _crosstable(client.get(url).content.decode())
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
        assert warm == _crosstable(client.get(url).content.decode())
        assert warm.count('<tr><th class="rowhead">') == 2
