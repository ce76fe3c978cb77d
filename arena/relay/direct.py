"""Direct lanes: a runner writes a decision straight to the gateway that holds the bot.

On the Redis relay alone a decision crosses Redis twice (the request's ``PUBLISH``, the
answer's ``RPUSH`` and ``BLPOP``): two more processes to wake on its way. A gateway that
opens a lane (``RELAY_DIRECT_BIND``) listens on a TCP port of its own and writes its
address into its bots' presence entries (``"direct"``). A runner that finds it there
connects once per match and gateway, and from then on writes the match's deliveries for
that bot to the lane; the gateway answers on the lane too. Redis stays the authority on
who holds a bot (presence, supersede, revocation) and the way of every message when a lane
is missing, refused or broken:

* a delivery names the stream it is for (``conn``, from the presence entry). A gateway
  that does not hold that stream of the bot any more says so (*miss*, or a refused *ack*)
  and the runner sends that delivery through Redis instead, as before;
* the gateway answers a match on the lane when the runner asks it to (``r``, "reply
  here": every remote bot of the match is on a lane), else through the match's inbox; a
  delivery of the match that comes through Redis, or the lane's end, sends its answers
  back to the inbox;
* a lane that breaks is dropped by both sides; what was on its way is what a lost
  ``PUBLISH`` would have lost, and the runner's reconnect watch (``arena.runner.resume``)
  finds the bot again.

Frames, both ways: a 4-byte big-endian length, then a type byte and the body. The two a
decision takes are packed with ``struct`` (a JSON header cost each side several µs):

* ``d``, runner to gateway, a delivery: ack id (0: none wanted), seq, reply here, kind,
  the lengths of bot id, conn and match id, those three, then the payload as on Redis;
* ``i``, gateway to runner, an inbound message: seq, latency (NaN: none), arena, kind,
  the lengths of bot id, match id, conn and detail, those four, then the payload.

The rare ones are ``j`` and ``arena.relay.wire.pack(header, payload)``, by header ``t``:
from the runner ``h`` hello (``v`` version, ``p`` the relay prefix, ``a`` the proof that it
knows the arena's ``SECRET_KEY``); from the gateway ``h`` hello (``g`` its gateway id),
``o`` ack (``q``, ``ok``) and ``x`` miss (``b``, ``m``, ``s``: an unacked delivery nobody
took).

This module is the frames, the runner's side (``Lane``, synchronous) and the gateway's
listener (``LaneServer``, asyncio).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import select
import socket
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena.relay.base import Delivery, DeliveryKind, Inbound, InboundKind
from arena.relay.wire import pack, unpack

logger = logging.getLogger(__name__)

VERSION = 1
#: frames above this size end the lane (a decision's request is well under 64 KiB)
MAX_FRAME = 8 * 1024 * 1024
#: seconds a runner waits to connect and for the gateway's hello
CONNECT_TIMEOUT = 2.0
_LEN = struct.Struct(">I")

#: (type, what it carries): ("d", LaneDelivery), ("i", Inbound), ("j", (header, payload))
Frame = tuple[str, Any]


class LaneError(OSError):
    """The lane cannot be used (refused, closed, garbled): go through Redis."""


def proof(secret: str, prefix: str) -> str:
    """What a runner shows a gateway's lane: it shares the arena's secret."""
    return hmac.new(secret.encode(), f"relay-direct:{prefix}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True, slots=True)
class LaneDelivery:
    """A ``d`` frame: ``delivery`` for stream ``conn`` of ``bot_id``."""

    bot_id: str
    conn: str
    delivery: Delivery
    reply: bool
    ack: int


# seq is a uint64 in the protocol: a bot may send any of them (a stale or made-up one is
# forwarded for the runner to count and drop), so the frame carries the whole range.
_D = struct.Struct(">QQBBHHH")
_I = struct.Struct(">QdBBHHHI")
_DELIVERY_KINDS = tuple(DeliveryKind)
_DELIVERY_INDEX = {k: i for i, k in enumerate(_DELIVERY_KINDS)}
_INBOUND_KINDS = tuple(InboundKind)
_INBOUND_INDEX = {k: i for i, k in enumerate(_INBOUND_KINDS)}
_NAN = float("nan")


def frame(header: dict[str, Any], payload: bytes = b"") -> bytes:
    body = pack(header, payload)
    return _LEN.pack(len(body) + 1) + b"j" + body


def delivery_frame(bot_id: str, conn: str, delivery: Delivery, reply: bool, ack: int) -> bytes:
    b, c, m = bot_id.encode(), conn.encode(), delivery.match_id.encode()
    kind = _DELIVERY_INDEX[delivery.kind]
    head = _D.pack(ack, delivery.seq, reply, kind, len(b), len(c), len(m))
    size = 1 + _D.size + len(b) + len(c) + len(m) + len(delivery.payload)
    return b"".join((_LEN.pack(size), b"d", head, b, c, m, delivery.payload))


def inbound_frame(inbound: Inbound) -> bytes:
    b, m = inbound.bot_id.encode(), inbound.match_id.encode()
    c, d = inbound.conn.encode(), inbound.detail.encode()
    latency = _NAN if inbound.latency_ms is None else inbound.latency_ms
    kind = _INBOUND_INDEX[inbound.kind]
    head = _I.pack(inbound.seq, latency, inbound.arena, kind, len(b), len(m), len(c), len(d))
    size = 1 + _I.size + len(b) + len(m) + len(c) + len(d) + len(inbound.payload)
    return b"".join((_LEN.pack(size), b"i", head, b, m, c, d, inbound.payload))


def _strings(body: bytes, at: int, lengths: tuple[int, ...]) -> tuple[list[str], int]:
    out = []
    for n in lengths:
        out.append(body[at : at + n].decode())
        at += n
    if at > len(body):
        raise ValueError("a frame shorter than its lengths")
    return out, at


def parse(body: bytes) -> Frame:
    """What a frame's body carries (``Frame``); raises ValueError when it is garbled."""
    kind = body[:1]
    try:
        if kind == b"d":
            ack, seq, reply, k, *lengths = _D.unpack_from(body, 1)
            (bot, conn, match), at = _strings(body, 1 + _D.size, tuple(lengths))
            delivery = Delivery(_DELIVERY_KINDS[k], match, seq, body[at:])
            return "d", LaneDelivery(bot, conn, delivery, bool(reply), ack)
        if kind == b"i":
            seq, latency, arena, k, *lengths = _I.unpack_from(body, 1)
            (bot, match, conn, detail), at = _strings(body, 1 + _I.size, tuple(lengths))
            return "i", Inbound(
                _INBOUND_KINDS[k],
                bot,
                match,
                seq,
                body[at:],
                detail,
                None if latency != latency else latency,  # NaN: none
                bool(arena),
                conn,
            )
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ValueError(f"a garbled {kind!r} frame ({exc})") from exc
    if kind != b"j":
        raise ValueError(f"a frame of unknown type {kind!r}")
    return "j", unpack(body[1:])


def split_frames(buf: bytearray) -> list[bytes]:
    """Take the whole frames' bodies off the front of ``buf`` (what is left is the start
    of the next); raises LaneError for a frame over ``MAX_FRAME``."""
    bodies: list[bytes] = []
    while len(buf) >= 4:
        (size,) = _LEN.unpack_from(buf)
        if size > MAX_FRAME:
            raise LaneError(f"a frame of {size} bytes")
        if len(buf) < 4 + size:
            break
        bodies.append(bytes(buf[4 : 4 + size]))
        del buf[: 4 + size]
    return bodies


def split_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"a direct lane's address is host:port, not {address!r}")
    return host.strip("[]"), int(port)


class Lane:
    """A runner's connection to one gateway's lane (synchronous, one thread at a time)."""

    def __init__(self, address: str, gateway_id: str, prefix: str, secret: str) -> None:
        self.address = address
        self.gateway_id = gateway_id
        self._buf = bytearray()
        host, port = split_address(address)
        try:
            sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
        except OSError as exc:
            raise LaneError(f"cannot connect to {address}: {exc}") from exc
        self._sock = sock
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.sendall(frame({"t": "h", "v": VERSION, "p": prefix, "a": proof(secret, prefix)}))
            replies = self.read(CONNECT_TIMEOUT)
            if not replies:
                raise LaneError(f"no hello from the gateway at {address}")
            tag, (header, _) = replies[0]
            if tag != "j" or header.get("t") != "h" or header.get("g") != gateway_id:
                raise LaneError(
                    f"{address} is not the lane of gateway {gateway_id} (it said {header})"
                )
            sock.setblocking(False)
        except BaseException:
            self.close()
            raise

    def fileno(self) -> int:
        return self._sock.fileno()

    def send(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                try:
                    view = view[self._sock.send(view) :]
                except (BlockingIOError, InterruptedError):
                    writable = select.poll()
                    writable.register(self._sock.fileno(), select.POLLOUT)
                    if not writable.poll(CONNECT_TIMEOUT * 1000):
                        raise LaneError(
                            f"lane to {self.address}: the gateway reads nothing"
                        ) from None
        except OSError as exc:
            raise LaneError(f"lane to {self.address} broke: {exc}") from exc

    def frames(self) -> list[Frame]:
        """The whole frames read so far."""
        out: list[Frame] = []
        try:
            for body in split_frames(self._buf):
                out.append(parse(body))
        except LaneError as exc:
            raise LaneError(f"lane to {self.address}: {exc}") from exc
        except ValueError as exc:
            raise LaneError(f"lane to {self.address}: unreadable frame ({exc})") from exc
        return out

    def pull(self) -> None:
        """Read what the socket holds now (never blocks). Raises LaneError on its end."""
        while True:
            try:
                data = self._sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                raise LaneError(f"lane to {self.address} broke: {exc}") from exc
            if not data:
                raise LaneError(f"the gateway at {self.address} closed the lane")
            self._buf += data
            if len(data) < 65536:
                return

    def read(self, timeout: float) -> list[Frame]:
        """Frames that arrive within ``timeout`` seconds (blocking mode, the hello)."""
        self._sock.settimeout(timeout)
        while not (got := self.frames()):
            try:
                data = self._sock.recv(65536)
            except TimeoutError:
                return []
            except OSError as exc:
                raise LaneError(f"lane to {self.address} broke: {exc}") from exc
            if not data:
                raise LaneError(f"the gateway at {self.address} closed the lane")
            self._buf += data
        return got

    def close(self) -> None:
        try:
            self._sock.close()
        except OSError:
            pass


def wait_readable(lanes: list[Lane], timeout: float) -> list[Lane]:
    """The lanes with something to read (or that closed) within ``timeout`` seconds.
    ``poll``, not ``select``: a worker playing a thousand matches holds file descriptors
    past ``select``'s 1,024."""
    if not lanes:
        return []
    poller = select.poll()
    by_fd = {}
    for lane in lanes:
        fd = lane.fileno()
        by_fd[fd] = lane
        poller.register(fd, select.POLLIN)
    events = poller.poll(max(0.0, timeout) * 1000)
    return [by_fd[fd] for fd, _ in events]


# --- the gateway's side ---------------------------------------------------------------------


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
