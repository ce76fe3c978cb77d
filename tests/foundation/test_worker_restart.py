"""A worker whose memory stays high after a burst restarts itself in place
(``workers.restart``): a real Celery worker (``--pool threads``) whose memory a burst
really fragments (``restarttasks.fragment``: no resident size is mocked), with the
deployed threshold (``ARENA_POOL_RESTART_GROWTH_PCT=20``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from django.conf import settings

from workers.celery import app
from workers.pool import ElasticExecutor
from workers.restart import WARM_ENV, IdleMemoryGuard

ROOT = Path(__file__).resolve().parents[2]
IDLE_S = 1
#: strings a burst makes (~85 MB of pymalloc's blocks): well past 20% of an idle worker
BURST = 1_500_000


def _wait(predicate, what: str, timeout: float = 90.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@dataclass
class RealWorker:
    proc: subprocess.Popen[bytes]
    log: Path
    queue: str

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def run(self, name: str, *args: object) -> object:
        result = app.send_task(name, args=args, queue=self.queue)
        return result.get(timeout=120)

    def wait_log(self, text: str, count: int = 1) -> None:
        _wait(
            lambda: self.output().count(text) >= count or self.proc.poll() is not None,
            f"{text!r} x{count} in the worker's log",
        )
        assert self.proc.poll() is None, self.output()[-4000:]


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[RealWorker]:
    if not settings.REDIS_URL:
        pytest.fail("needs a real Redis: set REDIS_URL")
    queue = f"test-restart-{uuid.uuid4().hex[:10]}"
    log = tmp_path / "worker.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CELERY", "ARENA_", "_ARENA"))}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        REDIS_URL=str(settings.REDIS_URL),
        CELERY_QUEUE=queue,
        ARENA_POOL_IDLE_S=str(IDLE_S),
        ARENA_POOL_RESTART_GROWTH_PCT="20",
        LOG_LEVEL="INFO",
    )
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "celery", "-A", "workers", "worker", "--pool", "threads",
            "--concurrency", "4", "-Q", queue, "-n", f"{queue}@%h", "--without-gossip",
            "--without-mingle", "--without-heartbeat", "--loglevel", "INFO",
            "--include", "tests.foundation.restarttasks",
        ],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    w = RealWorker(proc, log, queue)
    try:
        w.wait_log("ready.")
        yield w
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        client = redis.Redis.from_url(str(settings.REDIS_URL))
        try:
            client.delete(queue)
        finally:
            client.close()


def _warm(w: RealWorker) -> int:
    """A first task, then the pool idle: the worker has its warm-idle size."""
    pid = w.run("tests.restart.pid")
    assert pid == w.proc.pid
    w.wait_log("warm-idle size")
    return pid


@pytest.mark.processes
def test_a_worker_idle_above_its_warm_size_restarts_in_place_and_keeps_consuming(
    worker: RealWorker,
) -> None:
    pid = _warm(worker)
    assert worker.run("tests.restart.fragment", BURST) == pid
    assert worker.run("tests.restart.kept") == BURST // 64 + 1
    worker.wait_log("restarting in place")
    worker.wait_log("restarted in place: ready again")
    assert worker.output().count("ready.") == 2
    # the same process (pid), a fresh interpreter: what the burst kept is gone
    assert worker.run("tests.restart.pid") == pid
    assert worker.run("tests.restart.kept") == 0
    assert worker.proc.poll() is None
    line = next(x for x in worker.output().splitlines() if "restarting in place" in x)
    assert "ARENA_POOL_RESTART_GROWTH_PCT=20" in line
    # and a second burst after the restart restarts it again: the warm-idle size was
    # carried across (a burst kept in the fresh process is measured against it)
    assert worker.run("tests.restart.fragment", BURST) == pid
    worker.wait_log("restarting in place", 2)
    worker.wait_log("ready.", 3)
    assert worker.run("tests.restart.pid") == pid


@pytest.mark.processes
def test_a_worker_never_restarts_while_it_holds_a_task(worker: RealWorker) -> None:
    pid = _warm(worker)
    key = f"{worker.queue}:release"
    held = app.send_task("tests.restart.hold", args=(key,), queue=worker.queue)
    worker.wait_log("tests.restart.hold[")  # received
    assert worker.run("tests.restart.fragment", BURST) == pid
    # past the time the burst's thread takes to exit and the idle step's second, several
    # times over: with the held task running, the pool is never idle
    time.sleep(4 * (IDLE_S + 1))
    assert "restarting in place" not in worker.output()
    client = redis.Redis.from_url(str(settings.REDIS_URL))
    try:
        client.rpush(key, "go")
        assert held.get(timeout=120) == pid  # the held task ran to its end
    finally:
        client.delete(key)
        client.close()
    worker.wait_log("restarting in place")
    worker.wait_log("ready.", 2)
    out = worker.output()
    assert out.index("tests.restart.hold[") < out.index("restarting in place")
    held_done = next(
        i for i, x in enumerate(out.splitlines()) if "tests.restart.hold[" in x and "succeeded" in x
    )
    restart = next(i for i, x in enumerate(out.splitlines()) if "restarting in place" in x)
    assert held_done < restart
    assert worker.run("tests.restart.pid") == pid


# ---------------------------------------------------------------- the pieces


def test_the_guard_keeps_the_smallest_idle_size_and_carries_it_across_the_exec() -> None:
    sizes = iter([100_000, 110_000, 90_000, 108_000, 109_000])
    env: dict[str, str] = {}
    guard = IdleMemoryGuard(20, rss=lambda: next(sizes), environ=env)
    assert guard.over() is None  # the first idle moment: the warm size
    assert guard.over() is None  # 10% above
    assert guard.over() is None  # smaller: the warm size now
    assert env[WARM_ENV] == "90000"
    assert guard.over() is None  # 20% above exactly is not over
    assert guard.over() == (109_000, 90_000)
    again = IdleMemoryGuard(20, rss=lambda: 108_001, environ=env)  # the process exec'd
    assert again.over() == (108_001, 90_000)


def test_the_guard_with_0_never_restarts_and_where_no_size_is_known_neither() -> None:
    assert IdleMemoryGuard(0, rss=lambda: 10**9, environ={WARM_ENV: "1"}).over() is None
    assert IdleMemoryGuard(20, rss=lambda: 0, environ={WARM_ENV: "1"}).over() is None


def test_a_held_pool_starts_nothing_and_its_shutdown_cancels_what_came() -> None:
    release = threading.Event()
    ex = ElasticExecutor(2, idle_s=0.1, on_idle=lambda: None)
    running = ex.submit(release.wait, 60)
    _wait(lambda: running.running(), "the call to start")
    assert ex.hold() is False  # a call runs
    release.set()
    assert running.result(timeout=30) is True
    _wait(lambda: ex.threads == 0, "the thread to exit")
    assert ex.hold() is True
    late = ex.submit(lambda: "never")
    assert ex.threads == 0 and not late.running()
    ex.shutdown()
    assert late.cancelled()
