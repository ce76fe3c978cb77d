"""The owner's side on the site and in the API: subscriptions on the My bot page, the
secret shown once, the delivery log; the same through the API; nobody else's bot."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from arena import notify
from arena.notify import delivery
from arena.notify.models import Delivery, OwnerSecret, Subscription
from tests.notify.conftest import Receiver, make_bot, make_owner

pytestmark = [pytest.mark.services, pytest.mark.django_db]


@pytest.fixture(autouse=True)
def _loopback(settings) -> None:  # noqa: ANN001 - pytest-django's settings
    settings.NOTIFY_ALLOW_PRIVATE_HOSTS = True


def test_the_my_bot_page_subscribes_shows_the_secret_once_and_the_delivery_log(
    receiver: Receiver,
) -> None:
    owner = make_owner()
    bot = make_bot(owner)
    client = Client()
    client.force_login(owner)
    page = client.get(f"/my/bots/{bot.name}/").content.decode()
    assert 'id="notifications"' in page and "Nothing sent yet." in page
    answer = client.post(
        f"/my/bots/{bot.name}/notifications/",
        {"webhook_kinds": ["fault", "forfeit"], "webhook_url": receiver.url,
         "email_kinds": ["season_ended"]},
    )  # fmt: skip
    secret = OwnerSecret.objects.get(owner=owner).secret
    assert answer.status_code == 200 and secret in answer.content.decode()
    assert "no-store" in answer.headers.get("Cache-Control", "")
    subs = {s.channel: s for s in Subscription.objects.filter(bot=bot)}
    assert subs["webhook"].kinds == ["fault", "forfeit"] and subs["webhook"].url == receiver.url
    assert subs["email"].kinds == ["season_ended"]
    notify.emit(bot.pk, "fault", {"match": 5, "cause": "crash"})
    delivery.deliver(Delivery.objects.get().pk)
    page = client.get(f"/my/bots/{bot.name}/").content.decode()
    assert secret not in page and secret[:8] in page  # the prefix only, from now on
    assert 'class="delivery-delivered"' in page and ">200<" in page and "faulted" in page
    assert 'id="wh-fault" aria-label="faulted by webhook" checked' in page
    # saved again: no new secret
    again = client.post(
        f"/my/bots/{bot.name}/notifications/",
        {"webhook_kinds": ["fault"], "webhook_url": receiver.url},
    )
    assert again.status_code == 302 and OwnerSecret.objects.get(owner=owner).secret == secret
    assert not Subscription.objects.filter(bot=bot, channel="email").exists()
    rotated = client.post("/my/notifications/secret/", {"bot": bot.name})
    new = OwnerSecret.objects.get(owner=owner).secret
    assert new != secret and new in rotated.content.decode()


def test_a_refused_url_is_said_and_nothing_saved(settings) -> None:  # noqa: ANN001
    settings.NOTIFY_ALLOW_PRIVATE_HOSTS = False
    owner = make_owner()
    bot = make_bot(owner)
    client = Client()
    client.force_login(owner)
    answer = client.post(
        f"/my/bots/{bot.name}/notifications/",
        {"webhook_kinds": ["fault"], "webhook_url": "http://127.0.0.1:6379/"},
        follow=True,
    )
    assert (
        "Not saved" in answer.content.decode()
        and "public addresses only" in answer.content.decode()
    )
    assert not Subscription.objects.exists() and not OwnerSecret.objects.exists()


def test_nobody_else_sees_or_changes_a_bots_notifications() -> None:
    owner, other = make_owner(), make_owner()
    bot = make_bot(owner)
    client = Client()
    client.force_login(other)
    answer = client.post(f"/my/bots/{bot.name}/notifications/", {"email_kinds": ["fault"]})
    assert answer.status_code == 403 and not Subscription.objects.exists()
    api = APIClient()
    api.force_authenticate(other)
    assert api.get(f"/api/bots/{bot.name}/notifications/").status_code == 403
    assert APIClient().get(f"/api/bots/{bot.name}/notifications/").status_code in (401, 403)


def test_the_api_sets_a_channel_and_lists_deliveries(receiver: Receiver) -> None:
    owner = make_owner()
    bot = make_bot(owner)
    api = APIClient()
    api.force_authenticate(owner)
    url = f"/api/bots/{bot.name}/notifications/"
    made = api.put(
        url, {"channel": "webhook", "kinds": ["fault"], "url": receiver.url}, format="json"
    )
    assert made.status_code == 200, made.content
    assert made.json()["secret"] == OwnerSecret.objects.get(owner=owner).secret
    assert made.json()["subscriptions"]["webhook"] == {"kinds": ["fault"], "url": receiver.url}
    again = api.put(
        url, {"channel": "webhook", "kinds": ["fault"], "url": receiver.url}, format="json"
    )
    assert "secret" not in again.json()
    bad = api.put(
        url, {"channel": "webhook", "kinds": ["fault", "nope"], "url": receiver.url}, format="json"
    )
    assert bad.status_code == 400 and "unknown event kind 'nope'" in bad.json()["error"]
    notify.emit(bot.pk, "fault", {"match": 1})
    delivery.deliver(Delivery.objects.get().pk)
    (row,) = api.get(url).json()["deliveries"]
    assert (row["kind"], row["state"], row["status_code"], row["attempts"]) == (
        "fault",
        "delivered",
        200,
        1,
    )
    info = api.get("/api/notifications/secret/").json()
    assert info["exists"] and len(info["prefix"]) == 8
    rotated = api.post("/api/notifications/secret/")
    assert rotated.status_code == 201 and rotated.json()["secret"].startswith(info["prefix"][:6])
