"""A webhook is delivered once per event across a worker killed mid-delivery: real Celery
workers and beat (its sweeper), a real HTTP receiver counting what it gets by event id."""

from __future__ import annotations

import threading

import pytest
from django.db import transaction

from arena import notify
from arena.notify.models import Delivery, DeliveryState
from arena.notify.subscriptions import SWEEP_ENTRY, do_subscribe
from tests.leagues.conftest import Cluster, wait_for
from tests.notify.conftest import Receiver, make_bot, make_owner

pytestmark = [pytest.mark.services, pytest.mark.processes, pytest.mark.slow]

TIMEOUT_S = 2  # a lease of 3 * 2 + 5 = 11 s


def test_a_webhook_is_delivered_once_per_event_across_a_sigkill(
    cluster: Cluster,
    receiver: Receiver,
    settings,  # noqa: ANN001 - pytest-django's settings
) -> None:
    settings.NOTIFY_SWEEP_EVERY_S = 1
    settings.NOTIFY_ALLOW_PRIVATE_HOSTS = True
    cluster.env.update(
        NOTIFY_ALLOW_PRIVATE_HOSTS="1", NOTIFY_TIMEOUT_S=str(TIMEOUT_S), NOTIFY_BACKOFF_BASE_S="1"
    )
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "webhook", ["fault"], receiver.url)  # and the sweeper's entry
    receiver.hold = threading.Event()  # the first request waits: the worker is mid-delivery
    first = cluster.start_worker()
    cluster.start_beat()
    with transaction.atomic():
        for match in range(3):
            notify.emit(bot.pk, "fault", {"match": match, "cause": "timeout"})
    ids = {str(pk) for pk in Delivery.objects.values_list("event_id", flat=True)}
    assert len(ids) == 3
    assert receiver.held.wait(60), cluster.logs()
    first.kill9()  # mid-delivery: the receiver has the request, the worker never its answer
    (killed,) = receiver.by_event()
    receiver.hold.set()
    stuck = Delivery.objects.get(event_id=killed)
    assert (stuck.state, stuck.attempts) == (DeliveryState.SENDING, 1)
    cluster.start_worker()

    def all_delivered() -> bool:
        return not Delivery.objects.exclude(state=DeliveryState.DELIVERED).exists()

    wait_for(all_delivered, 90, f"every delivery\n{cluster.logs()}", step=0.2)
    counts = receiver.by_event()
    assert set(counts) == ids  # every event reached the receiver ...
    # ... once, but the one whose answer died with its worker: that one twice, with the
    # same event id, which is what X-Avenue-Event-Id is for
    assert counts[killed] == 2 and all(counts[e] == 1 for e in ids - {killed}), counts
    again = Delivery.objects.get(event_id=killed)
    assert again.attempts == 2 and "did not say how it ended" in again.log
    assert all(d.attempts == 1 for d in Delivery.objects.exclude(event_id=killed))
    assert f"{SWEEP_ENTRY} (arena.notify_sweep)" in cluster.logs()


def test_a_worker_retries_500s_with_backoff_then_delivers(
    cluster: Cluster,
    receiver: Receiver,
    settings,  # noqa: ANN001 - pytest-django's settings
) -> None:
    """The retry is the worker's own task, sent with the backoff as its countdown (no beat
    here: the sweeper is not what delivers it)."""
    settings.NOTIFY_ALLOW_PRIVATE_HOSTS = True
    cluster.env.update(
        NOTIFY_ALLOW_PRIVATE_HOSTS="1", NOTIFY_TIMEOUT_S=str(TIMEOUT_S), NOTIFY_BACKOFF_BASE_S="1"
    )
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "webhook", ["forfeit"], receiver.url)
    receiver.statuses = [500, 500]
    cluster.start_worker()
    with transaction.atomic():
        notify.emit(bot.pk, "forfeit", {"match": 1, "cause": "crash"})
    d = Delivery.objects.get()
    wait_for(
        lambda: Delivery.objects.filter(pk=d.pk, state=DeliveryState.DELIVERED).exists(),
        60, f"the delivery\n{cluster.logs()}", step=0.1,
    )  # fmt: skip
    d.refresh_from_db()
    assert (d.attempts, d.status_code) == (3, 200)
    assert [r.doc["attempt"] for r in receiver.received] == [1, 2, 3]
    assert set(receiver.by_event()) == {str(d.event_id)}
    assert "next in 1 s" in d.log and "next in 2 s" in d.log
