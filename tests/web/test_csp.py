"""The site sends a Content-Security-Policy, and every page still works under it: the
pages, the replay viewer, the admin's log-in, Swagger UI and Redoc, in headless Chromium
with a listener for CSP violations (a violation is a failure, not just a console line)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.models import Match, MatchStatus
from leaderboard.csp import DOCS_POLICY, SITE_POLICY
from tests.web.helpers import make_league, make_live, until
from tests.web.test_browser import browser  # noqa: F401 - the fixture

#: collects every violation the page reports, from before any of its scripts runs
RECORD = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  e => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


@pytest.mark.django_db
def test_every_response_carries_the_policy(client: Client) -> None:
    for url in ("/", "/matches/", "/accounts/login/", "/api/leagues/", "/nothing", "/healthz"):
        assert client.get(url)["Content-Security-Policy"] == SITE_POLICY, url
    for url in ("/api/docs/", "/api/redoc/"):
        assert client.get(url)["Content-Security-Policy"] == DOCS_POLICY, url
    for directive in ("default-src 'self'", "script-src 'self'", "object-src 'none'",
                      "frame-ancestors 'none'", "form-action 'self'"):  # fmt: skip
        assert directive in SITE_POLICY
    assert "unsafe-inline" not in SITE_POLICY and "unsafe-eval" not in SITE_POLICY
    assert "script-src 'self';" in DOCS_POLICY  # the docs' scripts are files too


#: Redoc's "API docs by Redocly" attribution shows a logo from its CDN: the policy blocks
#: that request to the internet, as it should, and the page works without the logo


@pytest.fixture
def strict_page(browser: Any, live_server: Any) -> Iterator[Any]:  # noqa: F811
    """A page under the site's policy (test_browser's pages bypass it), recording every
    violation; requests leaving the test server are aborted, JavaScript errors fail."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    host = urlparse(live_server.url).netloc
    pg.route(
        "**/*",
        lambda route: (
            route.continue_() if urlparse(route.request.url).netloc == host else route.abort()
        ),
    )
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.add_init_script(RECORD)
    yield pg
    context.close()
    assert errors == [], f"JavaScript errors: {errors}"


def visit(pg: Any, url: str, ready: str) -> None:
    pg.goto(url)
    pg.wait_for_selector(ready, timeout=30_000)
    violations = pg.evaluate("window.__csp")
    assert violations == [], f"{url}: {violations}"


@pytest.mark.processes
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_pages_viewer_and_api_docs_work_under_the_policy(
    strict_page: Any, live_server: Any
) -> None:
    page = strict_page
    league = make_league("Csp League", ["greedy", "random"], rounds=1)
    match = Match.objects.filter(status=MatchStatus.FINISHED).order_by("id")[0]
    bot = league.entries.first().bot  # type: ignore[union-attr]
    base = live_server.url
    visit(page, f"{base}/", "table.leagues tbody tr")
    visit(page, f"{base}/leagues/{league.slug}/", "#standings tbody tr")
    visit(page, f"{base}/bots/{bot.name}/", "#rating-chart svg.chart")
    visit(page, f"{base}/matches/{match.pk}/", "#board svg circle.meeple")
    # the board is drawn before the frames arrive: a click before them is a no-op
    page.wait_for_selector("#step-label:text-matches('^step 0 ')")
    page.click("#forward")  # the viewer's scripts run, not only its first paint
    page.wait_for_selector("#step-label:text-matches('^step 1 ')")
    visit(page, f"{base}/matches/", "table.matches tbody tr")
    visit(page, f"{base}/matches/{match.pk}/embed/", "#board svg circle.meeple")
    # TV with nothing live (its script runs: it asks /api/tv/ later), and a match's end
    visit(page, f"{base}/tv/", "#tv[data-state=none] table.matches tbody tr")
    visit(page, f"{base}/tv/?ended={match.pk}", "#tv[data-state=ended] #board svg circle.meeple")
    page.wait_for_selector("#tv[data-leaving]")  # tv.js ran: the last step is shown
    # a live match's page: its frames pushed over server-sent events (connect-src 'self')
    live = make_live("Csp Live").live
    visit(page, f"{base}/matches/{live.pk}/", "#board svg circle.meeple")
    until(page, "Boolean(window.viewer && window.viewer.events)")
    visit(page, f"{base}/api/docs/", ".swagger-ui .info .title")
    visit(page, f"{base}/api/redoc/", ".api-info h1")
    # its sidebar's attribution logo (drawn after the rest) comes from this server now
    page.wait_for_selector('img[alt="redocly logo"]', state="attached", timeout=30_000)
    until(page, "document.querySelector('img[alt=\"redocly logo\"]').complete")
    assert page.evaluate("window.__csp") == []
    User.objects.create_superuser("csp-admin", password="a-long-pass-phrase")
    visit(page, f"{base}/admin/login/", "#login-form")
    page.fill("#id_username", "csp-admin")
    page.fill("#id_password", "a-long-pass-phrase")
    page.click("input[type=submit]")
    visit(page, f"{base}/admin/arena/bot/", "#result_list")


def test_redocs_bundle_asks_no_cdn(client: Client) -> None:
    page = client.get("/api/redoc/").content.decode()
    assert '<script src="/api/redoc-dist/bundles/redoc.standalone.js"></script>' in page
    bundle = client.get("/api/redoc-dist/bundles/redoc.standalone.js")
    assert bundle.status_code == 200 and bundle["Content-Type"].startswith("text/javascript")
    body = bundle.content.decode()
    assert "cdn.redoc.ly" not in body and len(body) > 500_000
    again = client.get(
        "/api/redoc-dist/bundles/redoc.standalone.js", HTTP_IF_NONE_MATCH=bundle["ETag"]
    )
    assert again.status_code == 304
