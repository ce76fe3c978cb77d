"""The arena's own periodic checks as django-celery-beat entries (the reaper, season
ends, events, notifications): one way to make sure each exists with its period."""

from __future__ import annotations

from django_celery_beat.models import IntervalSchedule, PeriodicTask


def ensure_interval_entry(name: str, task: str, every_s: int) -> PeriodicTask:
    """The beat entry ``name`` that runs ``task`` every ``every_s`` seconds (idempotent;
    an entry made with another period by an older version is brought to this one): the
    arena's own periodic checks (reaper, season ends, events, notifications)."""
    interval, _ = IntervalSchedule.objects.get_or_create(
        every=every_s, period=IntervalSchedule.SECONDS
    )
    entry, _ = PeriodicTask.objects.get_or_create(
        name=name, defaults={"task": task, "interval": interval, "kwargs": "{}"}
    )
    if entry.interval_id != interval.pk:
        entry.interval = interval
        entry.save(update_fields=["interval"])
    return entry
