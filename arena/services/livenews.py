"""News of live matches: "match N has new decisions (or has just ended)", for the pages
that push a live game to its watchers (``leaderboard.live_stream``) instead of having them
poll.

``announce(ids)`` is called by the live writer after each write of decisions and by
``live.forget_many`` when matches end (or start an attempt afresh). ``listen(id)`` gives a
``Listener`` whose ``wait(timeout)`` returns as soon as news of that match is announced,
or after ``timeout`` (False then). News says only *that* something changed: the listener
reads the decisions and the match's status itself, so a lost or repeated announcement
costs a read, never a wrong page.

Distributed (the cache is Redis): one Redis pub/sub channel per match, under the cache's
key prefix (deployments sharing a Redis keep apart), published by whichever process plays
the match. Embedded (the process's own cache, where the matches are played in the web
server's process): a condition variable of the process. With Redis unreachable a listener
waits ``FALLBACK_POLL_S`` and reports news, so its stream goes on by reading the cache
that often, as a page that polls would.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Iterable
from typing import Any

import redis
from django.core.cache.backends.redis import RedisCache

from arena.cache import shared_cache

logger = logging.getLogger(__name__)

#: with Redis unreachable, a listener looks for news this often
FALLBACK_POLL_S = 1.0


def _channel(match_id: int) -> str:
    return shared_cache().make_key(f"live:news:{match_id}")


_clients: dict[tuple[int, str], Any] = {}


def _redis() -> Any | None:
    """The Redis client of the cache, or None where the cache is not Redis (one per
    process and address: the cache's own is built again on every call)."""
    backend = shared_cache()
    if not isinstance(backend, RedisCache):
        return None
    key = (os.getpid(), str(backend._servers))  # type: ignore[attr-defined]
    client = _clients.get(key)
    if client is None:
        client = _clients[key] = backend._cache.get_client(write=True)  # type: ignore[attr-defined]
    return client


class _Local:
    """Embedded mode's news: a counter per match and one condition for all listeners."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.counts: dict[int, int] = {}

    def announce(self, ids: Iterable[int]) -> None:
        with self.cond:
            for m in ids:
                self.counts[m] = self.counts.get(m, 0) + 1
            self.cond.notify_all()

    def count(self, match_id: int) -> int:
        with self.cond:
            return self.counts.get(match_id, 0)

    def wait(self, match_id: int, seen: int, timeout: float) -> int | None:
        """The match's count once it differs from ``seen`` (None after ``timeout``)."""
        with self.cond:
            if self.cond.wait_for(lambda: self.counts.get(match_id, 0) != seen, timeout):
                return self.counts.get(match_id, 0)
            return None


_local = _Local()


def announce(match_ids: Iterable[int]) -> None:
    """Tell every listener of these matches that something changed. Never raises: news is
    best effort (a listener also looks on its own every time its wait runs out)."""
    ids = list(match_ids)
    if not ids:
        return
    client = _redis()
    if client is None:
        _local.announce(ids)
        return
    try:
        if len(ids) == 1:
            client.publish(_channel(ids[0]), b"1")
            return
        with client.pipeline(transaction=False) as pipe:
            for m in ids:
                pipe.publish(_channel(m), b"1")
            pipe.execute()
    except redis.RedisError as exc:
        logger.debug("live news of %d matches not announced: %s", len(ids), exc)


class Listener:
    """News of one match, for one stream (``listen``). Close it (or use it as a context
    manager) to let go of its subscription."""

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self._pubsub: Any = None
        self._seen = 0
        self._redis = _redis() is not None
        if self._redis:
            self._subscribe()
        else:
            self._seen = _local.count(match_id)

    def _subscribe(self) -> None:
        try:
            client = _redis()
            assert client is not None
            self._pubsub = client.pubsub(ignore_subscribe_messages=True)
            self._pubsub.subscribe(_channel(self.match_id))
        except redis.RedisError as exc:
            logger.debug("live news of match %d: not subscribed: %s", self.match_id, exc)
            self._drop_pubsub()

    def _drop_pubsub(self) -> None:
        if self._pubsub is not None:
            try:
                self._pubsub.close()
            except redis.RedisError:  # pragma: no cover - closing a dead connection
                pass
        self._pubsub = None

    def wait(self, timeout: float) -> bool:
        """True when news of the match arrived within ``timeout`` seconds (all news that
        arrived meanwhile counts as one)."""
        if not self._redis:
            count = _local.wait(self.match_id, self._seen, timeout)
            if count is None:
                return False
            self._seen = count
            return True
        if self._pubsub is None:
            self._subscribe()
            if self._pubsub is None:  # Redis unreachable: look again in a while
                time.sleep(min(timeout, FALLBACK_POLL_S))
                return True
        try:
            got = self._pubsub.get_message(timeout=timeout)
            while got is not None and self._pubsub.get_message(timeout=0) is not None:
                pass  # the rest of a burst: one look at the match covers them all
        except redis.RedisError as exc:
            logger.debug("live news of match %d: subscription lost: %s", self.match_id, exc)
            self._drop_pubsub()
            return True  # something may have changed while the connection was down
        return got is not None

    def close(self) -> None:
        self._drop_pubsub()

    def __enter__(self) -> Listener:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def listen(match_id: int) -> Listener:
    return Listener(match_id)
