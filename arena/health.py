"""Probes of the services the arena depends on, used by /healthz.

Each probe returns a Check; a failing dependency is reported, never raised, so
one broken service cannot hide the state of the others.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import redis
from django.conf import settings
from django.db import connections

logger = logging.getLogger(__name__)

NOT_CONFIGURED_EMBEDDED = "not configured (embedded mode)"


@dataclass(frozen=True)
class Check:
    ok: bool
    ms: float
    # Exception class only: the full message may name hosts or users, so it goes to the log.
    error: str | None = None

    def as_json(self) -> dict[str, object]:
        data: dict[str, object] = {"ok": self.ok, "ms": round(self.ms, 1)}
        if self.error is not None:
            data["error"] = self.error
        return data


def _elapsed_ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def check_database(alias: str = "default") -> Check:
    start = time.perf_counter()
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not healthy"
        logger.warning("health: database %r failed: %r", alias, exc)
        return Check(ok=False, ms=_elapsed_ms(start), error=type(exc).__name__)
    return Check(ok=True, ms=_elapsed_ms(start))


def check_redis(url: str, timeout: float) -> Check:
    start = time.perf_counter()
    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        client.ping()
    except Exception as exc:  # connection refused, timeout, auth, protocol errors
        logger.warning("health: redis failed: %r", exc)
        return Check(ok=False, ms=_elapsed_ms(start), error=type(exc).__name__)
    finally:
        client.close()
    return Check(ok=True, ms=_elapsed_ms(start))


def run_checks() -> tuple[bool, dict[str, object]]:
    """All configured checks: (every one passed, JSON-ready report per service)."""
    timeout = settings.HEALTHCHECK_TIMEOUT_SECONDS
    database = check_database()
    checks: dict[str, object] = {"database": database.as_json()}
    healthy = database.ok
    if settings.REDIS_URL:
        redis_check = check_redis(settings.REDIS_URL, timeout)
        checks["redis"] = redis_check.as_json()
        healthy = healthy and redis_check.ok
    else:
        checks["redis"] = NOT_CONFIGURED_EMBEDDED
    return healthy, checks
