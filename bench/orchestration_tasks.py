"""The Celery app of ``bench/orchestration.py``'s worker: the arena's tasks plus a no-op
one, so that both run on the same worker process (``celery -A bench.orchestration_tasks``).
With ``BENCH_VIEW_AFTER_RESULT=1`` (``--watched --viewed``) every result's pages count as
viewed after it: an after-result hook clears their build counts as a view does."""

from __future__ import annotations

import os

import redis

from workers.celery import app

__all__ = ["app", "noop"]

_redis = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))


if os.environ.get("BENCH_VIEW_AFTER_RESULT"):
    from arena.services import result_hooks

    def _viewed(event: result_hooks.ResultCommitted) -> None:
        from django.core.cache import cache

        from leaderboard import watching

        keys = [watching.league_key(event.league.pk)]
        keys += [watching.bot_key(b) for b in event.bot_ids]
        cache.delete_many([k for key in keys for k in watching.view_keys(key)[1:]])

    result_hooks.register(_viewed)


@app.task(name="bench.noop", ignore_result=True, acks_late=True)
def noop(counter: str) -> None:
    """Nothing but telling the bench it ran (one Redis INCR)."""
    _redis.incr(counter)
