"""A hosted bot's code versions. Written by ``arena.hosting.services`` only."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from arena.terms.faults import FaultCause

#: the largest stored archive (the upload limit is lower; this bounds the column itself)
MAX_ARCHIVE_BYTES = 4 << 20


class VersionStatus(models.TextChoices):
    #: uploaded; a bot host has not finished its check yet
    CHECKING = "checking", "checking"
    #: passed the check: may be the active version
    READY = "ready", "ready"
    #: failed the check (see ``check_log``)
    REJECTED = "rejected", "rejected"


class CodeVersion(models.Model):
    """One upload of a hosted bot: its code (in the database, so any bot host can fetch
    it), where it came from, and the upload check's verdict. One version per bot is active;
    a new one becomes active when its check passes, and the owner may switch back."""

    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="code_versions")
    #: 1, 2, ... per bot
    number = models.PositiveIntegerField()
    #: the version that was active when this one was uploaded (its rating is the start)
    parent = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="children"
    )
    #: the normalised zip (``arena.hosting.archives``)
    archive = models.BinaryField(max_length=MAX_ARCHIVE_BYTES)
    sha256 = models.CharField(max_length=64)
    #: ``module:Class``
    entry_point = models.CharField(max_length=200)
    #: the uploaded file's name, as its owner knows it
    filename = models.CharField(max_length=200)
    size = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=VersionStatus.choices, default=VersionStatus.CHECKING
    )
    #: what the check did and saw (the sandbox's stderr included): for the owner only
    check_log = models.TextField(blank=True)
    #: the bot host checking it, and until when (another may take over after)
    checker = models.CharField(max_length=128, blank=True)
    check_lease_until = models.DateTimeField(null=True, blank=True)
    #: claims of the check so far (``services.claim_check``): a version whose check ended
    #: without a verdict this often (the check raised, or its host died) is rejected
    check_attempts = models.PositiveSmallIntegerField(default=0)
    active = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["bot", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="codeversion_unique_number"),
            models.UniqueConstraint(
                fields=["bot"], condition=models.Q(active=True), name="codeversion_one_active"
            ),
            models.CheckConstraint(
                condition=models.Q(active=False) | models.Q(status="ready"),
                name="codeversion_active_only_when_ready",
            ),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="codeversion_status")]

    def __str__(self) -> str:
        return f"{self.bot_id} v{self.number}"


class SandboxFault(models.Model):
    """A hosted bot's sandbox that failed in a match the bot host played: what happened and
    the last lines of the bot's stderr, for its owner only (the match's public page says
    only the fault the runner charged)."""

    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="sandbox_faults")
    version = models.ForeignKey(CodeVersion, on_delete=models.SET_NULL, null=True, blank=True)
    #: the protocol's match id (``73.1``: match 73, attempt 1)
    match_id = models.CharField(max_length=64)
    cause = models.CharField(max_length=32, choices=FaultCause.choices)
    detail = models.TextField(blank=True)
    stderr = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["bot", "-created_at"], name="sandboxfault_bot_recent")]


class VersionTestStatus(models.TextChoices):
    RUNNING = "running", "running"
    #: the LLR reached its upper bound: the candidate is better
    H1 = "h1", "H1 accepted"
    #: the LLR reached its lower bound: the candidate is not better
    H0 = "h0", "H0 accepted"
    #: the game budget ran out before either bound
    BUDGET = "budget", "budget exhausted"
    #: the arena could not play it (sandboxes failed to start again and again)
    FAILED = "failed", "failed"


class VersionTest(models.Model):
    """ "Is version ``candidate`` better than ``baseline``?": an SPRT (``arena.ratings.sprt``)
    on mirrored pairs played on the workers (``arena.adapters.bothost.versiontest``), unrated.
    ``pairs`` is the pentanomial count from the candidate's side: pairs in which it won
    0, 1 or 2 games (this game has no draws, so cells 1 and 3 stay 0)."""

    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="version_tests")
    candidate = models.ForeignKey(CodeVersion, on_delete=models.CASCADE, related_name="+")
    baseline = models.ForeignKey(CodeVersion, on_delete=models.CASCADE, related_name="+")
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=50.0)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_games = models.PositiveIntegerField(default=400)
    status = models.CharField(
        max_length=16, choices=VersionTestStatus.choices, default=VersionTestStatus.RUNNING
    )
    #: [LL, LD+DL, LW+DD+WL, DW+WD, WW] from the candidate's side
    pairs = models.JSONField(default=list)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    #: games the candidate or the baseline lost by its own fault (crash, timeout, ...)
    candidate_faults = models.PositiveIntegerField(default=0)
    baseline_faults = models.PositiveIntegerField(default=0)
    llr = models.FloatField(default=0.0)
    #: pairs the arena failed to play (sandbox start-up or host trouble), re-played
    errors = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    #: the worker playing it and until when (a conditional update claims it, every pair
    #: recorded extends it), so a second delivery of its task plays nothing; NULL between
    #: two slices of play
    worker = models.CharField(max_length=200, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    #: the last claim, pair or hand-over: the reaper re-sends a running test that has shown
    #: no sign of life for ARENA_REQUEUE_AFTER_SECONDS (its task message was lost)
    touched_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["bot"],
                condition=models.Q(status="running"),
                name="versiontest_one_running",
            ),
        ]

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def __str__(self) -> str:
        return f"{self.bot_id}: v{self.candidate_id} vs v{self.baseline_id} ({self.status})"
