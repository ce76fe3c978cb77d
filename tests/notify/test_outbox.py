"""``arena.notify.emit``: the outbox written in the caller's transaction, a delivery per
matching subscription, handed over only after the commit; and one attempt's sending:
signed webhooks to a real HTTP receiver, retries with backoff, refusals, e-mail."""

from __future__ import annotations

import io
import json
import time
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from arena import notify
from arena.models import BotKind
from arena.notify import delivery, retention, signing
from arena.notify.models import Delivery, DeliveryState, Event
from arena.notify.subscriptions import NotifyError, do_rotate_secret, do_subscribe, secret_of
from arena.services.bots import create_bot
from tests.leagues.conftest import wait_for
from tests.notify.conftest import Receiver, make_bot, make_owner

pytestmark = [pytest.mark.services, pytest.mark.django_db]


def test_an_event_is_recorded_with_a_delivery_per_matching_subscription(
    django_capture_on_commit_callbacks,  # noqa: ANN001 - pytest-django's fixture
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(retention, "_ensured", True)  # the cleanup's entry is made: no callback
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "webhook", ["fault", "forfeit"], "http://127.0.0.1:9/hook")
    do_subscribe(owner, bot, "email", ["forfeit"])
    with django_capture_on_commit_callbacks(execute=False) as handed:
        notify.emit(bot.pk, "fault", {"match": 1})
        notify.emit(bot.pk, "forfeit", {"match": 1})
        notify.emit(bot.pk, "season_ended", {"league": "x"})  # nobody subscribed to it
    assert Event.objects.filter(bot=bot).count() == 3
    by_kind = {
        k: sorted(Delivery.objects.filter(event__kind=k).values_list("channel", flat=True))
        for k in ("fault", "forfeit", "season_ended")
    }
    assert by_kind == {"fault": ["webhook"], "forfeit": ["email", "webhook"], "season_ended": []}
    assert Delivery.objects.get(event__kind="forfeit", channel="email").target == owner.email
    # one callback per event with deliveries (fault, forfeit) or a notice for the bot's
    # stream (forfeit, season_ended: arena.notify.outbox.STREAM_KINDS), after the commit
    assert len(handed) == 3


def test_nothing_is_recorded_for_a_rolled_back_transaction_a_house_bot_or_a_key_seen() -> None:
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "email", ["fault"])
    with pytest.raises(RuntimeError), transaction.atomic():
        notify.emit(bot.pk, "fault", {"match": 1})
        raise RuntimeError("the result is not written")
    assert not Event.objects.exists()
    house, _ = create_bot("house-notify-x", kind=BotKind.HOUSE)
    notify.emit(house.pk, "fault", {"match": 1})
    assert not Event.objects.exists()
    notify.emit(bot.pk, "fault", {"match": 2}, key="fault:2")
    notify.emit(bot.pk, "fault", {"match": 2}, key="fault:2")
    assert Event.objects.count() == 1 and Delivery.objects.count() == 1
    with pytest.raises(ValueError, match="unknown event kind 'nope'"):
        notify.emit(bot.pk, "nope", {})


def test_the_sweeper_takes_rows_whose_task_is_late_or_whose_worker_died(settings) -> None:  # noqa: ANN001
    settings.NOTIFY_TIMEOUT_S = 1  # a lease of 8 s
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "email", ["fault"])
    for match in range(3):
        notify.emit(bot.pk, "fault", {"match": match})
    fresh, late, dead = Delivery.objects.order_by("pk")
    now = timezone.now()
    Delivery.objects.filter(pk=late.pk).update(next_try_at=now - timedelta(seconds=9))
    Delivery.objects.filter(pk=dead.pk).update(
        state=DeliveryState.SENDING, attempts=1, lease_until=now - timedelta(seconds=1)
    )
    # the fresh one has its own task on the way
    assert delivery.due() == [late.pk, dead.pk]
    call_command("notify", "sweep", stdout=io.StringIO())
    assert set(Delivery.objects.values_list("state", flat=True)) == {DeliveryState.DELIVERED}
    assert Delivery.objects.get(pk=dead.pk).attempts == 2


def test_a_failure_to_record_leaves_the_callers_transaction_going(caplog) -> None:  # noqa: ANN001
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "email", ["fault"])
    with transaction.atomic():
        notify.emit(bot.pk, "fault", {"match": object()})  # not JSON: its savepoint undone
        notify.emit(bot.pk, "fault", {"match": 2})
    assert list(Event.objects.values_list("payload__match", flat=True)) == [2]
    assert "could not record a fault event" in caplog.text


def _one_webhook(receiver: Receiver, kinds: list[str] | None = None) -> tuple[Delivery, str]:
    owner = make_owner()
    bot = make_bot(owner)
    secret = do_subscribe(owner, bot, "webhook", kinds or ["fault"], receiver.url)
    assert secret is not None and secret == secret_of(owner).secret  # type: ignore[union-attr]
    notify.emit(bot.pk, "fault", {"match": 7, "cause": "timeout"})
    return Delivery.objects.get(event__bot=bot), secret


def test_a_webhook_is_signed_and_names_its_event(receiver: Receiver) -> None:
    d, secret = _one_webhook(receiver)
    assert delivery.deliver(d.pk) is None
    d.refresh_from_db()
    assert (d.state, d.attempts, d.status_code) == (DeliveryState.DELIVERED, 1, 200)
    (got,) = receiver.received
    # what a receiver does: HMAC-SHA256 of the raw body with the owner's secret
    assert signing.verify(secret, got.body, got.headers["X-Avenue-Signature"])
    assert not signing.verify(secret + "x", got.body, got.headers["X-Avenue-Signature"])
    assert got.headers["X-Avenue-Event-Id"] == str(d.event_id) == got.doc["id"]
    assert got.headers["X-Avenue-Event"] == "fault"
    assert abs(int(got.headers["X-Avenue-Timestamp"]) - time.time()) < 60
    assert got.doc["data"]["cause"] == "timeout" and got.doc["bot"]["id"] == d.event.bot_id
    # a second task for the same delivery sends nothing
    assert delivery.deliver(d.pk) is None and len(receiver.received) == 1
    # rotated: the old secret signs nothing from now on
    owner = d.event.bot.owner
    assert owner is not None
    new = do_rotate_secret(owner)
    assert new != secret and secret_of(owner).secret == new  # type: ignore[union-attr]


def test_500s_are_retried_with_backoff_then_delivered(receiver: Receiver, settings) -> None:  # noqa: ANN001
    settings.NOTIFY_BACKOFF_BASE_S = 1
    receiver.statuses = [500, 503]
    d, _ = _one_webhook(receiver)
    waits = []
    for _ in range(3):
        wait_for(lambda: d.pk in delivery.due(overdue=timedelta(0)), 30, "the delivery to be due")
        before = timezone.now()
        waits.append(delivery.deliver(d.pk))
        d.refresh_from_db()
        if waits[-1] is not None:
            assert d.state == DeliveryState.PENDING and d.next_try_at is not None
            assert d.next_try_at - before >= waits[-1] - timedelta(seconds=1)
    assert waits == [timedelta(seconds=1), timedelta(seconds=2), None]
    assert (d.state, d.attempts, d.status_code) == (DeliveryState.DELIVERED, 3, 200)
    assert [r.doc["attempt"] for r in receiver.received] == [1, 2, 3]
    assert len(receiver.by_event()) == 1  # one event, its id on every attempt
    assert "attempt 1: 500; next in 1 s" in d.log and "attempt 3: delivered (200)" in d.log


def test_a_delivery_is_given_up_after_the_last_attempt(receiver: Receiver, settings) -> None:  # noqa: ANN001
    settings.NOTIFY_MAX_ATTEMPTS = 2
    settings.NOTIFY_BACKOFF_BASE_S = 1
    receiver.statuses = [500, 500, 500]
    d, _ = _one_webhook(receiver)
    delivery.deliver(d.pk)
    wait_for(lambda: d.pk in delivery.due(overdue=timedelta(0)), 30, "the retry to be due")
    assert delivery.deliver(d.pk) is None
    d.refresh_from_db()
    assert (d.state, d.attempts, d.status_code) == (DeliveryState.FAILED, 2, 500)
    assert d.pk not in delivery.due() and "given up" in d.log


def test_a_redirect_is_not_followed(receiver: Receiver, settings) -> None:  # noqa: ANN001
    settings.NOTIFY_MAX_ATTEMPTS = 1
    receiver.statuses = [302]
    d, _ = _one_webhook(receiver)
    delivery.deliver(d.pk)
    d.refresh_from_db()
    assert (d.state, d.status_code) == (DeliveryState.FAILED, 302)
    assert "redirect" in d.error and len(receiver.received) == 1


def test_a_receiver_that_does_not_answer_times_out(receiver: Receiver, settings) -> None:  # noqa: ANN001
    import threading

    settings.NOTIFY_TIMEOUT_S = 1
    receiver.hold = threading.Event()
    d, _ = _one_webhook(receiver)
    wait = delivery.deliver(d.pk)
    d.refresh_from_db()
    assert wait is not None and d.state == DeliveryState.PENDING and d.status_code is None
    assert "timed out" in d.error.lower() or "timeout" in d.error.lower(), d.error


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook", "http://localhost/hook", "http://[::1]/hook",
        "http://10.1.2.3/hook", "http://192.168.0.10/", "http://169.254.169.254/latest/meta-data",
        "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/",
    ],
)  # fmt: skip
def test_private_and_loopback_addresses_are_refused(url: str, settings) -> None:  # noqa: ANN001
    settings.NOTIFY_ALLOW_PRIVATE_HOSTS = False
    owner = make_owner()
    with pytest.raises(NotifyError, match="public addresses only"):
        do_subscribe(owner, make_bot(owner), "webhook", ["fault"], url)


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://example.org/x", "http:// or https://"), ("file:///etc/passwd", "http://"),
        ("http://user:pw@example.org/", "user name"), ("http:///nohost", "no host"),
        ("", "needs a URL"),
    ],
)  # fmt: skip
def test_malformed_urls_are_refused(url: str, message: str) -> None:
    owner = make_owner()
    with pytest.raises(NotifyError, match=message):
        do_subscribe(owner, make_bot(owner), "webhook", ["fault"], url)


def test_an_address_that_became_private_is_refused_when_sending(
    receiver: Receiver,
    settings,  # noqa: ANN001
) -> None:
    """The check is made again for each attempt, on the address connected to: a name that
    resolved to a public address when subscribed and to loopback now reaches nothing."""
    d, _ = _one_webhook(receiver)
    settings.NOTIFY_ALLOW_PRIVATE_HOSTS = False
    assert delivery.deliver(d.pk) is None
    d.refresh_from_db()
    assert d.state == DeliveryState.FAILED and "loopback" in d.error, d.error
    assert receiver.received == []


def test_an_email_goes_to_the_owner_through_djangos_mail(settings) -> None:  # noqa: ANN001
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://arena.example.org"
    owner = make_owner("ada@example.org")
    bot = make_bot(owner)
    do_subscribe(owner, bot, "email", ["forfeit"])
    notify.emit(bot.pk, "forfeit", {"match": 3, "cause": "timeout", "path": "/matches/3/"})
    d = Delivery.objects.get()
    assert delivery.deliver(d.pk) is None
    (message,) = mail.outbox
    assert message.to == ["ada@example.org"]
    assert message.subject == f"[Agent Avenue] {bot.name}: lost match 3 by forfeit (timeout)"
    assert (
        "https://arena.example.org/matches/3/" in message.body and str(d.event_id) in message.body
    )
    d.refresh_from_db()
    assert d.state == DeliveryState.DELIVERED


def test_an_email_subscription_needs_an_address() -> None:
    owner = make_owner("")
    with pytest.raises(NotifyError, match="no e-mail address"):
        do_subscribe(owner, make_bot(owner), "email", ["fault"])


def test_the_body_is_json_with_the_event(receiver: Receiver) -> None:
    d, _ = _one_webhook(receiver)
    delivery.deliver(d.pk)
    doc = json.loads(receiver.received[0].body)
    assert set(doc) == {"id", "kind", "bot", "created_at", "sent_at", "attempt", "data"}
