"""The in-process relay (embedded mode): runner threads and the gateway's event loop share
one object, with a lock around the routing table and one queue per match."""

from __future__ import annotations

import itertools
import queue
import threading
import time
from dataclasses import dataclass

from arena.adapters.relay.base import BotSink, Delivery, GatewayRelay, Inbound, Reach, RunnerRelay


@dataclass
class _Route:
    conn: int
    sink: BotSink
    max_matches: int
    since: float


class InProcessRelay(RunnerRelay, GatewayRelay):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._routes: dict[str, _Route] = {}
        self._inboxes: dict[str, queue.SimpleQueue[Inbound]] = {}
        self._conns = itertools.count(1)
        #: bot -> (when its last stream ended, whether the arena ended it)
        self._left: dict[str, tuple[float, bool]] = {}

    # --- runner side

    def deliver(self, bot_id: str, delivery: Delivery) -> bool:
        with self._lock:
            route = self._routes.get(bot_id)
        if route is None:
            return False
        route.sink.deliver(delivery)
        return True

    def is_connected(self, bot_id: str) -> bool:
        with self._lock:
            return bot_id in self._routes

    def presence(self, bot_id: str) -> dict[str, object] | None:
        with self._lock:
            route = self._routes.get(bot_id)
        if route is None:
            return None
        return {"conn": str(route.conn), "max_matches": route.max_matches, "since": route.since}

    def reach(self, bot_id: str) -> Reach:
        with self._lock:
            route = self._routes.get(bot_id)
            left = self._left.get(bot_id)
        if route is not None:
            return Reach(str(route.conn))
        if left is None:
            return Reach(None)
        return Reach(None, left_at=left[0], arena_left=left[1])

    def open_match(self, match_id: str) -> None:
        with self._lock:
            self._inboxes[match_id] = queue.SimpleQueue()

    def close_match(self, match_id: str) -> None:
        with self._lock:
            self._inboxes.pop(match_id, None)

    def _pop(self, match_id: str, timeout: float) -> Inbound | None:
        with self._lock:
            inbox = self._inboxes.get(match_id)
        if inbox is None:
            raise KeyError(f"match {match_id} is not open on this relay")
        try:
            return inbox.get(timeout=timeout)
        except queue.Empty:
            return None

    # --- gateway side

    async def attach(self, bot_id: str, sink: BotSink, max_matches: int) -> str:
        with self._lock:
            conn = next(self._conns)
            old = self._routes.get(bot_id)
            self._routes[bot_id] = _Route(conn, sink, max_matches, time.time())
        if old is not None:
            old.sink.supersede("a newer connection of this bot took over")
        return str(conn)

    def revoke(self, bot_id: str, reason: str) -> None:
        """End the bot's stream (``arena.adapters.relay.revocation``); any thread."""
        with self._lock:
            route = self._routes.get(bot_id)
        if route is not None:
            route.sink.revoke(reason)

    def notice(self, bot_id: str, payload: bytes) -> None:
        """Hand a notice to the bot's stream, if it has one here
        (``arena.adapters.relay.botnotices``); any thread, returns at once."""
        with self._lock:
            route = self._routes.get(bot_id)
        if route is not None:
            route.sink.notice(payload)

    async def detach(self, bot_id: str, conn_id: str, *, arena: bool = False) -> None:
        with self._lock:
            route = self._routes.get(bot_id)
            if route is not None and str(route.conn) == conn_id:
                del self._routes[bot_id]
                self._left[bot_id] = (time.time(), arena)

    async def send_inbound(self, inbound: Inbound) -> None:
        with self._lock:
            inbox = self._inboxes.get(inbound.match_id)
        if inbox is not None:
            inbox.put(inbound)


_shared: InProcessRelay | None = None
_shared_lock = threading.Lock()


def shared_relay() -> InProcessRelay:
    """The process's relay in embedded mode: gateways and runners of one process meet here."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = InProcessRelay()
        return _shared
