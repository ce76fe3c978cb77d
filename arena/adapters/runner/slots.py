"""How many match threads of one process run Python at once.

A worker playing hundreds of matches (``--pool threads``) has a thread per match, and one
interpreter lock. A thread waiting for that lock competes with every other runnable
thread, and which one gets it is up to the OS: with hundreds of matches whose answers have
arrived, a thread that holds a pooled database connection (a claim, a result, the lease
keeper) waits for the lock again at every statement, a result transaction holds its row
lock for many seconds, leases lapse, and the Celery consumer thread starts new matches
slowly. So a match thread runs its game only while it holds one of a few *slots*, and
gives the slot back whenever it waits on the relay (``SlottedRelay``): match threads queue
for slots (in order, without touching the lock), and the threads outside the slots (the
database, the consumer) compete with a few runnable threads at most.

``ARENA_RUNNER_SLOTS`` sets the number (0, the default: no slots). A slot is held while a
seat sleeps between two attempts to reach a bot missing at the start (50 ms at a time), so
keep it well above the matches that may wait for absent bots at once.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

from arena.adapters.relay.base import Delivery, DropCounts, Inbound, Reach, RunnerRelay


class RunnerSlots:
    """A FIFO semaphore that hands a freed slot straight to the thread that has waited
    longest. ``threading.Semaphore`` wakes a waiter that must then take the semaphore's
    lock again, against every thread releasing or acquiring: with a thousand match threads
    queued that lock was 14% of a worker's interpreter time (py-spy), and a thread could
    lose its turn to one that had just arrived."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"runner slots must be at least 1, not {slots}")
        self.slots = slots
        self._lock = threading.Lock()
        self._free = slots
        self._queue: deque[threading.Lock] = deque()

    @property
    def waiting(self) -> int:
        """Threads queued for a slot."""
        with self._lock:
            return len(self._queue)

    def _acquire(self) -> None:
        with self._lock:
            if self._free:
                self._free -= 1
                return
            baton = threading.Lock()
            baton.acquire()
            self._queue.append(baton)
        baton.acquire()  # released by the thread that hands this one its slot

    def _release(self) -> None:
        with self._lock:
            if self._queue:
                self._queue.popleft().release()  # the slot passes on: _free unchanged
            elif self._free < self.slots:
                self._free += 1
            else:
                raise ValueError("a runner slot released more often than taken")

    @contextmanager
    def held(self) -> Iterator[None]:
        self._acquire()
        try:
            yield
        finally:
            self._release()

    @contextmanager
    def released(self) -> Iterator[None]:
        """Inside ``held``: give the slot back for a wait, take one again after it."""
        self._release()
        try:
            yield
        finally:
            self._acquire()


class SlottedRelay(RunnerRelay):
    """A runner relay whose every call (each may wait on Redis) is made outside the calling
    thread's slot. Used only by a thread inside ``RunnerSlots.held``."""

    def __init__(self, inner: RunnerRelay, slots: RunnerSlots) -> None:
        self.inner = inner
        self.slots = slots

    def deliver(self, bot_id: str, delivery: Delivery) -> bool:
        with self.slots.released():
            return self.inner.deliver(bot_id, delivery)

    def is_connected(self, bot_id: str) -> bool:
        with self.slots.released():
            return self.inner.is_connected(bot_id)

    def presence(self, bot_id: str) -> dict[str, object] | None:
        with self.slots.released():
            return self.inner.presence(bot_id)

    def gateway_paused(self, bot_id: str) -> bool:
        with self.slots.released():
            return self.inner.gateway_paused(bot_id)

    def reach(self, bot_id: str) -> Reach:
        with self.slots.released():
            return self.inner.reach(bot_id)

    def on_lanes(self, match_id: str) -> bool:
        return self.inner.on_lanes(match_id)  # no wait: the slot is kept

    def deliver_and_pop(
        self, bot_id: str, delivery: Delivery, match_id: str, wait: float
    ) -> tuple[bool, Inbound | None]:
        with self.slots.released():
            return self.inner.deliver_and_pop(bot_id, delivery, match_id, wait)

    def pop(self, match_id: str, timeout: float) -> Inbound | None:
        with self.slots.released():
            return self.inner.pop(match_id, timeout)

    def _pop(self, match_id: str, timeout: float) -> Inbound | None:
        return self.pop(match_id, timeout)

    def request(
        self, bot_id: str, delivery: Delivery, deadline: float, drops: DropCounts
    ) -> Inbound | None:
        with self.slots.released():
            return self.inner.request(bot_id, delivery, deadline, drops)

    def await_answer(
        self, match_id: str, bot_id: str, seq: int, deadline: float, drops: DropCounts
    ) -> Inbound | None:
        with self.slots.released():
            return self.inner.await_answer(match_id, bot_id, seq, deadline, drops)

    def open_match(self, match_id: str) -> None:
        with self.slots.released():
            self.inner.open_match(match_id)

    def close_match(self, match_id: str) -> None:
        with self.slots.released():
            self.inner.close_match(match_id)

    def close(self) -> None:
        self.inner.close()


_process_slots: RunnerSlots | None = None
_lock = threading.Lock()


def process_slots(slots: int) -> RunnerSlots | None:
    """The process's slots (made on first use), or None when ``slots`` is 0."""
    global _process_slots
    if slots <= 0:
        return None
    with _lock:
        if _process_slots is None or _process_slots.slots != slots:
            _process_slots = RunnerSlots(slots)
        return _process_slots
