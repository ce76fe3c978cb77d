"""Leagues: their configuration, schedule and entries.

``check_*`` functions validate and raise ``LeagueError`` with a message meant for a person
(the admin form, the ``league`` command and the API show it as it is); they change nothing.
``do_*`` functions change the database, each in one transaction, after calling the checks:
a refused configuration is never half-applied (no league without its schedule, no
schedule without its league).

Rounds and matches are in ``arena.services.rounds`` and ``arena.adapters.play.matches``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields

from django.db import transaction
from django.utils.text import slugify

from arena.deals import MIRRORED_REFUSAL
from arena.models import (
    Bot,
    BotKind,
    DealMode,
    Entry,
    League,
    LeagueFormat,
    LeagueMode,
    LeagueStatus,
)
from arena.ratings.models import LiveRating
from arena.services.errors import LeagueError

# re-exported: callers find the schedule calls beside the other league services
from arena.services.schedules import (  # noqa: F401
    REAPER_TASK_NAME,
    ScheduleSpec,
    check_schedule,
    do_set_schedule,
    enable_schedule,
    ensure_reaper,
    schedule_of,
)
from arena.terms.faults import FaultAction, FaultCause, FaultPolicy
from avenue_sdk.protocol.timing import TimeControl
from referee import ConfigError, GameConfig
from referee.bots import HOUSE_BOTS
from referee.config import RULESETS

# ------------------------------------------------------------------ configuration


@dataclass(frozen=True)
class LeagueSettings:
    """Everything a league is made with (the admin form and the command fill it in)."""

    name: str
    mode: str = LeagueMode.SIMPLE
    seats: int = 2
    ruleset: str = "standard"
    #: independent deals (default) or mirrored pairs (house bots only, ``arena.deals``)
    deals: str = DealMode.INDEPENDENT
    #: round robin (default) or information matchmaking (``games_per_bot`` a round)
    format: str = LeagueFormat.ROUND_ROBIN
    games_per_bot: int = 10
    pairs_per_pairing: int = 1
    decision_ms: int = TimeControl.decision_ms
    bank_ms: int = TimeControl.bank_ms
    fault_policy: Mapping[str, str] = field(default_factory=dict)
    connect_grace_ms: int = 2_000
    reconnect_grace_ms: int = 30_000
    no_show_retries: int = 3
    no_show_window_s: int = 300
    absent_wait_s: int = 60
    k_factor: float = 24.0
    rated: bool = True
    open_for_entries: bool = True
    slug: str = ""
    description: str = ""


#: settings that fix what a game is; they cannot change once a round exists
GAME_FIELDS = ("mode", "seats", "ruleset")


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
    _bounded("reconnect_grace_ms", s.reconnect_grace_ms, 0, 600_000, "the reconnect grace (ms)")
    _bounded("no_show_retries", s.no_show_retries, 0, 20, "no-show retries")
    _bounded("no_show_window_s", s.no_show_window_s, 0, 7 * 86400, "the no-show window (s)")
    _bounded("absent_wait_s", s.absent_wait_s, 0, 86400, "the wait for absent bots (s)")
    if s.no_show_retries and not s.no_show_window_s:
        raise LeagueError("no-show retries need a window longer than 0 s", "no_show_window_s")
    _bounded("k_factor", s.k_factor, 0.5, 200, "K")
    check_fault_policy(s.fault_policy)
    if s.deals not in DealMode.values:
        raise LeagueError(f"unknown deals {s.deals!r}: use {' or '.join(DealMode.values)}", "deals")
    check_format(s)
    if s.deals == DealMode.MIRRORED and league is not None:
        check_memory_controlled(e.bot for e in active_entries(league))
    if league is not None and league.rounds.exists():
        for key in GAME_FIELDS:
            if getattr(s, key) != getattr(league, key):
                raise LeagueError(
                    f"{key} cannot change once rounds were played (the league has "
                    f"{league.rounds.count()}); make a new league instead",
                    key,
                )


#: why the information format plays single games of two seats, dealt independently
INFORMATION_SINGLE_GAMES = (
    "the information format plays single games between two bots, each dealt on its own, "
    "against opponents picked by rating"
)


def check_format(s: LeagueSettings) -> None:
    """Refuse a format the league's other settings cannot play."""
    if s.format not in LeagueFormat.values:
        raise LeagueError(
            f"unknown format {s.format!r}: use {' or '.join(LeagueFormat.values)}", "format"
        )
    _bounded("games_per_bot", s.games_per_bot, 1, 200, "games per bot and round")
    if s.format != LeagueFormat.INFORMATION:
        return
    if s.seats != 2:
        raise LeagueError(
            f"{INFORMATION_SINGLE_GAMES}: a {s.seats}-seat league of teams needs round robin",
            "format",
        )
    if s.deals == DealMode.MIRRORED:
        raise LeagueError(
            f"{INFORMATION_SINGLE_GAMES}, so it has no pairs to mirror: use independent deals, "
            "or round robin for mirrored pairs",
            "deals",
        )
    if s.pairs_per_pairing != 1:
        raise LeagueError(
            f"{INFORMATION_SINGLE_GAMES}: pairs per pairing is a round-robin setting (set it "
            "to 1; games per bot says how many games a bot plays a round on average)",
            "pairs_per_pairing",
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
        enable_schedule(league, status == LeagueStatus.ACTIVE)


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


def check_memory_controlled(bots: Iterable[Bot]) -> None:
    """Refuse mirrored pairs unless the arena controls the memory of every bot in them."""
    free = sorted(b.name for b in bots if not b.memory_controlled)
    if free:
        raise LeagueError(
            f"{MIRRORED_REFUSAL}; {', '.join(free)} "
            f"{'is a dial-in bot' if len(free) == 1 else 'are dial-in bots'}",
            "deals",
        )


def check_entry(league: League, bot: Bot) -> None:
    if league.deals == DealMode.MIRRORED:
        check_memory_controlled([bot])
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


def house_only(entries: Iterable[Entry]) -> bool:
    """Whether a round of these entries plays house bots only (sent in chunks)."""
    return all(e.bot.kind == BotKind.HOUSE for e in entries)


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
    if league.deals == DealMode.MIRRORED:
        check_memory_controlled(e.bot for e in entries)
    needed = max(2, league.seats)
    if len(entries) < needed:
        raise LeagueError(
            f"league {league.name} has {len(entries)} active "
            f"entr{'y' if len(entries) == 1 else 'ies'}; a {league.seats}-seat league needs "
            f"at least {needed}"
        )
    return entries
