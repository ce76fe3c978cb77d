"""The worker's thread pool (workers/pool.py): bounded like Celery's, but its threads exit
when idle and the process gives its memory back once a burst's threads have."""

from __future__ import annotations

import threading
import time
from concurrent.futures import CancelledError

import pytest
from celery import concurrency

import workers.celery  # noqa: F401 - registers the pool under "threads"
from workers.pool import ElasticExecutor, TaskPool


def _wait(predicate, what: str, timeout: float = 30.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def test_celery_threads_name_is_this_pool() -> None:
    assert concurrency.get_implementation("threads") is TaskPool


@pytest.mark.parametrize("bound", [1, 3, 16])
def test_every_call_runs_and_never_more_at_once_than_the_bound(bound: int) -> None:
    idle = threading.Event()
    ex = ElasticExecutor(bound, idle_s=0.2, on_idle=idle.set)
    lock, now, most = threading.Lock(), [0], [0]
    full = threading.Event()  # set once `bound` calls run at once

    def work(i: int) -> int:
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
            if now[0] == bound:
                full.set()
        # hold every call until the pool has reached its bound, so a busy machine's
        # scheduling cannot make the pool look smaller than it is (waits for a signal)
        full.wait(30)
        time.sleep(0.002)
        with lock:
            now[0] -= 1
        return i * i

    try:
        futures = [ex.submit(work, i) for i in range(200)]
        assert [f.result(timeout=60) for f in futures] == [i * i for i in range(200)]
        assert most[0] == bound
        assert ex.threads <= bound
        # the burst over, its threads exit, then the pool says it is idle
        _wait(lambda: ex.threads == 0, "the idle threads to exit")
        assert idle.wait(30)
    finally:
        ex.shutdown()


def test_a_call_that_raises_gives_its_exception_and_the_thread_goes_on() -> None:
    ex = ElasticExecutor(1, idle_s=5, on_idle=lambda: None)
    try:
        failing = ex.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failing.result(timeout=30)
        assert ex.submit(lambda: "next").result(timeout=30) == "next"
        assert ex.threads == 1
    finally:
        ex.shutdown()


def test_work_arriving_after_the_threads_left_starts_a_thread_again() -> None:
    calls: list[float] = []
    ex = ElasticExecutor(4, idle_s=0.1, on_idle=lambda: calls.append(time.monotonic()))
    try:
        for round_ in range(3):
            assert ex.submit(lambda r=round_: r).result(timeout=30) == round_
            _wait(lambda: ex.threads == 0, "the thread to exit")
            _wait(lambda r=round_: len(calls) == r + 1, "the pool's idle step")
    finally:
        ex.shutdown()


def test_nothing_is_idle_while_a_call_runs() -> None:
    """A long call keeps the pool busy even after the other threads exited."""
    calls: list[int] = []
    release = threading.Event()
    ex = ElasticExecutor(4, idle_s=0.1, on_idle=lambda: calls.append(1))
    try:
        long = ex.submit(release.wait, 60)
        for f in [ex.submit(time.sleep, 0.01) for _ in range(3)]:
            f.result(timeout=30)
        _wait(lambda: ex.threads == 1, "the short calls' threads to exit")
        time.sleep(1.5)  # past the idle step's second: it must not have run
        assert calls == []
        release.set()
        assert long.result(timeout=30) is True
        _wait(lambda: calls == [1], "the idle step once the last thread left")
    finally:
        ex.shutdown()


def test_shutdown_cancels_the_waiting_work_and_refuses_more() -> None:
    release = threading.Event()
    ex = ElasticExecutor(1, idle_s=5, on_idle=lambda: None)
    running = ex.submit(release.wait, 60)
    waiting = ex.submit(lambda: "never")
    _wait(lambda: running.running(), "the first call to start")
    stopper = threading.Thread(target=ex.shutdown)
    stopper.start()
    _wait(lambda: waiting.cancelled(), "the waiting call to be cancelled")
    release.set()
    stopper.join(30)
    assert not stopper.is_alive()
    assert running.result(timeout=1) is True
    with pytest.raises(CancelledError):
        waiting.result(timeout=1)
    with pytest.raises(RuntimeError, match="shut down"):
        ex.submit(lambda: None)
    assert ex.threads == 0
