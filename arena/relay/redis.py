"""The Redis relay (distributed mode): any number of gateways and runners.

The keys and messages are described in ``arena.relay.wire``. This module is the runner's
side (synchronous, shared by a worker's runner threads); the gateway's side is
``arena.relay.redis_gateway`` (asyncio), re-exported here.

A decision costs the runner one Redis round trip when the bot is quick: the request's
``PUBLISH`` and a first short ``BLPOP`` on the match's inbox go out in one write, on one
of the client's pooled connections, and the answer is usually back before that first wait
ends. The hot path uses redis-py's connection directly (one packed write, two replies
read) rather than a pipeline object, whose bookkeeping cost about as much as Redis itself.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any

import redis

from arena.relay.base import (
    Delivery,
    DropCounts,
    Inbound,
    Reach,
    RelayError,
    RunnerRelay,
    not_connected,
    wanted,
)
from arena.relay.presence import gateway_key
from arena.relay.redis_gateway import RedisGatewayRelay
from arena.relay.wire import (
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


class RedisRunnerRelay(RunnerRelay):
    def __init__(self, url: str, prefix: str = "relay") -> None:
        self.keys = Keys(prefix)
        self._redis = redis.Redis.from_url(url, socket_connect_timeout=5, socket_keepalive=True)

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
        try:
            (receivers,) = self._commands(
                ("PUBLISH", self.keys.bot(bot_id), encode_delivery(delivery))
            )
        except redis.RedisError as exc:
            raise RelayError(f"cannot publish to Redis: {exc}") from exc
        return int(receivers) > 0

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
        delivered, inbound = self._publish_and_pop(bot_id, delivery, delivery.match_id, first)
        if inbound is not None and wanted(inbound, bot_id, delivery.seq, drops):
            return inbound
        if not delivered:
            return not_connected(bot_id, delivery.match_id)
        return self.await_answer(delivery.match_id, bot_id, delivery.seq, deadline, drops)

    def deliver_and_pop(
        self, bot_id: str, delivery: Delivery, match_id: str, wait: float
    ) -> tuple[bool, Inbound | None]:
        # PUBLISH and a first short BLPOP in one round trip (see ``request``)
        return self._publish_and_pop(bot_id, delivery, match_id, wait)

    def reach(self, bot_id: str) -> Reach:
        try:
            numsub, raw = self._commands(
                ("PUBSUB", "NUMSUB", self.keys.bot(bot_id)), ("HGET", self.keys.presence, bot_id)
            )
            subscribed = int(numsub[1]) > 0
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
            (item,) = self._commands(("BLPOP", self.keys.inbox(match_id), _block(timeout)))
        except redis.RedisError as exc:
            raise RelayError(f"cannot read the inbox from Redis: {exc}") from exc
        return None if item is None else decode_inbound(item[1])

    def close(self) -> None:
        self._redis.close()
