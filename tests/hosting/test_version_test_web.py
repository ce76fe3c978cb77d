"""Version tests on the site and in the API (embedded mode: the test plays in the request,
in real sandboxes): start one from My bots and from the API, its page and JSON show the
fishtest-style progress; refusals answer 400 ``invalid_test`` (API) or a message (site);
other people see nothing of it."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import SandboxUnavailable
from arena.hosting.models import VersionTest
from tests.hosting.test_pages import logged_in
from tests.web.test_permissions import api_client

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.processes]

RANDOM = b"from avenue_sdk.house import RandomBot\n\n\nclass Mine(RandomBot):\n    pass\n"


@pytest.fixture(autouse=True)
def embedded(settings) -> None:  # type: ignore[no-untyped-def]
    settings.ARENA_DISPATCHER = "arena.adapters.embedded.InProcessDispatcher"


def _two_versions(client: Client, name: str, api: bool) -> None:
    if api:
        made = client.post("/api/hosted/", {"name": name}, content_type="application/json")
    else:
        made = client.post("/my/hosted/", {"name": name})
    assert made.status_code in (201, 302), made.content
    for n in range(2):
        url = f"/api/bots/{name}/versions/" if api else f"/my/bots/{name}/upload/"
        code = RANDOM + f"# v{n + 1}\n".encode()
        sent = client.post(
            url, {"file": SimpleUploadedFile("mine.py", code), "entry_point": "mine:Mine"}
        )
        assert sent.status_code in (201, 302), sent.content
        assert check_next("web-test") is not None


def test_api_starts_and_shows_a_test() -> None:
    ann, _ = api_client("ann")
    bob, _ = api_client("bob")
    _two_versions(ann, "ann-api", api=True)
    refused = ann.post(
        "/api/bots/ann-api/tests/", {"candidate": 2, "baseline": 2}, content_type="application/json"
    )
    assert refused.status_code == 400
    assert refused.json()["code"] == "invalid_test" and "itself" in refused.json()["error"]
    bad = ann.post(
        "/api/bots/ann-api/tests/",
        {"candidate": "two", "baseline": 1},
        content_type="application/json",
    )
    assert bad.status_code == 400 and "candidate" in bad.content.decode()
    assert (
        bob.post(
            "/api/bots/ann-api/tests/",
            {"candidate": 2, "baseline": 1},
            content_type="application/json",
        ).status_code
        == 403
    )

    made = ann.post(
        "/api/bots/ann-api/tests/",
        {"candidate": 2, "baseline": 1, "elo0": 0, "elo1": 100, "max_games": 2},
        content_type="application/json",
    )
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["status"] == "budget" and body["verdict"] == "budget exhausted"
    assert body["games"] == 2 and sum(body["pairs"]) == 1 and len(body["pairs"]) == 5
    assert body["wins"] + body["losses"] == 2 and body["draws"] == 0
    assert body["bounds"] == [pytest.approx(-2.9444, abs=1e-4), pytest.approx(2.9444, abs=1e-4)]
    assert set(body) >= {"llr", "elo", "elo_interval", "elo0", "elo1", "alpha", "beta"}
    shown = ann.get(f"/api/bots/ann-api/tests/{body['id']}/")
    assert shown.status_code == 200 and shown.json() == body
    listed = ann.get("/api/bots/ann-api/tests/").json()["tests"]
    assert [t["id"] for t in listed] == [body["id"]]
    assert bob.get(f"/api/bots/ann-api/tests/{body['id']}/").status_code == 403
    assert ann.get("/api/bots/ann-api/tests/999999/").status_code == 404
    assert ann.get(f"/api/bots/ann-api/tests/{10**30}/").status_code == 404


def test_my_bots_starts_a_test_and_shows_its_page() -> None:
    ann = logged_in("ann")
    _two_versions(ann, "ann-site", api=False)
    page = ann.get("/my/bots/ann-site/").content.decode()
    assert 'id="test-form"' in page and "No test yet" in page

    refused = ann.post("/my/bots/ann-site/tests/", {"candidate": "1", "baseline": "1"}, follow=True)
    assert "Test refused: a version cannot be tested against itself" in refused.content.decode()

    done = ann.post(
        "/my/bots/ann-site/tests/",
        {"candidate": "2", "baseline": "1", "elo0": "0", "elo1": "100", "max_games": "2"},
        follow=True,
    )
    assert done.status_code == 200
    test = VersionTest.objects.get()
    html = done.content.decode()
    assert f"/my/bots/ann-site/tests/{test.pk}/" in done.redirect_chain[-1][0]
    assert "Is ann-site v2 better than v1?" in html
    assert "budget exhausted" in html and "(-2.94, 2.94)" in html
    assert 'http-equiv="refresh"' not in html  # finished: no refresh
    assert f"{test.games} of 2" in html
    listing = ann.get("/my/bots/ann-site/").content.decode()
    assert "v2 vs v1" in listing and "budget exhausted" in listing

    # while running the page refreshes itself
    VersionTest.objects.filter(pk=test.pk).update(status="running")
    running = ann.get(f"/my/bots/ann-site/tests/{test.pk}/").content.decode()
    assert 'http-equiv="refresh"' in running and "running" in running
    bob = logged_in("bob")
    assert bob.get(f"/my/bots/ann-site/tests/{test.pk}/").status_code == 403
