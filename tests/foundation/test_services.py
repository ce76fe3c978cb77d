"""The suite runs against the real services, never SQLite or a fake."""

from __future__ import annotations

import pytest
import redis
from django.db import connection


@pytest.mark.django_db
def test_suite_runs_against_postgresql() -> None:
    assert connection.vendor == "postgresql", (
        "The test suite must run against PostgreSQL: use `make test`, or set "
        "DATABASE_URL=postgres://postgres@127.0.0.1:5432/agent_avenue"
    )
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        (version,) = cursor.fetchone()
    assert int(version) >= 140000, "Django 5.2 needs PostgreSQL 14 or newer"


def test_redis_round_trip(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url, socket_connect_timeout=2, socket_timeout=2)
    key = "arena:test:foundation:round-trip"
    try:
        client.set(key, "1", ex=30)
        assert client.get(key) == b"1"
    finally:
        client.delete(key)
        client.close()
