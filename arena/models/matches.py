"""Rounds, matches, their replays and their seats (participations)."""

from __future__ import annotations

from django.db import models

from arena.models.bots import Bot
from arena.models.leagues import Entry, League, SeedField
from arena.terms.faults import FaultCause


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

    def same_deal(self) -> models.QuerySet[Match]:
        """The games dealt from this match's deal, this one included: both games of a
        mirrored pair; an independently dealt game's own seed is its alone."""
        return Match.objects.filter(
            round_id=self.round_id,
            pairing_key=self.pairing_key,
            pair_index=self.pair_index,
            deck_seed=self.deck_seed,
        )


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
