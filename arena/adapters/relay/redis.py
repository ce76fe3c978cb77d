"""The Redis relay (distributed mode): any number of gateways and runners.

The keys and messages are described in ``arena.adapters.relay.wire``. This module is the runner's
side (synchronous, shared by a worker's runner threads); the gateway's side is
``arena.adapters.relay.redis_gateway`` (asyncio), re-exported here.

A decision costs the runner one Redis round trip when the bot is quick: the request's
``PUBLISH`` and a first short ``BLPOP`` on the match's inbox go out in one write, on one
of the client's pooled connections, and the answer is usually back before that first wait
ends. The hot path uses redis-py's connection directly (one packed write, two replies
read) rather than a pipeline object, whose bookkeeping cost about as much as Redis itself.

When a bot's gateway opened a direct lane (``arena.adapters.relay.direct``; its address is in the
bot's presence entry) the runner's thread writes the bot's deliveries there instead, and,
once every remote bot of the match is on a lane, waits for the match's answers on the
lanes: no Redis hop on a decision's way. Whatever a lane refuses or loses goes by Redis
(``arena.adapters.relay.lanes``).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import redis

from arena.adapters.relay.base import (
    Delivery,
    DropCounts,
    Inbound,
    Reach,
    RelayError,
    RunnerRelay,
    not_connected,
    wanted,
)
from arena.adapters.relay.lanes import Lanes, Route
from arena.adapters.relay.presence import GATEWAY_TTL, STALL_S, gateway_key
from arena.adapters.relay.redis_gateway import RedisGatewayRelay
from arena.adapters.relay.wire import (
    INBOX_TTL,
    Keys,
    decode_inbound,
    encode_delivery,
    encode_inbound,
    pack,
    unpack,
)

logger = logging.getLogger(__name__)

#: BLPOP's timeout is in seconds with millisecond resolution, and 0 means "forever"
MIN_BLOCK = 0.002
#: the first wait for an answer, pipelined with its request (seconds)
FIRST_WAIT = 0.05
#: while a match's answers come on lanes, its Redis inbox is looked at after this long
#: (seconds): an answer comes there only after a lane failed, a delivery went by Redis or
#: the bot moved to another gateway. Each look that finds nothing doubles the next wait,
#: up to INBOX_LOOK_MAX, and the inbox is always read once more at the deadline: a bot
#: that thinks 1 s costs a match 2 looks, not 5 (a thousand matches waiting on such bots
#: made thousands of LPOPs a second, each a round trip and a turn of the worker's lock)
INBOX_LOOK = 0.2
INBOX_LOOK_MAX = 1.6
#: ... and while some of its bots answer through Redis, the lanes are looked at this often
MIXED_SLICE = 0.02

# the names other modules (and older callers) import from here
_pack, _unpack = pack, unpack
__all__ = [
    "INBOX_TTL",
    "Keys",
    "RedisGatewayRelay",
    "RedisRunnerRelay",
    "decode_inbound",
    "encode_inbound",
]


def _block(seconds: float) -> str:
    """BLPOP's timeout argument: at least ``MIN_BLOCK`` (0 would wait forever)."""
    return f"{max(seconds, MIN_BLOCK):.3f}"


#: idle connections the process's client keeps (``_Pool``)
KEEP_IDLE = 16


class _Pool(redis.ConnectionPool):
    """redis-py's pool, except that it keeps at most ``KEEP_IDLE`` idle connections: a
    burst of a thousand matches may run hundreds of commands at once, and a connection
    kept for good after it holds its 64 KiB read buffer."""

    def release(self, connection: redis.Connection) -> None:  # type: ignore[override]
        super().release(connection)
        with self._lock:  # type: ignore[attr-defined]
            idle = self._available_connections  # type: ignore[attr-defined]
            surplus = idle[KEEP_IDLE:]
            del idle[KEEP_IDLE:]
            self._created_connections -= len(surplus)  # type: ignore[attr-defined]
        for extra in surplus:
            extra.disconnect()


_clients: dict[tuple[int, str], redis.Redis] = {}
_clients_lock = threading.Lock()


def shared_client(url: str) -> redis.Redis:
    """The process's Redis client for ``url``: one connection pool, shared by every relay
    of the process (a relay is made per match). A client per relay cost each running
    match a pool, a connection with its 64 KiB read buffer, a copy of redis-py's
    callback table and an event dispatcher (96 KiB, 354 allocations): a worker holding
    500 matches made them all during the burst, and what a burst allocates is what keeps
    its memory afterwards (docs/performance.md). A connection is taken from the pool for
    each command and given back after it: as many connections as commands run at once,
    not one per match, and at most ``KEEP_IDLE`` of them once they are over."""
    key = (os.getpid(), url)  # a forked child makes its own
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            pool = _Pool.from_url(url, socket_connect_timeout=5, socket_keepalive=True)
            client = _clients[key] = redis.Redis(connection_pool=pool)
        return client


def _secret() -> str:
    from django.conf import settings

    return str(settings.SECRET_KEY)


class RedisRunnerRelay(RunnerRelay):
    def __init__(
        self, url: str, prefix: str = "relay", *, direct: bool = True, secret: str | None = None
    ) -> None:
        self.keys = Keys(prefix)
        self._redis = shared_client(url)
        #: direct lanes to gateways that open one (None: Redis only)
        self._lanes = Lanes(prefix, secret if secret is not None else _secret()) if direct else None
        #: requests written on a lane without an ack, by (bot, match), in case of a miss
        self._unacked: dict[tuple[str, str], Delivery] = {}

    def _commands(self, *commands: Sequence[Any]) -> list[Any]:
        """Send ``commands`` in one write on one pooled connection and read their replies
        (what a pipeline does, without its per-call objects). Raises ``redis.RedisError``;
        a connection that failed mid-way is dropped, never reused."""
        pool = self._redis.connection_pool
        conn = pool.get_connection()

        def run() -> list[Any]:
            conn.send_packed_command(conn.pack_commands(commands), check_health=False)
            return [conn.read_response() for _ in commands]

        try:
            return conn.retry.call_with_retry(run, lambda _: conn.disconnect())
        except BaseException:
            conn.disconnect()
            raise
        finally:
            pool.release(conn)

    def deliver(self, bot_id: str, delivery: Delivery) -> bool:
        if self._lanes is not None and self._lanes.mine():
            for _ in range(2):  # a refusal: the bot may be on a new stream; look once more
                route = self._route(bot_id)
                if route is None:
                    break
                self._lanes.joined(delivery.match_id, bot_id)
                reply = self._lanes.full(delivery.match_id)
                if self._lanes.deliver(bot_id, route, delivery, reply=reply):
                    return True
                self._lanes.forget(bot_id)
        delivered = self._publish(bot_id, delivery)
        if delivered and self._lanes is not None and self._lanes.mine():
            self._lanes.joined(delivery.match_id, bot_id)
        return delivered

    def _publish(self, bot_id: str, delivery: Delivery) -> bool:
        try:
            (receivers,) = self._commands(
                ("PUBLISH", self.keys.bot(bot_id), encode_delivery(delivery))
            )
        except redis.RedisError as exc:
            raise RelayError(f"cannot publish to Redis: {exc}") from exc
        return int(receivers) > 0

    def _route(self, bot_id: str) -> Route | None:
        """The bot's lane route (None: through Redis), from its presence entry."""
        assert self._lanes is not None
        route = self._lanes.known(bot_id)
        if route is None:
            try:
                raw = self._redis.hget(self.keys.presence, bot_id)
            except redis.RedisError as exc:
                raise RelayError(f"cannot reach Redis: {exc}") from exc
            route = self._lanes.learn(bot_id, None if raw is None else json.loads(raw))  # type: ignore[arg-type]
        return route if route is not None and route.lane is not None else None

    def _publish_and_pop(
        self, bot_id: str, delivery: Delivery, match_id: str, wait: float
    ) -> tuple[bool, Inbound | None]:
        try:
            receivers, item = self._commands(
                ("PUBLISH", self.keys.bot(bot_id), encode_delivery(delivery)),
                ("BLPOP", self.keys.inbox(match_id), _block(wait)),
            )
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        return int(receivers) > 0, None if item is None else decode_inbound(item[1])

    def request(
        self, bot_id: str, delivery: Delivery, deadline: float, drops: DropCounts
    ) -> Inbound | None:
        # PUBLISH and a first short BLPOP in one round trip: a quick bot's answer is
        # usually back before the first wait ends. A bot nobody holds costs that wait.
        first = min(deadline - time.monotonic(), FIRST_WAIT)
        delivered, inbound = self.deliver_and_pop(bot_id, delivery, delivery.match_id, first)
        if inbound is not None and wanted(inbound, bot_id, delivery.seq, drops):
            return inbound
        if not delivered:
            return not_connected(bot_id, delivery.match_id)
        return self.await_answer(delivery.match_id, bot_id, delivery.seq, deadline, drops)

    def deliver_and_pop(
        self, bot_id: str, delivery: Delivery, match_id: str, wait: float
    ) -> tuple[bool, Inbound | None]:
        lanes = self._lanes
        if lanes is not None and lanes.mine() and lanes.full(match_id):
            route = lanes.known(bot_id)
            if route is not None and route.lane is not None:
                if lanes.send(bot_id, route, delivery, reply=True):
                    self._unacked[(bot_id, match_id)] = delivery
                    return True, self._pop(match_id, wait)
        # PUBLISH and a first short BLPOP in one round trip (see ``request``)
        return self._publish_and_pop(bot_id, delivery, match_id, wait)

    def reach(self, bot_id: str) -> Reach:
        try:
            numsub, raw, raw_left = self._commands(
                ("PUBSUB", "NUMSUB", self.keys.bot(bot_id)),
                ("HGET", self.keys.presence, bot_id),
                ("HGET", self.keys.left, bot_id),
            )
            subscribed = int(numsub[1]) > 0
            entry = None if raw is None else json.loads(raw)
            if self._lanes is not None and self._lanes.mine():
                known = self._lanes.known(bot_id)
                if known is not None and (entry is None or str(entry["conn"]) != known.conn):
                    self._lanes.forget(bot_id)  # a new stream: look its route up again
            if subscribed:
                return Reach(str(entry["conn"])) if entry else Reach(None, settling=True)
            left = None if raw_left is None else json.loads(raw_left)
            if entry is None:
                if left is None:
                    return Reach(None)
                return Reach(None, left_at=float(left["at"]), arena_left=bool(left["arena"]))
            # nobody subscribed, yet an entry: its gateway is detaching it now, or it died
            alive = self._redis.exists(gateway_key(self.keys.prefix, str(entry["gateway"])))
            if alive:
                return Reach(None, unheld=True)
            if left is None or str(left.get("conn")) != str(entry["conn"]):
                # the first to find it so: the bot is away from now on (its gateway's key
                # outlived the gateway by up to GATEWAY_TTL seconds)
                left = {"at": time.time(), "arena": True, "conn": str(entry["conn"])}
                self._redis.hset(self.keys.left, bot_id, json.dumps(left))
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        return Reach(None, gateway_lost=True, left_at=float(left["at"]), arena_left=True)

    def gateway_paused(self, bot_id: str) -> bool:
        """True when the bot's gateway has not beaten for ``STALL_S`` (its key's time to
        live run down that far: no clock of another machine is read) or its key is gone."""
        try:
            (raw,) = self._commands(("HGET", self.keys.presence, bot_id))
            if raw is None:
                return False  # not held by any gateway: the reconnect logic's case
            gateway = str(json.loads(raw)["gateway"])
            (left_ms,) = self._commands(("PTTL", gateway_key(self.keys.prefix, gateway)))
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        return int(left_ms) < (GATEWAY_TTL - STALL_S) * 1000

    def is_connected(self, bot_id: str) -> bool:
        try:
            (numsub,) = self._commands(("PUBSUB", "NUMSUB", self.keys.bot(bot_id)))
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        return int(numsub[1]) > 0

    def presence(self, bot_id: str) -> dict[str, object] | None:
        """What the gateway holding the bot registered (None if none): ``gateway``,
        ``conn``, ``max_matches``, ``since`` (Unix time)."""
        if not self.is_connected(bot_id):
            return None
        raw = self._redis.hget(self.keys.presence, bot_id)
        return None if raw is None else json.loads(raw)  # type: ignore[arg-type]

    def open_match(self, match_id: str) -> None:
        if self._lanes is not None and self._lanes.mine():
            self._lanes.close_match(match_id)
        try:
            self._redis.delete(self.keys.inbox(match_id))
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc

    def close_match(self, match_id: str) -> None:
        if self._lanes is not None and self._lanes.mine():
            self._lanes.close_match(match_id)
            for key in [k for k in self._unacked if k[1] == match_id]:
                del self._unacked[key]
        try:
            self._redis.delete(self.keys.inbox(match_id))
        except redis.RedisError:
            logger.warning("could not delete the inbox of match %s", match_id, exc_info=True)

    def on_lanes(self, match_id: str) -> bool:
        lanes = self._lanes
        return lanes is not None and lanes.mine() and lanes.full(match_id)

    def _pop(self, match_id: str, timeout: float) -> Inbound | None:
        lanes = self._lanes
        if lanes is None or not lanes.mine() or not lanes.any_lane(match_id):
            return self._blpop(match_id, timeout)
        deadline = time.monotonic() + timeout
        look = INBOX_LOOK
        while True:
            self._misses()
            got = lanes.take(match_id)
            if got is not None:
                return got
            left = deadline - time.monotonic()
            if lanes.full(match_id):
                # the answers come on the lanes; the inbox only when a lane failed
                if left > 0 and lanes.poll(min(left, look)):
                    continue
                got = self._lpop(match_id)
                look = min(2 * look, INBOX_LOOK_MAX)
            else:
                lanes.poll(0)
                got = lanes.take(match_id) or self._blpop(match_id, min(left, MIXED_SLICE))
            if got is not None:
                return got
            if deadline - time.monotonic() <= 0:
                return None

    def _misses(self) -> None:
        """Requests a gateway could not hand to the stream named: send them by Redis (to
        whichever stream holds the bot now), or tell the match nobody holds the bot."""
        assert self._lanes is not None
        for miss in self._lanes.misses():
            self._lanes.forget(miss.bot_id)
            delivery = self._unacked.get((miss.bot_id, miss.match_id))
            if delivery is None or delivery.seq != miss.seq:
                continue
            del self._unacked[(miss.bot_id, miss.match_id)]
            if not self._publish(miss.bot_id, delivery):
                self._lanes.push(not_connected(miss.bot_id, miss.match_id))

    def _blpop(self, match_id: str, timeout: float) -> Inbound | None:
        try:
            (item,) = self._commands(("BLPOP", self.keys.inbox(match_id), _block(timeout)))
        except redis.RedisError as exc:
            raise RelayError(f"cannot read the inbox from Redis: {exc}") from exc
        return None if item is None else decode_inbound(item[1])

    def _lpop(self, match_id: str) -> Inbound | None:
        try:
            (item,) = self._commands(("LPOP", self.keys.inbox(match_id)))
        except redis.RedisError as exc:
            raise RelayError(f"cannot read the inbox from Redis: {exc}") from exc
        return None if item is None else decode_inbound(item)

    def lane_counts(self) -> dict[str, int]:
        """What went on direct lanes (``arena.adapters.relay.lanes.Lanes.counts``)."""
        return {} if self._lanes is None else dict(self._lanes.counts)

    def close(self) -> None:
        """The relay's lanes are closed; the process's Redis client stays (``shared_client``)."""
        if self._lanes is not None:
            self._lanes.close()
