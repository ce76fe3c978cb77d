"""Old events go: past ``NOTIFY_RETENTION_DAYS`` an event whose deliveries are over
(delivered, failed, or none) is deleted with its deliveries and their logs, in bounded
batches, by beat's ``arena.notify_cleanup`` on a real worker (and ``manage.py notify
cleanup``); an event still being delivered is kept whatever its age."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from arena import notify
from arena.notify import retention
from arena.notify.models import Delivery, DeliveryState, Event
from arena.notify.subscriptions import do_subscribe
from tests.leagues.conftest import Cluster, wait_for
from tests.notify.conftest import make_bot, make_owner

pytestmark = [pytest.mark.services]


def _events(bot_id: int, n: int, state: str | None, age_days: float) -> list[str]:
    """``n`` events of the bot, each with one delivery in ``state`` (None: no delivery),
    made ``age_days`` ago."""
    with transaction.atomic():
        for _ in range(n):
            notify.emit(bot_id, "fault", {"match": 1, "cause": "timeout"})
    fresh = list(Event.objects.filter(bot_id=bot_id).exclude(payload__has_key="age"))
    when = timezone.now() - timedelta(days=age_days)
    ids = []
    for e in fresh:
        e.payload = {**e.payload, "age": age_days}
        e.created_at = when
        e.save(update_fields=["payload", "created_at"])
        ids.append(str(e.pk))
        if state is None:
            Delivery.objects.filter(event=e).delete()
        else:
            Delivery.objects.filter(event=e).update(state=state, log="12:00 sent\n")
    return ids


@pytest.mark.django_db
def test_only_old_events_whose_deliveries_are_over_are_deleted(settings) -> None:  # noqa: ANN001
    settings.NOTIFY_RETENTION_DAYS = 30
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "email", ["fault"])
    gone = (
        _events(bot.pk, 2, DeliveryState.DELIVERED, 31)
        + _events(bot.pk, 1, DeliveryState.FAILED, 40)
        + _events(bot.pk, 1, None, 31)
    )
    kept = (
        _events(bot.pk, 1, DeliveryState.PENDING, 31)
        + _events(bot.pk, 1, DeliveryState.SENDING, 90)
        + _events(bot.pk, 1, DeliveryState.DELIVERED, 29)
    )
    assert retention.cleanup() == len(gone)
    assert sorted(str(pk) for pk in Event.objects.values_list("pk", flat=True)) == sorted(kept)
    assert not Delivery.objects.filter(event_id__in=gone).exists()
    assert Delivery.objects.filter(event_id__in=kept).count() == 3
    assert retention.cleanup() == 0
    # a shorter retention takes the 29-day-old delivered one too, never the open ones
    settings.NOTIFY_RETENTION_DAYS = 7
    assert retention.cleanup() == 1
    assert Event.objects.count() == 2


@pytest.mark.django_db
def test_a_run_deletes_in_bounded_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(retention, "BATCH", 3)
    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "email", ["fault"])
    _events(bot.pk, 8, DeliveryState.DELIVERED, 60)
    assert retention.cleanup(max_batches=2) == 6  # two batches of three, the rest waits
    assert Event.objects.count() == 2
    out = StringIO()
    call_command("notify", "cleanup", stdout=out)
    assert "2 events deleted" in out.getvalue()
    assert not Event.objects.exists() and not Delivery.objects.exists()


@pytest.mark.django_db
def test_subscribing_makes_the_cleanups_beat_entry_for_a_task_the_workers_know() -> None:
    import workers.tasks  # noqa: F401 - the tasks the workers load
    from workers.celery import app

    owner = make_owner()
    do_subscribe(owner, make_bot(owner), "email", ["fault"])
    entry = PeriodicTask.objects.get(name=retention.CLEANUP_ENTRY)
    assert entry.task == retention.CLEANUP_TASK and entry.enabled
    assert entry.interval is not None and entry.interval.every == retention.CLEANUP_EVERY_S
    assert retention.CLEANUP_TASK in app.tasks
    retention.ensure_cleanup()  # idempotent
    assert PeriodicTask.objects.filter(task=retention.CLEANUP_TASK).count() == 1


@pytest.mark.django_db(transaction=True)
def test_the_first_committed_event_makes_the_entry_without_a_subscription(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(retention, "_ensured", False)
    bot = make_bot(make_owner())
    with transaction.atomic():
        notify.emit(bot.pk, "fault", {"match": 1})
        assert not PeriodicTask.objects.filter(name=retention.CLEANUP_ENTRY).exists()
    assert PeriodicTask.objects.filter(name=retention.CLEANUP_ENTRY).exists()
    assert retention.ensured()


@pytest.mark.processes
@pytest.mark.slow
def test_the_cleanup_task_runs_on_a_real_worker(cluster: Cluster, settings) -> None:  # noqa: ANN001
    from workers.notify import cleanup

    owner = make_owner()
    bot = make_bot(owner)
    do_subscribe(owner, bot, "email", ["fault"])
    old = _events(bot.pk, 3, DeliveryState.DELIVERED, 45)
    new = _events(bot.pk, 1, DeliveryState.DELIVERED, 1)
    cluster.start_worker()
    cleanup.delay()

    def cleaned() -> bool:
        return not Event.objects.filter(pk__in=old).exists()

    wait_for(cleaned, 90, f"the old events deleted\n{cluster.logs()}", step=0.2)
    assert [str(pk) for pk in Event.objects.values_list("pk", flat=True)] == new
    assert not Delivery.objects.filter(event_id__in=old).exists()
