"""TV in Chromium (issue 26 §5): two matches really played by the runner (house seats
through a gate, in threads: tests/web/test_site_live.py) while the TV page watches; when
the one it shows ends, its last step is shown and TV goes on to the other. Following a
bot, its match's end leaves the page waiting for its next one."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from arena.ratings.models import LiveRating
from tests.web.test_browser import browser, page, shot, step_is
from tests.web.test_site_live import DEADLINE_S, LiveGame, cleanup, start_live

__all__ = ["browser", "page", "cleanup"]
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.browser,
    pytest.mark.processes,
]
WAIT_MS = DEADLINE_S * 1000


def rate(game: LiveGame, rating: int) -> None:
    LiveRating.objects.filter(league=game.league).update(
        rating=Decimal(rating), shown_rating=Decimal(rating)
    )


def showing(pg: Any, state: str, match: int | None = None) -> None:
    """Wait (generously: the page moves on by itself) for TV to be in ``state``, loaded
    (its viewer built)."""
    pg.wait_for_function(
        "([state, match]) => { const tv = document.getElementById('tv');"
        " return document.readyState === 'complete' && tv && tv.dataset.state === state"
        " && (match === null || tv.dataset.match === String(match)); }",
        arg=[state, match],
        timeout=WAIT_MS,
    )


def test_tv_shows_the_best_live_match_and_moves_on_when_it_ends(
    page: Any, live_server: Any, cleanup: list[LiveGame]
) -> None:
    first = start_live("TV Top", delay=1)
    cleanup.append(first)
    second = start_live("TV Next", delay=1)
    cleanup.append(second)
    rate(first, 1700)  # the higher mean rating: shown first
    rate(second, 1600)
    recorded = first.let(4)
    second.let(2)
    page.goto(f"{live_server.url}/tv/")
    showing(page, "live", first.match.pk)
    step_is(page, recorded - 1)  # the league's delay (1) behind, as the match page
    assert page.input_value("#perspective") == "spectator"
    assert page.locator("#seat-0 .hand .card.agent").count() == 0
    assert "mean rating 1700" in page.inner_text("#tv-reason")
    assert page.locator("header.top nav a", has_text="TV").count() == 1
    more = first.let(3)
    step_is(page, more - 1)  # it follows the game
    shot(page, "tv-live")
    first.finish()
    # the end: the replay plays out to its last step, which stays a few seconds
    showing(page, "ended", first.match.pk)
    page.wait_for_selector("#tv[data-leaving]", timeout=WAIT_MS)
    label = page.inner_text("#step-label")
    last = page.evaluate("window.viewer.frames.length - 1")
    assert label.startswith(f"step {last} "), label
    assert "wins" in page.inner_text("#result")
    assert "Next in" in page.inner_text("#tv-countdown")
    shot(page, "tv-ended")
    # then the next match being played
    showing(page, "live", second.match.pk)
    step_is(page, second.decisions() - 1)
    assert "mean rating 1600" in page.inner_text("#tv-reason")


def test_following_a_bot_waits_for_its_next_match_when_one_ends(
    page: Any, live_server: Any, cleanup: list[LiveGame]
) -> None:
    game = start_live("TV Follow", delay=0)
    cleanup.append(game)
    other = start_live("TV Busy", delay=0)
    cleanup.append(other)
    rate(other, 1900)  # TV's choice, not the followed bot's
    name = game.match.participations.order_by("seat")[0].bot.name
    recorded = game.let(3)
    page.goto(f"{live_server.url}/bots/{name}/")
    page.click("#follow-bot")
    showing(page, "live", game.match.pk)
    step_is(page, recorded)
    game.finish()
    showing(page, "ended", game.match.pk)
    # its only match is over: the page says it is not playing and keeps checking
    showing(page, "none")
    assert f"{name} is not playing now" in page.inner_text("#tv-none")
    assert page.url.endswith(f"/bots/{name}/tv/")
