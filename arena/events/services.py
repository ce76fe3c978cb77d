"""Making tournaments: ``check_*`` validate (raising ``EventError`` with a message for a
person; the admin, the ``tournament`` command and the API show it as it is), ``do_*``
write, in one transaction. Starting and advancing them: ``arena.events.advance``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils.text import slugify

from arena.events.models import Entrant, Tournament, TournamentFormat, TournamentStatus
from arena.events.pairing import max_swiss_rounds
from arena.models import Bot, DealMode, League, LeagueMode
from arena.services import leagues as league_services
from arena.services.errors import LeagueError

#: how many bots an event takes (a knockout of 64 is 6 rounds; a Swiss of 64 is fine)
MAX_ENTRANTS = 64
MAX_GAMES_PER_PAIRING = 20


class EventError(LeagueError):
    """A tournament request refused, with a message for a person."""


class EventConflict(EventError):
    """Refused by the state, not the request: the name is taken, it already started."""


@dataclass(frozen=True)
class TournamentSettings:
    name: str
    format: str
    bots: Sequence[str] = ()
    slug: str = ""
    description: str = ""
    #: Swiss: its number of rounds (0: ``max_swiss_rounds``, at most 7)
    rounds: int = 0
    #: games per pairing / knockout tie, teams swapped every other game
    games_per_pairing: int = 2
    #: mirrored (each two games on one deal: memory-controlled bots only) or independent
    deals: str = DealMode.MIRRORED
    mode: str = LeagueMode.SIMPLE
    seats: int = 2
    ruleset: str = "standard"
    rated: bool = False
    #: the league whose live ratings seed the event (slug or name; "" : listed order)
    seed_league: str = ""
    decision_ms: int = 5_000
    bank_ms: int = 60_000
    extra: dict[str, object] = field(default_factory=dict)


def check_settings(s: TournamentSettings) -> tuple[list[Bot], League | None]:
    """The bots and the seed league of a valid request, or ``EventError``."""
    name = s.name.strip()
    if not name:
        raise EventError("a tournament needs a name", "name")
    if len(name) > 60:
        raise EventError("a tournament's name is at most 60 characters", "name")
    slug = s.slug or slugify(name)
    if not slug:
        raise EventError(f"{name!r} gives no slug: name it with letters or digits", "name")
    if (
        Tournament.objects.filter(name=name).exists()
        or Tournament.objects.filter(slug=slug).exists()
    ):
        raise EventConflict(f"a tournament named {name!r} (or slug {slug!r}) exists", "name")
    if s.format not in TournamentFormat.values:
        raise EventError(
            f"format must be one of {', '.join(TournamentFormat.values)}, not {s.format!r}",
            "format",
        )
    if s.seats != 2:
        raise EventError(
            "tournaments are two-seat events (one bot against one): 3- and 4-seat team "
            "games are played in leagues",
            "seats",
        )
    if s.deals not in DealMode.values:
        raise EventError(f"deals must be one of {', '.join(DealMode.values)}", "deals")
    if not 1 <= s.games_per_pairing <= MAX_GAMES_PER_PAIRING:
        raise EventError(
            f"games per pairing must be 1 to {MAX_GAMES_PER_PAIRING}", "games_per_pairing"
        )
    if s.deals == DealMode.MIRRORED and s.games_per_pairing % 2:
        raise EventError(
            "with mirrored deals every two games share a deal (teams swapped): games per "
            "pairing must be even",
            "games_per_pairing",
        )
    names = [n.strip() for n in s.bots if n.strip()]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise EventError(f"listed twice: {', '.join(twice)}", "bots")
    if not 2 <= len(names) <= MAX_ENTRANTS:
        raise EventError(f"a tournament takes 2 to {MAX_ENTRANTS} bots, not {len(names)}", "bots")
    found = {b.name: b for b in Bot.objects.filter(name__in=names)}
    missing = [n for n in names if n not in found]
    if missing:
        raise EventError(f"no bot named {', '.join(missing)}", "bots")
    bots = [found[n] for n in names]
    inactive = [b.name for b in bots if not b.active]
    if inactive:
        raise EventError(f"deactivated: {', '.join(inactive)}", "bots")
    if s.deals == DealMode.MIRRORED:
        try:
            league_services.check_memory_controlled(bots)
        except LeagueError as exc:
            raise EventError(f"{exc} (or choose independent deals)", "deals") from None
    if s.format == TournamentFormat.SWISS and s.rounds:
        most = max_swiss_rounds(len(bots))
        if not 1 <= s.rounds <= most:
            raise EventError(
                f"a Swiss of {len(bots)} bots has at most {most} rounds (no more than can "
                f"always be paired without a repeat, nor than 2 log2(bots) + 2; a longer "
                f"event is a round robin); asked for {s.rounds}",
                "rounds",
            )
    seed_league = None
    if s.seed_league:
        try:
            seed_league = league_services.get_league(s.seed_league)
        except LeagueError as exc:
            raise EventError(str(exc), "seed_league") from None
    return bots, seed_league


@transaction.atomic
def do_create(s: TournamentSettings) -> Tournament:
    """A draft tournament with its entrants and its own league (hidden from league
    lists, closed for entries, no schedule: the event writes its rounds)."""
    bots, seed_league = check_settings(s)
    name = s.name.strip()
    slug = s.slug or slugify(name)
    try:
        league = league_services.do_create_league(
            league_services.LeagueSettings(
                name=f"{name} (event)"[:80],
                slug=f"event-{slug}"[:80],
                description=s.description,
                mode=s.mode,
                seats=2,
                ruleset=s.ruleset,
                deals=s.deals,
                decision_ms=s.decision_ms,
                bank_ms=s.bank_ms,
                rated=s.rated,
                # nobody enters an event's league: its entrants are entered at the start
                open_for_entries=False,
            )
        )
    except LeagueError as exc:
        raise EventError(str(exc), exc.field) from None
    rounds = s.rounds
    if s.format == TournamentFormat.SWISS and not rounds:
        rounds = min(7, max_swiss_rounds(len(bots)))
    t = Tournament.objects.create(
        name=name, slug=slug, description=s.description, format=s.format, league=league,
        rounds=rounds if s.format == TournamentFormat.SWISS else 0,
        games_per_pairing=s.games_per_pairing, seed_league=seed_league,
    )  # fmt: skip
    Entrant.objects.bulk_create(
        [Entrant(tournament=t, bot=b, listed=i) for i, b in enumerate(bots, 1)]
    )
    return t


def get_tournament(slug_or_name: str) -> Tournament:
    t = (
        Tournament.objects.filter(slug=slug_or_name).first()
        or Tournament.objects.filter(name=slug_or_name).first()
    )
    if t is None:
        raise EventError(f"no tournament named {slug_or_name!r}")
    return t


def check_draft(t: Tournament) -> None:
    if t.status != TournamentStatus.DRAFT:
        raise EventConflict(f"tournament {t.name} is {t.status}: only a draft can start")


def planned_rounds(t: Tournament, n: int) -> int:
    """Rounds the event plays with ``n`` entrants."""
    from arena.events.pairing import knockout_rounds, round_robin_rounds

    if t.format == TournamentFormat.KNOCKOUT:
        return knockout_rounds(n)
    if t.format == TournamentFormat.ROUND_ROBIN:
        return len(round_robin_rounds(list(range(n))))
    return t.rounds
