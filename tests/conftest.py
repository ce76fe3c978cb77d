"""Shared test helpers for every suite.

Nothing here touches the database: pytest-django only opens one for tests that ask
for it (the ``db`` fixture or ``django_db`` mark), so tests/referee/ stays Django-free.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


@pytest.fixture(scope="session", autouse=True)
def leave_redis_as_found() -> Iterator[None]:
    """Leave the suite's Redis database as the run found it: the keys the run made (Celery's
    results and bindings, relay keys of gateways, caches) are deleted when it ends.

    Set up first and so torn down last, after every worker, gateway and bot of the run has
    stopped. Keys that were there before the run are never touched."""
    url = os.environ.get("REDIS_URL")
    if not url:
        yield
        return
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=10, socket_timeout=30)
    try:
        before = set(client.scan_iter(count=1000))
    except redis.RedisError:
        # make test checked Redis first; a run without it has nothing of ours to clean
        yield
        return
    try:
        yield
    finally:
        try:
            made = [k for k in client.scan_iter(count=1000) if k not in before]
            for i in range(0, len(made), 500):
                client.delete(*made[i : i + 500])
        except redis.RedisError as exc:
            print(f"\nleft Redis keys behind: {exc}")
        finally:
            client.close()
