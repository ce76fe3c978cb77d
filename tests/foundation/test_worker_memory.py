"""What a worker's matches leave behind once they are over (docs/performance.md, the
worker's memory after a burst): the per-match structures of the relay and of live
spectating are the process's, made once, not one per match thread (a burst allocates
them all, and what a burst allocates is what keeps its memory afterwards)."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.conf import settings
from django.core.cache import caches

from arena.adapters.relay import redis as relay_redis
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.cache import shared_cache
from arena.services import live

pytestmark = pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL")


def _in_threads(n: int, fn) -> list[object]:  # noqa: ANN001
    """``fn()`` in ``n`` threads one after the other (each a match's thread); its results."""
    out: list[object] = []
    for _ in range(n):
        t = threading.Thread(target=lambda: out.append(fn()))
        t.start()
        t.join(30)
        assert not t.is_alive()
    return out


def test_the_relays_of_a_process_share_one_redis_client_and_its_connections() -> None:
    url = str(settings.REDIS_URL)
    prefix = f"mem-{uuid.uuid4().hex[:8]}"

    def one_match() -> object:
        relay = RedisRunnerRelay(url, prefix)
        try:
            assert relay.is_connected("nobody") is False  # a command on the pool
            relay.open_match("m1")
            relay.close_match("m1")
            return relay._redis
        finally:
            relay.close()

    clients = _in_threads(20, one_match)
    assert len({id(c) for c in clients}) == 1
    assert clients[0] is relay_redis.shared_client(url)
    pool = relay_redis.shared_client(url).connection_pool
    # matches one after the other used one connection between them, not one each; and a
    # relay closed gave everything back (nothing in use)
    assert len(pool._in_use_connections) == 0  # type: ignore[attr-defined]
    assert len(pool._available_connections) == 1  # type: ignore[attr-defined]


def test_a_match_thread_dropping_its_live_keys_makes_no_cache_backend_of_its_own() -> None:
    def one_match() -> int:
        live.forget_many([10**9 + 1, 10**9 + 2])
        assert live.decisions_so_far(10**9 + 1) == []
        # Django's own ``cache`` would have made this thread a backend (and a client)
        return len(caches.all(initialized_only=True))

    assert _in_threads(10, one_match) == [0] * 10
    backends = _in_threads(3, shared_cache)
    assert len({id(b) for b in backends}) == 1


def test_after_many_commands_at_once_the_shared_pool_keeps_a_few_idle_connections() -> None:
    url = str(settings.REDIS_URL)
    prefix = f"mem-{uuid.uuid4().hex[:8]}"
    n = relay_redis.KEEP_IDLE * 3
    start = threading.Barrier(n)

    def one_match(i: int) -> None:
        relay = RedisRunnerRelay(url, prefix, direct=False)
        try:
            start.wait(30)
            assert relay._blpop(f"m{i}", 0.3) is None  # all n waits overlap: n connections
        finally:
            relay.close()

    threads = [threading.Thread(target=one_match, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    pool = relay_redis.shared_client(url).connection_pool
    assert len(pool._in_use_connections) == 0  # type: ignore[attr-defined]
    assert len(pool._available_connections) == relay_redis.KEEP_IDLE  # type: ignore[attr-defined]
    assert pool._created_connections == relay_redis.KEEP_IDLE  # type: ignore[attr-defined]
