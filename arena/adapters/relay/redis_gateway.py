"""The gateway's side of the Redis relay (asyncio, on the gateway's event loop).

Wire format: ``arena.adapters.relay.wire``. Two connections of its own carry a decision's hops,
each read or written without a task switch in between:

* the *subscription*: subscribed to the channel of every bot the gateway holds; one
  listener task reads it and hands each delivery to its bot's session as it arrives;
* the *push* connection (``Pusher``): ``send_inbound`` writes ``RPUSH`` and ``EXPIRE`` to
  it and returns; a reader task takes Redis's replies (and logs an error reply). The
  runner, blocked in ``BLPOP``, has the message once Redis has read it.

Everything else (attaching, detaching, the heartbeat) is rare and goes through an
ordinary pooled client.

With ``direct`` (``DirectConfig``; the settings' ``RELAY_DIRECT_BIND``) the gateway also
opens a direct lane (``arena.adapters.relay.direct``): runners that find its address in a bot's
presence entry write that bot's deliveries to it, and have their matches' answers back on
it when they ask, two Redis hops fewer a decision.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection

from arena.adapters.relay.base import BotSink, DeliveryKind, GatewayRelay, Inbound, RelayError
from arena.adapters.relay.frames import LaneDelivery, split_address
from arena.adapters.relay.laneserver import LaneServer, LaneWriter
from arena.adapters.relay.presence import Beacon, gateway_key
from arena.adapters.relay.wire import (
    INBOX_TTL,
    NOTICE,
    REVOKED,
    SUPERSEDE,
    Keys,
    encode_inbound,
    pack,
    read_channel_message,
)

logger = logging.getLogger(__name__)

#: the bot's presence entry goes if it is still this stream's, and its goodbye is recorded
_DELETE_PRESENCE = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and cjson.decode(v)['conn'] == ARGV[2] then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
  return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
"""

#: Redis errors, and what a socket raises underneath them
_LOST = (redis.RedisError, OSError)


class Pusher:
    """Commands written on a connection of their own without waiting for their replies
    (one task reads those). Commands from one ``push`` reach Redis together and in order."""

    def __init__(self, pool: aioredis.ConnectionPool, what: str) -> None:
        self._pool = pool
        self._what = what
        self._conn: AbstractConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._connecting = asyncio.Lock()

    async def push(self, *commands: tuple[Any, ...]) -> None:
        """Write ``commands``; raises ``redis.RedisError`` when Redis cannot be reached."""
        conn = self._conn
        if conn is None or not conn.is_connected:
            conn = await self._connect()
        try:
            await conn.send_packed_command(conn.pack_commands(commands), check_health=False)
        except _LOST as exc:
            raise redis.ConnectionError(str(exc)) from exc

    async def _connect(self) -> AbstractConnection:
        async with self._connecting:
            if self._conn is not None and self._conn.is_connected:
                return self._conn
            await self.close()
            conn = self._pool.make_connection()
            await conn.connect()
            self._conn = conn
            self._reader = asyncio.create_task(self._replies(conn), name=f"{self._what}-replies")
            return conn

    async def _replies(self, conn: AbstractConnection) -> None:
        while True:
            try:
                await conn.read_response()
            except redis.ResponseError as exc:
                logger.error("Redis refused a %s command: %s", self._what, exc)
            except _LOST:
                return  # the connection is gone (read_response closed it): the next push connects

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
            self._reader = None
        if self._conn is not None:
            await self._conn.disconnect()
            self._conn = None


@dataclass
class _Route:
    conn: int
    sink: BotSink


@dataclass(frozen=True)
class DirectConfig:
    """A gateway's direct lane: where it listens (port 0: any free one), the host runners
    dial (empty: the bound host, or this machine's name when bound to every address), and
    the secret a runner proves it shares (the arena's ``SECRET_KEY``)."""

    bind: str
    secret: str
    host: str = ""

    def advertised(self, port: int) -> str:
        host = self.host or split_address(self.bind)[0]
        if host in ("0.0.0.0", "::", ""):
            host = socket.gethostname()
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class RedisGatewayRelay(GatewayRelay):
    def __init__(
        self,
        url: str,
        prefix: str = "relay",
        gateway_id: str | None = None,
        direct: DirectConfig | None = None,
    ) -> None:
        self.keys = Keys(prefix)
        self.gateway_id = gateway_id or uuid.uuid4().hex[:12]
        self._url = url
        self._routes: dict[str, _Route] = {}
        self._direct = direct
        self._lanes: LaneServer | None = None
        #: where runners reach this gateway's lane ("" without one)
        self.direct_address = ""
        #: match -> the lane its runner wants the match's answers on
        self._reply: dict[str, LaneWriter] = {}
        self._lane_matches: dict[LaneWriter, set[str]] = {}
        #: deliveries taken and refused on lanes; answers sent on lanes and to inboxes
        self.stats: Counter[str] = Counter()
        self._redis: aioredis.Redis | None = None
        self._sub: AbstractConnection | None = None
        self._listener: asyncio.Task[None] | None = None
        self._inbound: Pusher | None = None
        self._delete_presence: Any = None
        self._beacon: Beacon | None = None

    @property
    def _r(self) -> aioredis.Redis:
        assert self._redis is not None, "call start() first"
        return self._redis

    async def start(self) -> None:
        self._redis = aioredis.Redis.from_url(
            self._url, socket_connect_timeout=5, socket_keepalive=True
        )
        self._delete_presence = self._redis.register_script(_DELETE_PRESENCE)
        self._inbound = Pusher(self._redis.connection_pool, "relay inbound")
        self._sub = await self._subscribe_all()
        self._listener = asyncio.create_task(self._listen(), name="relay-listener")
        self._beacon = Beacon(self._redis, gateway_key(self.keys.prefix, self.gateway_id))
        await self._beacon.start()
        if self._direct is not None:
            self._lanes = LaneServer(
                self.gateway_id,
                self.keys.prefix,
                self._direct.secret,
                self._lane_delivery,
                self._lane_closed,
            )
            await self._lanes.start(self._direct.bind)
            self.direct_address = self._direct.advertised(self._lanes.port)
            logger.info("direct lane for runners at %s", self.direct_address)

    async def _subscribe_all(self) -> AbstractConnection:
        """A new subscription connection, subscribed to every bot held here."""
        conn = self._r.connection_pool.make_connection()
        try:
            await conn.connect()
            # A channel of our own, so that the connection is subscribed even with no bots.
            channels = [self.keys.gateway_channel(self.gateway_id)]
            channels += [self.keys.bot(b) for b in self._routes]
            await conn.send_command("SUBSCRIBE", *channels, check_health=False)
        except BaseException:
            await conn.disconnect()
            raise
        return conn

    async def stop(self) -> None:
        if self._lanes is not None:
            await self._lanes.stop()
        if self._beacon is not None:
            await self._beacon.stop()
        if self._listener is not None:
            self._listener.cancel()
            try:
                await self._listener
            except (asyncio.CancelledError, Exception):
                pass
        if self._sub is not None:
            await self._sub.disconnect()
        if self._inbound is not None:
            await self._inbound.close()
        if self._redis is not None:
            await self._redis.aclose()

    async def _listen(self) -> None:
        while True:
            assert self._sub is not None
            try:
                reply = await self._sub.read_response()
            except _LOST as exc:
                # Deliveries published meanwhile are lost; their runners time out or fail
                # on Redis themselves. Subscribe every bot we still hold again, until it
                # works, on a new connection.
                await self._resubscribe(exc)
                continue
            if reply[0] == b"message":
                self._dispatch(reply[1].decode(), reply[2])

    async def _resubscribe(self, exc: BaseException) -> None:
        backoff = 0.1
        logger.error("relay listener lost Redis (%s); reconnecting in %.1fs", exc, backoff)
        assert self._sub is not None
        await self._sub.disconnect()
        while True:
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)
            try:
                self._sub = await self._subscribe_all()
                break
            except _LOST as again:
                logger.error(
                    "relay listener cannot resubscribe (%s); retrying in %.1fs", again, backoff
                )
        logger.warning("relay listener back: %d bots resubscribed", len(self._routes))

    def _dispatch(self, channel: str, data: bytes) -> None:
        route = self._routes.get(self.keys.bot_of(channel))
        if route is None:
            return
        try:
            msg = read_channel_message(data)
        except ValueError as exc:
            # not the wire format (another client on the channel, a version skew): drop it
            # and go on serving the others (raising would end the listener task)
            self.stats["unreadable messages"] += 1
            logger.warning("relay: cannot read a message on %s (%s), dropped: %r%s", channel,
                           exc, data[:80], "..." if len(data) > 80 else "")  # fmt: skip
            return
        if msg.delivery is not None:
            self._reply_off(msg.delivery.match_id)  # the runner went by Redis: answer there
            route.sink.deliver(msg.delivery)
        elif msg.kind == SUPERSEDE and msg.conn > route.conn:
            route.sink.supersede("a newer connection of this bot took over")
        elif msg.kind == REVOKED and route.conn <= msg.conn:
            # arena.adapters.relay.revocation: the token changed after this stream opened
            route.sink.revoke(msg.detail)
        elif msg.kind == NOTICE:
            # arena.adapters.relay.botnotices: this bot's channel, so this bot's stream
            route.sink.notice(msg.payload)

    async def _subscription(self, command: str, bot_id: str) -> None:
        sub = self._sub
        if sub is None or not sub.is_connected:
            raise redis.ConnectionError("the relay's subscription to Redis is down")
        try:
            await sub.send_command(command, self.keys.bot(bot_id), check_health=False)
        except _LOST as exc:
            raise redis.ConnectionError(str(exc)) from exc

    async def unsubscribe(self, bot_id: str) -> None:
        """Stop hearing the bot's channel (what ``detach`` does, and what a gateway's death
        does to its subscriptions)."""
        await self._subscription("UNSUBSCRIBE", bot_id)

    async def attach(self, bot_id: str, sink: BotSink, max_matches: int) -> str:
        try:
            conn = int(await self._r.incr(self.keys.conn))
            old = self._routes.get(bot_id)
            if old is not None and old.conn > conn:
                sink.supersede("a newer connection of this bot took over")
                return str(conn)
            self._routes[bot_id] = _Route(conn, sink)
            if old is None:
                await self._subscription("SUBSCRIBE", bot_id)
            else:
                old.sink.supersede("a newer connection of this bot took over")
            await self._r.publish(self.keys.bot(bot_id), pack({"t": SUPERSEDE, "c": conn}))
            presence: dict[str, object] = {
                "gateway": self.gateway_id,
                "conn": str(conn),
                "max_matches": max_matches,
                "since": time.time(),
            }
            if self.direct_address:
                presence["direct"] = self.direct_address
            await self._r.hset(self.keys.presence, bot_id, json.dumps(presence))  # type: ignore[misc]
        except _LOST as exc:
            route = self._routes.get(bot_id)
            if route is not None and route.sink is sink:
                # not attached after all: no stale route to resubscribe later
                del self._routes[bot_id]
            raise RelayError(f"cannot register the bot in Redis: {exc}") from exc
        return str(conn)

    async def detach(self, bot_id: str, conn_id: str, *, arena: bool = False) -> None:
        route = self._routes.get(bot_id)
        if route is None or str(route.conn) != conn_id:
            return
        del self._routes[bot_id]
        goodbye = json.dumps({"at": time.time(), "arena": arena, "conn": conn_id})
        try:
            await self.unsubscribe(bot_id)
            await self._delete_presence(
                keys=[self.keys.presence, self.keys.left], args=[bot_id, conn_id, goodbye]
            )
        except _LOST:
            logger.warning("could not unregister bot %s from Redis", bot_id, exc_info=True)

    async def send_inbound(self, inbound: Inbound) -> None:
        """Written to Redis when this returns; a Redis failure is logged (the runner's
        own wait for it ends with the deadline, or with Redis failing it too)."""
        assert self._inbound is not None, "call start() first"
        lane = self._reply.get(inbound.match_id)
        if lane is not None and lane.open:
            self.stats["lane_answers"] += 1  # counted first: the runner may read it at once
            lane.inbound(inbound)
            return
        self.stats["inbox_answers"] += 1
        key = self.keys.inbox(inbound.match_id)
        try:
            await self._inbound.push(
                ("RPUSH", key, encode_inbound(inbound)), ("EXPIRE", key, INBOX_TTL)
            )
        except _LOST as exc:
            logger.error("could not pass %s for match %s to Redis: %s", inbound.kind, key, exc)

    # --- the direct lane (arena.adapters.relay.direct)

    def _lane_delivery(self, lane: LaneWriter, frame: LaneDelivery) -> None:
        """A runner's delivery on the lane: handed to the bot's stream if this gateway
        holds the very stream the runner names, else refused (it goes by Redis then)."""
        delivery = frame.delivery
        route = self._routes.get(frame.bot_id)
        taken = route is not None and str(route.conn) == frame.conn
        if taken:
            assert route is not None
            if frame.reply and delivery.kind is not DeliveryKind.ENDED:
                self._reply_on(delivery.match_id, lane)
            else:
                self._reply_off(delivery.match_id)
            route.sink.deliver(delivery)
        self.stats["lane_deliveries" if taken else "lane_refused"] += 1
        if frame.ack:
            lane.ack(frame.ack, taken)
        elif not taken:
            lane.miss(frame.bot_id, delivery)

    def _reply_on(self, match_id: str, lane: LaneWriter) -> None:
        old = self._reply.get(match_id)
        if old is lane:
            return
        if old is not None:
            self._lane_matches.get(old, set()).discard(match_id)
        self._reply[match_id] = lane
        self._lane_matches.setdefault(lane, set()).add(match_id)

    def _reply_off(self, match_id: str) -> None:
        old = self._reply.pop(match_id, None)
        if old is not None:
            self._lane_matches.get(old, set()).discard(match_id)

    def _lane_closed(self, lane: LaneWriter) -> None:
        for match_id in self._lane_matches.pop(lane, set()):
            if self._reply.get(match_id) is lane:
                del self._reply[match_id]
