"""Every web test gets a private in-process cache."""

from __future__ import annotations

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
