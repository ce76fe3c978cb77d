"""API keys: DRF's ``Authorization: Token <key>`` scheme over hashed keys.

DRF's own ``authtoken`` stores keys in plain text; ours stores the sha256 (as for bot
tokens), so the key is shown once, when made (``POST /api/auth/token/``).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from leaderboard.models import ApiToken

#: API keys look like ``aak_<43 url-safe characters>``; bot tokens start with ``aat_``
KEY_PREFIX = "aak_"
DISPLAY_CHARS = 10


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@transaction.atomic
def issue_api_key(user: Any) -> str:
    """A new key for ``user``, replacing any older one (which stops working at once)."""
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    ApiToken.objects.update_or_create(
        user=user, defaults={"key_hash": hash_key(key), "prefix": key[:DISPLAY_CHARS]}
    )
    return key


def revoke_api_key(user: Any) -> bool:
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return bool(deleted)


class HashedTokenAuthentication(TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        if not key.startswith(KEY_PREFIX) or len(key) > 100:
            raise exceptions.AuthenticationFailed("invalid API key")
        token = ApiToken.objects.select_related("user").filter(key_hash=hash_key(key)).first()
        if token is None or not token.user.is_active:
            raise exceptions.AuthenticationFailed("invalid API key")
        now = timezone.now()
        if token.last_used_at is None or (now - token.last_used_at).total_seconds() > 60:
            # at most one write a minute per key
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token
