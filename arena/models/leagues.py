"""Leagues, their formats and deals, and the bots entered in them."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from arena.deals import SEED_DIGITS
from arena.models.bots import Bot


class LeagueMode(models.TextChoices):
    SIMPLE = "simple", "simple"
    ADVANCED = "advanced", "advanced"


class LeagueStatus(models.TextChoices):
    #: rounds are scheduled (by its schedule, or by hand)
    ACTIVE = "active", "active"
    #: no new round starts; matches already queued still run
    PAUSED = "paused", "paused"
    #: over for good: no new round, no entries
    FINISHED = "finished", "finished"


class DealMode(models.TextChoices):
    """How the two games of a pairing are dealt (``arena.deals``)."""

    #: every match its own secret seed (deck and first team): the default
    INDEPENDENT = "independent", "independent deals"
    #: both games of a pair on one deck, teams swapped: only for bots whose memory the
    #: arena controls
    MIRRORED = "mirrored", "mirrored pairs"


class LeagueFormat(models.TextChoices):
    """Who meets whom in a round (``arena.scheduling``, ``arena.matchmaking``)."""

    #: every pairing every round (n(n-1)/2 pairings): the default, for small leagues
    ROUND_ROBIN = "round_robin", "round robin"
    #: each bot ``games_per_bot`` single games a round on average (half to twice that, by
    #: how uncertain its rank is) against the opponents whose games tell the most (close
    #: in rating, uncertain ones first), for large leagues
    INFORMATION = "information", "information matchmaking"


class SeedField(models.CharField):  # type: ignore[type-arg]
    """A match seed (``arena.deals.SEED_BITS`` bits) stored as its decimal digits, read
    back as an ``int``. Text, because neither bigint nor SQLite's numbers hold 128 bits
    (SQLite would round a wider NUMERIC to a float); the canonical ``str(int)`` keeps
    equality comparisons in SQL exact, and a bigint column converts to it as it is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", SEED_DIGITS)
        super().__init__(*args, **kwargs)

    def from_db_value(self, value: Any, expression: object, connection: object) -> int | None:
        return None if value is None else int(value)

    def to_python(self, value: Any) -> int | None:  # type: ignore[override]
        if value is None or value == "":
            return None
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValidationError(f"a seed is a whole number, not {value!r}") from None

    def get_prep_value(self, value: Any) -> str | None:
        if value is None or hasattr(value, "resolve_expression"):
            return value  # type: ignore[no-any-return]
        number = int(value)
        if number < 0:
            raise ValueError("a seed is not negative")
        return str(number)


# ------------------------------------------------------------------ which leagues show where
#
# The one rule for the leagues that lists leave out (docs/rulings.md, "Hidden leagues"):
# - a league of its own (neither below) is *listed*: league lists, standings, ratings, the
#   bot index and the match filter's choices are of listed leagues only;
# - an event's league (``League.tournament``, ``arena.events``) is listed under /events/,
#   not with the leagues and not in a bot's ratings; its pages stay (``has_page``) and its
#   games show on bots' pages marked with the event;
# - a challenge league (``League.challenge_rules``, ``arena.challenges``) is unrated and
#   has no page at all (its pages answer 404 saying so); its games show everywhere a bot's
#   games do, marked as requested.


def listed_q(prefix: str = "") -> Q:
    """The listed leagues, as a filter (``prefix``: the path to the league, e.g.
    ``"league__"`` for a rating row)."""
    return Q(**{f"{prefix}challenge_rules__isnull": True, f"{prefix}tournament__isnull": True})


def has_page_q(prefix: str = "") -> Q:
    """The leagues that have public pages: every league but a challenge league."""
    return Q(**{f"{prefix}challenge_rules__isnull": True})


class LeagueQuerySet(models.QuerySet["League"]):
    def listed(self) -> LeagueQuerySet:
        return self.filter(listed_q())

    def with_pages(self) -> LeagueQuerySet:
        return self.filter(has_page_q())


class League(models.Model):
    """A competition: its bots (entries) meet round after round, each pairing as pairs of
    games with the teams swapped, dealt independently (or mirrored, see ``deals``). The
    game settings are fixed once a round exists (see ``check_league_settings``); the
    schedule, K, time control and policies may change."""

    name = models.CharField(max_length=80, unique=True)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    mode = models.CharField(max_length=16, choices=LeagueMode.choices, default=LeagueMode.SIMPLE)
    seats = models.PositiveSmallIntegerField(default=2, help_text="2, 3 or 4 (3 and 4: teams)")
    ruleset = models.CharField(max_length=32, default="standard")
    #: the referee's version of the ruleset when the league was made; matches refuse to
    #: run under a referee whose version differs (their replays would not re-simulate)
    ruleset_version = models.PositiveIntegerField(default=1)
    #: django-celery-beat entry that starts the next round; None = rounds start by hand
    schedule = models.OneToOneField(
        "django_celery_beat.PeriodicTask",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="league",
    )
    #: independent deals (default) or mirrored pairs (house bots only: ``arena.deals``)
    deals = models.CharField(max_length=16, choices=DealMode.choices, default=DealMode.INDEPENDENT)
    #: round robin (every pairing every round) or information matchmaking
    #: (``games_per_bot`` a round, ``arena.matchmaking``)
    format = models.CharField(
        max_length=16, choices=LeagueFormat.choices, default=LeagueFormat.ROUND_ROBIN,
        help_text="round robin: every pairing every round, n(n-1)/2 pairings, for small "
        "leagues; information matchmaking: each bot games-per-bot single games a round on "
        "average against opponents close in rating (2 seats, independent deals), for large "
        "ones",
    )  # fmt: skip
    #: the information format's games per bot and round, on average (round robin ignores it)
    games_per_bot = models.PositiveSmallIntegerField(
        default=10,
        help_text="information matchmaking: a bot's games a round on average (from half to "
        "twice this, more for a bot whose rank is less certain)",
    )
    #: pairs of games (teams swapped) per pairing per round (round robin)
    pairs_per_pairing = models.PositiveSmallIntegerField(default=1)
    decision_ms = models.PositiveIntegerField(default=5_000)
    bank_ms = models.PositiveIntegerField(default=60_000)
    #: overrides of the default fault policy (every cause forfeits): {cause: "abort"}
    fault_policy = models.JSONField(default=dict, blank=True)
    #: how long a remote seat waits for its bot at the start of a match
    connect_grace_ms = models.PositiveIntegerField(default=2_000)
    #: how long a remote bot whose stream dropped mid-match may take to come back (on any
    #: gateway) before it is charged ``disconnect``; the arena's own faults void instead
    reconnect_grace_ms = models.PositiveIntegerField(default=30_000)
    #: a remote bot not connected at the start: retry the match this many times ...
    no_show_retries = models.PositiveSmallIntegerField(default=3)
    #: ... spread over this window, then it forfeits as ``no_show``
    no_show_window_s = models.PositiveIntegerField(default=300)
    #: a round played in one process (``league run``, the demo) plays the matches of bots
    #: that are not connected last, waits this long for them at the end of the round, then
    #: plays them with no retry left: the no-show policy decides (a forfeit by default)
    absent_wait_s = models.PositiveIntegerField(
        default=60,
        help_text="seconds a round played by `league run` or the demo waits at its end for "
        "absent bots; then their matches follow the no-show policy",
    )
    #: a live match's spectators see its public moves this many decisions late (a broadcast
    #: delay, as chess sites keep for live games)
    live_delay_decisions = models.PositiveSmallIntegerField(default=3)
    k_factor = models.FloatField(default=24.0)
    rated = models.BooleanField(default=True)
    open_for_entries = models.BooleanField(default=True)
    status = models.CharField(
        max_length=16, choices=LeagueStatus.choices, default=LeagueStatus.ACTIVE
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = LeagueQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Entry(models.Model):
    """A bot entered in a league. Withdrawing sets ``active`` off; the row (and the bot's
    rating in the league) stays, so history and the rating sum stay whole."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="entries")
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="entries")
    active = models.BooleanField(default=True)
    #: the entry's division when the league is split (1 = the top; ``arena.seasons``):
    #: rounds pair entries of one division only. None: not split, or a newcomer not
    #: placed yet, who plays in the lowest division until the season's end places it
    division = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["league", "id"]
        constraints = [
            models.UniqueConstraint(fields=["league", "bot"], name="entry_unique_league_bot")
        ]

    def __str__(self) -> str:
        return f"{self.bot} in {self.league}"
