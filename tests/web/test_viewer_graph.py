"""The graph under the viewer's board (issue 26 §4), as a visitor reads it in Chromium: one
point per turn so far with the gap and each team's agents in play at the turn's last step
(compared with the frames API), a click on a point goes to the turn's first step, the
moment the game was decided marked where its definition says and never before the result
may be seen (not at step 0, not past it while the result is hidden, never live), the graph
under the site's Content-Security-Policy, and no sideways scroll at 390 px."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from arena.models import Match, MatchStatus
from tests.web.helpers import longest_finished, make_league, make_live
from tests.web.test_browser import browser, page, shot, step_is
from tests.web.test_csp import strict_page, visit
from tests.web.test_site_browser import phone, wide_enough

__all__ = ["browser", "page", "phone", "strict_page"]  # fixtures used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.processes]

POINTS = "#graph a.point"


def api_frames(match_id: int) -> dict[str, Any]:
    response = Client().get(f"/api/matches/{match_id}/frames/?perspective=spectator")
    assert response.status_code == 200
    return dict(response.json())


def per_turn(frames: list[dict[str, Any]], upto: int) -> list[tuple[int, int, int, list[int]]]:
    """(turn, first step, gap, agents in play per team) per turn up to step ``upto``: the
    gap and agents at the turn's last step so far."""
    out: list[tuple[int, int, int, list[int]]] = []
    for i, f in enumerate(frames[: upto + 1]):
        agents = [sum(team.values()) for team in f["in_play"]]
        if out and out[-1][0] == f["turn"]:
            out[-1] = (f["turn"], out[-1][1], f["gap"], agents)
        else:
            out.append((f["turn"], i, f["gap"], agents))
    return out


def label(turn: int, gap: int, agents: list[int]) -> str:
    return f"turn {turn}: gap {gap}; agents in play: team A {agents[0]}, team B {agents[1]}"


def decided_step(frames: list[dict[str, Any]]) -> tuple[int, bool]:
    """The definition, restated: the first step from which the winner stayed ahead on the
    gap (A below 7, B above) to the end; the last step if it did not finish ahead."""
    winner = frames[-1]["outcome"]["winner"]
    ahead = [(f["gap"] < 7) if winner == 0 else (f["gap"] > 7) for f in frames]
    if not ahead[-1]:
        return len(frames) - 1, False
    step = len(frames) - 1
    while ahead[step - 1]:
        step -= 1
    return step, True


def shown_points(pg: Any) -> list[str]:
    return [a.get_attribute("aria-label") or "" for a in pg.locator(POINTS).all()]


def test_the_graph_is_the_replays_gap_and_agents_per_turn(page: Any, live_server: Any) -> None:
    make_league("Graph League", ["greedy", "random"])
    match = longest_finished()
    data = api_frames(match.pk)
    frames = data["frames"]
    last = len(frames) - 1
    page.goto(f"{live_server.url}/matches/{match.pk}/")
    step_is(page, 0)
    # step 0: the deal, one point, nothing decided yet
    assert shown_points(page) == [label(frames[0]["turn"], 7, [0, 0])]
    assert page.locator("#graph-decided").count() == 0
    image = page.get_attribute("#graph-image", "aria-label") or ""
    assert page.get_attribute("#graph-image", "role") == "img"
    assert "gap is 7 now" in image and "Decided" not in image
    assert "decided" in page.inner_text("#graph-legend")

    # the last step: every turn, as the API's frames say
    page.keyboard.press("End")
    step_is(page, last)
    turns = per_turn(frames, last)
    assert len(turns) > 3
    assert shown_points(page) == [label(t, g, a) for t, _, g, a in turns]
    assert [int(s) for s in page.locator(POINTS).evaluate_all(
        "as => as.map(a => a.dataset.step)")] == [first for _, first, _, _ in turns]  # fmt: skip
    # the dots are where the numbers say: a higher gap is drawn higher (smaller y)
    ys = page.locator(f"{POINTS} .gap-dot").evaluate_all(
        "cs => cs.map(c => parseFloat(c.getAttribute('cy')))"
    )
    for (_, _, g1, _), y1 in zip(turns, ys, strict=True):
        for (_, _, g2, _), y2 in zip(turns, ys, strict=True):
            assert (g1 > g2) == (y1 < y2 - 1e-6) or g1 == g2
    final_gap = frames[-1]["gap"]
    assert f"gap is {final_gap} now" in (page.get_attribute("#graph-image", "aria-label") or "")

    # the decided mark: at the step the definition gives, at its turn's point
    step, by_gap = decided_step(frames)
    assert data["decided"] == {
        "step": step, "turn": frames[step]["turn"],
        "winner": frames[-1]["outcome"]["winner"], "by_gap": by_gap,
    }  # fmt: skip
    mark = page.locator("#graph-decided")
    assert mark.get_attribute("data-step") == str(step)
    turn = frames[step]["turn"]
    assert mark.get_attribute("data-turn") == str(turn)
    dot = page.locator(f"{POINTS}[data-turn='{turn}'] .gap-dot")
    assert float(mark.locator("line").get_attribute("x1") or "") == pytest.approx(
        float(dot.get_attribute("cx") or ""), abs=0.01
    )
    image = page.get_attribute("#graph-image", "aria-label") or ""
    assert (
        f"Decided at turn {turn} (step {step})" if by_gap else "Decided at the last step"
    ) in image
    shot(page, "viewer-graph-end")

    # a click on a point goes to its turn's first step; later turns are no longer drawn
    k = 2
    t, first, _, _ = turns[k]
    page.locator(f"{POINTS}[data-turn='{t}']").click()
    step_is(page, first)
    assert page.input_value("#step-slider") == str(first)
    assert shown_points(page) == [label(t, g, a) for t, _, g, a in per_turn(frames, first)]
    assert len(shown_points(page)) == k + 1
    assert page.locator(f"{POINTS}.current").get_attribute("data-turn") == str(t)
    # the keyboard reaches a point too: Enter on a focused point
    page.locator(f"{POINTS}[data-turn='{turns[1][0]}']").focus()
    page.keyboard.press("Enter")
    step_is(page, turns[1][1])


def test_the_decided_mark_waits_for_the_result(page: Any, live_server: Any) -> None:
    """Not at step 0; before the last step only once passed on a page that shows the
    result anyway; with the result hidden (the match page's box), only at the last step."""
    make_league("Decided League", ["greedy", "random"])
    for match in Match.objects.filter(status=MatchStatus.FINISHED).order_by("id"):
        data = api_frames(match.pk)
        if data["decided"]["step"] < len(data["frames"]) - 1:
            break
    else:
        pytest.skip("every game of this league was decided at its last step")
    frames, step = data["frames"], data["decided"]["step"]
    url = f"{live_server.url}/matches/{match.pk}/"
    page.goto(f"{url}?step={step - 1}")
    step_is(page, step - 1)
    assert page.locator("#graph-decided").count() == 0
    # the result is shown on this page (the box is unchecked): the mark once passed
    assert page.is_visible("#match-result")
    page.keyboard.press("ArrowRight")
    step_is(page, step)
    assert page.locator("#graph-decided").get_attribute("data-step") == str(step)
    # hide the result: the mark goes until the last step
    page.check("#hide-result")
    assert page.locator("#graph-decided").count() == 0
    page.goto(f"{url}?step={step}")
    step_is(page, step)
    assert page.is_checked("#hide-result")  # remembered
    assert page.locator("#graph-decided").count() == 0
    assert "Decided" not in (page.get_attribute("#graph-image", "aria-label") or "")
    page.keyboard.press("End")
    step_is(page, len(frames) - 1)
    assert page.locator("#graph-decided").get_attribute("data-step") == str(step)
    page.keyboard.press("Home")
    step_is(page, 0)
    assert page.locator("#graph-decided").count() == 0
    # the embed page has no result to show: the mark only at the last step
    page.goto(f"{live_server.url}/matches/{match.pk}/embed/?step={step}")
    step_is(page, step)
    assert page.locator(POINTS).count() == len(per_turn(frames, step))
    assert page.locator("#graph-decided").count() == 0
    page.keyboard.press("End")
    step_is(page, len(frames) - 1)
    assert page.locator("#graph-decided").count() == 1


def test_a_live_match_has_a_graph_and_nothing_decided(page: Any, live_server: Any) -> None:
    setup = make_live("Graph Live")
    page.goto(f"{live_server.url}/matches/{setup.live.pk}/")
    page.wait_for_function("window.viewer && window.viewer.frames")
    data = page.evaluate("window.viewer.data")
    assert data["decided"] is None
    index = page.evaluate("window.viewer.index")
    turns = per_turn(data["frames"], index)
    assert shown_points(page) == [label(t, g, a) for t, _, g, a in turns]
    assert page.locator("#graph-decided").count() == 0
    assert "so far" in (page.get_attribute("#graph-image", "aria-label") or "")


def test_the_graph_under_the_sites_policy(strict_page: Any, live_server: Any) -> None:
    make_league("Graph Csp League", ["greedy", "random"])
    match = longest_finished()
    visit(strict_page, f"{live_server.url}/matches/{match.pk}/", f"{POINTS}[data-turn='1']")
    strict_page.keyboard.press("End")
    strict_page.wait_for_selector("#graph-decided")
    strict_page.locator(f"{POINTS}[data-turn='2']").click()
    strict_page.wait_for_selector(f"{POINTS}.current[data-turn='2']")
    assert strict_page.evaluate("window.__csp") == []


def test_the_graph_on_a_phone(phone: Any, live_server: Any) -> None:
    make_league("Graph Phone League", ["greedy", "random"], mode="advanced")
    match = longest_finished()
    frames = api_frames(match.pk)["frames"]
    phone.goto(f"{live_server.url}/matches/{match.pk}/")
    step_is(phone, 0)
    assert wide_enough(phone) == 0
    phone.keyboard.press("End")
    step_is(phone, len(frames) - 1)
    assert wide_enough(phone) == 0
    box = phone.locator("#graph-svg").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
    assert box["width"] >= 300  # the graph uses the phone's width
    shot(phone, "phone-viewer-graph")
    turns = per_turn(frames, len(frames) - 1)
    t, first, _, _ = turns[1]
    phone.locator(f"{POINTS}[data-turn='{t}']").tap()
    step_is(phone, first)
    assert wide_enough(phone) == 0


def test_the_local_viewer_draws_the_same_graph(page: Any, tmp_path: Any, live_server: Any) -> None:
    from pathlib import Path

    from django.contrib.staticfiles import finders

    from avenue_sdk.viewer.local import ReplayServer, load_record

    make_league("Graph Local League", ["greedy", "random"])
    match = longest_finished()
    path = tmp_path / "match.json"
    path.write_bytes(Client().get(f"/api/matches/{match.pk}/replay/").content)
    frames = api_frames(match.pk)["frames"]
    server = ReplayServer(load_record(path), None, path.name)
    server.start()
    try:
        page.unroute("**/*")  # the page's requests go to the local server
        page.goto(f"{server.url}?step={len(frames) - 1}")
        step_is(page, len(frames) - 1)
        turns = per_turn(frames, len(frames) - 1)
        assert shown_points(page) == [label(t, g, a) for t, _, g, a in turns]
        assert page.locator("#graph-decided").count() == 1
        js = page.evaluate("fetch('/static/viewer/graph.js').then(r => r.text())")
        assert js.encode() == Path(str(finders.find("viewer/graph.js"))).read_bytes()
    finally:
        server.stop()
