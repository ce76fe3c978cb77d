"""How long told events are kept: an event older than ``NOTIFY_RETENTION_DAYS`` whose
deliveries are all over (delivered or failed; or that had none) is deleted with its
deliveries and their logs, by beat's ``arena.notify_cleanup`` (every
``CLEANUP_EVERY_S``; also ``manage.py notify cleanup``).

In batches of ``BATCH`` events, each its own short transaction, at most ``MAX_BATCHES`` a
run: a backlog (the first run after months) is worked off over several runs, never in one
long transaction that holds locks against the result writer. An event still pending or
sending is kept, whatever its age (the sweeper has it); a worker killed mid-run leaves
whole batches deleted and the rest for the next run."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_interval_entry
from arena.notify.models import Delivery, DeliveryState, Event

CLEANUP_ENTRY = "notify: delete old events"
CLEANUP_TASK = "arena.notify_cleanup"
#: how often beat runs it, in seconds
CLEANUP_EVERY_S = 3600
#: events deleted per transaction
BATCH = 500
#: batches per run (so one run deletes at most BATCH * MAX_BATCHES events)
MAX_BATCHES = 20

logger = logging.getLogger(__name__)

_OPEN = (DeliveryState.PENDING, DeliveryState.SENDING)


def cutoff(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=settings.NOTIFY_RETENTION_DAYS)


def expired(now: datetime | None = None) -> list[object]:
    """Up to ``BATCH`` ids of the events to delete now, oldest first."""
    still_open = Delivery.objects.filter(event=OuterRef("pk"), state__in=_OPEN)
    rows = Event.objects.filter(created_at__lt=cutoff(now)).filter(~Exists(still_open))
    return list(rows.order_by("created_at", "pk").values_list("pk", flat=True)[:BATCH])


def cleanup(now: datetime | None = None, max_batches: int = MAX_BATCHES) -> int:
    """Delete the expired events and their deliveries, batch by batch; how many events."""
    done = 0
    for _ in range(max(1, max_batches)):
        with transaction.atomic():
            ids = expired(now)
            if not ids:
                break
            # asked again in the delete: a delivery set pending since the read keeps its event
            still_open = Delivery.objects.filter(event=OuterRef("pk"), state__in=_OPEN)
            victims = Event.objects.filter(pk__in=ids).filter(~Exists(still_open))
            # the deliveries (and their logs) go with their event (on_delete=CASCADE)
            done += victims.delete()[1].get(Event._meta.label, 0)
        if len(ids) < BATCH:
            break
    return done


def ensure_cleanup() -> PeriodicTask:
    """The beat entry that deletes old events every ``CLEANUP_EVERY_S`` (idempotent)."""
    return ensure_interval_entry(CLEANUP_ENTRY, CLEANUP_TASK, CLEANUP_EVERY_S)


_ensured = False


def ensured() -> bool:
    return _ensured


def ensure_cleanup_once() -> None:
    """``ensure_cleanup`` after the first event this process commits (events are recorded
    for owners who subscribed to nothing, so subscribing alone would not do). Run on
    commit: its failure is logged, never raised into the committer."""
    global _ensured
    if _ensured:
        return
    try:
        ensure_cleanup()
    except Exception:  # noqa: BLE001 - the next event's commit tries again
        logger.warning("could not make the notify cleanup's beat entry", exc_info=True)
        return
    _ensured = True
