"""The arena's side of one bot's stream, for the local arena: a gRPC server on a free port
of 127.0.0.1 speaking ``agent_avenue.v1.BotArena`` (docs/protocol.md) to a bot in a
process of its own, in any language.

It admits one bot by a token made for the run (``authorization: Bearer <token>``), answers
its ``Hello`` with a ``Welcome`` stating the arena's default limits, answers its pings,
and relays: ``send`` puts an ``ArenaMessage`` on the bot's stream, ``answer`` waits for
the ``Action`` of one decision (answers for other decisions are dropped, as the arena's
gateway drops them). A newer stream of the bot supersedes the older one, as on the arena.
A bot that closes its stream, or whose process dies, is ``DISCONNECTED`` for the decision
being waited for.
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import grpc

from agent_avenue.v1 import arena_pb2 as pb
from agent_avenue.v1 import arena_pb2_grpc as pb_grpc

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
#: the arena's defaults (docs/protocol.md, limits)
MAX_MESSAGE_BYTES = 64 * 1024
MAX_CONCURRENT_MATCHES = 16
HEARTBEAT_INTERVAL_MS = 10_000
HEARTBEAT_TIMEOUT_MS = 30_000


class Disconnected(Exception):
    """The bot's stream ended while it was being waited for."""


@dataclass
class _Stream:
    number: int
    outbox: queue.Queue[pb.ArenaMessage | None]
    open: bool = True
    #: a newer stream of the bot took over
    superseded: bool = False


class LocalGateway(pb_grpc.BotArenaServicer):
    def __init__(self, name: str) -> None:
        self.name = name
        self.token = "aat_local_" + secrets.token_urlsafe(24)
        self._server = grpc.server(
            ThreadPoolExecutor(max_workers=8, thread_name_prefix="avenue-local-gateway"),
            options=[("grpc.max_receive_message_length", 16 * 1024 * 1024)],
        )
        pb_grpc.add_BotArenaServicer_to_server(self, self._server)
        self.port = self._server.add_insecure_port("127.0.0.1:0")
        self._server.start()
        self._lock = threading.Condition()
        self._stream: _Stream | None = None
        self._streams = 0
        #: (stream number, action) as they arrive; (number, None) when that stream ends
        self._inbox: queue.Queue[tuple[int, pb.Action | None]] = queue.Queue()
        #: the Hello of the stream in use (the bot's version, its matches at once)
        self.hello: pb.Hello | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    # --- the bot's side

    def Connect(  # noqa: N802 - the gRPC method's name
        self, request_iterator: Iterator[pb.BotMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.ArenaMessage]:
        metadata = dict(context.invocation_metadata())
        auth = str(metadata.get("authorization", ""))
        if not auth.startswith("Bearer "):
            yield _error("missing_token", "no 'authorization: Bearer <token>' metadata")
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "missing token")
        if not secrets.compare_digest(auth.removeprefix("Bearer "), self.token):
            yield _error("invalid_token", "this is not the token of the local arena's bot")
            context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid token")
        first = _first(request_iterator)
        if first is None or first.WhichOneof("kind") != "hello":
            yield _error("hello_expected", "the first message must be a Hello")
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "hello expected")
        hello = first.hello  # type: ignore[union-attr]
        if hello.protocol_version != PROTOCOL_VERSION:
            text = (
                f"protocol version {hello.protocol_version} is not supported: this arena "
                f"speaks versions {PROTOCOL_VERSION} to {PROTOCOL_VERSION}"
            )
            yield _error("unsupported_protocol_version", text)
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, text)
        stream = self._open(hello)
        yield pb.ArenaMessage(welcome=self._welcome(hello))
        reader = threading.Thread(
            target=self._read,
            args=(stream, request_iterator),
            daemon=True,
            name="avenue-local-read",
        )
        reader.start()
        try:
            while True:
                message = stream.outbox.get()
                if message is None:
                    break
                yield message
        finally:
            self._closed(stream)
        if stream.superseded:
            context.abort(grpc.StatusCode.ABORTED, "superseded by a newer stream of the bot")

    def _welcome(self, hello: pb.Hello) -> pb.Welcome:
        wanted = hello.max_concurrent_matches or 1
        return pb.Welcome(
            bot_id="local",
            bot_name=self.name,
            limits=pb.Limits(
                protocol_version=PROTOCOL_VERSION,
                max_concurrent_matches=min(wanted, MAX_CONCURRENT_MATCHES),
                max_message_bytes=MAX_MESSAGE_BYTES,
                rate_limit_per_second=20,
                rate_limit_burst=40,
                heartbeat_interval_ms=HEARTBEAT_INTERVAL_MS,
                heartbeat_timeout_ms=HEARTBEAT_TIMEOUT_MS,
            ),
        )

    def _open(self, hello: pb.Hello) -> _Stream:
        with self._lock:
            old = self._stream
            self._streams += 1
            stream = _Stream(self._streams, queue.Queue())
            self._stream = stream
            self.hello = hello
            if old is not None and old.open:
                old.open, old.superseded = False, True
                old.outbox.put(_error("superseded", "a newer stream of this bot took over"))
                old.outbox.put(None)
            self._lock.notify_all()
        return stream

    def _read(self, stream: _Stream, messages: Iterator[pb.BotMessage]) -> None:
        try:
            for message in messages:
                kind = message.WhichOneof("kind")
                if kind == "action":
                    self._inbox.put((stream.number, message.action))
                elif kind == "ping":
                    stream.outbox.put(pb.ArenaMessage(pong=pb.Pong(nonce=message.ping.nonce)))
                elif kind == "hello":
                    stream.outbox.put(_error("unexpected_hello", "Hello is only the first message"))
        except grpc.RpcError:
            pass  # the stream broke: the bot is gone
        finally:
            stream.outbox.put(None)
            self._closed(stream)

    def _closed(self, stream: _Stream) -> None:
        with self._lock:
            if stream.open:
                stream.open = False
                self._inbox.put((stream.number, None))
            self._lock.notify_all()

    # --- the arena's side

    @property
    def connected(self) -> bool:
        with self._lock:
            return self._stream is not None and self._stream.open

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._stream is None or not self._stream.open:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(min(left, 0.5))
            return True

    def send(self, message: pb.ArenaMessage) -> bool:
        """Put ``message`` on the bot's stream; False when no stream is open."""
        with self._lock:
            stream = self._stream
            if stream is None or not stream.open:
                return False
            stream.outbox.put(message)
            return True

    def answer(self, match_id: str, seq: int, timeout: float) -> pb.Action | None:
        """The bot's ``Action`` for decision ``seq`` of ``match_id`` (None: not within
        ``timeout`` seconds). Raises ``Disconnected`` when its stream ends meanwhile."""
        deadline = time.monotonic() + timeout
        with self._lock:
            current = self._stream.number if self._stream is not None else -1
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                number, action = self._inbox.get(timeout=left)
            except queue.Empty:
                return None
            if action is None:
                if number == current:
                    raise Disconnected("the bot's stream ended")
                continue  # an older stream's end
            if action.match_id == match_id and action.seq == seq:
                return action
            log.debug("dropped an action for %s #%d", action.match_id, action.seq)

    def close(self) -> None:
        with self._lock:
            stream, self._stream = self._stream, None
            if stream is not None and stream.open:
                stream.open = False
                stream.outbox.put(_error("shutting_down", "the local arena is done"))
                stream.outbox.put(None)
        self._server.stop(grace=1.0)


def _error(code: str, message: str) -> pb.ArenaMessage:
    return pb.ArenaMessage(error=pb.Error(code=code, message=message))


def _first(messages: Iterator[pb.BotMessage]) -> pb.BotMessage | None:
    try:
        return next(messages)
    except (StopIteration, grpc.RpcError):
        return None
