"""The Celery app takes its configuration from Django settings (namespace CELERY)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from celery import Celery

import workers
from workers.celery import app

ROOT = Path(__file__).resolve().parents[2]

_DUMP_CONF = (
    "import json, django; django.setup(); from workers import app; c = app.conf; "
    "print(json.dumps({'eager': c.task_always_eager, 'broker': c.broker_url, "
    "'backend': c.result_backend, 'serializer': c.task_serializer, "
    "'result_serializer': c.result_serializer, 'accept': list(c.accept_content)}))"
)


def _conf(python: str, env: dict[str, str]) -> dict[str, object]:
    proc = subprocess.run(
        [python, "-c", _DUMP_CONF],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_package_exposes_the_app_for_celery_dash_a() -> None:
    assert isinstance(workers.app, Celery)
    assert workers.app is app
    assert app.main == "workers"


@pytest.mark.processes
def test_embedded_mode_runs_tasks_eagerly(python, clean_env) -> None:
    conf = _conf(python, clean_env())
    assert conf["eager"] is True
    assert conf["broker"] == "memory://"


@pytest.mark.processes
def test_redis_mode_uses_redis_as_broker_and_backend(python, clean_env) -> None:
    url = "redis://127.0.0.1:6379/0"
    conf = _conf(python, clean_env(REDIS_URL=url))
    assert conf["eager"] is False
    assert conf["broker"] == url
    assert conf["backend"] == url


@pytest.mark.processes
def test_json_is_the_only_serializer(python, clean_env) -> None:
    conf = _conf(python, clean_env())
    assert conf["serializer"] == conf["result_serializer"] == "json"
    assert conf["accept"] == ["json"]


def test_broker_connection_to_real_redis(redis_url: str) -> None:
    broker = Celery("probe", broker=redis_url)
    with broker.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        assert conn.connected
