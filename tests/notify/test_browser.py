"""The notifications section in Debian's headless Chromium at 390 px: the owner subscribes
through the form, is shown the secret once, and reads the delivery log, on a page that
never scrolls sideways (the site's CSP in force)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from arena import notify
from arena.notify import delivery
from arena.notify.models import Delivery, OwnerSecret
from arena.services.bots import create_bot
from tests.notify.conftest import Receiver
from tests.web.test_browser import browser, local_only, shot
from tests.web.test_site_browser import PHONE, wide_enough

__all__ = ["browser"]  # the fixture, used by name

pytestmark = [
    pytest.mark.browser, pytest.mark.processes, pytest.mark.services,
    pytest.mark.django_db(transaction=True),
]  # fmt: skip


def test_the_owner_subscribes_and_reads_the_log_on_a_phone(
    browser: Any,
    live_server: Any,
    receiver: Receiver,
    settings,  # noqa: ANN001 - pytest-django's settings
) -> None:
    settings.NOTIFY_ALLOW_PRIVATE_HOSTS = True
    owner = get_user_model().objects.create_user(
        "nora", "nora@example.org", password="a-long-pass-phrase"
    )
    bot, _ = create_bot("nora-bot", owner=owner)
    context = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True)
    pg = context.new_page()
    outside = local_only(pg, live_server.url)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        pg.goto(f"{live_server.url}/accounts/login/")
        pg.fill("#id_username", "nora")
        pg.fill("#id_password", "a-long-pass-phrase")
        pg.click("#login-form button")
        pg.wait_for_load_state("load")
        pg.goto(f"{live_server.url}/my/bots/nora-bot/")
        pg.check("#wh-fault")
        pg.check("#em-forfeit")
        pg.fill("#webhook-url", receiver.url)
        pg.click("#notify-form button")
        pg.wait_for_selector("#token")
        assert pg.inner_text("#token").strip() == OwnerSecret.objects.get(owner=owner).secret
        notify.emit(bot.pk, "fault", {"match": 1, "cause": "timeout"})
        delivery.deliver(Delivery.objects.get().pk)
        # (the secret's page put this address in the history: a hash alone would not load it)
        pg.goto(f"{live_server.url}/my/bots/nora-bot/")
        pg.locator("#notifications").scroll_into_view_if_needed()
        row = pg.locator("#deliveries tr.delivery-delivered")
        assert row.count() == 1 and "200" in row.inner_text() and "webhook" in row.inner_text()
        assert pg.is_checked("#wh-fault") and pg.is_checked("#em-forfeit")
        assert not pg.is_checked("#wh-forfeit")
        assert wide_enough(pg) == 0
        shot(pg, "notify-my-bot-phone")
    finally:
        context.close()
    assert outside == [] and errors == [], (outside, errors)
