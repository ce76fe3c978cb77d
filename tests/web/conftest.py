"""Every web test gets a private in-process cache."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def local_cache(settings) -> Iterator[None]:  # noqa: ANN001 - pytest-django's settings
    """A private in-process cache per test: rate-limit counters and cached frames never
    leak between tests (nor into the shared Redis of other test runs)."""
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # a fast hasher: these tests log in dozens of times
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


#: the caches the page tests run against (Redis when the suite has one)
CACHES = ["local"] + (["redis"] if os.environ.get("REDIS_URL") else [])


@pytest.fixture(params=CACHES)
def page_cache(request, settings) -> Iterator[str]:  # noqa: ANN001 - pytest's objects
    """The pages' cache: the process's own, or Redis under a prefix of this test's own."""
    if request.param == "redis":
        settings.CACHES = {
            "default": {
                "BACKEND": "arena.cache.ResilientRedisCache",
                "LOCATION": os.environ["REDIS_URL"],
                "KEY_PREFIX": f"test-pages-{uuid.uuid4().hex}",
                "TIMEOUT": 600,
            }
        }
    cache.clear()  # a prefix of its own: clears this test's keys only
    yield request.param
    cache.clear()
