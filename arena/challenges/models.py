"""Who accepts challenges, the hidden leagues challenges are played in, and the challenges.
Written by ``arena.challenges.services`` only."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from arena.models import Bot, League, LeagueMode, Round


class ChallengeSetting(models.Model):
    """A bot's owner's answer to "may others challenge this bot?" (no row: no, but for
    ownerless house bots, the arena's sparring partners, which accept unless a row says no)."""

    bot = models.OneToOneField(Bot, on_delete=models.CASCADE, related_name="challenge_setting")
    accepts = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.bot_id}: {'accepts' if self.accepts else 'refuses'} challenges"


class ChallengeLeague(models.Model):
    """The hidden, unrated league in which the challenges of one mode are played (two
    seats, independent deals, the league defaults' clock): made on the first challenge of
    that mode, never listed with the leagues, never scheduled, closed for entries."""

    league = models.OneToOneField(League, on_delete=models.PROTECT, related_name="challenge_rules")
    mode = models.CharField(max_length=16, choices=LeagueMode.choices, unique=True)

    def __str__(self) -> str:
        return f"challenges ({self.mode})"


class ChallengeKind(models.TextChoices):
    #: an owner asked for it against someone's bot
    CHALLENGE = "challenge", "challenge"
    #: "play my new version against the house bots now": one per house bot
    SPARRING = "sparring", "sparring against a house bot"


class Challenge(models.Model):
    """A best-of-``games`` between ``bot`` (the requester's) and ``opponent``: one round of
    the hidden league with ``games`` matches, teams alternating; over when its round is
    complete (``arena.services.completion`` keeps it). Unrated."""

    requester = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges"
    )
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="challenges_sent")
    opponent = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="challenges_received")
    kind = models.CharField(max_length=16, choices=ChallengeKind.choices, default="challenge")
    games = models.PositiveSmallIntegerField()
    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="+")
    round = models.OneToOneField(Round, on_delete=models.PROTECT, related_name="challenge")
    #: a hosted bot's version that was active when it was asked (sparring shows it)
    code_version = models.ForeignKey(
        "hosting.CodeVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # the quota: a requester's challenges of the last day
            models.Index(fields=["requester", "-created_at"], name="challenge_requester_day"),
        ]

    def __str__(self) -> str:
        return f"challenge {self.pk}: {self.bot_id} v {self.opponent_id} (best of {self.games})"
