"""The relay between match runners and gateways: one small interface, two implementations.

A runner (in a Celery worker, a command, a test) and the gateway holding a bot's stream
may be different processes on different machines. The runner ``deliver``s serialized
``ArenaMessage``s for a bot and waits on its match's inbox for what the gateway sends
back (the bot's actions, or notices that the bot's answer was unreadable or that its
stream closed). A gateway ``attach``es each bot it holds and receives the deliveries for
it.

* ``InProcessRelay`` (``arena.adapters.relay.local``): embedded mode, runner and gateway threads of
  one process.
* ``RedisRunnerRelay`` / ``RedisGatewayRelay`` (``arena.adapters.relay.redis``): distributed mode,
  any number of gateways and runners.

**One connection per bot, the newest wins.** When a bot opens a stream while another of
its streams is open (on this gateway or another), the old session is told it is
superseded: it gets ``Error(code="superseded")`` and is closed.

The runner side is synchronous (runners run in worker threads); the gateway side is
asyncio, called on the gateway's event loop. A ``RelayError`` is an infrastructure fault
(Redis unreachable): the runner lets it propagate so that the caller can void and re-run
the match; it is never turned into a bot fault.
"""

from __future__ import annotations

import enum
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Protocol

from arena.terms.result import DropCounts


class RelayError(RuntimeError):
    """The relay itself failed (not the bot): void the match and run it again."""


class DeliveryKind(enum.Enum):
    STARTED = "started"  # MatchStarted
    REQUEST = "request"  # DecisionRequest, awaits an answer for (match_id, seq)
    ENDED = "ended"  # MatchEnded


@dataclass(frozen=True, slots=True)
class Delivery:
    """A message for a bot: ``payload`` is a serialized ``ArenaMessage``, written to the
    bot's stream as it is; the other fields let the gateway track the bot's matches."""

    kind: DeliveryKind
    match_id: str
    seq: int
    payload: bytes


class InboundKind(enum.Enum):
    #: the bot's Action; ``payload`` is the serialized ``agent_avenue.v1.Action``
    ACTION = "action"
    #: the bot sent bytes that are no message (or no readable one) while asked ``seq``
    MALFORMED = "malformed"
    #: the bot's stream closed while it was in the match (``arena``: because its gateway
    #: is draining, not because of the bot)
    DISCONNECTED = "disconnected"
    #: the bot sent a message over the gateway's size limit while asked ``seq``
    TOO_LARGE = "too_large"
    #: a bot host reported that the hosted bot's sandbox failed decision ``seq``;
    #: ``payload`` is the serialized ``agent_avenue.v1.SeatFault`` (the gateway honours it
    #: on hosted bots' streams only: ``arena.adapters.gateway.seatfaults``)
    SEAT_FAULT = "seat_fault"
    #: a bot host failed the hosted bot's decision ``seq`` itself (not the bot's code):
    #: the runner voids the attempt (``detail`` says what failed; honoured on hosted bots'
    #: streams only: ``arena.adapters.gateway.seatfaults``)
    HOST_FAILED = "host_failed"


@dataclass(frozen=True, slots=True)
class Inbound:
    """What a gateway sends a match's runner about one of the match's bots."""

    kind: InboundKind
    bot_id: str
    match_id: str
    seq: int = 0
    payload: bytes = b""
    detail: str = ""
    #: ACTION: the gateway's measure, from writing the request to the stream to reading
    #: this answer (what the bot is charged: the relay's and the runner's delays are not
    #: the bot's); None from a gateway that does not measure
    latency_ms: float | None = None
    #: DISCONNECTED: the arena ended the stream (its gateway is shutting down)
    arena: bool = False
    #: DISCONNECTED: the relay's id of the stream that ended ("" if none held the bot)
    conn: str = ""


@dataclass(frozen=True, slots=True)
class Reach:
    """Whether a runner can reach a bot now (``RunnerRelay.reach``)."""

    #: the id of the bot's current stream; None when no gateway holds one
    conn: str | None
    #: no stream, and the gateway that held the last one is gone without a goodbye (killed,
    #: its heartbeat expired): the arena's fault, not the bot's
    gateway_lost: bool = False
    #: a stream is being attached or detached right now: look again later
    settling: bool = False
    #: no stream: when the bot's last one ended (Unix time), if the relay knows
    #: (``GatewayRelay.detach`` records it; a dead gateway's bots, when first found so)
    left_at: float | None = None
    #: ... and the arena ended it (its gateway drained or died), not the bot
    arena_left: bool = False
    #: no stream, yet the bot's presence entry is there and its gateway beats: the stream
    #: is being detached, or the gateway died a moment ago (its key outlives it by
    #: ``GATEWAY_TTL``): look again within a few seconds to know which
    unheld: bool = False

    def away_s(self, now: float | None = None) -> float | None:
        """Seconds since the bot's last stream ended (None: connected, or not known)."""
        if self.conn is not None or self.left_at is None:
            return None
        return max(0.0, (time.time() if now is None else now) - self.left_at)


def wanted(inbound: Inbound, bot_id: str, seq: int, drops: DropCounts) -> bool:
    """Whether a runner waiting for ``bot_id``'s answer to ``seq`` takes ``inbound``."""
    if inbound.kind is InboundKind.DISCONNECTED:
        return True
    if inbound.bot_id != bot_id:
        drops.foreign += 1
    elif inbound.seq != seq:
        drops.stale += 1
    else:
        return True
    return False


def not_connected(bot_id: str, match_id: str) -> Inbound:
    return Inbound(
        InboundKind.DISCONNECTED, bot_id, match_id, detail="the bot is not connected to the arena"
    )


class BotSink(Protocol):
    """A gateway session as the relay sees it. Its methods may be called from any thread
    and must return at once."""

    def deliver(self, delivery: Delivery) -> None: ...

    def supersede(self, reason: str) -> None: ...

    def revoke(self, reason: str) -> None: ...

    def notice(self, payload: bytes) -> None:
        """A serialized ``ArenaMessage`` (a ``Notice``) for the stream, nothing to track
        (``arena.adapters.relay.botnotices``)."""


class RunnerRelay(ABC):
    """The runner's side: synchronous, safe to share between runner threads."""

    @abstractmethod
    def deliver(self, bot_id: str, delivery: Delivery) -> bool:
        """Send to the bot's current stream; False when no gateway holds the bot."""

    @abstractmethod
    def is_connected(self, bot_id: str) -> bool:
        """Whether some gateway holds a stream of the bot now."""

    @abstractmethod
    def presence(self, bot_id: str) -> dict[str, object] | None:
        """None when the bot is not connected, else what its gateway registered:
        ``conn``, ``max_matches`` (from its Hello, capped) and ``since`` (Unix time)."""

    def reach(self, bot_id: str) -> Reach:
        """The bot's current stream, as ``presence`` tells it (see ``Reach``)."""
        entry = self.presence(bot_id)
        return Reach(None if entry is None else str(entry["conn"]))

    def gateway_paused(self, bot_id: str) -> bool:
        """Whether the gateway holding the bot's stream has stopped running for a while
        (its beats late: ``arena.adapters.relay.presence.STALL_S``), so that an answer owed now
        may be waiting in it. An in-process gateway runs with the runner: never."""
        return False

    def on_lanes(self, match_id: str) -> bool:
        """Whether every bot of the match is reached on a direct lane now
        (``arena.adapters.relay.direct``): a lane that breaks says so at once, so the runner's
        periodic look at the match's bots can be rarer. False without lanes."""
        return False

    def deliver_and_pop(
        self, bot_id: str, delivery: Delivery, match_id: str, wait: float
    ) -> tuple[bool, Inbound | None]:
        """Deliver, then wait up to ``wait`` s for the match's next inbound message (one
        round trip on Redis). (delivered, message or None)."""
        if not self.deliver(bot_id, delivery):
            return False, None
        return True, self.pop(match_id, wait)

    def pop(self, match_id: str, timeout: float) -> Inbound | None:
        """The match's next inbound message, waiting at most ``timeout`` seconds."""
        return self._pop(match_id, timeout)

    @abstractmethod
    def open_match(self, match_id: str) -> None:
        """Prepare the match's inbox (empty) before the first delivery."""

    @abstractmethod
    def close_match(self, match_id: str) -> None:
        """Forget the match's inbox; later inbound messages for it are discarded."""

    @abstractmethod
    def _pop(self, match_id: str, timeout: float) -> Inbound | None:
        """The next inbound message of the match, waiting at most ``timeout`` seconds."""

    def request(
        self, bot_id: str, delivery: Delivery, deadline: float, drops: DropCounts
    ) -> Inbound | None:
        """Deliver a decision request and wait for its answer, as ``await_answer`` does.
        A bot no gateway holds gets a DISCONNECTED notice back at once."""
        if not self.deliver(bot_id, delivery):
            return not_connected(bot_id, delivery.match_id)
        return self.await_answer(delivery.match_id, bot_id, delivery.seq, deadline, drops)

    def await_answer(
        self, match_id: str, bot_id: str, seq: int, deadline: float, drops: DropCounts
    ) -> Inbound | None:
        """Wait until ``deadline`` (``time.monotonic()``) for the answer of ``bot_id`` to
        decision ``seq``, or a notice about any bot of the match (malformed answer,
        disconnect). Actions and malformed notices for another decision or from another
        bot are dropped and counted in ``drops``. None when the deadline passes."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            inbound = self._pop(match_id, remaining)
            if inbound is None:
                return None
            if wanted(inbound, bot_id, seq, drops):
                return inbound

    def close(self) -> None:  # noqa: B027 - an optional hook
        """Release connections (the relay is unusable afterwards)."""


class GatewayRelay(ABC):
    """The gateway's side: coroutines run on the gateway's event loop."""

    async def start(self) -> None:  # noqa: B027 - an optional hook
        """Connect; called once before the first ``attach``."""

    async def stop(self) -> None:  # noqa: B027 - an optional hook
        """Disconnect; sessions still attached stop receiving."""

    @abstractmethod
    async def attach(self, bot_id: str, sink: BotSink, max_matches: int) -> str:
        """Route the bot's deliveries to ``sink`` from now on and return the connection's
        id. Every older stream of the bot, here or at another gateway, is superseded (and
        ``sink`` itself at once if a newer one got in first)."""

    @abstractmethod
    async def detach(self, bot_id: str, conn_id: str, *, arena: bool = False) -> None:
        """Stop routing to ``conn_id`` (a no-op if a newer stream already took over), and
        record when the bot left and whether the arena ended its stream (``arena``: its
        gateway is draining): what ``Reach.left_at`` and ``Reach.arena_left`` tell."""

    @abstractmethod
    async def send_inbound(self, inbound: Inbound) -> None:
        """Hand an action or notice to the runner of ``inbound.match_id``."""
