"""The My bots pages of a hosted bot: create it, upload through the form, see the versions
and the check log (owner only), switch back; a bad upload is refused with its reason."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from arena.adapters.bothost.checker import check_next
from arena.adapters.bothost.probe import check_available
from arena.adapters.bothost.sandbox import SandboxUnavailable

try:
    check_available()
except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
    pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]

BOT = b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n"


def logged_in(name: str) -> Client:
    User.objects.create_user(name, password="a-long-pass-phrase")
    client = Client()
    assert client.login(username=name, password="a-long-pass-phrase")
    return client


def test_hosted_bot_on_my_bots() -> None:
    ann = logged_in("ann")
    made = ann.post("/my/hosted/", {"name": "ann-page"}, follow=True)
    assert made.status_code == 200
    page = made.content.decode()
    assert "Code versions" in page and "No code yet" in page and "Rotate the token" not in page
    for _ in range(2):
        sent = ann.post(
            "/my/bots/ann-page/upload/",
            {"file": SimpleUploadedFile("mine.py", BOT), "entry_point": "mine:Mine"},
            follow=True,
        )
        assert "uploaded; a bot host checks it" in sent.content.decode()
        check_next("page-test")
    page = ann.get("/my/bots/ann-page/").content.decode()
    assert "v2 <strong>(plays)</strong>" in page
    assert "Switch to v1" in page and "played one game against random" in page
    assert "None: no sandbox of this bot has failed" in page
    from arena.hosting import services
    from arena.models import Bot

    services.record_fault(
        Bot.objects.get(name="ann-page").pk,
        "7.1",
        "crash",
        "it died",
        "Traceback: secret-stderr-line",
    )
    page = ann.get("/my/bots/ann-page/").content.decode()
    assert "secret-stderr-line" in page and "match 7.1" in page
    assert "The match records the same cause" in page
    assert "secret-stderr-line" not in ann.get("/bots/ann-page/").content.decode()
    switched = ann.post("/my/bots/ann-page/versions/1/activate/", follow=True).content.decode()
    assert "Version 1 is the one that plays now" in switched
    assert "v1 <strong>(plays)</strong>" in switched
    refused = ann.post(
        "/my/bots/ann-page/upload/",
        {"file": SimpleUploadedFile("mine.py", BOT), "entry_point": "other:X"},
        follow=True,
    ).content.decode()
    assert "Upload refused" in refused and "must be mine:ClassName" in refused
    # someone else sees neither the versions nor the log
    bob = logged_in("bob")
    assert bob.get("/my/bots/ann-page/").status_code == 403
    assert (
        bob.post(
            "/my/bots/ann-page/upload/",
            {"file": SimpleUploadedFile("mine.py", BOT), "entry_point": "mine:Mine"},
        ).status_code
        == 403
    )
