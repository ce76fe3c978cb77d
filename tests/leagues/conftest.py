"""Real components for the league tests: the PostgreSQL test database (committed rows, so
worker processes see them), Redis, and Celery workers started as subprocesses.

Each test gets a Celery queue and a relay key prefix of its own, so concurrent runs of the
suite (or of other suites on the same Redis) never take each other's messages.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest
import redis
from django.db import connection

from workers.celery import app

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")
#: leases short enough that a killed worker's match is taken over within a test
LEASE_SECONDS = 2


def wait_for(predicate: Callable[[], T | None], timeout: float, what: str, step: float = 0.05) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(step)


def database_url() -> str:
    s = connection.settings_dict
    user = s.get("USER") or "postgres"
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    host = s.get("HOST") or "127.0.0.1"
    port = s.get("PORT") or 5432
    return f"postgres://{user}{password}@{host}:{port}/{s['NAME']}"


@dataclass
class Worker:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill9(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@dataclass
class Cluster:
    """Workers of one test: they read ``queue`` and use ``relay_prefix``."""

    queue: str
    relay_prefix: str
    tmp: Path
    env: dict[str, str]
    workers: list[Worker] = field(default_factory=list)

    def start_worker(self, *, wait: bool = True) -> Worker:
        name = f"w{len(self.workers)}-{uuid.uuid4().hex[:6]}"
        log = self.tmp / f"{name}.log"
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "workers", "worker",
                "--pool=solo", "--concurrency", "1", "-Q", self.queue,
                "-n", f"{name}@%h", "--without-gossip", "--without-mingle",
                "--without-heartbeat", "--loglevel", "INFO",
            ],
            cwd=ROOT, env=self.env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        worker = Worker(name, proc, log)
        self.workers.append(worker)
        if wait:
            wait_for(
                lambda: "ready." in worker.output() or proc.poll() is not None,
                60,
                f"worker {name} to start",
            )
            assert proc.poll() is None, worker.output()
        return worker

    def start_beat(self) -> Worker:
        """`celery beat` with the database scheduler (django-celery-beat)."""
        log = self.tmp / "beat.log"
        proc = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "workers", "beat", "--loglevel", "INFO",
                "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler",
                "--pidfile=", "--max-interval", "1",
            ],
            cwd=ROOT, env=self.env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
        )  # fmt: skip
        beat = Worker("beat", proc, log)
        self.workers.append(beat)
        return beat

    def stop_all(self) -> None:
        for w in self.workers:
            w.stop()

    def logs(self) -> str:
        return "\n".join(f"--- {w.name}\n{w.output()[-4000:]}" for w in self.workers)


@pytest.fixture
def cluster(transactional_db: None, settings, tmp_path: Path) -> Iterator[Cluster]:  # noqa: ANN001 - pytest-django's settings fixture
    if not settings.REDIS_URL:
        pytest.fail(
            "the league tests need a real Redis: set REDIS_URL (as `make test` does: redis://127.0.0.1:6379/0)"
        )
    tag = uuid.uuid4().hex[:10]
    queue = f"test-leagues-{tag}"
    prefix = f"test-relay-{tag}"
    settings.RELAY_PREFIX = prefix
    settings.ARENA_LEASE_SECONDS = LEASE_SECONDS
    old_queue = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY", "ARENA_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        DATABASE_URL=database_url(),
        REDIS_URL=str(settings.REDIS_URL),
        CELERY_QUEUE=queue,
        RELAY_PREFIX=prefix,
        ARENA_LEASE_SECONDS=str(LEASE_SECONDS),
        LOG_LEVEL="INFO",
    )
    c = Cluster(queue, prefix, tmp_path, env)
    try:
        yield c
    finally:
        c.stop_all()
        app.conf.task_default_queue = old_queue
        client = redis.Redis.from_url(str(settings.REDIS_URL))
        try:
            keys = [queue, f"arena:broker-epoch:{queue}", *client.scan_iter(f"{prefix}:*")]
            client.delete(*keys)
        finally:
            client.close()
