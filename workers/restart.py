"""A worker whose memory stays high after a burst restarts itself in place.

After a burst of matches a ``--pool threads`` worker gives back what the C allocator
holds (``workers.pool``), but not Python's small-object arenas: a few long-lived objects
allocated during the burst pin them, and the worker idles at about 1.3x its warm-idle
size (docs/performance.md, *Many remote matches on one worker*). Like Celery's
``worker_max_memory_per_child`` or gunicorn's ``max_requests``, the answer here is a
restart: when the pool is idle (no task running or waiting) and the resident size stays
more than ``ARENA_POOL_RESTART_GROWTH_PCT`` percent above the warm-idle size, the pool
stops taking work (``ElasticExecutor.hold``), the worker makes a warm shutdown as
Celery's ``SIGHUP`` does, and the process ``exec``s its own command line again (same
pid, a fresh interpreter).

Nothing is lost or run twice: it holds no task at that moment; a task that arrives
during the shutdown is never started, so it is not acknowledged (``acks_late``, or acked
only as it starts) and the broker gives it back, to this worker once it is up again or
to another. The warm-idle size is the smallest the worker was at when its pool went
idle, carried across the restart in the environment (``_ARENA_POOL_WARM_IDLE_KIB``).
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)

#: the warm-idle size (KiB) and when the last restart was decided (``time.time()``),
#: handed from the process to the one it ``exec``s
WARM_ENV = "_ARENA_POOL_WARM_IDLE_KIB"
RESTARTED_ENV = "_ARENA_POOL_RESTARTED_AT"


def resident_kib() -> int:
    """This process's resident size in KiB (``VmRSS``); 0 where ``/proc`` has none."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class IdleMemoryGuard:
    """Decides, each time the pool is idle, whether the worker restarts: its resident
    size more than ``growth_pct`` percent above the warm-idle size (the smallest seen at
    such moments, the first one included). ``growth_pct`` 0: never."""

    def __init__(
        self,
        growth_pct: int,
        rss: Callable[[], int] = resident_kib,
        environ: dict[str, str] | None = None,
    ) -> None:
        self.growth_pct = growth_pct
        self.rss = rss
        self.environ = os.environ if environ is None else environ
        carried = self.environ.get(WARM_ENV, "")
        self.warm_kib: int | None = int(carried) if carried.isdigit() and int(carried) else None

    def over(self) -> tuple[int, int] | None:
        """(resident, warm-idle) KiB when the worker should restart now, else None (and
        the warm-idle size updated)."""
        if self.growth_pct <= 0:
            return None
        now = self.rss()
        if now <= 0:
            return None
        if self.warm_kib is None or now < self.warm_kib:
            self.warm_kib = now
            self.environ[WARM_ENV] = str(now)
            log.info(
                "warm-idle size %d MiB: restarts in place when idle above %d MiB",
                now // 1024,
                now * (100 + self.growth_pct) // 100 // 1024,
            )
            return None
        if now * 100 > self.warm_kib * (100 + self.growth_pct):
            return now, self.warm_kib
        return None


def _exec_again() -> None:
    """The process's own command line again (``sys.orig_argv``: ``python -m celery ...``
    as well as the ``celery`` script), every descriptor but the standard ones closed."""
    from celery.platforms import close_open_fds

    sys.stdout.flush()
    sys.stderr.flush()
    close_open_fds([sys.__stdin__, sys.__stdout__, sys.__stderr__])
    os.execv(sys.executable, list(sys.orig_argv))


def restart_in_place(now_kib: int, warm_kib: int, growth_pct: int) -> None:
    """A warm shutdown of the worker (as Celery's ``SIGHUP`` asks it: its consumer loop
    sees the flag within a second), then, at the interpreter's exit, ``exec``."""
    from celery.worker import state

    log.warning(
        "restarting in place: resident %d MiB with no task held, %.0f%% above the "
        "warm-idle %d MiB (ARENA_POOL_RESTART_GROWTH_PCT=%d): Python keeps the memory a "
        "burst of matches fragmented; a fresh process gives it back",
        now_kib // 1024,
        100.0 * (now_kib - warm_kib) / warm_kib,
        warm_kib // 1024,
        growth_pct,
    )
    os.environ[RESTARTED_ENV] = repr(time.time())
    atexit.register(_exec_again)
    state.should_stop = 0  # EX_OK: a warm shutdown


def say_restarted() -> None:
    """At the worker's ready after a restart in place: how long it took in all."""
    at = os.environ.pop(RESTARTED_ENV, "")
    try:
        seconds = time.time() - float(at)
    except ValueError:
        return
    log.warning(
        "restarted in place: ready again %.1f s after the restart was decided, resident %d MiB",
        seconds,
        resident_kib() // 1024,
    )
