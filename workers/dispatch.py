"""The dispatch port (``arena.dispatch``) implemented with Celery: each call sends a task,
and ``broker_view`` reads what the Redis broker holds (for the reaper)."""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from datetime import datetime

import redis
from django.conf import settings

from arena.dispatch import DEFERRED_PRIORITY, BrokerView, deferred
from workers.celery import app
from workers.tasks import fit_batch_ratings, run_match, run_matches, run_version_test

logger = logging.getLogger(__name__)

#: kombu's Redis transport: reserved (delivered, unacknowledged) messages and when each
#: was delivered; a priority queue's lists are named ``queue + _PRIORITY_SEP + priority``
_UNACKED = "unacked"
_UNACKED_INDEX = "unacked_index"
_PRIORITY_SEP = "\x06\x16"
_PRIORITIES = (3, 6, 9)


def epoch_key(queue: str) -> str:
    """A key the reaper sets in the broker: gone means the broker restarted empty."""
    return f"arena:broker-epoch:{queue}"


def missing_key(queue: str) -> str:
    """The reaper's memory in the broker: queued matches it did not hold, and since when."""
    return f"arena:broker-missing:{queue}"


def _broker() -> redis.Redis:
    """A short-lived client of the Redis broker, for the reaper's looks."""
    return redis.Redis.from_url(
        str(app.conf.broker_url), socket_connect_timeout=5, socket_timeout=30
    )


def _matches_of(message: object) -> tuple[list[int], float | None] | None:
    """(match ids, ETA as a Unix time) of a ``run_match`` message (one id) or a
    ``run_matches`` message (a chunk's); None for another task."""
    if not isinstance(message, dict):
        return None
    try:
        headers = message.get("headers") or {}
        task = headers.get("task")
        if task not in (run_match.name, run_matches.name):
            return None
        body = message["body"]
        if (message.get("properties") or {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        arg = json.loads(body)[0][0]
        ids = [int(arg)] if task == run_match.name else [int(m) for m in arg]
        eta = headers.get("eta")
        return ids, datetime.fromisoformat(eta).timestamp() if eta else None
    except (ValueError, TypeError, KeyError, IndexError, binascii.Error):
        return None  # not a message of ours (another producer on this Redis)


def _priority(match_ids: list[int]) -> int | None:
    """Challenge games behind league play (``arena.dispatch.deferred``); None: the default."""
    return DEFERRED_PRIORITY if deferred(match_ids) else None


class CeleryDispatcher:
    in_process = False

    def run_match(self, match_id: int, countdown: float | None = None) -> None:
        run_match.apply_async((match_id,), countdown=countdown, priority=_priority([match_id]))

    def run_matches(self, match_ids: list[int]) -> None:
        run_matches.apply_async((match_ids,), priority=_priority(match_ids))

    def fit_ratings(self, league_id: int) -> None:
        fit_batch_ratings.delay(league_id)

    def run_version_test(self, test_id: int) -> None:
        run_version_test.apply_async((test_id,), queue=settings.ARENA_VERSION_TEST_QUEUE or None)

    def broker_view(self) -> BrokerView | None:
        """The matches whose message waits in our queue, or was delivered to a worker that
        is still to start it: its ETA is ahead, or it was delivered less than
        ``ARENA_REQUEUE_AFTER_SECONDS`` ago (an older one was taken by a worker that died).
        None when the broker is not Redis or cannot be reached."""
        url = str(app.conf.broker_url or "")
        if not url.startswith(("redis://", "rediss://", "unix://")):
            return None
        queue = str(app.conf.task_default_queue)
        client = _broker()
        try:
            # first: a restart between this and the reads below only makes the next look
            # see the loss
            lost = bool(client.set(epoch_key(queue), str(time.time()), nx=True))
            # one MULTI: a message kombu moves from a list to the unacked hash meanwhile is
            # seen in one of them (its move itself is two commands: missing_before)
            pipe = client.pipeline(transaction=True)
            for key in (queue, *(f"{queue}{_PRIORITY_SEP}{p}" for p in _PRIORITIES)):
                pipe.lrange(key, 0, -1)
            pipe.hgetall(_UNACKED)
            pipe.zrange(_UNACKED_INDEX, 0, -1, withscores=True)
            *lists, unacked, index = pipe.execute()
        except redis.RedisError as exc:
            logger.warning("reaper: cannot read the broker: %s", exc)
            return None
        finally:
            client.close()
        held: set[int] = set()
        for raw in (m for messages in lists for m in messages):
            try:
                found = _matches_of(json.loads(raw))
            except ValueError:
                continue
            if found is not None:
                held.update(found[0])
        now = time.time()
        delivered = {tag: score for tag, score in index}
        for tag, value in unacked.items():
            try:
                payload, _exchange, routing_key = json.loads(value)
            except (ValueError, TypeError):
                continue
            if routing_key != queue:
                continue
            found = _matches_of(payload)
            if found is None:
                continue
            match_ids, eta = found
            fresh = now - delivered.get(tag, now) < settings.ARENA_REQUEUE_AFTER_SECONDS
            if (eta is not None and eta > now) or fresh:
                held.update(match_ids)
        return BrokerView(frozenset(held), lost_data=lost)

    def missing_before(self, missing: frozenset[int], at_least: float) -> frozenset[int]:
        """A message is in neither place the view reads while a worker takes it: kombu
        pops it off the queue, then writes it to the unacked hash, and a busy worker's
        consumer thread may wait for the interpreter lock in between. So a match counts
        as lost only when two looks missed it."""
        key = missing_key(str(app.conf.task_default_queue))
        client = _broker()
        now = time.time()
        try:
            seen = {int(k): float(v) for k, v in client.hgetall(key).items()}  # type: ignore[union-attr]
            since = {m: seen.get(m, now) for m in missing}
            pipe = client.pipeline(transaction=True)
            pipe.delete(key)
            if since:
                pipe.hset(key, mapping={str(m): repr(t) for m, t in since.items()})
                pipe.expire(key, 24 * 3600)
            pipe.execute()
        except (redis.RedisError, ValueError) as exc:
            logger.warning("reaper: cannot keep its memory in the broker: %s", exc)
            return frozenset()
        finally:
            client.close()
        return frozenset(m for m, t in since.items() if m in seen and now - t >= at_least)
