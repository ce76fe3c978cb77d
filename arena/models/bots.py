"""Bots (house, remote, hosted) and the versions remote bots report."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

from arena import names


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
        every match (``arena.adapters.bothost.sandbox``: new process, new tmp, nothing kept)."""
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
