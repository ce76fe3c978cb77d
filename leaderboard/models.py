"""Models of the web layer: REST API keys. (Ratings and bot versions belong to the
competition domain: ``arena.ratings.models``, ``arena.models``.)"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ApiToken(models.Model):
    """A user's REST API key (``Authorization: Token <key>``). Like bot tokens, the key is
    shown once and only its sha256 is stored; one key per user, replaced on request."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token"
    )
    key_hash = models.CharField(max_length=64, unique=True)
    #: the first characters of the key, to tell keys apart
    prefix = models.CharField(max_length=16)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"API key {self.prefix}… of {self.user_id}"
