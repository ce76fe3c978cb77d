"""The challenge pages in Debian's headless Chromium, under the site's Content-Security-
Policy (a violation fails) and at 390 px (no sideways scroll): sign in, the bot page's
form sends a challenge by a click, the first game's page shows its box, My bots' switch
and My challenges render."""

from __future__ import annotations

from typing import Any

import pytest

from tests.challenges.conftest import People
from tests.web.test_browser import browser  # noqa: F401 - the fixture
from tests.web.test_csp import strict_page, visit  # noqa: F401 - the fixture
from tests.web.test_site_browser import PHONE, wide_enough

pytestmark = [pytest.mark.browser, pytest.mark.processes, pytest.mark.services]


def test_send_a_challenge_by_its_form_under_the_policy_and_at_390_px(
    strict_page: Any,  # noqa: F811
    live_server: Any,
    people: People,
    queue: str,
) -> None:
    pg = strict_page
    base = live_server.url
    pg.set_viewport_size(PHONE)
    visit(pg, f"{base}/accounts/login/", "#id_username")
    pg.fill("#id_username", "alice")
    pg.fill("#id_password", "pw-alice-123")
    pg.click("button[type=submit], input[type=submit]")
    visit(pg, f"{base}/my/bots/", "#accepts-challenges")
    assert wide_enough(pg) == 0
    visit(pg, f"{base}/bots/{people.house.name}/", "#challenge-form")
    assert wide_enough(pg) == 0
    pg.select_option("#challenge-games", "3")
    pg.click("#challenge-form button[type=submit]")
    pg.wait_for_selector("#challenge-box")
    assert "game 1 of 3" in pg.inner_text("#challenge-box")
    assert pg.evaluate("window.__csp") == []
    assert wide_enough(pg) == 0
    visit(pg, f"{base}/my/challenges/", "#challenges tbody tr[data-challenge]")
    assert wide_enough(pg) == 0
    visit(pg, f"{base}/matches/", "table.matches .tag.challenge")
