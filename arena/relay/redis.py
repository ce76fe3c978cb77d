"""The Redis relay (distributed mode): any number of gateways and runners.

Keys, all under a prefix (``RELAY_PREFIX``, so tests and deployments can share a Redis):

* ``{p}:bot:{bot_id}`` - pub/sub channel of a bot. Runners ``PUBLISH`` deliveries; the
  gateway holding the bot's stream is subscribed. ``PUBLISH`` answers how many gateways
  received it, so 0 tells the runner at once that the bot is not connected.
  Gateways also publish *supersede* notices there when the bot opens a newer stream,
  and ``arena.relay.revocation`` *revoked* notices when its token changes.
* ``{p}:inbox:{match_id}`` - list: the gateway ``RPUSH``es what the bot sends for the
  match, the runner ``BLPOP``s it with the decision's deadline. Expires when idle.
* ``{p}:conn`` - counter ordering every bot stream ever opened (newest wins, across
  gateways, whatever order the notices arrive in).
* ``{p}:presence`` - hash bot_id -> JSON (gateway, conn, max_matches, since), for
  schedulers; the channel's subscriber count stays the authority on "connected".
* ``{p}:gw:{gateway_id}`` - a live gateway's heartbeat key (``arena.relay.presence``).

Messages are a JSON header line followed by the raw protobuf payload, which is never
parsed here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

import redis
import redis.asyncio as aioredis

from arena.relay.base import (
    BotSink,
    Delivery,
    DeliveryKind,
    DropCounts,
    GatewayRelay,
    Inbound,
    InboundKind,
    Reach,
    RelayError,
    RunnerRelay,
    not_connected,
    wanted,
)
from arena.relay.presence import Beacon, gateway_key

logger = logging.getLogger(__name__)

#: seconds an inbox lives after its last push (a runner that died leaves nothing behind)
INBOX_TTL = 300
#: BLPOP's timeout is in seconds with millisecond resolution, and 0 means "forever"
MIN_BLOCK = 0.002
#: the first wait for an answer, pipelined with its request (seconds)
FIRST_WAIT = 0.05

_DELETE_PRESENCE = """
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and cjson.decode(v)['conn'] == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


class Keys:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.conn = f"{prefix}:conn"
        self.presence = f"{prefix}:presence"
        self._bot = f"{prefix}:bot:"

    def bot(self, bot_id: str) -> str:
        return self._bot + bot_id

    def bot_of(self, channel: str) -> str:
        return channel[len(self._bot) :]

    def inbox(self, match_id: str) -> str:
        return f"{self.prefix}:inbox:{match_id}"


def _pack(header: Mapping[str, object], payload: bytes = b"") -> bytes:
    return json.dumps(header, separators=(",", ":")).encode() + b"\n" + payload


def _unpack(data: bytes) -> tuple[dict[str, object], bytes]:
    head, _, payload = data.partition(b"\n")
    return json.loads(head), payload


def encode_inbound(inbound: Inbound) -> bytes:
    return _pack(
        {
            "k": inbound.kind.value,
            "b": inbound.bot_id,
            "m": inbound.match_id,
            "s": inbound.seq,
            "d": inbound.detail,
            "l": inbound.latency_ms,
            "a": inbound.arena,
            "c": inbound.conn,
        },
        inbound.payload,
    )


def decode_inbound(data: bytes) -> Inbound:
    h, payload = _unpack(data)
    latency = h.get("l")
    return Inbound(
        InboundKind(h["k"]),
        str(h["b"]),
        str(h["m"]),
        int(str(h["s"])),
        payload,
        str(h["d"]),
        None if latency is None else float(str(latency)),
        bool(h.get("a", False)),
        str(h.get("c", "")),
    )


class RedisRunnerRelay(RunnerRelay):
    def __init__(self, url: str, prefix: str = "relay") -> None:
        self.keys = Keys(prefix)
        self._redis = redis.Redis.from_url(url, socket_connect_timeout=5, socket_keepalive=True)

    def deliver(self, bot_id: str, delivery: Delivery) -> bool:
        header = {"t": "d", "k": delivery.kind.value, "m": delivery.match_id, "s": delivery.seq}
        try:
            receivers = self._redis.publish(self.keys.bot(bot_id), _pack(header, delivery.payload))
        except redis.RedisError as exc:
            raise RelayError(f"cannot publish to Redis: {exc}") from exc
        return cast(int, receivers) > 0

    def request(
        self, bot_id: str, delivery: Delivery, deadline: float, drops: DropCounts
    ) -> Inbound | None:
        # PUBLISH and a first short BLPOP in one round trip: a quick bot's answer is
        # usually back before the first wait ends. A bot nobody holds costs that wait.
        first = max(min(deadline - time.monotonic(), FIRST_WAIT), MIN_BLOCK)
        header = {"t": "d", "k": delivery.kind.value, "m": delivery.match_id, "s": delivery.seq}
        inbox = self.keys.inbox(delivery.match_id)
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.publish(self.keys.bot(bot_id), _pack(header, delivery.payload))
            pipe.blpop([inbox], timeout=first)
            receivers, item = pipe.execute()
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        if item is not None:
            inbound = decode_inbound(item[1])
            if wanted(inbound, bot_id, delivery.seq, drops):
                return inbound
        if not receivers:
            return not_connected(bot_id, delivery.match_id)
        return self.await_answer(delivery.match_id, bot_id, delivery.seq, deadline, drops)

    def deliver_and_pop(
        self, bot_id: str, delivery: Delivery, match_id: str, wait: float
    ) -> tuple[bool, Inbound | None]:
        # PUBLISH and a first short BLPOP in one round trip (see ``request``)
        header = {"t": "d", "k": delivery.kind.value, "m": delivery.match_id, "s": delivery.seq}
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.publish(self.keys.bot(bot_id), _pack(header, delivery.payload))
            pipe.blpop([self.keys.inbox(match_id)], timeout=max(wait, MIN_BLOCK))
            receivers, item = pipe.execute()
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        return bool(receivers), None if item is None else decode_inbound(item[1])

    def reach(self, bot_id: str) -> Reach:
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.pubsub_numsub(self.keys.bot(bot_id))
            pipe.hget(self.keys.presence, bot_id)
            numsub, raw = pipe.execute()
            subscribed = bool(numsub) and int(numsub[0][1]) > 0
            entry = None if raw is None else json.loads(raw)
            if subscribed:
                return Reach(str(entry["conn"])) if entry else Reach(None, settling=True)
            if entry is None:
                return Reach(None)
            # nobody subscribed, yet an entry: its gateway is detaching it now, or it died
            alive = self._redis.exists(gateway_key(self.keys.prefix, str(entry["gateway"])))
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        return Reach(None, gateway_lost=not alive)

    def is_connected(self, bot_id: str) -> bool:
        try:
            counts = self._redis.pubsub_numsub(self.keys.bot(bot_id))
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc
        numsub = cast(list[tuple[bytes, int]], counts)
        return bool(numsub) and int(numsub[0][1]) > 0

    def presence(self, bot_id: str) -> dict[str, object] | None:
        """What the gateway holding the bot registered (None if none): ``gateway``,
        ``conn``, ``max_matches``, ``since`` (Unix time)."""
        if not self.is_connected(bot_id):
            return None
        raw = self._redis.hget(self.keys.presence, bot_id)
        return None if raw is None else json.loads(raw)  # type: ignore[arg-type]

    def open_match(self, match_id: str) -> None:
        try:
            self._redis.delete(self.keys.inbox(match_id))
        except redis.RedisError as exc:
            raise RelayError(f"cannot reach Redis: {exc}") from exc

    def close_match(self, match_id: str) -> None:
        try:
            self._redis.delete(self.keys.inbox(match_id))
        except redis.RedisError:
            logger.warning("could not delete the inbox of match %s", match_id, exc_info=True)

    def _pop(self, match_id: str, timeout: float) -> Inbound | None:
        try:
            item = self._redis.blpop([self.keys.inbox(match_id)], timeout=max(timeout, MIN_BLOCK))
        except redis.RedisError as exc:
            raise RelayError(f"cannot read the inbox from Redis: {exc}") from exc
        if item is None:
            return None
        return decode_inbound(item[1])  # type: ignore[index]

    def close(self) -> None:
        self._redis.close()


@dataclass
class _Route:
    conn: int
    sink: BotSink


class RedisGatewayRelay(GatewayRelay):
    def __init__(self, url: str, prefix: str = "relay", gateway_id: str | None = None) -> None:
        self.keys = Keys(prefix)
        self.gateway_id = gateway_id or uuid.uuid4().hex[:12]
        self._url = url
        self._routes: dict[str, _Route] = {}
        self._redis: aioredis.Redis | None = None
        self._pubsub: aioredis.client.PubSub | None = None
        self._listener: asyncio.Task[None] | None = None
        self._delete_presence: object = None
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
        await self._subscribe_all()
        self._listener = asyncio.create_task(self._listen(), name="relay-listener")
        self._beacon = Beacon(self._redis, gateway_key(self.keys.prefix, self.gateway_id))
        await self._beacon.start()

    async def _subscribe_all(self) -> None:
        self._pubsub = self._r.pubsub()
        # A channel of our own, so the connection exists before the listener reads it.
        await self._pubsub.subscribe(f"{self.keys.prefix}:gateway:{self.gateway_id}")
        if self._routes:
            await self._pubsub.subscribe(*(self.keys.bot(b) for b in self._routes))

    async def stop(self) -> None:
        if self._beacon is not None:
            await self._beacon.stop()
        if self._listener is not None:
            self._listener.cancel()
            try:
                await self._listener
            except (asyncio.CancelledError, Exception):
                pass
        if self._pubsub is not None:
            await self._pubsub.aclose()
        if self._redis is not None:
            await self._redis.aclose()

    async def _listen(self) -> None:
        backoff = 0.1
        while True:
            assert self._pubsub is not None
            try:
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                backoff = 0.1
            except (redis.RedisError, OSError) as exc:
                # Deliveries published meanwhile are lost; their runners time out or fail
                # on Redis themselves. Resubscribe every bot we still hold, until it works:
                # a pubsub whose SUBSCRIBE failed subscribes to nothing, and its
                # get_message() just waits without an error, so the bots would be
                # unreachable for good while their streams stay open.
                logger.error("relay listener lost Redis (%s); reconnecting in %.1fs", exc, backoff)
                while True:
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, 5.0)
                    try:
                        await self._pubsub.aclose()
                        await self._subscribe_all()
                        break
                    except (redis.RedisError, OSError) as again:
                        logger.error(
                            "relay listener cannot resubscribe (%s); retrying in %.1fs",
                            again,
                            backoff,
                        )
                logger.warning("relay listener back: %d bots resubscribed", len(self._routes))
                continue
            if message is not None:
                self._dispatch(message["channel"].decode(), message["data"])

    def _dispatch(self, channel: str, data: bytes) -> None:
        route = self._routes.get(self.keys.bot_of(channel))
        if route is None:
            return
        header, payload = _unpack(data)
        if header["t"] == "d":
            route.sink.deliver(
                Delivery(
                    DeliveryKind(header["k"]), str(header["m"]), int(str(header["s"])), payload
                )
            )
        elif header["t"] == "k" and int(str(header["c"])) > route.conn:
            route.sink.supersede("a newer connection of this bot took over")
        elif header["t"] == "r" and route.conn <= int(str(header["c"])):
            # arena.relay.revocation: the token changed after this stream opened
            route.sink.revoke(str(header["d"]))

    async def attach(self, bot_id: str, sink: BotSink, max_matches: int) -> str:
        assert self._pubsub is not None
        try:
            conn = int(await self._r.incr(self.keys.conn))
            old = self._routes.get(bot_id)
            if old is not None and old.conn > conn:
                sink.supersede("a newer connection of this bot took over")
                return str(conn)
            self._routes[bot_id] = _Route(conn, sink)
            if old is None:
                await self._pubsub.subscribe(self.keys.bot(bot_id))
            else:
                old.sink.supersede("a newer connection of this bot took over")
            channel = self.keys.bot(bot_id)
            await self._r.publish(channel, _pack({"t": "k", "c": conn}))
            presence = {
                "gateway": self.gateway_id,
                "conn": str(conn),
                "max_matches": max_matches,
                "since": time.time(),
            }
            await self._r.hset(self.keys.presence, bot_id, json.dumps(presence))  # type: ignore[misc]
        except redis.RedisError as exc:
            raise RelayError(f"cannot register the bot in Redis: {exc}") from exc
        return str(conn)

    async def detach(self, bot_id: str, conn_id: str) -> None:
        route = self._routes.get(bot_id)
        if route is None or str(route.conn) != conn_id:
            return
        del self._routes[bot_id]
        try:
            assert self._pubsub is not None
            await self._pubsub.unsubscribe(self.keys.bot(bot_id))
            await self._delete_presence(  # type: ignore[operator]
                keys=[self.keys.presence], args=[bot_id, conn_id]
            )
        except redis.RedisError:
            logger.warning("could not unregister bot %s from Redis", bot_id, exc_info=True)

    async def send_inbound(self, inbound: Inbound) -> None:
        key = self.keys.inbox(inbound.match_id)
        try:
            async with self._r.pipeline(transaction=False) as pipe:
                pipe.rpush(key, encode_inbound(inbound))
                pipe.expire(key, INBOX_TTL)
                await pipe.execute()
        except redis.RedisError as exc:
            logger.error("could not pass %s for match %s to Redis: %s", inbound.kind, key, exc)
