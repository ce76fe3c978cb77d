"""An event's page in headless Chromium under the site's policy, at 390 px: no CSP
violation, no sideways scroll, and it fills in by itself as the games finish (asked from
Python: the policy forbids wait_for_function)."""

from __future__ import annotations

from typing import Any

import pytest

from arena.adapters.play.matches import play_match
from arena.events.advance import after_result, do_advance, do_start
from arena.services import result_hooks
from tests.events.factory import house_event, play_queued
from tests.web.test_browser import browser
from tests.web.test_csp import strict_page, until
from tests.web.test_site_browser import PHONE, wide_enough

__all__ = ["browser", "strict_page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.processes, pytest.mark.django_db(transaction=True)]


def test_a_knockout_page_fills_in_live_on_a_phone(strict_page: Any, live_server: Any) -> None:
    page = strict_page
    page.set_viewport_size(PHONE)
    t = house_event(
        "Phone Cup With A Long Name", "knockout", ["greedy", "random", "greedy", "random"]
    )
    result_hooks.unregister(after_result)  # this test moves the event on itself
    try:
        first = do_start(t, enqueue=False)
        play_match(first.matches[0])
        page.goto(f"{live_server.url}/events/{t.slug}/")
        page.wait_for_selector(".bracket .tie")
        assert page.evaluate("window.__csp") == []
        assert page.evaluate("document.getElementById('event-body').dataset.live") == "1"
        assert wide_enough(page) == 0
        box = page.locator("header.top nav a").last.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"]
        assert page.locator(".bracket-round").nth(1).inner_text().count("to be decided") == 2

        play_queued(t)
        assert do_advance(t.pk, enqueue=False).round == 2
        # the page asks for its body again and shows the final's two bots
        until(page, "!document.querySelector('.bracket-round:nth-child(2)')"
                    ".textContent.includes('to be decided')")  # fmt: skip
        play_queued(t)
        assert do_advance(t.pk, enqueue=False).finished
        t.refresh_from_db()
        assert t.winner is not None
        until(page, "document.getElementById('event-body').dataset.live === '0'")
        assert f"Winner: {t.winner.name}" in page.inner_text("#event-body")
        assert page.evaluate("window.__csp") == []
        assert wide_enough(page) == 0
    finally:
        result_hooks.register(after_result)
