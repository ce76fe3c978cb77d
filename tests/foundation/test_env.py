"""Settings come from the environment through strict helpers (arena/env.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from arena.env import REQUIRED, env_bool, env_int, env_list, env_str

ROOT = Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------- helpers in isolation


def test_env_str_returns_value_and_defaults() -> None:
    assert env_str("X", environ={"X": " hello "}) == "hello"
    assert env_str("X", default="d", environ={}) == "d"
    assert env_str("X", default=None, environ={}) is None


def test_env_str_empty_counts_as_unset() -> None:
    assert env_str("X", default=None, environ={"X": "  "}) is None


def test_env_str_required_names_the_variable() -> None:
    with pytest.raises(ImproperlyConfigured, match="X is required"):
        env_str("X", default=REQUIRED, environ={})


@pytest.mark.parametrize("raw", ["1", "true", "TRUE", "yes", "on"])
def test_env_bool_true_spellings(raw: str) -> None:
    assert env_bool("B", default=False, environ={"B": raw}) is True


@pytest.mark.parametrize("raw", ["0", "false", "False", "no", "off"])
def test_env_bool_false_spellings(raw: str) -> None:
    assert env_bool("B", default=True, environ={"B": raw}) is False


def test_env_bool_rejects_other_values_with_clear_message() -> None:
    with pytest.raises(ImproperlyConfigured, match=r"B='maybe' is not a boolean"):
        env_bool("B", default=True, environ={"B": "maybe"})


def test_env_int_parses_and_checks_bounds() -> None:
    assert env_int("N", default=3, environ={}) == 3
    assert env_int("N", default=3, environ={"N": "7"}) == 7
    with pytest.raises(ImproperlyConfigured, match="not an integer"):
        env_int("N", default=3, environ={"N": "seven"})
    with pytest.raises(ImproperlyConfigured, match="out of range"):
        env_int("N", default=3, minimum=1, maximum=5, environ={"N": "9"})


def test_env_list_splits_and_strips() -> None:
    assert env_list("L", default=["a"], environ={}) == ["a"]
    assert env_list("L", default=[], environ={"L": " a, b ,,c "}) == ["a", "b", "c"]


# ---------------------------------------------------------------- settings really loaded


def _setup_django(python: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, "-c", "import django; django.setup(); print('setup ok')"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.processes
def test_missing_secret_key_with_debug_off_fails_at_start(python, clean_env) -> None:
    proc = _setup_django(python, clean_env(DEBUG="0"))
    assert proc.returncode != 0
    assert "ImproperlyConfigured" in proc.stderr
    assert "SECRET_KEY is required when DEBUG is off" in proc.stderr


@pytest.mark.processes
def test_secret_key_given_with_debug_off_starts(python, clean_env) -> None:
    proc = _setup_django(python, clean_env(DEBUG="0", SECRET_KEY="x" * 50))
    assert proc.returncode == 0, proc.stderr
    assert "setup ok" in proc.stdout


@pytest.mark.processes
def test_bad_debug_value_names_the_variable(python, clean_env) -> None:
    proc = _setup_django(python, clean_env(DEBUG="sometimes"))
    assert proc.returncode != 0
    assert "DEBUG='sometimes' is not a boolean" in proc.stderr


@pytest.mark.processes
def test_bad_redis_url_is_rejected(python, clean_env) -> None:
    proc = _setup_django(python, clean_env(REDIS_URL="localhost:6379"))
    assert proc.returncode != 0
    assert "REDIS_URL='localhost:6379' must start with redis://" in proc.stderr


@pytest.mark.processes
def test_bad_log_level_is_rejected(python, clean_env) -> None:
    proc = _setup_django(python, clean_env(LOG_LEVEL="LOUD"))
    assert proc.returncode != 0
    assert "LOG_LEVEL='LOUD' is not one of" in proc.stderr


@pytest.mark.processes
def test_defaults_are_embedded_mode_on_sqlite(python, clean_env) -> None:
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DEBUG, s.ARENA_EMBEDDED, s.DATABASES['default']['ENGINE'], "
        "s.DATABASES['default']['NAME'], s.GATEWAY_ADDRESS, s.CELERY_BEAT_SCHEDULER)"
    )
    proc = subprocess.run(
        [python, "-c", code],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    debug, embedded, engine, name, gateway, scheduler = proc.stdout.split()
    assert (debug, embedded) == ("True", "True")
    assert engine == "django.db.backends.sqlite3"
    assert name == str(ROOT / "var" / "arena.sqlite3")
    assert gateway == "127.0.0.1:50051"
    assert scheduler == "django_celery_beat.schedulers:DatabaseScheduler"


@pytest.mark.processes
def test_manage_py_check_passes_in_production_shape(python, clean_env) -> None:
    env = clean_env(
        DEBUG="0",
        SECRET_KEY="y" * 50,
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/agent_avenue",
        REDIS_URL="redis://127.0.0.1:6379/0",
        ALLOWED_HOSTS="arena.example.org",
    )
    proc = subprocess.run(
        [python, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.processes
def test_a_database_pool_needs_postgresql(python, clean_env) -> None:
    proc = _setup_django(python, clean_env(DATABASE_POOL_SIZE="4"))
    assert proc.returncode != 0
    assert "DATABASE_POOL_SIZE needs a PostgreSQL DATABASE_URL" in proc.stderr


@pytest.mark.processes
def test_a_database_pool_is_bounded_as_configured(python, clean_env) -> None:
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "d = s.DATABASES['default']; print(d['CONN_MAX_AGE'], d['OPTIONS']['pool'])"
    )
    env = clean_env(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/agent_avenue",
        DATABASE_POOL_SIZE="6",
        DATABASE_POOL_TIMEOUT="30",
    )
    proc = subprocess.run(
        [python, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 {'min_size': 2, 'max_size': 6, 'timeout': 30}"
