"""A fixed-window counter in the cache, for the log-in and sign-up forms (the API's
endpoints use DRF throttles, which keep their history in the same cache)."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    # REMOTE_ADDR only: behind a proxy, configure it to set REMOTE_ADDR (trusting
    # X-Forwarded-For from anyone would let a client pick a fresh address per attempt)
    return str(request.META.get("REMOTE_ADDR") or "unknown")


def over_limit(scope: str, request: HttpRequest) -> bool:
    """Count one attempt of ``scope`` from this client; True when past the limit."""
    who = hashlib.sha256(client_address(request).encode()).hexdigest()[:32]
    window = settings.LOGIN_RATE_WINDOW_SECONDS
    key = f"ratelimit:{scope}:{who}"
    if cache.add(key, 1, timeout=window):
        count = 1
    else:
        try:
            count = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=window)
            count = 1
    return count > settings.LOGIN_RATE_LIMIT
