"""The season pages in Debian's headless Chromium at 390 px: the frozen table, the rule
and the zones, no sideways scroll, no JavaScript error under the site's CSP."""

from __future__ import annotations

from typing import Any

import pytest

from arena.seasons.ending import do_end_due_seasons
from tests.seasons.helpers import play_round, season_league
from tests.web.test_site_browser import browser, phone, shot, wide_enough

__all__ = ["browser", "phone"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.processes]


def test_season_pages_on_a_phone(phone: Any, live_server: Any) -> None:
    league = season_league("Phone Seasons", 4, rounds_per_season=1, divisions=2,
                           division_size=2, promote=1)  # fmt: skip
    play_round(league)
    assert [e.season for e in do_end_due_seasons(league.pk)] == [1]
    phone.goto(f"{live_server.url}/leagues/{league.slug}/seasons/1/")
    assert "final standings, frozen" in phone.inner_text("main")
    assert "move up" in phone.inner_text("#season-rule")
    assert phone.locator("tr.zone-up").count() == 1 and phone.locator("tr.zone-down").count() == 1
    assert wide_enough(phone) == 0
    shot(phone, "season-final-phone")
    phone.goto(f"{live_server.url}/leagues/{league.slug}/")
    assert phone.locator("#division-1").count() == 1 and phone.locator("#division-2").count() == 1
    assert wide_enough(phone) == 0
    shot(phone, "league-season-panel-phone")
