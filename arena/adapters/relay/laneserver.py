"""A gateway's listener for the runners' direct lanes (``arena.adapters.relay.direct``), on the
gateway's event loop: it checks each runner's hello (the proof that it holds the arena's
secret), then hands the delivery frames of each lane to the gateway's relay in order, and
writes acks, misses and inbound messages back.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import socket
from collections.abc import Callable
from typing import Any

from arena.adapters.relay.base import Delivery, Inbound
from arena.adapters.relay.frames import (
    VERSION,
    LaneDelivery,
    LaneError,
    frame,
    inbound_frame,
    parse,
    proof,
    split_address,
    split_frames,
)

logger = logging.getLogger(__name__)


class LaneWriter(asyncio.Protocol):
    """One runner's lane, as the gateway reads and writes it. Frames are handled as they
    arrive (``data_received``), without a task switch: a delivery reaches the bot's
    session in the same loop step."""

    def __init__(self, server: LaneServer) -> None:
        self._server = server
        self._transport: asyncio.Transport | None = None
        self._buf = bytearray()
        self._hello = False

    @property
    def open(self) -> bool:
        return self._transport is not None and not self._transport.is_closing()

    def write(self, header: dict[str, Any], payload: bytes = b"") -> None:
        if self._transport is not None:
            self._transport.write(frame(header, payload))

    def ack(self, ack: int, taken: bool) -> None:
        self.write({"t": "o", "q": ack, "ok": taken})

    def miss(self, bot_id: str, delivery: Delivery) -> None:
        self.write({"t": "x", "b": bot_id, "m": delivery.match_id, "s": delivery.seq})

    def inbound(self, inbound: Inbound) -> None:
        if self._transport is not None:
            self._transport.write(inbound_frame(inbound))

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._server.opened(self)

    def data_received(self, data: bytes) -> None:
        self._buf += data
        try:
            for raw in split_frames(self._buf):
                tag, body = parse(raw)
                if not self._hello:
                    self._greet(body[0] if tag == "j" else {})
                elif tag == "d":
                    self._server.on_delivery(self, body)
        except (LaneError, ValueError, KeyError, TypeError) as exc:
            logger.warning("closed a direct lane: %s", exc)
            self.close()

    def _greet(self, header: dict[str, Any]) -> None:
        server = self._server
        if (
            header.get("t") != "h"
            or header.get("v") != VERSION
            or header.get("p") != server.prefix
            or not hmac.compare_digest(str(header.get("a", "")), server.proof)
        ):
            assert self._transport is not None
            peer = self._transport.get_extra_info("peername")
            server.refused += 1
            raise LaneError(f"bad hello from {peer}")
        self._hello = True
        self.write({"t": "h", "g": server.gateway_id})

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._server.closed(self)


#: called with (the lane, a delivery it brought)
OnDelivery = Callable[[LaneWriter, LaneDelivery], None]


class LaneServer:
    """A gateway's lane listener: checks each runner's hello, then hands its delivery
    frames to ``on_delivery`` in order; ``on_close`` when a lane ends."""

    def __init__(
        self,
        gateway_id: str,
        prefix: str,
        secret: str,
        on_delivery: OnDelivery,
        on_close: Callable[[LaneWriter], None],
    ) -> None:
        self.gateway_id = gateway_id
        self.prefix = prefix
        self.proof = proof(secret, prefix)
        self.on_delivery = on_delivery
        self._on_close = on_close
        self._server: asyncio.Server | None = None
        self._lanes: set[LaneWriter] = set()
        self.port = 0
        #: connections refused for a bad hello (a wrong secret, not a runner at all)
        self.refused = 0

    async def start(self, bind: str) -> None:
        host, port = split_address(bind)
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: LaneWriter(self), host, port)
        self.port = self._server.sockets[0].getsockname()[1]

    def opened(self, lane: LaneWriter) -> None:
        self._lanes.add(lane)

    def closed(self, lane: LaneWriter) -> None:
        self._lanes.discard(lane)
        self._on_close(lane)

    async def stop(self) -> None:
        if self._server is None:
            return
        self._server.close()
        for lane in list(self._lanes):
            lane.close()
        await self._server.wait_closed()
