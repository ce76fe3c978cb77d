"""Embedded mode (Celery eager): a delivery is sent on a thread of its own, never on the
thread that committed its event (a match's, whose result wrote it): the commit returns
while the receiver still holds the webhook's request."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from arena import notify
from arena.notify.models import Delivery, DeliveryState
from arena.notify.subscriptions import do_subscribe
from tests.leagues.conftest import wait_for
from tests.notify.conftest import Receiver, make_bot, make_owner
from workers.celery import app

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_embedded_mode_sends_off_the_committing_thread(
    receiver: Receiver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app.conf, "task_always_eager", True)  # embedded mode's Celery
    receiver.hold = threading.Event()
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "webhook", ["challenge"], receiver.url)
    with transaction.atomic():
        notify.emit(bot.pk, "challenge", {"challenger": "their-bot"})
    # back from the commit: the request is with the receiver, held, its attempt unfinished
    assert receiver.held.wait(60), "the webhook was not sent"
    d = Delivery.objects.get(event__bot=bot)
    assert d.state == DeliveryState.SENDING
    receiver.hold.set()
    wait_for(
        lambda: Delivery.objects.get(pk=d.pk).state == DeliveryState.DELIVERED, 60, "delivered"
    )
    assert len(receiver.received) == 1
