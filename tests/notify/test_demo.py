"""The demo's part: its owner account told of its bot's events by e-mail, through the
console backend embedded mode uses, and the delivery on the bot's page."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management.base import OutputWrapper
from django.test import Client

from arena import notify
from arena.adapters.management.demo_notify import DEMO_EMAIL, subscribe_owner
from arena.notify import delivery
from arena.notify.models import Delivery, Subscription
from arena.services.bots import create_bot

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def test_the_demo_owner_is_subscribed_and_its_mail_printed(settings, capsys) -> None:  # noqa: ANN001
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    admin = get_user_model().objects.create_superuser("admin", "", "pw-pw-pw-pw")
    bot, _ = create_bot("your-bot", owner=admin)
    out = io.StringIO()
    for _ in range(2):  # every run; once
        subscribe_owner("your-bot", "admin", OutputWrapper(out))
    (sub,) = Subscription.objects.filter(bot=bot)
    assert sub.channel == "email" and "forfeit" in sub.kinds and "offline_waiting" in sub.kinds
    assert (
        "console backend" in out.getvalue() and "/my/bots/your-bot/#notifications" in out.getvalue()
    )
    notify.emit(bot.pk, "offline_waiting", {"league": "Demo", "matches_waiting": 2})
    capsys.readouterr()
    assert delivery.deliver(Delivery.objects.get().pk) is None
    printed = capsys.readouterr().out
    assert f"To: {DEMO_EMAIL}" in printed and "2 of its matches wait" in printed
    client = Client()
    client.force_login(admin)
    page = client.get("/my/bots/your-bot/").content.decode()
    assert 'class="delivery-delivered"' in page and "offline with matches waiting" in page
