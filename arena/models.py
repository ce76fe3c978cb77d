"""Competition domain models: bots (the protocol issue); leagues, entries, rounds, matches,
their replays and participations (the leagues issue). Ratings are in ``arena.ratings.models``.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models

from arena import names
from arena.deals import SEED_DIGITS
from arena.runner.faults import FaultCause


class BotKind(models.TextChoices):
    #: plays in-process from the referee's house bots (random, greedy, search)
    HOUSE = "house", "house"
    #: dials in over gRPC with its token
    REMOTE = "remote", "remote"
    #: uploaded code the arena runs in a sandbox (``arena.hosting``), on the bot host's stream
    HOSTED = "hosted", "hosted"


class Bot(models.Model):
    """A bot that plays matches. Remote bots authenticate with a token we store hashed."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bots",
        help_text="empty for house bots",
    )
    #: the rule of ``arena.names``, also for the admin and as a check constraint
    name = models.CharField(
        max_length=names.MAX_LENGTH,
        unique=True,
        validators=[RegexValidator(names.ANCHORED, f"use {names.RULE}")],
    )
    kind = models.CharField(max_length=16, choices=BotKind.choices, default=BotKind.REMOTE)
    # sha256 hex of the token. Tokens are 32 random bytes, so a fast unsalted hash is
    # enough (nothing to brute-force) and lets the gateway look a token up by its hash.
    # NULL once revoked (unique allows many NULLs).
    token_hash = models.CharField(max_length=64, unique=True, null=True, blank=True, editable=False)
    #: the first characters of the token, to tell tokens apart in the admin and logs
    token_prefix = models.CharField(max_length=16, blank=True, editable=False)
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(null=True, blank=True)
    #: reported by the bot's last Hello
    protocol_version = models.PositiveIntegerField(null=True, blank=True)
    bot_version = models.CharField(max_length=100, blank=True)
    #: house bots: the referee bot that plays (``random``, ``greedy``, ``search:200``);
    #: empty means the bot's name is the spec
    house_spec = models.CharField(max_length=32, blank=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(name__regex=names.ANCHORED), name="bot_name_rule"
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def spec(self) -> str:
        """The referee bot a house bot plays with."""
        return self.house_spec or self.name

    @property
    def memory_controlled(self) -> bool:
        """Whether the arena controls what this bot remembers between matches: house bots
        are made afresh for every match. A dial-in bot keeps whatever it likes, so it may
        not play mirrored pairs (``arena.deals``). A hosted bot runs in a fresh sandbox for
        every match (``arena.hosting.sandbox``: new process, new tmp, nothing kept)."""
        return self.kind in (BotKind.HOUSE, BotKind.HOSTED)


class BotVersion(models.Model):
    """A version a bot reported in its Hello (``arena.services.bots.record_hello``): the
    bot page's version history. One row per distinct (version, protocol); a bot that comes
    back with an older version moves that row's ``last_seen`` forward."""

    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="versions")
    version = models.CharField(max_length=100, blank=True)
    protocol_version = models.PositiveIntegerField()
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    hellos = models.PositiveIntegerField(default=1)

    class Meta:
        # created by the leaderboard app, which held this model first
        db_table = "leaderboard_botversion"
        ordering = ["bot", "-last_seen"]
        constraints = [
            models.UniqueConstraint(
                fields=["bot", "version", "protocol_version"], name="botversion_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.version or '(no version)'} v{self.protocol_version}"


# ------------------------------------------------------------------ leagues (issue 5)
#
# Written by the services in ``arena.services.leagues`` only; the docstrings say which
# service owns each transition. Ratings live in ``arena.ratings.models``.


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
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["league", "id"]
        constraints = [
            models.UniqueConstraint(fields=["league", "bot"], name="entry_unique_league_bot")
        ]

    def __str__(self) -> str:
        return f"{self.bot} in {self.league}"


class RoundStatus(models.TextChoices):
    #: its matches are being written in batches (``arena.services.matchmade``); none is
    #: sent yet, and a scheduler that runs again finishes the round, never doubles it
    SCHEDULING = "scheduling", "scheduling"
    #: some match is queued or running
    PLAYING = "playing", "playing"
    #: every match is finished or void
    COMPLETE = "complete", "complete"


class Round(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=RoundStatus.choices, default=RoundStatus.PLAYING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    #: matches written so far (a round scheduled in batches moves it with a compare-and-set
    #: per batch, so two schedulers of one round never both write)
    scheduled_matches = models.PositiveIntegerField(default=0)
    #: matches of the round not over yet (queued or running), kept by the scheduler and
    #: decremented in each result's transaction, so that completing a round does not count
    #: its matches (``arena.services.completion``); NULL: not kept (a round made some other
    #: way), and completion counts the matches instead
    pending_matches = models.IntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["league", "number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="round_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.league} round {self.number}"


class MatchStatus(models.TextChoices):
    #: waiting for a worker (``not_before`` may hold it back: a no-show retry)
    QUEUED = "queued", "queued"
    #: claimed by ``worker_id`` until ``lease_expires_at``; an expired lease may be taken over
    RUNNING = "running", "running"
    #: has a result (possibly a forfeit); rated once if the league is rated
    FINISHED = "finished", "finished"
    #: over without a result (aborted by policy, or too many infrastructure failures)
    VOID = "void", "void"


class MatchEndReason(models.TextChoices):
    """How a finished match ended (the referee's reasons) or why a match is void."""

    CATCH = "catch", "catch"
    THREE_CODEBREAKERS = "three_codebreakers", "three Codebreakers"
    THREE_DAREDEVILS = "three_daredevils", "three Daredevils"
    LEADER_OF_THE_PACK = "leader_of_the_pack", "Leader of the Pack"
    MASTERPLAN = "masterplan", "Masterplan"
    SECURITY_SYSTEM = "security_system", "Security System"
    HOME_SPACE = "home_space", "home space"
    OUT_OF_CARDS = "out_of_cards", "out of cards"
    FORFEIT = "forfeit", "forfeit"
    #: void: the fault policy stopped the match without a result (e.g. no-shows on both
    #: teams)
    ABORTED = "aborted", "aborted"
    #: void: infrastructure failed on every attempt (see ``Match.error``)
    INFRASTRUCTURE = "infrastructure", "infrastructure failures"


class Match(models.Model):
    """One game of a pair (the pairing's teams swap between its two games). Lifecycle
    (``arena.services.leagues``): queued -(claim)-> running -(finish)-> finished | void,
    and running -(void attempt)-> queued when infrastructure failed; an expired lease is
    claimed again (attempts + 1)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="matches")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="matches")
    #: the pairing within the round (``arena.scheduling.Pairing.key``)
    pairing_key = models.CharField(max_length=64)
    #: circle-method slot (2 seats) or group (teams): pairings of one slot share no entry
    slot = models.PositiveIntegerField(default=0)
    #: which mirrored pair of the pairing (0 .. pairs_per_pairing - 1)
    pair_index = models.PositiveSmallIntegerField(default=0)
    #: 0: the pairing's first team plays team A; 1: teams swapped
    mirror = models.PositiveSmallIntegerField(default=0)
    #: the secret the deal comes from (``arena.deals``): shown nowhere until the match is
    #: over (its replay holds it then); shared by both games of a mirrored pair only
    deck_seed = SeedField()
    #: the team that plays first (0 = A), ``arena.deals.first_team_of(deck_seed)``
    first_team = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(
        max_length=16, choices=MatchStatus.choices, default=MatchStatus.QUEUED
    )
    not_before = models.DateTimeField(null=True, blank=True)
    #: when ``run_match`` was last sent for it (the reaper re-sends lost ones)
    enqueued_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    #: claims so far (the running attempt's number while running)
    attempts = models.PositiveIntegerField(default=0)
    #: attempts ended by a no-show and retried under the league's no-show policy
    no_show_retries = models.PositiveSmallIntegerField(default=0)
    #: claims spent before the operator's last re-run (``league rerun``): the current run's
    #: attempt budget (``ARENA_MAX_ATTEMPTS``) counts from here, and attempt numbers keep
    #: growing, so that no attempt of an earlier run can pass for one of this run
    attempt_base = models.PositiveIntegerField(default=0)
    #: times an operator voided this match's result (or its void) and played it again
    reruns = models.PositiveSmallIntegerField(default=0)
    worker_id = models.CharField(max_length=128, blank=True)
    #: the last infrastructure failure, for operators
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)
    winner_team = models.PositiveSmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=32, choices=MatchEndReason.choices, blank=True)
    turns = models.PositiveIntegerField(null=True, blank=True)
    decisions = models.PositiveIntegerField(null=True, blank=True)
    #: set in the transaction that applied the rating changes (once: see RatedMatch)
    rated = models.BooleanField(default=False)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "matches"
        constraints = [
            # re-running the scheduler for a round creates nothing new
            models.UniqueConstraint(
                fields=["round", "pairing_key", "pair_index", "mirror"],
                name="match_unique_game_of_round",
            ),
            models.CheckConstraint(
                condition=models.Q(rated=False) | models.Q(status="finished"),
                name="match_rated_only_when_finished",
            ),
            models.CheckConstraint(
                condition=models.Q(mirror__in=[0, 1]), name="match_mirror_0_or_1"
            ),
        ]
        indexes = [
            # match lists by league / status / date (site, API) and the reaper
            models.Index(fields=["league", "status", "-finished_at"], name="match_league_status"),
            models.Index(fields=["league", "-finished_at"], name="match_league_finished"),
            models.Index(fields=["status", "lease_expires_at"], name="match_status_lease"),
            models.Index(fields=["-finished_at"], name="match_finished"),
        ]

    def __str__(self) -> str:
        return f"match {self.pk} of {self.league}"

    @property
    def unit(self) -> str:
        """The pair this game belongs to (both games share the deck if mirrored)."""
        return f"{self.round_id}:{self.pairing_key}:{self.pair_index}"


class MatchReplay(models.Model):
    """The replay of a finished match (``referee.replay.Record`` JSON): kept apart so that
    listing matches never loads it."""

    match = models.OneToOneField(
        Match, on_delete=models.CASCADE, primary_key=True, related_name="replay"
    )
    record = models.JSONField()
    #: the runner's report: per-seat statistics, faults, dropped messages
    report = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)


class Participation(models.Model):
    """A bot's seat in a match, made when the round is scheduled and filled in when the
    match finishes: the rating ledger (before / after / change) and the seat's statistics."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="participations")
    #: denormalised from the match, for per-bot pages filtered by league
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="participations")
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="participations")
    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="participations")
    seat = models.PositiveSmallIntegerField()
    team = models.PositiveSmallIntegerField()
    won = models.BooleanField(null=True, blank=True)
    rating_before = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    rating_after = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    rating_change = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    #: decisions the bot was asked (single-option decisions are taken for it)
    decisions = models.PositiveIntegerField(default=0)
    auto_decisions = models.PositiveIntegerField(default=0)
    latency_mean_ms = models.FloatField(null=True, blank=True)
    latency_p50_ms = models.FloatField(null=True, blank=True)
    latency_p90_ms = models.FloatField(null=True, blank=True)
    latency_max_ms = models.FloatField(null=True, blank=True)
    bank_left_ms = models.PositiveIntegerField(null=True, blank=True)
    fault_cause = models.CharField(max_length=32, choices=FaultCause.choices, blank=True)
    fault_detail = models.TextField(blank=True)
    #: a hosted bot's version that played this seat: set by the bot host when it loads the
    #: code for the match, else (it never loaded) the active version when the result is
    #: written; empty for house and dial-in bots
    code_version = models.ForeignKey(
        "hosting.CodeVersion",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="participations",
    )

    class Meta:
        ordering = ["match", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="participation_unique_seat")
        ]
        indexes = [
            models.Index(fields=["bot", "-match"], name="participation_bot_recent"),
            models.Index(fields=["league", "bot", "-match"], name="participation_league_bot"),
        ]

    def __str__(self) -> str:
        return f"{self.bot} seat {self.seat} of match {self.match_id}"


class IncidentKind(models.TextChoices):
    #: a gateway began to shut down (SIGTERM): its bots' streams end by the arena's doing
    GATEWAY_DRAIN = "gateway_drain", "gateway draining"
    #: an attempt of a match was voided by an infrastructure fault (relay, database, a
    #: gateway or bot host lost): Redis down shows as many of these at once
    ATTEMPT_VOID = "attempt_void", "attempt voided"
    #: an operator voided a finished match's result and queued it again (``league rerun``);
    #: the detail holds the result that was voided
    MATCH_RERUN = "match_rerun", "match voided and re-run"


class Incident(models.Model):
    """Something the arena went through that is nobody's bot's fault: what the operator's
    fault report (``league faults``, ``arena.services.faultreport``) sets the charged
    faults against."""

    kind = models.CharField(max_length=32, choices=IncidentKind.choices)
    at = models.DateTimeField(db_index=True)
    #: who saw it: a gateway's id, a worker's id
    source = models.CharField(max_length=128, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="incidents"
    )
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["at"]

    def __str__(self) -> str:
        return f"{self.kind} at {self.at:%Y-%m-%d %H:%M:%S} ({self.source})"
