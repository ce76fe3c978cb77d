"""The gateway's own pauses, kept out of every bot's measure.

A gateway can stop running for a while without dying: ``SIGSTOP`` (a debugger, a
container frozen by its runtime), a machine that stalls, its event loop blocked. Its bots
answered meanwhile, and their answers wait in the kernel's buffers; when the gateway goes
on it reads them and, measuring from writing the request to reading the answer
(``Session.latency_ms``), would charge the bots its own pause: the fault matrix saw
7 ``timeout`` faults charged after a gateway was stopped for 15 s. Its heartbeat check
would call its bots silent for the same reason.

``StallClock`` is a task that wakes every ``TICK_S``; a wake later than
``TICK_S + GAP_S`` means the gateway itself did not run in between, and the gap is kept
(the last ``KEEP`` of them). ``paused(a, b)`` is how much of ``[a, b]`` the gateway was
not running, a pause still going on included (an answer may be read before the clock's
own task wakes after the pause).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

logger = logging.getLogger(__name__)

TICK_S = 0.1
GAP_S = 0.4
KEEP = 256


class StallClock:
    def __init__(self) -> None:
        self._stalls: deque[tuple[float, float]] = deque(maxlen=KEEP)
        self._last: float | None = None
        self._task: asyncio.Task[None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._last = self.loop.time()
        self._task = asyncio.create_task(self._run(), name="stall-clock")

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def _run(self) -> None:
        assert self.loop is not None
        while True:
            await asyncio.sleep(TICK_S)
            now = self.loop.time()
            assert self._last is not None
            if now - self._last > TICK_S + GAP_S:
                self._stalls.append((self._last + TICK_S, now))
                gap = now - self._last - TICK_S
                # a busy machine starves the loop for a moment; a stopped process for long
                (logger.warning if gap >= 2.0 else logger.info)(
                    "gateway: did not run for %.1f s (stopped or starved); "
                    "its bots are not charged for it", gap,
                )  # fmt: skip
            self._last = now

    def paused(self, start: float, end: float) -> float:
        """Seconds of ``[start, end]`` (loop time) during which the gateway did not run."""
        spans = list(self._stalls)
        if self._last is not None and end - self._last > TICK_S + GAP_S:
            spans.append((self._last + TICK_S, end))  # a pause not yet seen by the task
        return sum(max(0.0, min(end, b) - max(start, a)) for a, b in spans)
