"""The site's cache backend (``arena.cache.ResilientRedisCache``) against a real Redis, and
against an address where nothing listens: there every read misses and every write is
skipped, never an exception (pages then read the database)."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings

from arena.cache import ResilientRedisCache


def _cache(url: str) -> ResilientRedisCache:
    return ResilientRedisCache(
        url,
        {
            "KEY_PREFIX": f"test-cache-{uuid.uuid4().hex[:8]}",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 2.0},
        },
    )


def test_it_caches_while_redis_answers() -> None:
    if not settings.REDIS_URL:
        pytest.fail("needs a real Redis: run it through `make test`")
    cache = _cache(str(settings.REDIS_URL))
    try:
        cache.set("k", {"a": 1}, timeout=60)
        assert cache.get("k") == {"a": 1}
        assert cache.add("n", 1, timeout=60) and not cache.add("n", 1, timeout=60)
        assert cache.incr("n") == 2
        assert cache.get_many(["k", "missing"]) == {"k": {"a": 1}}
    finally:
        cache.delete_many(["k", "n"])
        cache.close()


def test_it_misses_instead_of_failing_while_redis_is_down() -> None:
    # port 1 on loopback: the connection is refused at once
    cache = _cache("redis://127.0.0.1:1/0")
    assert cache.get("k", "default") == "default"
    assert cache.get_many(["a", "b"]) == {}
    assert not cache.has_key("k")
    cache.set("k", 1)
    cache.set_many({"a": 1})
    cache.delete("k")
    cache.delete_many(["a"])
    # a rate-limit counter that cannot be kept counts 1 (leaderboard.ratelimit)
    assert cache.add("n", 1) is True
    with pytest.raises(ValueError, match="not found"):
        cache.incr("n")
    cache.close()
