"""The webhook's signature: ``X-Avenue-Signature: sha256=<hex HMAC-SHA256 of the body>``
keyed with the owner's secret (as GitHub's ``X-Hub-Signature-256``). The body carries the
attempt's time (``sent_at``), so the signature covers it: a receiver may refuse old ones."""

from __future__ import annotations

import hashlib
import hmac
import secrets

PREFIX = "sha256="
SECRET_PREFIX = "whsec_"


def new_secret() -> str:
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def sign(secret: str, body: bytes) -> str:
    return PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """What a receiver does (docs/notifications.md has the same in a snippet)."""
    return hmac.compare_digest(sign(secret, body), header or "")
