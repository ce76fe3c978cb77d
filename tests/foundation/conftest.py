from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]

# Variables a subprocess must not inherit when a test sets up its own configuration.
_SETTINGS_VARS = (
    "DEBUG",
    "SECRET_KEY",
    "DATABASE_URL",
    "REDIS_URL",
    "ALLOWED_HOSTS",
    "CSRF_TRUSTED_ORIGINS",
    "GATEWAY_ADDRESS",
    "LOG_LEVEL",
)


@pytest.fixture
def redis_url() -> str:
    """The real Redis the suite runs against (make test sets REDIS_URL)."""
    if not settings.REDIS_URL:
        pytest.fail(
            "This test needs a real Redis: run it through `make test`, or set "
            "REDIS_URL=redis://127.0.0.1:6379/0 (and DATABASE_URL for PostgreSQL)."
        )
    return str(settings.REDIS_URL)


@pytest.fixture
def clean_env() -> Callable[..., dict[str, str]]:
    """Build a subprocess environment without any arena setting, plus the given ones."""

    def build(**overrides: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _SETTINGS_VARS}
        env["DJANGO_SETTINGS_MODULE"] = "config.settings"
        env["PYTHONPATH"] = str(ROOT)
        env.update(overrides)
        return env

    return build


@pytest.fixture
def python() -> str:
    return sys.executable
