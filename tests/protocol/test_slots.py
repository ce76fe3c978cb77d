"""Runner slots (``arena.adapters.runner.slots``): a match thread holds a slot while it runs Python
and gives it back while it waits on the relay, so that with one slot two matches still
make progress, and a third thread never runs alongside them."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from arena.adapters.relay.base import Inbound, InboundKind
from arena.adapters.relay.local import InProcessRelay
from arena.adapters.runner.slots import RunnerSlots, SlottedRelay, process_slots


def test_a_thread_gives_its_slot_back_while_it_waits_on_the_relay() -> None:
    slots = RunnerSlots(1)
    inner = InProcessRelay()
    relay = SlottedRelay(inner, slots)
    inner.open_match("m1")
    waiting = threading.Event()
    popped: list[Inbound | None] = []

    def match_thread() -> None:
        with slots.held():
            waiting.set()
            popped.append(relay.pop("m1", 120))  # a long wait on the relay, slot released

    thread = threading.Thread(target=match_thread)
    thread.start()
    assert waiting.wait(60)
    # the only slot is free while the match thread waits: another thread gets it
    with slots.held():
        asyncio.run(inner.send_inbound(Inbound(InboundKind.ACTION, "bot", "m1", 1)))
        # the waiting thread has its answer but needs the slot back to go on
        thread.join(0.5)
        assert thread.is_alive() and not popped
    thread.join(60)
    assert not thread.is_alive()
    assert popped and popped[0] is not None and popped[0].seq == 1


def test_process_slots_are_off_at_zero_and_shared_otherwise() -> None:
    assert process_slots(0) is None
    first = process_slots(3)
    assert first is not None and first.slots == 3
    assert process_slots(3) is first


def test_a_freed_slot_goes_to_the_thread_that_waited_longest() -> None:
    slots = RunnerSlots(1)
    order: list[int] = []
    threads = []
    with slots.held():
        for i in range(4):
            t = threading.Thread(target=lambda i=i: _take(slots, order, i))
            t.start()
            threads.append(t)
            deadline = time.monotonic() + 60
            while slots.waiting < i + 1:  # each queued before the next starts
                assert time.monotonic() < deadline, "a thread never queued for the slot"
                time.sleep(0.001)
    for t in threads:
        t.join(60)
    assert order == [0, 1, 2, 3]
    assert slots.waiting == 0
    with slots.held(), slots.released():
        pass  # given back and taken again inside held: the count stays whole
    with pytest.raises(ValueError, match="more often than taken"):
        slots._release()  # every slot is free: nothing to give back


def _take(slots: RunnerSlots, order: list[int], i: int) -> None:
    with slots.held():
        order.append(i)
