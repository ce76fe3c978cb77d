"""Competition domain models.

Only bots so far (the protocol issue); leagues, rounds and matches arrive with the leagues
issue and may extend ``Bot``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class BotKind(models.TextChoices):
    #: plays in-process from the referee's house bots (random, greedy, search)
    HOUSE = "house", "house"
    #: dials in over gRPC with its token
    REMOTE = "remote", "remote"


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
    name = models.CharField(max_length=64, unique=True)
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

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
