"""One bot stream on the gateway: what it was asked, what it may still send, when it
was last heard from. Lives on the gateway's event loop; ``deliver`` and ``supersede``
(the relay's entry points) may be called from any thread."""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import grpc
from google.protobuf.message import DecodeError

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway.config import GatewayConfig
from arena.adapters.gateway.stalls import StallClock
from arena.adapters.relay.base import Delivery, DeliveryKind
from arena.services.bots import BotIdentity


class Unreadable(NamedTuple):
    """Bytes from a bot that are no ``BotMessage``."""

    size: int
    error: str


class Oversized(NamedTuple):
    """A message from a bot over the gateway's limit (left unparsed)."""

    size: int


#: notices a stream holds back while other messages wait to be written; past it the oldest
#: goes (a notice is a courtesy, and the owner's channels have it)
MAX_HELD_NOTICES = 32

#: what gRPC itself takes from a bot: above the gateway's own limit, so that a message
#: between the two is seen, and recorded as ``message_too_large``; above this one gRPC
#: cuts the stream without telling why
TRANSPORT_LIMIT = 16 * 1024 * 1024


def bot_message_parser(limit: int) -> Callable[[bytes], pb.BotMessage | Unreadable | Oversized]:
    """The gateway's request deserializer for messages of at most ``limit`` bytes."""

    def parse(data: bytes) -> pb.BotMessage | Unreadable | Oversized:
        return Oversized(len(data)) if len(data) > limit else parse_bot_message(data)

    return parse


def parse_bot_message(data: bytes) -> pb.BotMessage | Unreadable:
    """The gateway's request deserializer: never raises, so that garbage from a bot is a
    fault of that bot's pending decision rather than a broken stream."""
    try:
        return pb.BotMessage.FromString(data)
    except DecodeError as exc:
        return Unreadable(len(data), str(exc) or "not a BotMessage")


def error_message(code: str, message: str, match_id: str = "", seq: int = 0) -> bytes:
    return pb.ArenaMessage(
        error=pb.Error(code=code, message=message, match_id=match_id, seq=seq)
    ).SerializeToString()


class TokenBucket:
    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Stamped(NamedTuple):
    """A decision request in the outbox: the time it is written to the stream is noted,
    to measure the bot's answer from there (``Session.latency_ms``)."""

    payload: bytes
    key: tuple[str, int]


@dataclass
class Closing:
    status: grpc.StatusCode
    reason: str


@dataclass(eq=False)  # sessions are compared (and hashed) by identity
class Session:
    bot: BotIdentity
    config: GatewayConfig
    max_matches: int
    loop: asyncio.AbstractEventLoop
    outbox: asyncio.Queue[bytes | Stamped | None] = field(default_factory=asyncio.Queue)
    conn_id: str = ""
    #: matches the bot has been told about and that have not ended
    matches: set[str] = field(default_factory=set)
    #: decisions sent and not yet answered, oldest first, with when they were written to
    #: the stream (0.0 while still queued)
    outstanding: dict[tuple[str, int], float] = field(default_factory=dict)
    closing: Closing | None = None
    last_heard: float = 0.0
    loop_thread: int = 0
    last_rate_error: float = -1e9
    bucket: TokenBucket | None = None
    #: deliveries that came before the Welcome was queued: the relay routes to a stream as
    #: soon as it is attached, and the Welcome must still be the bot's first message
    held: list[bytes | Stamped] | None = field(default_factory=list)
    #: the gateway's own pauses, taken out of the bot's measures (``stalls.StallClock``)
    stalls: StallClock | None = None
    #: notices waiting for the outbox to be empty: one is written only when nothing else
    #: waits, so a notice never goes ahead of a decision request (``next_notice``)
    notices: deque[bytes] = field(default_factory=lambda: deque(maxlen=MAX_HELD_NOTICES))
    #: notices queued for the stream, and those dropped (the hold was full, the stream a
    #: bot host's, or closing)
    notices_sent: int = 0
    notices_dropped: int = 0

    def __post_init__(self) -> None:
        self.loop_thread = threading.get_ident()  # sessions are made on the loop
        now = self.loop.time()
        self.last_heard = now
        self.bucket = TokenBucket(self.config.rate_per_s, self.config.rate_burst, now)

    # --- the relay's side (any thread)

    def deliver(self, delivery: Delivery) -> None:
        if threading.get_ident() == self.loop_thread:
            # The Redis relay calls from the loop itself: skip the wake-up through the
            # loop's self-pipe, a system call and a loop iteration on every decision.
            self._on_delivery(delivery)
        else:
            self.loop.call_soon_threadsafe(self._on_delivery, delivery)

    def supersede(self, reason: str) -> None:
        self.loop.call_soon_threadsafe(self.close, grpc.StatusCode.ABORTED, reason, "superseded")

    def revoke(self, reason: str) -> None:
        self.loop.call_soon_threadsafe(
            self.close, grpc.StatusCode.UNAUTHENTICATED, reason, "token_revoked"
        )

    def notice(self, payload: bytes) -> None:
        """An owner's event for the bot (``arena.adapters.relay.botnotices``)."""
        if threading.get_ident() == self.loop_thread:
            self._on_notice(payload)
        else:
            self.loop.call_soon_threadsafe(self._on_notice, payload)

    # --- the event loop's side

    def _on_delivery(self, delivery: Delivery) -> None:
        if self.closing is not None:
            # the runner learns of the disconnect: nobody to deliver to once the stream is
            # detached, and till then the notice the cleanup sends each match it was in
            # (this one too: a match that started while its gateway drained)
            if delivery.kind is DeliveryKind.ENDED:
                self.matches.discard(delivery.match_id)
            else:
                self.matches.add(delivery.match_id)
            return
        item: bytes | Stamped = delivery.payload
        match delivery.kind:
            case DeliveryKind.STARTED:
                self.matches.add(delivery.match_id)
            case DeliveryKind.REQUEST:
                self.matches.add(delivery.match_id)
                key = (delivery.match_id, delivery.seq)
                self.outstanding[key] = 0.0
                item = Stamped(delivery.payload, key)
            case DeliveryKind.ENDED:
                self.matches.discard(delivery.match_id)
                for key in [k for k in self.outstanding if k[0] == delivery.match_id]:
                    del self.outstanding[key]
        if self.held is not None:
            self.held.append(item)
        else:
            self.outbox.put_nowait(item)

    def _on_notice(self, payload: bytes) -> None:
        if self.closing is not None or self.bot.hosted:
            # a hosted bot's stream is its bot host's, which tells the bot's code nothing
            self.notices_dropped += 1
            return
        if len(self.notices) == self.notices.maxlen:
            self.notices_dropped += 1
        self.notices.append(payload)
        self.next_notice()

    def next_notice(self) -> None:
        """Queue the oldest held notice if nothing else waits to be written (the stream's
        writer calls this after each write)."""
        if self.notices and self.held is None and self.closing is None and self.outbox.empty():
            self.notices_sent += 1
            self.outbox.put_nowait(self.notices.popleft())

    def stamp(self, item: bytes | Stamped) -> bytes:
        """What to write for an outbox item; a request's write time is noted."""
        if isinstance(item, bytes):
            return item
        if item.key in self.outstanding:
            self.outstanding[item.key] = self.loop.time()
        return item.payload

    def latency_ms(self, match_id: str, seq: int, read_at: float) -> float | None:
        """From writing request (match_id, seq) to ``read_at``, if it is outstanding."""
        written = self.outstanding.get((match_id, seq))
        if not written:
            return None
        paused = self.stalls.paused(written, read_at) if self.stalls is not None else 0.0
        return max(0.0, (read_at - written - paused) * 1000)

    def silent_for(self, now: float) -> float:
        """Seconds since the bot was last heard, the gateway's own pauses left out."""
        paused = self.stalls.paused(self.last_heard, now) if self.stalls is not None else 0.0
        return now - self.last_heard - paused

    def welcome(self, payload: bytes) -> None:
        """Queue the Welcome, then whatever was delivered before it."""
        held, self.held = self.held or [], None
        for item in [payload, *held]:
            self.send(item)

    def send(self, payload: bytes | Stamped) -> None:
        if self.closing is None:
            self.outbox.put_nowait(payload)

    def close(
        self, status: grpc.StatusCode, reason: str, error_code: str = "", error_text: str = ""
    ) -> None:
        """End the stream after what is queued, with ``Error(error_code)`` last if given
        (its message: ``error_text``, or the close ``reason``)."""
        if self.closing is not None:
            return
        self.closing = Closing(status, reason)
        if error_code:
            self.outbox.put_nowait(error_message(error_code, error_text or reason))
        self.outbox.put_nowait(None)

    def answered(self, match_id: str, seq: int) -> bool:
        """Whether (match_id, seq) was outstanding; it no longer is."""
        key = (match_id, seq)
        return self.outstanding.pop(key, None) is not None

    def oldest_outstanding(self) -> tuple[str, int] | None:
        return next(iter(self.outstanding), None)

    def may_send(self) -> bool:
        """Charge one unsolicited message to the rate limit."""
        assert self.bucket is not None
        return self.bucket.take(self.loop.time())
