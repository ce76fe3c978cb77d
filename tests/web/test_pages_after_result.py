"""What one result changes on the standings page and a bot page, whose parts are cached
by what they show (``leaderboard.fragments``, ``leaderboard.match_rows``): exactly the
rows it moved, at once, with the local cache and with the Redis cache a deployment uses;
and a finished game of a mirrored pair shows nowhere while its partner is to be played."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from arena.adapters.play.matches import play_match
from arena.models import League, Match, MatchStatus
from arena.ratings.models import LiveRating
from arena.services import leagues as svc
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from tests.web.helpers import make_league

pytestmark = pytest.mark.django_db


def _table(html: str, css: str) -> str:
    found = re.search(rf'<table class="{css}"[^>]*>(.*?)</table>', html, re.S)
    assert found, css
    return found.group(1)


def _rows_by_bot(html: str, css: str) -> dict[str, str]:
    """The table's body rows, by the bot (or league) each links to first."""
    body = _table(html, css).split("<tbody>", 1)[1]
    rows = re.findall(r"<tr[^>]*>.*?</tr>", body, re.S)
    out = {}
    for row in rows:
        link = re.search(r'href="/(?:bots|leagues)/([^/]+)/', row)
        if link:
            out[link.group(1)] = row
    return out


def _counts(row: str) -> list[int]:
    """Games, W, L, forfeits: the row's last four number cells."""
    return [int(n) for n in re.findall(r'<td class="num">(\d+)</td>', row)[-4:]]


def _match_row(html: str, match_id: int) -> str:
    found = re.search(rf'<tr class="status-\w+">\s*<td><a href="/matches/{match_id}/".*?</tr>',
                      html, re.S)  # fmt: skip
    assert found, match_id
    return found.group(0)


def _shown(league: League) -> dict[str, list[int]]:
    return {
        name: [g, w, lo, f]
        for name, g, w, lo, f in LiveRating.objects.filter(league=league).values_list(
            "bot__name", "shown_games", "shown_wins", "shown_losses", "shown_forfeits"
        )
    }


def test_a_result_changes_exactly_its_rows(page_cache: str, client: Client) -> None:
    league = make_league("After League", ["random", "greedy", "random", "greedy"], rounds=1)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    url = f"/leagues/{league.slug}/"
    before = client.get(url).content.decode()  # every part cached, the new round queued
    played = Match.objects.get(pk=scheduled.matches[0])
    seats = {p.bot.name for p in played.participations.select_related("bot")}
    bots_before = {name: client.get(f"/bots/{name}/").content.decode() for name in seats}
    assert play_match(played.pk) is PlayOutcome.FINISHED

    after = client.get(url).content.decode()
    old, new = _rows_by_bot(before, "standings"), _rows_by_bot(after, "standings")
    assert set(old) == set(new) and len(new) == 4
    shown = _shown(league)
    for name in new:
        assert _counts(new[name]) == shown[name]
        if name in seats:
            assert _counts(new[name])[0] == _counts(old[name])[0] + 1
        else:
            assert new[name] == old[name]
    # the round's table: the played match's row shows its result, the others are queued
    row = _match_row(after, played.pk)
    assert 'class="status-finished"' in row and re.search(r"team [AB] · ", row)
    assert "queued" in _match_row(before, played.pk)
    for other in scheduled.matches[1:]:
        assert _match_row(after, other) == _match_row(before, other)

    for name in seats:
        page = client.get(f"/bots/{name}/").content.decode()
        assert page != bots_before[name]
        ratings = _rows_by_bot(page, "ratings")[league.slug]
        assert _counts(ratings) == shown[name]
        recent = _match_row(page, played.pk)
        assert re.search(r'<span class="(won|lost)">', recent)
        opponents = _table(page, "opponents")
        games = sum(int(n) for n in re.findall(r'</a></td><td class="num">(\d+)</td>', opponents))
        assert games == shown[name][0]


def test_a_withheld_mirrored_result_shows_nowhere_until_its_partner_is_over(
    page_cache: str, client: Client
) -> None:
    league = svc.do_create_league(svc.LeagueSettings(name="Embargo League", deals="mirrored"))
    names = []
    for i, spec in enumerate(["random", "greedy"]):
        bot = svc.do_create_house_bot(f"{league.slug}-{i}", spec)
        svc.do_enter(league, bot)
        names.append(bot.name)
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    first, second = sorted(scheduled.matches)
    url = f"/leagues/{league.slug}/"
    client.get(url)  # cached before the result: the pages must follow it
    for name in names:
        client.get(f"/bots/{name}/")
    assert play_match(first) is PlayOutcome.FINISHED
    assert Match.objects.get(pk=second).status == MatchStatus.QUEUED
    assert LiveRating.objects.filter(league=league, games=1).count() == 2  # rated, not shown

    page = client.get(url).content.decode()
    for name, row in _rows_by_bot(page, "standings").items():
        assert _counts(row) == [0, 0, 0, 0], name
    row = _match_row(page, first)
    assert 'class="status-finished"' in row and "team A" not in row and "team B" not in row
    assert "winner" not in row
    for name in names:
        bot_page = client.get(f"/bots/{name}/").content.decode()
        assert _counts(_rows_by_bot(bot_page, "ratings")[league.slug]) == [0, 0, 0, 0]
        recent = _match_row(bot_page, first)
        assert 'class="won"' not in recent and 'class="lost"' not in recent
        assert "No finished game yet." in _table(bot_page, "opponents")
        assert "(0 games shown)" in bot_page
        # its analytics counters have the game already: the page shows them as before it
        assert 'id="analytics-held"' in bot_page and 'id="analytics"' not in bot_page

    # the partner is played: both results are out, on both pages
    assert play_match(second) is PlayOutcome.FINISHED
    page = client.get(url).content.decode()
    for name, row in _rows_by_bot(page, "standings").items():
        games, wins, losses, _ = _counts(row)
        assert games == 2 and wins + losses == 2, name
    assert re.search(r"team [AB] · ", _match_row(page, first))
    for name in names:
        bot_page = client.get(f"/bots/{name}/").content.decode()
        assert _counts(_rows_by_bot(bot_page, "ratings")[league.slug])[0] == 2
        for match_id in (first, second):
            assert re.search(r'<span class="(won|lost)">', _match_row(bot_page, match_id))
        assert "(2 games shown)" in bot_page
        assert 'id="analytics-held"' not in bot_page
        overall = re.search(r'<tr class="overall"><th>all opponents</th><td class="num">(\d+)</td>',
                            _table(bot_page, "analytics"))  # fmt: skip
        assert overall and overall.group(1) == "2"
