"""Pages read what a result's own transaction keeps (the shown standings, the head-to-head
records): right after a result, with nothing run for the pages, the standings page's
crosstable and a bot page's results by opponent show it, though every part of both was
cached just before (their keys move with what the result wrote)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.adapters.play.matches import play_match
from arena.models import Match, MatchStatus
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from leaderboard import match_rows
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
