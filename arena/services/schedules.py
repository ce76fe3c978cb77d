"""When a league's rounds start: its schedule, stored as a django-celery-beat entry.

The beat process reads these entries from the database and fires
``arena.schedule_due_rounds`` for the league; this module only writes and reads the rows
(the domain never talks to Celery itself). Cron expressions are checked with cronsim.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from cronsim import CronSim, CronSimError
from django.db import transaction
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

from arena.beat import ensure_interval_entry
from arena.models import League, LeagueStatus
from arena.services.errors import LeagueError

#: the beat entry that reaps expired leases (``schedule_due_rounds`` without a league)
REAPER_TASK_NAME = "arena: reap expired match leases"
#: often enough that work lost with a restarted broker is sent again within ~20 s
REAPER_EVERY_S = 10
SCHEDULE_TASK = "arena.schedule_due_rounds"
#: a league's rounds may not start more often than this
MIN_INTERVAL_S = 10
MAX_INTERVAL_S = 366 * 24 * 3600


@dataclass(frozen=True)
class ScheduleSpec:
    """When a league's rounds start: every N seconds, or a cron expression (UTC)."""

    every_s: int | None = None
    cron: str | None = None

    _UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

    @classmethod
    def parse(cls, text: str) -> ScheduleSpec:
        """``every 10m`` / ``10m`` / ``90s`` / ``2h`` / ``1d``, or a five-field cron
        expression (``*/15 * * * *``, optionally prefixed ``cron:``)."""
        t = text.strip()
        if t.lower().startswith("cron:"):
            return cls(cron=" ".join(t[5:].split()))
        m = re.fullmatch(r"(?:every\s+)?(\d+)\s*([smhd])", t.lower())
        if m:
            return cls(every_s=int(m.group(1)) * cls._UNITS[m.group(2)])
        if len(t.split()) == 5:
            return cls(cron=" ".join(t.split()))
        raise LeagueError(
            f"cannot read the schedule {text!r}: write e.g. 'every 10m', '2h', '1d' or a "
            "cron expression of five fields such as '*/15 * * * *'",
            "schedule",
        )

    def describe(self) -> str:
        if self.cron is not None:
            return f"cron {self.cron} (UTC)"
        assert self.every_s is not None
        for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
            if self.every_s % size == 0:
                return f"every {self.every_s // size}{unit}"
        return f"every {self.every_s}s"

    def next_after(self, when: datetime) -> datetime:
        """The first start of a round after ``when`` (an aware datetime)."""
        if self.every_s is not None:
            return when + timedelta(seconds=self.every_s)
        assert self.cron is not None
        return next(CronSim(self.cron, when.astimezone(UTC)))


def check_schedule(spec: ScheduleSpec) -> None:
    if (spec.every_s is None) == (spec.cron is None):
        raise LeagueError("a schedule is either an interval or a cron expression", "schedule")
    if spec.every_s is not None:
        if spec.every_s < MIN_INTERVAL_S:
            raise LeagueError(
                f"rounds cannot start every {spec.every_s} s: the shortest interval is "
                f"{MIN_INTERVAL_S} s",
                "schedule",
            )
        if spec.every_s > MAX_INTERVAL_S:
            raise LeagueError("rounds must start at least once a year", "schedule")
        return
    try:
        spec.next_after(datetime.now(UTC))
    except (CronSimError, StopIteration) as exc:
        why = str(exc).lower().removeprefix("bad ")
        if why == "day-of-month":
            # cronsim says only "Bad day-of-month" for 31 February: say what it means
            why = "that day of the month never occurs in the months given"
        raise LeagueError(f"impossible schedule {spec.cron!r}: {why}", "schedule") from None


def schedule_of(league: League) -> ScheduleSpec | None:
    task = league.schedule
    if task is None:
        return None
    if task.interval is not None:
        return ScheduleSpec(every_s=int(task.interval.schedule.run_every.total_seconds()))
    if task.crontab is not None:
        c = task.crontab
        return ScheduleSpec(
            cron=f"{c.minute} {c.hour} {c.day_of_month} {c.month_of_year} {c.day_of_week}"
        )
    return None


def _beat_schedule(spec: ScheduleSpec) -> dict[str, Any]:
    if spec.every_s is not None:
        interval, _ = IntervalSchedule.objects.get_or_create(
            every=spec.every_s, period=IntervalSchedule.SECONDS
        )
        return {"interval": interval, "crontab": None}
    assert spec.cron is not None
    minute, hour, dom, month, dow = spec.cron.split()
    cron, _ = CrontabSchedule.objects.get_or_create(
        minute=minute,
        hour=hour,
        day_of_month=dom,
        month_of_year=month,
        day_of_week=dow,
        timezone="UTC",
    )
    return {"interval": None, "crontab": cron}


def ensure_reaper() -> PeriodicTask:
    """The beat entry that reaps every ``REAPER_EVERY_S``."""
    return ensure_interval_entry(REAPER_TASK_NAME, SCHEDULE_TASK, REAPER_EVERY_S)


@transaction.atomic
def do_set_schedule(league: League, spec: ScheduleSpec | None) -> None:
    """Give ``league`` this schedule (None: rounds start by hand only). Locks the league
    row so that two edits of one league do not make two beat entries."""
    if spec is not None:
        check_schedule(spec)
    locked = League.objects.select_for_update().get(pk=league.pk)
    task = locked.schedule
    if spec is None:
        if task is not None:
            League.objects.filter(pk=league.pk).update(schedule=None)
            task.delete()
        league.schedule = None
        return
    values = {
        "task": SCHEDULE_TASK,
        "kwargs": json.dumps({"league_id": league.pk}),
        "enabled": locked.status == LeagueStatus.ACTIVE,
        **_beat_schedule(spec),
    }
    if task is None:
        task = PeriodicTask.objects.create(name=f"league {league.slug}: next round", **values)
        League.objects.filter(pk=league.pk).update(schedule=task)
    else:
        for key, value in values.items():
            setattr(task, key, value)
        task.save()
    league.schedule = task
    ensure_reaper()


def enable_schedule(league: League, enabled: bool) -> None:
    """Switch the league's beat entry on or off (a paused league keeps its schedule)."""
    PeriodicTask.objects.filter(pk=league.schedule_id).update(enabled=enabled)
