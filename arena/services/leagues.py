"""Leagues: their configuration, schedule and entries.

``check_*`` functions validate and raise ``LeagueError`` with a message meant for a person
(the admin form, the ``league`` command and the API show it as it is); they change nothing.
``do_*`` functions change the database, each in one transaction, after calling the checks:
a refused configuration is never half-applied (no league without its schedule, no
schedule without its league).

Rounds and matches are in ``arena.services.rounds`` and ``arena.services.matches``.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

from celery.schedules import crontab
from django.db import transaction
from django.utils.text import slugify
from django_celery_beat.models import CrontabSchedule, IntervalSchedule, PeriodicTask

from arena.models import Bot, BotKind, Entry, League, LeagueMode, LeagueStatus
from arena.runner import FaultAction, FaultCause, FaultPolicy, TimeControl
from leaderboard.models import LiveRating
from referee import ConfigError, GameConfig
from referee.bots import HOUSE_BOTS
from referee.config import RULESETS

#: the beat entry that reaps expired leases (``schedule_due_rounds`` without a league)
REAPER_TASK_NAME = "arena: reap expired match leases"
REAPER_EVERY_S = 30
SCHEDULE_TASK = "arena.schedule_due_rounds"
#: a league's rounds may not start more often than this
MIN_INTERVAL_S = 10
MAX_INTERVAL_S = 366 * 24 * 3600


class LeagueError(ValueError):
    """A league request refused, with a message for a person; ``field`` names the setting
    at fault when there is one (the admin shows the message beside it)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


# ------------------------------------------------------------------ schedules


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

    def celery_crontab(self) -> crontab:
        assert self.cron is not None
        minute, hour, dom, month, dow = self.cron.split()
        return crontab(
            minute=minute, hour=hour, day_of_month=dom, month_of_year=month, day_of_week=dow
        )


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
        spec.celery_crontab().remaining_estimate(datetime.now(UTC))
    except (ValueError, IndexError) as exc:
        # celery says e.g. "day_of_month '31' never occurs in month_of_year '2'"
        raise LeagueError(f"impossible schedule {spec.cron!r}: {exc}", "schedule") from None


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
    """The beat entry that reaps expired match leases every 30 s (idempotent)."""
    interval, _ = IntervalSchedule.objects.get_or_create(
        every=REAPER_EVERY_S, period=IntervalSchedule.SECONDS
    )
    task, _ = PeriodicTask.objects.get_or_create(
        name=REAPER_TASK_NAME,
        defaults={"task": SCHEDULE_TASK, "interval": interval, "kwargs": "{}"},
    )
    return task


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


# ------------------------------------------------------------------ configuration


@dataclass(frozen=True)
class LeagueSettings:
    """Everything a league is made with (the admin form and the command fill it in)."""

    name: str
    mode: str = LeagueMode.SIMPLE
    seats: int = 2
    ruleset: str = "standard"
    pairs_per_pairing: int = 1
    decision_ms: int = TimeControl.decision_ms
    bank_ms: int = TimeControl.bank_ms
    fault_policy: Mapping[str, str] = field(default_factory=dict)
    connect_grace_ms: int = 2_000
    no_show_retries: int = 3
    no_show_window_s: int = 300
    k_factor: float = 24.0
    rated: bool = True
    open_for_entries: bool = True
    slug: str = ""
    description: str = ""
    seed: int | None = None


#: settings that fix what a game is; they cannot change once a round exists
GAME_FIELDS = ("mode", "seats", "ruleset", "seed")


def check_game(mode: str, seats: int, ruleset: str) -> GameConfig:
    if mode not in LeagueMode.values:
        raise LeagueError(f"unknown mode {mode!r}: use simple or advanced", "mode")
    if ruleset not in RULESETS:
        known = ", ".join(sorted(RULESETS))
        raise LeagueError(f"unknown ruleset {ruleset!r}: known rulesets are {known}", "ruleset")
    if seats not in (2, 3, 4):
        raise LeagueError(
            f"a {mode} league has 2 seats (one against one) or 3 or 4 (teams), not {seats}",
            "seats",
        )
    try:
        return GameConfig.for_seats(seats, mode, ruleset=ruleset)
    except ConfigError as exc:
        raise LeagueError(str(exc)) from None


def check_fault_policy(policy: Mapping[str, str]) -> FaultPolicy:
    if not isinstance(policy, Mapping):
        raise LeagueError("the fault policy is a mapping {cause: action}", "fault_policy")
    overrides = {}
    for cause, action in policy.items():
        if cause not in FaultCause.values:
            raise LeagueError(
                f"unknown fault cause {cause!r} in the fault policy: causes are "
                + ", ".join(FaultCause.values),
                "fault_policy",
            )
        try:
            overrides[cause] = FaultAction(action)
        except ValueError:
            raise LeagueError(
                f"fault policy for {cause}: {action!r} is not forfeit or abort", "fault_policy"
            ) from None
    return FaultPolicy.forfeit_except(**overrides)


def _bounded(name: str, value: float, low: float, high: float, what: str) -> None:
    if not low <= value <= high:
        raise LeagueError(f"{what} must be between {low:g} and {high:g}, not {value:g}", name)


def check_league_settings(s: LeagueSettings, *, league: League | None = None) -> None:
    """Refuse settings no league can play with. ``league``: the league being edited."""
    name = s.name.strip()
    if not name or len(name) > 80:
        raise LeagueError("a league needs a name of 1 to 80 characters", "name")
    slug = s.slug or slugify(name)
    if not slug:
        raise LeagueError(f"cannot make a URL slug of the name {name!r}", "slug")
    others = League.objects.exclude(pk=league.pk) if league is not None else League.objects
    if others.filter(name=name).exists():
        raise LeagueError(f"a league named {name!r} already exists", "name")
    if others.filter(slug=slug).exists():
        raise LeagueError(f"a league with the slug {slug!r} already exists", "slug")
    check_game(s.mode, s.seats, s.ruleset)
    _bounded("pairs_per_pairing", s.pairs_per_pairing, 1, 50, "mirrored pairs per pairing")
    _bounded("decision_ms", s.decision_ms, 10, 600_000, "the time per decision (ms)")
    _bounded("bank_ms", s.bank_ms, 0, 3_600_000, "the time bank (ms)")
    _bounded("connect_grace_ms", s.connect_grace_ms, 0, 600_000, "the connect grace (ms)")
    _bounded("no_show_retries", s.no_show_retries, 0, 20, "no-show retries")
    _bounded("no_show_window_s", s.no_show_window_s, 0, 7 * 86400, "the no-show window (s)")
    if s.no_show_retries and not s.no_show_window_s:
        raise LeagueError("no-show retries need a window longer than 0 s", "no_show_window_s")
    _bounded("k_factor", s.k_factor, 0.5, 200, "K")
    check_fault_policy(s.fault_policy)
    if league is not None and league.rounds.exists():
        for key in GAME_FIELDS:
            if key == "seed" and s.seed is None:
                continue
            if getattr(s, key) != getattr(league, key):
                raise LeagueError(
                    f"{key} cannot change once rounds were played (the league has "
                    f"{league.rounds.count()}); make a new league instead",
                    key,
                )


@transaction.atomic
def do_create_league(s: LeagueSettings, schedule: ScheduleSpec | None = None) -> League:
    check_league_settings(s)
    if schedule is not None:
        check_schedule(schedule)
    values = {f.name: getattr(s, f.name) for f in fields(LeagueSettings)}
    values["name"] = s.name.strip()
    values["slug"] = s.slug or slugify(values["name"])
    values["fault_policy"] = dict(s.fault_policy)
    values["seed"] = s.seed if s.seed is not None else secrets.randbits(48)
    values["ruleset_version"] = RULESETS[s.ruleset].version
    league = League.objects.create(**values)
    if schedule is not None:
        do_set_schedule(league, schedule)
    return league


def settings_of(league: League) -> LeagueSettings:
    return LeagueSettings(**{f.name: getattr(league, f.name) for f in fields(LeagueSettings)})


@transaction.atomic
def do_set_status(league: League, status: LeagueStatus) -> None:
    """Pause, resume or finish a league; its beat entry follows (enabled while active)."""
    League.objects.filter(pk=league.pk).update(status=status)
    league.status = status
    if league.schedule_id is not None:
        PeriodicTask.objects.filter(pk=league.schedule_id).update(
            enabled=status == LeagueStatus.ACTIVE
        )


def get_league(name_or_slug: str) -> League:
    league = (
        League.objects.filter(slug=name_or_slug).first()
        or League.objects.filter(name=name_or_slug).first()
    )
    if league is None:
        raise LeagueError(f"no league named {name_or_slug!r}")
    return league


# ------------------------------------------------------------------ entries


def check_house_spec(spec: str) -> None:
    kind, _, arg = spec.partition(":")
    if kind not in HOUSE_BOTS or (arg and (kind != "search" or not arg.isdigit())):
        raise LeagueError(
            f"{spec!r} is not a house bot: use {', '.join(HOUSE_BOTS)} or search:PLAYOUTS"
        )
    if arg and not 1 <= int(arg) <= 100_000:
        raise LeagueError(f"search playouts must be between 1 and 100000, not {arg}")


@transaction.atomic
def do_create_house_bot(name: str, spec: str) -> Bot:
    """A house bot named ``name`` playing the referee bot ``spec`` (idempotent for an
    existing house bot of that name and spec)."""
    from arena.services.bots import BotError, create_bot

    check_house_spec(spec)
    existing = Bot.objects.filter(name=name).first()
    if existing is not None:
        if existing.kind != BotKind.HOUSE or existing.spec != spec:
            raise LeagueError(f"a bot named {name!r} exists and is not the house bot {spec}")
        return existing
    try:
        bot, _ = create_bot(name, kind=BotKind.HOUSE)
    except BotError as exc:
        raise LeagueError(str(exc)) from None
    if spec != name:
        Bot.objects.filter(pk=bot.pk).update(house_spec=spec)
        bot.house_spec = spec
    return bot


def check_entry(league: League, bot: Bot) -> None:
    if league.status == LeagueStatus.FINISHED:
        raise LeagueError(f"league {league.name} is finished")
    if not league.open_for_entries:
        raise LeagueError(f"league {league.name} is closed for entries")
    if not bot.active:
        raise LeagueError(f"bot {bot.name} is deactivated")
    if bot.kind == BotKind.HOUSE:
        check_house_spec(bot.spec)
    if Entry.objects.filter(league=league, bot=bot, active=True).exists():
        raise LeagueError(f"{bot.name} is already entered in {league.name}")


@transaction.atomic
def do_enter(league: League, bot: Bot) -> Entry:
    """Enter ``bot`` (again) with its live rating row: 1500 for a newcomer, its old rating
    for a returning bot. The league's total stays 1500 x its rating rows."""
    check_entry(league, bot)
    entry, created = Entry.objects.get_or_create(league=league, bot=bot)
    if not created:
        Entry.objects.filter(pk=entry.pk).update(active=True)
        entry.active = True
    LiveRating.objects.get_or_create(league=league, bot=bot)
    return entry


def do_withdraw(league: League, bot: Bot) -> None:
    """The bot plays no new round; matches already scheduled still run."""
    updated = Entry.objects.filter(league=league, bot=bot, active=True).update(active=False)
    if not updated:
        raise LeagueError(f"{bot.name} is not entered in {league.name}")


def active_entries(league: League) -> list[Entry]:
    return list(
        Entry.objects.filter(league=league, active=True, bot__active=True)
        .select_related("bot")
        .order_by("id")
    )


def check_can_schedule(league: League) -> list[Entry]:
    """The entries of the next round, or a clear refusal."""
    if league.status != LeagueStatus.ACTIVE:
        raise LeagueError(f"league {league.name} is {league.status}: no new rounds")
    current = RULESETS.get(league.ruleset)
    if current is None or current.version != league.ruleset_version:
        raise LeagueError(
            f"league {league.name} plays ruleset {league.ruleset} version "
            f"{league.ruleset_version}, which this referee does not have"
        )
    entries = active_entries(league)
    needed = max(2, league.seats)
    if len(entries) < needed:
        raise LeagueError(
            f"league {league.name} has {len(entries)} active "
            f"entr{'y' if len(entries) == 1 else 'ies'}; a {league.seats}-seat league needs "
            f"at least {needed}"
        )
    return entries
