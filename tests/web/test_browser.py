"""Browser tests: Debian's headless Chromium driven by Playwright against the live server.

Screenshots of every page land in artifacts/screenshots/ (git-ignored) for a person to
look at. The browser is never downloaded: ``make test`` installs the chromium package
where it is missing (scripts/ensure_chromium.sh), and requests leaving the test server are
aborted, so a page that needed the internet would show it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from arena.models import Match, MatchStatus
from tests.web.helpers import make_league, make_live

playwright_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.processes]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests make
    # around it are still plain synchronous calls
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    SHOTS.mkdir(parents=True, exist_ok=True)
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def local_only(pg: Any, base_url: str) -> list[str]:
    """Let ``pg`` load only from the test server; the list fills with what it asked elsewhere
    (aborted): the site must work offline and leak no visitor to a third party."""
    host = urlparse(base_url).netloc
    outside: list[str] = []

    def only_local(route: Any) -> None:
        if urlparse(route.request.url).netloc == host:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    pg.route("**/*", only_local)
    return outside


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    # Playwright's wait_for_function evaluates its predicate as a string in the page,
    # which the site's Content-Security-Policy forbids (no 'unsafe-eval'); the pages are
    # checked under the policy in tests/web/test_csp.py.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    pg = context.new_page()
    outside = local_only(pg, live_server.url)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.set_default_timeout(10_000)
    yield pg
    context.close()
    assert outside == [], f"pages asked the internet for {outside}"
    assert errors == [], f"JavaScript errors: {errors}"


def shot(pg: Any, name: str) -> None:
    pg.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def step_is(pg: Any, n: int) -> None:
    pg.wait_for_function(
        "n => document.querySelector('#step-label').textContent.startsWith(`step ${n} `)", arg=n
    )


def choose(pg: Any, perspective: str) -> None:
    pg.select_option("#perspective", perspective)
    pg.wait_for_function(
        "p => window.viewer && window.viewer.data && window.viewer.data.perspective === p",
        arg=perspective,
    )


def hand_cards(pg: Any, seat: int) -> list[str] | None:
    """The cards the page shows in a seat's hand (None: shown as hidden)."""
    hand = pg.locator(f"#seat-{seat} .hand")
    if hand.locator(".hidden-cards").count():
        return None
    return [c.strip() for c in hand.locator(".card .card-name").all_inner_texts()]


def test_replay_viewer_steps_perspectives_and_deep_links(page: Any, live_server: Any) -> None:
    make_league("Browser League", ["greedy", "random"], mode="advanced", rounds=1)
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    url = f"{live_server.url}/matches/{match.pk}/"
    page.goto(url)
    step_is(page, 0)
    assert page.locator("#board svg circle.meeple").count() == 2
    assert hand_cards(page, 0) is None and hand_cards(page, 1) is None  # spectator
    # an advanced game has a Black Market to jump to; the board says what its gap is
    assert page.locator("#next-market").is_visible()
    assert "M next Black Market card" in page.inner_text("main")
    assert "team A catches B at 0, team B catches A at 14" in page.inner_text("#board-legend")
    assert (page.text_content("#gap") or "").startswith("gap 7")  # the deal: meeples on their homes
    shot(page, "match-spectator-start")

    for n in range(1, 6):
        page.click("#forward")
        step_is(page, n)
    page.keyboard.press("ArrowRight")
    step_is(page, 6)
    page.keyboard.press("ArrowLeft")
    page.click("#back")
    step_is(page, 4)
    assert page.locator("#event-log li").count() >= 1
    assert "step=4" in page.url

    choose(page, "seat:0")
    step_is(page, 4)  # a perspective switch keeps the step
    frames = page.evaluate("window.viewer.frames")
    expected = frames[4]["seats"][0]["hand"]
    assert expected is not None and frames[4]["seats"][1]["hand"] is None
    titles = page.evaluate("window.viewer.data.agents")
    assert hand_cards(page, 0) == [titles[c] for c in expected]
    assert hand_cards(page, 1) is None
    shot(page, "match-seat0")

    choose(page, "omniscient")
    assert hand_cards(page, 0) and hand_cards(page, 1)
    assert page.locator("details.deck-order").count() == 1
    shot(page, "match-omniscient")

    choose(page, "spectator")
    assert hand_cards(page, 0) is None and hand_cards(page, 1) is None
    assert page.locator("details.deck-order").count() == 0

    page.keyboard.press("End")
    last = len(frames) - 1
    step_is(page, last)
    assert "wins" in page.inner_text("#result")
    shot(page, "match-end")

    page.goto(f"{url}?step=3&perspective=seat:1")
    step_is(page, 3)
    assert page.input_value("#perspective") == "seat:1"
    assert hand_cards(page, 1) and hand_cards(page, 0) is None
    page.goto(f"{url}?turn=2")
    page.wait_for_function("window.viewer && window.viewer.frames")
    index = page.evaluate("window.viewer.index")
    assert page.evaluate("window.viewer.frames")[index]["turn"] >= 2
    assert page.locator("#replay-download").get_attribute("href").endswith("?download=1")

    # a visitor who hides the result sees none of it until the replay's last step, on this
    # page and the next (the choice is remembered)
    assert page.locator("#match-result").is_visible()
    page.check("#hide-result")
    page.goto(url)
    step_is(page, 0)
    assert page.is_checked("#hide-result")
    hidden = [
        "#match-result",
        ".seats-table td.spoiler >> nth=0",
        ".seats-table td.spoiler >> nth=1",
    ]
    assert not any(page.locator(s).is_visible() for s in hidden)
    page.keyboard.press("End")
    step_is(page, last)
    assert all(page.locator(s).is_visible() for s in hidden)
    page.keyboard.press("Home")
    step_is(page, 0)
    assert not page.locator("#match-result").is_visible()
    page.uncheck("#hide-result")
    assert page.locator("#match-result").is_visible()


def test_standings_bot_page_and_home(page: Any, live_server: Any) -> None:
    league = make_league("Standing League", ["greedy", "random", "random", "greedy"], rounds=2)
    page.goto(f"{live_server.url}/")
    assert page.locator("table.leagues tbody tr").count() == 1
    shot(page, "home")

    page.goto(f"{live_server.url}/leagues/{league.slug}/")
    assert page.locator("#standings tbody tr:not(.group)").count() == 4
    assert page.locator("#crosstable td.self").count() == 4
    page.click("#standings thead >> text=Games")
    page.wait_for_url("**sort=-games")  # a number: high-first on the first click
    assert page.locator("#standings th[aria-sort]").inner_text().startswith("Games")
    page.goto(f"{live_server.url}/leagues/{league.slug}/")
    shot(page, "standings")

    page.click("#standings tbody tr:not(.group) >> nth=0 >> td >> nth=1 >> a")
    page.wait_for_url("**/bots/**")
    chart = page.locator("#rating-chart svg.chart")
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] > 80
    points = chart.locator("polyline").get_attribute("points") or ""
    assert len(points.split()) >= 4
    assert page.locator("#opponents tbody tr").count() == 3
    shot(page, "bot")

    page.goto(f"{live_server.url}/matches/?league={league.slug}")
    assert page.locator("table.matches tbody tr").count() >= 12
    shot(page, "matches")


def test_sign_up_create_a_bot_and_see_its_token_once(page: Any, live_server: Any) -> None:
    make_league("Entry League", ["random", "random"], rounds=0, fit=False)
    page.goto(f"{live_server.url}/accounts/signup/")
    page.fill("#id_username", "browser-user")
    page.fill("#id_password1", "a-long-pass-phrase")
    page.fill("#id_password2", "a-long-pass-phrase")
    page.click("#signup-form button")
    page.wait_for_url("**/my/bots/")
    page.fill("#id_name", "browser-bot")
    page.click("#create-bot button")
    token = page.inner_text("#token").strip()
    assert token.startswith("aat_")
    shot(page, "token-once")
    page.goto(f"{live_server.url}/my/bots/browser-bot/")
    assert token not in page.content() and token[:10] in page.content()
    page.click("#enter-form button")
    page.wait_for_selector("#entries >> text=Entry League")
    assert "not connected" in page.inner_text("#presence")
    shot(page, "my-bot")


def test_live_match_is_spectator_only(page: Any, live_server: Any) -> None:
    setup = make_live("Browser Live")
    page.goto(f"{live_server.url}/matches/{setup.live.pk}/")
    page.wait_for_function("window.viewer && window.viewer.frames")
    options = page.locator("#perspective option").all_inner_texts()
    assert options == ["spectator"]
    assert "being played" in page.inner_text("#viewer-status")
    assert hand_cards(page, 0) is None and hand_cards(page, 1) is None
    shot(page, "match-live")
    page.goto(f"{live_server.url}/matches/{setup.partner.pk}/")
    assert "withheld" in page.inner_text("#withheld-note")
