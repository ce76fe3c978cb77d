"""The site's cache backend in distributed mode: Django's Redis cache that misses instead
of failing while Redis is down.

The cache only holds what the database can give again (replay frames, standings tables,
bot statistics) and rate-limit counters, so a page must not answer 500 because Redis
restarted: a read is a miss, a write is skipped, and the page is built from the database.
Rate limits are not enforced meanwhile (a counter that cannot be read counts 1). Each
failure is logged, at most once per ``_LOG_EVERY_S`` per process (a page may read the
cache dozens of times).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import redis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.redis import RedisCache

logger = logging.getLogger(__name__)

_shared: dict[tuple[int, str], BaseCache] = {}
_shared_lock = threading.Lock()


def shared_cache() -> BaseCache:
    """The default cache, one backend for all of the process's threads. Django's ``cache``
    is one backend per thread: a worker's match thread that dropped its live keys made its
    own Redis client for it (a pool, a connection and its 64 KiB buffer, 80 KiB in all),
    and a worker playing 500 matches made 500 of them during a burst (what a burst
    allocates is what keeps its memory afterwards: docs/performance.md). A backend is safe
    to share between threads (Redis': a connection pool; the local memory cache: a lock)."""
    # a forked child makes its own, and so do settings that changed (tests)
    key = (os.getpid(), repr(settings.CACHES.get("default")))
    with _shared_lock:
        backend = _shared.get(key)
        if backend is None:
            backend = _shared[key] = caches.create_connection("default")
        return backend


T = TypeVar("T")
_LOG_EVERY_S = 30.0
_DOWN = (redis.ConnectionError, redis.TimeoutError)


class ResilientRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` that logs and misses on connection
    errors (``CACHES["default"]["BACKEND"] = "arena.cache.ResilientRedisCache"``)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._lock = threading.Lock()
        self._logged_at = -_LOG_EVERY_S

    def _down(self, what: str, exc: Exception) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._logged_at < _LOG_EVERY_S:
                return
            self._logged_at = now
        logger.warning(
            "cache: Redis unreachable, %s skipped (pages read the database): %s", what, exc
        )

    def _or(self, what: str, call: Callable[[], T], fallback: T) -> T:
        try:
            return call()
        except _DOWN as exc:
            self._down(what, exc)
            return fallback

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        # "added": a rate-limit counter that cannot be kept starts again at 1
        return self._or(
            "add", lambda: super(ResilientRedisCache, self).add(key, value, timeout, version), True
        )

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._or(
            "get", lambda: super(ResilientRedisCache, self).get(key, default, version), default
        )

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._or(
            "set", lambda: super(ResilientRedisCache, self).set(key, value, timeout, version), None
        )

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return self._or(
            "touch", lambda: super(ResilientRedisCache, self).touch(key, timeout, version), False
        )

    def delete(self, key: Any, version: Any = None) -> bool:
        return self._or(
            "delete", lambda: super(ResilientRedisCache, self).delete(key, version), False
        )

    def get_many(self, keys: Iterable[Any], version: Any = None) -> dict[Any, Any]:
        return self._or(
            "get_many", lambda: super(ResilientRedisCache, self).get_many(keys, version), {}
        )

    def has_key(self, key: Any, version: Any = None) -> bool:
        return self._or(
            "has_key", lambda: super(ResilientRedisCache, self).has_key(key, version), False
        )

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        try:
            return super().incr(key, delta, version)
        except _DOWN as exc:
            self._down("incr", exc)
            # what Django raises for a missing key: its callers handle that already
            raise ValueError(f"Key {key!r} not found (cache unreachable)") from None

    def set_many(
        self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> list[Any]:
        return self._or(
            "set_many",
            lambda: super(ResilientRedisCache, self).set_many(data, timeout, version),
            list(data),
        )

    def delete_many(self, keys: Iterable[Any], version: Any = None) -> None:
        self._or(
            "delete_many", lambda: super(ResilientRedisCache, self).delete_many(keys, version), None
        )

    def clear(self) -> None:
        self._or("clear", lambda: super(ResilientRedisCache, self).clear(), None)
