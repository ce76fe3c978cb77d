"""The Celery app of ``bench/orchestration.py``'s worker: the arena's tasks plus a no-op
one, so that both run on the same worker process (``celery -A bench.orchestration_tasks``)."""

from __future__ import annotations

import os

import redis

from workers.celery import app

__all__ = ["app", "noop"]

_redis = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))


@app.task(name="bench.noop", ignore_result=True, acks_late=True)
def noop(counter: str) -> None:
    """Nothing but telling the bench it ran (one Redis INCR)."""
    _redis.incr(counter)
