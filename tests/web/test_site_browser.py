"""The site as a visitor meets it, in Debian's headless Chromium at 1280 and 390 px: the
card-table viewer (every perspective's log, navigation, the end in words, the Double Agent
face up), the local ``avenue_sdk view`` with the same viewer, pages that never scroll
sideways on a phone, the token page, Redoc offline. Screenshots: artifacts/screenshots/."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client

from arena.models import Match, MatchStatus
from tests.web.helpers import longest_finished, make_league, until
from tests.web.test_browser import (
    ARGS,
    CHROMIUM,
    SHOTS,
    browser,
    local_only,
    page,
    shot,
    step_is,
)

__all__ = ["browser", "page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.processes]
PHONE = {"width": 390, "height": 844}
assert ARGS and CHROMIUM and SHOTS


@pytest.fixture
def phone(browser: Any, live_server: Any) -> Iterator[Any]:
    """A 390 px wide page (an iPhone 12-14), local requests only, no JavaScript errors."""
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True,
                                  has_touch=True)  # fmt: skip
    pg = context.new_page()
    outside = local_only(pg, live_server.url)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.set_default_timeout(15_000)
    yield pg
    context.close()
    assert outside == [] and errors == [], (outside, errors)


def frames_of(match_id: int, perspective: str) -> list[dict[str, Any]]:
    data = Client().get(f"/api/matches/{match_id}/frames/?perspective={perspective}").json()
    return list(data["frames"])


def find_step(predicate: Any) -> tuple[int, int]:
    """(match id, step) of the first spectator frame that ``predicate`` accepts."""
    for m in Match.objects.filter(status=MatchStatus.FINISHED).order_by("id"):
        for f in frames_of(m.pk, "spectator"):
            if predicate(f):
                return m.pk, f["step"]
    raise AssertionError("no frame found")


def wide_enough(pg: Any) -> int:
    """How far the page is wider than the phone's screen (0: it never scrolls sideways).
    Measured against 390 px, not innerWidth: a mobile browser widens its layout viewport
    to fit content that overflows, and innerWidth grows with it."""
    width = pg.evaluate("Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")
    return max(0, int(width) - PHONE["width"])


def meeples_arrived(pg: Any, frame: dict[str, Any]) -> None:
    for team, space in zip("ab", frame["positions"], strict=True):
        pg.wait_for_selector(f"#meeple-{team}[data-at='{space}']", state="attached")


def test_card_table_viewer(page: Any, live_server: Any) -> None:
    make_league("Table League", ["greedy", "random", "greedy", "random"], mode="advanced")
    match_id, step = find_step(lambda f: f["offer"]["face_up"] == "DOUBLE_AGENT")
    url = f"{live_server.url}/matches/{match_id}/"

    # a Double Agent offered face up is on the table (it was lost: DOUBLE_AGENT is 0)
    page.goto(f"{url}?step={step}")
    step_is(page, step)
    assert page.locator("#face-up .card[data-agent='DOUBLE_AGENT']").count() == 1
    assert "Double Agent" in page.inner_text("#turn-summary")
    shot(page, "viewer-double-agent-face-up")

    # the agents in play show their 1 / 2 / 3+ moves, the current one marked
    page.keyboard.press("End")
    frames = page.evaluate("window.viewer.frames")
    last = frames[-1]
    step_is(page, len(frames) - 1)
    meeples_arrived(page, last)
    area = page.locator("#team-a .play-area .card.agent, #team-b .play-area .card.agent")
    assert area.count() == sum(len(t) for t in last["in_play"])
    assert area.first.locator(".mv").count() in (1, 3)
    assert area.first.locator(".mv.now").count() == 1
    ending = page.inner_text("#ending")
    assert "wins" in ending and last["ending"] == ending
    shot(page, "viewer-end")

    # navigation: next turn, skip quiet steps, next Black Market card
    page.keyboard.press("Home")
    step_is(page, 0)
    page.click("#next-turn")
    index = page.evaluate("window.viewer.index")
    assert frames[index]["turn"] == frames[0]["turn"] + 1
    assert all(f["turn"] == frames[0]["turn"] for f in frames[:index])
    page.keyboard.press("Home")
    page.check("#skip-quiet")
    page.click("#forward")
    index = page.evaluate("window.viewer.index")
    assert frames[index]["changed"] and not any(f["changed"] for f in frames[1:index])
    market_steps = [f["step"] for f in frames if f["market_event"]]
    page.keyboard.press("Home")
    page.keyboard.press("m")
    if market_steps:
        step_is(page, market_steps[0])
    else:
        assert "No Black Market card" in page.inner_text("#viewer-status")
    # a Black Market card tells its effect when tapped
    shown = [f["step"] for f in frames if f["market"] or any(f["ongoing"])]
    if shown:
        page.goto(f"{url}?step={shown[0]}")
        step_is(page, shown[0])
        card = page.locator(".card.bm").first
        card.click()
        assert card.get_attribute("aria-expanded") == "true"
        assert card.locator(".effect").inner_text().strip()
        shot(page, "viewer-black-market")

    # each perspective's log: a seat names its own discards, the spectator does not
    page.goto(f"{url}?perspective=seat:0&step={len(frames) - 1}")
    step_is(page, len(frames) - 1)
    seat_log = page.inner_text("#event-log")
    page.goto(f"{url}?perspective=spectator&step={len(frames) - 1}")
    step_is(page, len(frames) - 1)
    public_log = page.inner_text("#event-log")
    mine = re.findall(r"seat 0 \([^)]*\) discards (\w[\w ]*?) face down", seat_log)
    assert "discards a card face down" in public_log or not mine
    assert not re.search(r"discards (?!a card)\w+ face down", public_log)
    # latency beside each decision (house bots are timed too)
    assert page.locator("#event-log .latency").count() >= 1


def test_the_move_list_matches_the_replay(page: Any, live_server: Any) -> None:
    """Issue 26 §2: one line per turn (its summary: who offered what, who took what, where
    the meeples went), the current turn highlighted, a click on a line goes to its turn;
    turns after the current step are not listed."""
    make_league("Moves League", ["greedy", "random"])
    match = longest_finished(3)
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    step_is(page, 0)
    page.keyboard.press("End")
    frames = page.evaluate("window.viewer.frames")
    step_is(page, len(frames) - 1)
    turns: list[tuple[int, int, str]] = []  # (turn, first step, summary at its last step)
    for i, f in enumerate(frames):
        if not turns or turns[-1][0] != f["turn"]:
            turns.append((f["turn"], i, f["summary"]))
        else:
            turns[-1] = (turns[-1][0], turns[-1][1], f["summary"])
    lines = page.locator("#move-list li")
    assert lines.count() == len(turns) > 2
    for k, (turn, _first, summary) in enumerate(turns):
        assert lines.nth(k).inner_text() == f"{turn}. {summary or 'the deal'}"
    assert page.locator("#move-list li.current").inner_text().startswith(f"{turns[-1][0]}.")
    # a click goes to the turn's first step; later turns are not listed there
    turn, first, _ = turns[2]
    lines.nth(2).click()
    step_is(page, first)
    assert page.locator("#move-list li").count() == 3
    assert page.locator("#move-list li.current").inner_text().startswith(f"{turn}.")
    shot(page, "viewer-move-list")


def test_bad_deep_links_show_a_working_viewer(page: Any, live_server: Any) -> None:
    make_league("Link League", ["greedy", "random"])
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    page.goto(f"{live_server.url}/matches/{match.pk}/?step=abc")
    step_is(page, 0)
    page.goto(f"{live_server.url}/matches/{match.pk}/?perspective=bogus")
    step_is(page, 0)
    assert page.input_value("#perspective") == "spectator"
    assert "no perspective" in page.inner_text("#viewer-status")
    assert page.locator("#seat-0 .hand .card.back").count() >= 1
    shot(page, "viewer-bogus-perspective")


def test_viewer_on_a_phone(phone: Any, live_server: Any) -> None:
    make_league("Phone League", ["greedy", "random"], mode="advanced")
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    phone.goto(f"{live_server.url}/matches/{match.pk}/?step=5")
    step_is(phone, 5)
    assert wide_enough(phone) == 0
    shot(phone, "phone-viewer")
    phone.goto(f"{live_server.url}/matches/{match.pk}/?perspective=omniscient")
    step_is(phone, 0)
    phone.keyboard.press("End")
    phone.wait_for_selector("#ending")
    assert wide_enough(phone) == 0
    shot(phone, "phone-viewer-end")


def test_no_page_scrolls_sideways_on_a_phone(phone: Any, live_server: Any) -> None:
    league = make_league("A Rather Long League Name For Phones", ["greedy", "random", "random"],
                         rounds=2)  # fmt: skip
    bot = league.entries.get(bot__name=f"{league.slug}-0").bot
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    pages = {
        "home": "/", "leagues": "/leagues/", "league": f"/leagues/{league.slug}/",
        "bots": "/bots/", "bot": f"/bots/{bot.name}/", "matches": "/matches/",
        "match": f"/matches/{match.pk}/", "not-found": "/no/such/page/",
        "h2h": f"/leagues/{league.slug}/h2h/{league.slug}-0/{league.slug}-1/",
        "bot-search": "/bots/?q=phones-1",
        "login": "/accounts/login/", "signup": "/accounts/signup/", "rules": "/rules/",
        "tv-none": "/tv/", "bot-tv-none": f"/bots/{bot.name}/tv/",
        "tv-ended": f"/tv/?ended={match.pk}",
    }  # fmt: skip
    too_wide = {}
    for name, path in pages.items():
        phone.goto(f"{live_server.url}{path}")
        phone.wait_for_load_state("load")
        if wide_enough(phone):
            too_wide[name] = PHONE["width"] + wide_enough(phone)
        # the header fits: its last link is inside the screen
        box = phone.locator("header.top nav a").last.bounding_box()
        assert box is not None and box["x"] + box["width"] <= PHONE["width"], name
        shot(phone, f"phone-{name}")
    # signed in: My bots and a new token
    phone.goto(f"{live_server.url}/accounts/signup/")
    phone.fill("#id_username", "phone-user")
    phone.fill("#id_password1", "a-long-pass-phrase")
    phone.fill("#id_password2", "a-long-pass-phrase")
    phone.click("#signup-form button")
    phone.wait_for_url("**/my/bots/")
    phone.wait_for_load_state("load")
    if wide_enough(phone):
        too_wide["my-bots"] = PHONE["width"] + wide_enough(phone)
    shot(phone, "phone-my-bots")
    phone.fill("#id_name", "phone-bot")
    phone.click("#create-bot button")
    phone.wait_for_selector("#token")
    phone.wait_for_load_state("load")  # its stylesheet applied
    if wide_enough(phone):
        too_wide["token"] = PHONE["width"] + wide_enough(phone)
    shot(phone, "phone-token")
    assert too_wide == {}, f"pages wider than {PHONE['width']} px: {too_wide}"


def test_the_owner_sees_the_step_of_their_bots_fault(browser: Any, live_server: Any) -> None:
    """Issue 26 §7: logged in, the owner's viewer marks the step where their bot's decision
    faulted (the box's link opens it from the bot's seat); other steps carry no mark."""
    from django.contrib.auth import get_user_model

    from arena.models import Bot, Participation

    make_league("Owner Fault League", ["greedy", "random"])
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    seat = match.participations.get(seat=1)
    get_user_model().objects.create_user("fay", password="a-long-pass-phrase")
    Bot.objects.filter(pk=seat.bot_id).update(owner=get_user_model().objects.get(username="fay"))
    Participation.objects.filter(pk=seat.pk).update(
        fault_cause="illegal_action", fault_detail="index 7 of 5 legal choices"
    )
    step = match.decisions
    assert step is not None and step > 1
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    try:
        pg.goto(f"{live_server.url}/accounts/login/")
        pg.fill("#id_username", "fay")
        pg.fill("#id_password", "a-long-pass-phrase")
        pg.click("#login-form button")
        pg.wait_for_load_state("load")
        pg.goto(f"{live_server.url}/matches/{match.pk}/")
        pg.click(f"#owner-fault-1 a[href*='step={step}']")
        step_is(pg, step)
        assert pg.input_value("#perspective") == "seat:1"
        assert pg.is_visible("#fault-note")
        note = pg.inner_text("#fault-note")
        assert "charged illegal_action" in note and "index 7 of 5 legal choices" in note
        shot(pg, "viewer-owner-fault")
        # the seats' clocks (issue 26 §3): the bank left, and the time taken where known
        assert pg.inner_text("#clock-1").startswith("clock: bank 60.0 s"), pg.inner_text("#clock-1")
        pg.keyboard.press("ArrowLeft")
        step_is(pg, step - 1)
        assert not pg.is_visible("#fault-note")
        assert "here" in " ".join(pg.locator(".clock").all_inner_texts())  # "took ... here"
    finally:
        context.close()


def test_token_page_copies_and_a_reload_does_not_post_again(browser: Any, live_server: Any) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    pg = context.new_page()
    try:
        pg.goto(f"{live_server.url}/accounts/signup/")
        pg.fill("#id_username", "copy-user")
        pg.fill("#id_password1", "a-long-pass-phrase")
        pg.fill("#id_password2", "a-long-pass-phrase")
        pg.click("#signup-form button")
        pg.wait_for_url("**/my/bots/")
        pg.fill("#id_name", "copy-bot")
        pg.click("#create-bot button")
        token = pg.inner_text("#token").strip()
        assert "/downloads/agent-avenue-sdk.tar.gz" in pg.inner_text("#run-lines")
        # the page's script has run (its listener is on the button) before the click, and
        # the label's changes are recorded as they happen: "Copied" shows for 2 s only,
        # which a poll from here can miss on a loaded machine
        pg.wait_for_load_state("load")
        pg.evaluate(
            """() => {
              const b = document.querySelector('#copy-token');
              window.copyLabels = [];
              new MutationObserver(() => window.copyLabels.push(b.textContent))
                .observe(b, {childList: true, characterData: true, subtree: true});
            }"""
        )
        pg.click("#copy-token")
        until(pg, "window.copyLabels.includes('Copied')")
        assert pg.evaluate("navigator.clipboard.readText()") == token
        shot(pg, "token-copied")
        posts: list[str] = []
        pg.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
        pg.reload()
        pg.wait_for_load_state("load")
        assert posts == [] and pg.url.endswith("/my/bots/copy-bot/")
        assert token not in pg.content()
    finally:
        context.close()


def test_redoc_renders_offline(browser: Any, live_server: Any) -> None:
    # under the site's real Content-Security-Policy (the page fixture bypasses it), which
    # keeps Redoc's attribution logo on its CDN from loading: nothing may leave the server
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    outside = local_only(page, live_server.url)
    try:
        page.goto(f"{live_server.url}/api/redoc/")
        page.wait_for_selector("text=Agent Avenue Arena API", timeout=30_000)
        shot(page, "redoc")
    finally:
        context.close()
    assert outside == [], f"Redoc asked the internet for {outside}"


def test_local_view_command_serves_the_same_viewer(
    page: Any, tmp_path: Any, live_server: Any
) -> None:
    from avenue_sdk.viewer.local import ReplayServer, load_record

    make_league("Local League", ["greedy", "random"], mode="advanced")
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    replay = Client().get(f"/api/matches/{match.pk}/replay/").content
    path = tmp_path / "match.json"
    path.write_bytes(replay)
    from pathlib import Path

    from django.contrib.staticfiles import finders

    site_bytes = Path(str(finders.find("viewer/viewer.js"))).read_bytes()  # what the site serves
    server = ReplayServer(load_record(path), ["alpha", "beta"], path.name)
    server.start()
    try:
        # the page's requests go to the local server: let them through
        page.unroute("**/*")
        page.goto(f"{server.url}?step=3&perspective=seat:1")
        step_is(page, 3)
        assert page.input_value("#perspective") == "seat:1"
        assert page.locator("#seat-1 .hand .card.agent").count() >= 1
        assert "beta" in page.inner_text("#seat-1")
        page.keyboard.press("End")
        page.wait_for_selector("#ending")
        shot(page, "local-view")
        js = page.evaluate("fetch('/static/viewer/viewer.js').then(r => r.text())")
        assert js.encode() == site_bytes  # the very file the site serves
        bad = page.evaluate("fetch('/frames?perspective=seat:9').then(r => r.status)")
        assert bad == 400
        local = json.loads(
            page.evaluate("fetch('/frames?perspective=omniscient').then(r => r.text())")
        )
        site = Client().get(f"/api/matches/{match.pk}/frames/?perspective=omniscient").json()
        assert [f["events"] for f in local["frames"]] != []
        assert [f["positions"] for f in local["frames"]] == [f["positions"] for f in site["frames"]]
    finally:
        server.stop()
