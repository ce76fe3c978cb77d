"""The frames of the direct lanes (``arena.adapters.relay.direct`` says what the lanes are for):
what a runner and a gateway write to each other, packed and parsed.

Frames, both ways: a 4-byte big-endian length, then a type byte and the body. The two a
decision takes are packed with ``struct`` (a JSON header cost each side several µs):

* ``d``, runner to gateway, a delivery: ack id (0: none wanted), seq, reply here, kind,
  the lengths of bot id, conn and match id, those three, then the payload as on Redis;
* ``i``, gateway to runner, an inbound message: seq, latency (NaN: none), arena, kind,
  the lengths of bot id, match id, conn and detail, those four, then the payload.

The rare ones are ``j`` and ``arena.adapters.relay.wire.pack(header, payload)``, by header ``t``:
from the runner ``h`` hello (``v`` version, ``p`` the relay prefix, ``a`` the proof that it
knows the arena's ``SECRET_KEY``); from the gateway ``h`` hello (``g`` its gateway id),
``o`` ack (``q``, ``ok``) and ``x`` miss (``b``, ``m``, ``s``: an unacked delivery nobody
took).
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from dataclasses import dataclass
from typing import Any

from arena.adapters.relay.base import Delivery, DeliveryKind, Inbound, InboundKind
from arena.adapters.relay.wire import pack, unpack

VERSION = 1
#: frames above this size end the lane (a decision's request is well under 64 KiB)
MAX_FRAME = 8 * 1024 * 1024
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
