"""Tasks for ``test_worker_restart.py``, loaded by its worker with ``--include``: a burst's
memory kept the way a burst of matches keeps it (a few small objects that outlive it, in
every one of Python's pools), a task that holds the worker until released (a match held),
and a no-op."""

from __future__ import annotations

import os

import redis
from django.conf import settings

from workers.celery import app

#: what outlives the burst: one object in 64, enough to pin every pymalloc pool and arena
KEPT: list[str] = []


@app.task(name="tests.restart.fragment")
def fragment(n: int) -> int:
    """``n`` small strings made, one in 64 kept: the arenas they filled stay resident."""
    made = [f"burst-{i:012d}" for i in range(n)]
    KEPT.extend(made[::64])
    del made
    return os.getpid()


@app.task(name="tests.restart.hold", acks_late=True)
def hold(key: str) -> int:
    """Holds a thread of the worker until ``key`` is pushed (or two minutes)."""
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        client.blpop([key], timeout=120)
    finally:
        client.close()
    return os.getpid()


@app.task(name="tests.restart.pid")
def pid() -> int:
    return os.getpid()


@app.task(name="tests.restart.kept")
def kept() -> int:
    """How many of the bursts' strings this interpreter keeps."""
    return len(KEPT)
