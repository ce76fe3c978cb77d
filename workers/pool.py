"""The worker's ``--pool threads``: Celery's thread pool, except that its threads come and
go with the work and the process gives its memory back when it goes idle.

Celery's own (``celery.concurrency.thread``) runs tasks on a ``ThreadPoolExecutor``, whose
threads never exit: a worker that once played 1,000 matches at once keeps 1,000 threads,
their stacks and their thread-local objects for good (measured: resident memory 185 MiB
idle, 379 MiB at the burst's peak, still 379 MiB idle again). Here a thread that waited
``ARENA_POOL_IDLE_S`` seconds with nothing to run exits, and once the threads of a burst
have exited and nothing runs, the process collects its garbage and hands the allocator's
free pages back to the system (``malloc_trim``, glibc's; nothing where the C library has none). The
number of threads running tasks is bounded by ``--concurrency`` as before.

Registered under Celery's ``threads`` name by ``workers.celery`` (so every documented
command, ``celery -A workers worker --pool threads``, runs it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from celery.concurrency.base import apply_target
from celery.concurrency.thread import ApplyResult
from celery.concurrency.thread import TaskPool as CeleryThreadPool
from django.conf import settings

from workers.restart import IdleMemoryGuard, restart_in_place

log = logging.getLogger(__name__)

_Work = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def _malloc_trim() -> Callable[[], None]:
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is None:
        return lambda: None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


release_free_memory = _malloc_trim()


class ElasticExecutor:
    """Runs callables on up to ``max_workers`` threads, started as work arrives and
    stopped after ``idle_s`` seconds without any; ``on_idle`` runs once the threads of a
    burst have exited and nothing runs (``_arm_idle``).

    Counts under one lock: ``_pending``, work put and not yet taken; ``_idle``, threads
    waiting for work. A submit starts a thread when the waiting ones are fewer than the
    work pending (and the bound allows), so no work waits while the bound has room."""

    def __init__(self, max_workers: int, idle_s: float, on_idle: Callable[[], None]) -> None:
        self.max_workers = max_workers
        self.idle_s = idle_s
        self.on_idle = on_idle
        self._queue: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: set[threading.Thread] = set()
        self._pending = self._idle = self._running = 0
        self._shutdown = self._held = False
        self._timer: threading.Timer | None = None

    @property
    def threads(self) -> int:
        return len(self._threads)

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError("the pool is shut down")
            self._pending += 1
            if self._held:  # never started: shutdown cancels it
                self._queue.put((future, fn, args, kwargs))
                return future
            if self._idle < self._pending and len(self._threads) < self.max_workers:
                thread = threading.Thread(
                    target=self._work, name=f"pool-{len(self._threads)}", daemon=True
                )
                self._threads.add(thread)
                thread.start()
            self._queue.put((future, fn, args, kwargs))
        return future

    def _take(self) -> _Work | None:
        """The next work, or None when this thread should exit."""
        while True:
            with self._lock:
                self._idle += 1
            try:
                work = self._queue.get(timeout=self.idle_s)
            except queue.Empty:
                work = None
            with self._lock:
                self._idle -= 1
                if work is not None:
                    self._pending -= 1
                    self._running += 1
                    return work
                if self._shutdown or self._pending == 0:
                    self._threads.discard(threading.current_thread())
                    if not self._shutdown:
                        self._arm_idle()
                    return None
                # work arrived as the wait ran out: it is this thread's to take

    def _work(self) -> None:
        while (work := self._take()) is not None:
            future, fn, args, kwargs = work
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # noqa: BLE001 - the future carries it
                    future.set_exception(exc)
            del work, future, fn, args, kwargs
            with self._lock:
                self._running -= 1

    def _arm_idle(self) -> None:
        """A thread exits for want of work (under the lock): ``on_idle`` runs one second
        after the last of such exits, if nothing runs then (the threads of a burst exit
        together, and their memory is free only once they have)."""
        if self._timer is not None:
            self._timer.cancel()
        self._timer = threading.Timer(1.0, self._idle_now)
        self._timer.daemon = True
        self._timer.start()

    def _idle_now(self) -> None:
        with self._lock:
            if self._running or self._pending or self._shutdown:
                return
            self._timer = None
        try:
            self.on_idle()
        except Exception:  # a failed trim costs memory, never a task
            log.exception("the pool's on-idle step failed")

    def hold(self) -> bool:
        """Stop starting work, if nothing runs, waits or has a thread now (True); work
        submitted after waits, never started, until ``shutdown`` cancels it."""
        with self._lock:
            if self._running or self._pending or self._threads or self._shutdown:
                return False
            self._held = True
            return True

    def shutdown(self, cancel_futures: bool = True) -> None:
        """Work not started is cancelled (Celery's stop asks it so); work running
        finishes; then every thread has exited."""
        with self._lock:
            self._shutdown = True
            threads = list(self._threads)
            if self._timer is not None:
                self._timer.cancel()
        while True:
            try:
                work = self._queue.get_nowait()
            except queue.Empty:
                break
            if work is not None:
                with self._lock:
                    self._pending -= 1
                work[0].cancel()
        for _ in threads:
            self._queue.put(None)
        for thread in threads:
            thread.join()


def give_back_memory() -> None:
    """What a process does when its burst is over: the cycles collected, the allocator's
    free pages returned to the system."""
    gc.collect()
    release_free_memory()


class TaskPool(CeleryThreadPool):
    """Celery's thread pool on an ``ElasticExecutor``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.executor.shutdown(wait=False)  # type: ignore[has-type] # Celery's: no thread yet
        self.elastic = ElasticExecutor(self.limit, settings.ARENA_POOL_IDLE_S, self._on_idle)
        self.executor = self.elastic  # type: ignore[assignment] # what on_stop shuts down
        self.guard = IdleMemoryGuard(settings.ARENA_POOL_RESTART_GROWTH_PCT)

    def _on_idle(self) -> None:
        """The burst is over: memory given back; if it stays too high, with no task held,
        the worker restarts in place (``workers.restart``)."""
        give_back_memory()
        over = self.guard.over()
        if over is not None and self.elastic.hold():
            restart_in_place(*over, self.guard.growth_pct)

    def on_apply(
        self,
        target: Callable[..., Any],
        args: tuple[Any, ...] | None = None,
        kwargs: dict[str, Any] | None = None,
        callback: Callable[..., Any] | None = None,
        accept_callback: Callable[..., Any] | None = None,
        **_: Any,
    ) -> ApplyResult:
        future = self.elastic.submit(apply_target, target, args, kwargs, callback, accept_callback)
        return ApplyResult(future)

    def _get_info(self) -> Any:
        info = super(CeleryThreadPool, self)._get_info()
        info.update({"max-concurrency": self.limit, "threads": self.elastic.threads})
        return info
