"""A runner relay's direct lanes (``arena.adapters.relay.direct``): which bot is reached on which
lane, and what came back on them.

Used by ``RedisRunnerRelay`` from one thread only, the first that delivers (a relay is
made per match; another thread sharing it goes through Redis). Deliveries of a bot go on
its lane while the bot's presence entry names a gateway that opened one; everything a
lane brings back is sorted here: answers and notices into per-match queues, acks, and
*misses* (a request the gateway could not hand to that stream of the bot).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from arena.adapters.relay.base import Delivery, Inbound
from arena.adapters.relay.direct import Lane, wait_readable
from arena.adapters.relay.frames import LaneError, delivery_frame

logger = logging.getLogger(__name__)

#: seconds a gateway has to acknowledge a delivery before its lane counts as broken
ACK_TIMEOUT = 5.0
#: seconds a gateway whose lane could not be opened (or broke) is not tried again, by
#: any relay of the process: a lane that cannot be reached costs one attempt, not one a match
RETRY_AFTER = 30.0

_refused: dict[str, float] = {}
_refused_lock = threading.Lock()


def _refuse(gateway_id: str) -> None:
    with _refused_lock:
        _refused[gateway_id] = time.monotonic() + RETRY_AFTER


def _is_refused(gateway_id: str) -> bool:
    with _refused_lock:
        until = _refused.get(gateway_id)
        if until is not None and until <= time.monotonic():
            del _refused[gateway_id]
            return False
        return until is not None


@dataclass(frozen=True, slots=True)
class Route:
    """How a bot's deliveries go: on ``lane`` to stream ``conn``, or (lane None) Redis."""

    conn: str
    lane: Lane | None


@dataclass(frozen=True, slots=True)
class Miss:
    bot_id: str
    match_id: str
    seq: int


@dataclass
class _Match:
    bots: set[str] = field(default_factory=set)
    inbox: deque[Inbound] = field(default_factory=deque)


class Lanes:
    def __init__(self, prefix: str, secret: str) -> None:
        self.prefix = prefix
        self.secret = secret
        self._owner: int | None = None
        self._routes: dict[str, Route] = {}
        self._lanes: dict[str, Lane] = {}
        self._matches: dict[str, _Match] = {}
        self._acks: dict[int, bool] = {}
        self._misses: deque[Miss] = deque()
        self._next_ack = 0
        #: sent, acked, refused (acks saying no), missed, broken, answers (inbound read)
        self.counts: Counter[str] = Counter()

    def mine(self) -> bool:
        """Whether the calling thread is the one that uses the lanes."""
        me = threading.get_ident()
        if self._owner is None:
            self._owner = me
        return self._owner == me

    # --- routes

    def known(self, bot_id: str) -> Route | None:
        return self._routes.get(bot_id)

    def learn(self, bot_id: str, entry: dict[str, Any] | None) -> Route | None:
        """The bot's route from its presence entry (None: not connected)."""
        if entry is None:
            self._routes.pop(bot_id, None)
            return None
        route = Route(str(entry["conn"]), self._lane(entry))
        self._routes[bot_id] = route
        return route

    def forget(self, bot_id: str) -> None:
        self._routes.pop(bot_id, None)

    def _lane(self, entry: dict[str, Any]) -> Lane | None:
        address, gateway = entry.get("direct"), str(entry.get("gateway", ""))
        if not address or not gateway:
            return None
        lane = self._lanes.get(gateway)
        if lane is not None:
            return lane
        if _is_refused(gateway):
            return None
        try:
            lane = Lane(str(address), gateway, self.prefix, self.secret)
        except LaneError as exc:
            logger.warning(
                "no direct lane to gateway %s, using Redis (next try in %g s): %s",
                gateway,
                RETRY_AFTER,
                exc,
            )
            _refuse(gateway)
            return None
        self._lanes[gateway] = lane
        return lane

    def _broken(self, lane: Lane, exc: BaseException) -> None:
        logger.warning("%s; using Redis", exc)
        self.counts["broken"] += 1
        lane.close()
        self._lanes.pop(lane.gateway_id, None)
        _refuse(lane.gateway_id)
        for bot_id in [b for b, r in self._routes.items() if r.lane is lane]:
            del self._routes[bot_id]

    # --- matches

    def _match(self, match_id: str) -> _Match:
        match = self._matches.get(match_id)
        if match is None:
            match = self._matches[match_id] = _Match()
        return match

    def joined(self, match_id: str, bot_id: str) -> None:
        """A delivery of the match went to the bot (by either way)."""
        self._match(match_id).bots.add(bot_id)

    def full(self, match_id: str) -> bool:
        """Every bot the match delivered to is on a lane: its answers can come back on
        the lanes alone."""
        match = self._matches.get(match_id)
        if match is None or not match.bots:
            return False
        for bot_id in match.bots:
            route = self._routes.get(bot_id)
            if route is None or route.lane is None:
                return False
        return True

    def any_lane(self, match_id: str) -> bool:
        match = self._matches.get(match_id)
        return match is not None and any(
            (r := self._routes.get(b)) is not None and r.lane is not None for b in match.bots
        )

    def take(self, match_id: str) -> Inbound | None:
        match = self._matches.get(match_id)
        if match is None or not match.inbox:
            return None
        return match.inbox.popleft()

    def push(self, inbound: Inbound) -> None:
        """Queue a notice of the relay's own for the match."""
        match = self._matches.get(inbound.match_id)
        if match is not None:
            match.inbox.append(inbound)

    def close_match(self, match_id: str) -> None:
        self._matches.pop(match_id, None)

    def misses(self) -> list[Miss]:
        out = list(self._misses)
        self._misses.clear()
        return out

    # --- sending

    def send(self, bot_id: str, route: Route, delivery: Delivery, *, reply: bool) -> bool:
        """Write the delivery on the bot's lane without waiting; False if the lane broke
        (the route is forgotten then)."""
        self.counts["sent"] += 1
        return self._write(bot_id, route, delivery, reply, 0)

    def deliver(self, bot_id: str, route: Route, delivery: Delivery, *, reply: bool) -> bool | None:
        """Write the delivery and wait for the gateway's ack: whether it handed it to the
        stream; None when the lane broke or did not answer."""
        self._next_ack += 1
        ack = self._next_ack
        if not self._write(bot_id, route, delivery, reply, ack):
            return None
        assert route.lane is not None
        deadline = time.monotonic() + ACK_TIMEOUT
        while ack not in self._acks:
            left = deadline - time.monotonic()
            if left <= 0 or route.lane.gateway_id not in self._lanes:
                if route.lane.gateway_id in self._lanes:
                    self._broken(route.lane, LaneError(f"no ack from {route.lane.address}"))
                return None
            self.poll(left, only=route.lane)
        taken = self._acks.pop(ack)
        self.counts["acked" if taken else "refused"] += 1
        return taken

    def _write(self, bot_id: str, route: Route, delivery: Delivery, reply: bool, ack: int) -> bool:
        lane = route.lane
        assert lane is not None
        try:
            lane.send(delivery_frame(bot_id, route.conn, delivery, reply, ack))
        except LaneError as exc:
            self._broken(lane, exc)
            return False
        return True

    # --- receiving

    def poll(self, timeout: float, only: Lane | None = None) -> bool:
        """Read what the lanes bring within ``timeout`` seconds (0: what is there);
        True if anything was read."""
        lanes = [only] if only is not None else list(self._lanes.values())
        ready = wait_readable(lanes, timeout)
        for lane in ready:
            try:
                lane.pull()
                for tag, body in lane.frames():
                    self._sort(tag, body)
            except LaneError as exc:
                self._broken(lane, exc)
        return bool(ready)

    def _sort(self, tag: str, body: Any) -> None:
        if tag == "i":
            inbound: Inbound = body
            self.counts["answers"] += 1
            match = self._matches.get(inbound.match_id)
            if match is not None:
                match.inbox.append(inbound)
            return
        header = body[0] if tag == "j" else {}
        kind = header.get("t")
        if kind == "o":
            self._acks[int(header["q"])] = bool(header["ok"])
        elif kind == "x":
            self.counts["missed"] += 1
            self._misses.append(Miss(str(header["b"]), str(header["m"]), int(header["s"])))

    def lanes(self) -> list[Lane]:
        return list(self._lanes.values())

    def close(self) -> None:
        for lane in self._lanes.values():
            lane.close()
        self._lanes.clear()
        self._routes.clear()
        self._matches.clear()
