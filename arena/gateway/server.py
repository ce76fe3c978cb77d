"""The gateway's gRPC server: an asyncio adapter between bot streams and the relay.

Per stream: check the token (``UNAUTHENTICATED``), read the Hello (``FAILED_PRECONDITION``
for an unsupported protocol version), attach to the relay (the newest stream of a bot
wins), then pump deliveries to the bot and its messages to the runners until the stream
ends. On the way out every match the bot was still in gets a disconnect notice, so its
runner does not wait for the deadline.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import signal
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from agent_avenue.v1 import arena_pb2 as pb
from arena.gateway import notices, seatfaults
from arena.gateway.auth import Authenticator
from arena.gateway.config import GatewayConfig
from arena.gateway.limits import FailedAuthLimiter, peer_host
from arena.gateway.recheck import TokenRecheck
from arena.gateway.session import (
    TRANSPORT_LIMIT,
    Oversized,
    Session,
    Unreadable,
    bot_message_parser,
    error_message,
)
from arena.relay.base import GatewayRelay, Inbound, InboundKind, RelayError
from arena.services.bots import BotIdentity
from avenue_sdk.protocol.convert import PROTOCOL_VERSION, SUPPORTED_VERSIONS

logger = logging.getLogger(__name__)
T = TypeVar("T")

SERVICE = "agent_avenue.v1.BotArena"


class _Refused(Exception):
    def __init__(self, status: grpc.StatusCode, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


class Gateway:
    """Holds the streams of the bots connected here. One per process."""

    def __init__(
        self, config: GatewayConfig, relay: GatewayRelay, authenticator: Authenticator
    ) -> None:
        self.config = config
        self.relay = relay
        self.auth = authenticator
        self.sessions: set[Session] = set()
        self.stats: Counter[str] = Counter()
        self.health = HealthServicer()
        self._db = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gateway-db")
        self._nonces = itertools.count(1)
        self._cleanups: set[asyncio.Task[None]] = set()
        #: shutting down: the streams it ends are the arena's doing, not the bots'
        self.draining = False
        self.failed_auth = FailedAuthLimiter(
            config.auth_failures_per_minute, config.auth_failure_burst
        )
        self.recheck = TokenRecheck(
            config.token_recheck_s, lambda token: self._blocking(self.auth.authenticate, token)
        )

    async def start(self) -> None:
        await self.relay.start()
        self.recheck.start()

    async def _blocking(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._db, fn, *args)

    # --- the stream

    async def connect(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:
        try:
            bot, token = await self._authenticate(context)
            hello = await self._hello(context)
        except _Refused as refused:
            self.stats[f"refused_{refused.code}"] += 1
            try:
                await context.write(error_message(refused.code, refused.message))
            except Exception:  # noqa: BLE001 - the bot may be gone already; abort anyway
                pass
            await context.abort(refused.status, refused.message)
            return
        max_matches = min(max(hello.max_concurrent_matches, 1), self.config.max_concurrent_matches)
        session = Session(bot, self.config, max_matches, asyncio.get_running_loop())
        # The bot may hang up at any await below; whatever got attached is detached in the
        # finally, so attaching runs as a task of its own that a cancel cannot cut in half.
        attached = asyncio.ensure_future(self._attach(session, hello))
        tasks: list[asyncio.Task[None]] = []
        try:
            try:
                await asyncio.shield(attached)
            except RelayError as exc:
                reason = f"the arena cannot reach its relay, try again later ({exc})"
                session.close(grpc.StatusCode.UNAVAILABLE, reason, "unavailable")
            else:
                await self._still_valid(session, token)
                self.recheck.track(session, token)
                session.welcome(self._welcome(session))
                tasks = [
                    asyncio.create_task(self._read(session, context)),
                    asyncio.create_task(self._heartbeat(session)),
                ]
            while (item := await session.outbox.get()) is not None:
                await context.write(session.stamp(item))
        finally:
            for task in tasks:
                task.cancel()
            session.close(grpc.StatusCode.CANCELLED, "the stream was cancelled")
            # Shielded too: the RPC may be cancelled again while the relay hears of it.
            cleanup = asyncio.ensure_future(self._cleanup(session, attached))
            self._cleanups.add(cleanup)
            cleanup.add_done_callback(self._cleanups.discard)
            await asyncio.shield(cleanup)
        assert session.closing is not None
        if session.closing.status is not grpc.StatusCode.OK:
            context.set_code(session.closing.status)
            context.set_details(session.closing.reason)

    async def _attach(self, session: Session, hello: pb.Hello) -> None:
        bot = session.bot
        session.conn_id = await self.relay.attach(bot.bot_id, session, session.max_matches)
        self.sessions.add(session)
        self.stats["connected"] += 1
        logger.info("bot %s (%s) connected, conn %s", bot.name, bot.bot_id, session.conn_id)
        await self._blocking(self.auth.hello, bot.bot_id, hello.protocol_version, hello.bot_version)

    async def _authenticate(self, context: grpc.aio.ServicerContext) -> tuple[BotIdentity, str]:
        peer = peer_host(context.peer())
        now = asyncio.get_running_loop().time()
        wait = self.failed_auth.retry_after(peer, now)
        if wait > 0:
            raise _Refused(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "too_many_failed_tokens",
                f"too many failed token attempts from {peer}: try again in {wait:.0f} s",
            )
        metadata = {k.lower(): v for k, v in (context.invocation_metadata() or ())}
        header = metadata.get("authorization", "")
        scheme, _, token = str(header).partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            self.failed_auth.failed(peer, now, "no bearer token")
            raise _Refused(
                grpc.StatusCode.UNAUTHENTICATED,
                "missing_token",
                "no bot token: send the call metadata 'authorization: Bearer <token>'",
            )
        bot = await self._blocking(self.auth.authenticate, token.strip())
        if bot is None:
            # Never the token itself, not even in part: logs travel further than secrets.
            self.failed_auth.failed(peer, now, "unknown, rotated or revoked token")
            raise _Refused(
                grpc.StatusCode.UNAUTHENTICATED,
                "invalid_token",
                "the bot token is not valid: it is unknown, was rotated or revoked, or its "
                "bot is deactivated",
            )
        return bot, token.strip()

    async def _still_valid(self, session: Session, token: str) -> None:
        """Check the token again once attached: a revocation between the first check and
        the relay's routing would otherwise miss this stream (arena.relay.revocation)."""
        if await self._blocking(self.auth.authenticate, token) is None:
            session.close(
                grpc.StatusCode.UNAUTHENTICATED,
                "the bot token was revoked or rotated while the stream opened",
                "token_revoked",
            )

    async def _hello(self, context: grpc.aio.ServicerContext) -> pb.Hello:
        try:
            first = await asyncio.wait_for(context.read(), self.config.hello_timeout_s)
        except TimeoutError:
            raise _Refused(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                "hello_expected",
                f"no Hello within {self.config.hello_timeout_s:g} s of opening the stream",
            ) from None
        if isinstance(first, Oversized):
            raise _Refused(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "message_too_large",
                f"a first message of {first.size} bytes, over the limit of "
                f"{self.config.max_message_bytes}",
            )
        if not isinstance(first, pb.BotMessage) or first.WhichOneof("kind") != "hello":
            raise _Refused(
                grpc.StatusCode.INVALID_ARGUMENT,
                "hello_expected",
                "the first message of a stream must be a Hello",
            )
        version = first.hello.protocol_version
        if version not in SUPPORTED_VERSIONS:
            raise _Refused(
                grpc.StatusCode.FAILED_PRECONDITION,
                "unsupported_protocol_version",
                f"protocol version {version} is not supported: this arena speaks versions "
                f"{SUPPORTED_VERSIONS.start} to {SUPPORTED_VERSIONS.stop - 1} "
                "(upgrade agent-avenue-sdk)",
            )
        return first.hello

    def _welcome(self, session: Session) -> bytes:
        c = self.config
        return pb.ArenaMessage(
            welcome=pb.Welcome(
                bot_id=session.bot.bot_id,
                bot_name=session.bot.name,
                limits=pb.Limits(
                    protocol_version=PROTOCOL_VERSION,
                    max_concurrent_matches=session.max_matches,
                    max_message_bytes=c.max_message_bytes,
                    rate_limit_per_second=int(c.rate_per_s),
                    rate_limit_burst=c.rate_burst,
                    heartbeat_interval_ms=int(c.heartbeat_s * 1000),
                    heartbeat_timeout_ms=int(c.heartbeat_timeout_s * 1000),
                ),
            )
        ).SerializeToString()

    async def _read(self, session: Session, context: grpc.aio.ServicerContext) -> None:
        try:
            while session.closing is None:
                message = await context.read()
                if message is grpc.aio.EOF:
                    session.close(grpc.StatusCode.OK, "the bot closed its stream")
                    return
                session.last_heard = session.loop.time()
                if isinstance(message, Oversized):
                    await self._too_large(session, message)
                    return
                await self._on_message(session, message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure of the stream ends the session
            session.close(grpc.StatusCode.UNAVAILABLE, f"the stream broke: {exc!r}")

    async def _on_message(self, session: Session, message: pb.BotMessage | Unreadable) -> None:
        kind = None if isinstance(message, Unreadable) else message.WhichOneof("kind")
        if isinstance(message, pb.BotMessage) and kind == "action":
            action = message.action
            # measured here, so that the relay's and the runner's delays are not the bot's
            latency = session.latency_ms(action.match_id, action.seq, session.last_heard)
            if session.answered(action.match_id, action.seq):
                await self._forward(session, action, latency)
                return
        if isinstance(message, pb.BotMessage) and kind == "seat_fault":
            report = message.seat_fault
            latency = session.latency_ms(report.match_id, report.seq, session.last_heard)
            notice = seatfaults.accepted(session, report, latency)
            if notice is not None:
                self.stats["seat_faults"] += 1
                await self.relay.send_inbound(notice)
                return
        if not session.may_send():
            self.stats["rate_limited"] += 1
            now = session.loop.time()
            if now - session.last_rate_error >= 1.0:
                session.last_rate_error = now
                session.send(notices.rate_limited(self.config, message))
            return
        if isinstance(message, Unreadable) or kind is None:
            await self._malformed(session, message)
        elif kind == "action":
            action = message.action
            if action.match_id not in session.matches:
                self.stats["unknown_match"] += 1
                session.send(
                    error_message(
                        "unknown_match",
                        f"this bot is not playing match {action.match_id!r}: action dropped",
                        action.match_id,
                        action.seq,
                    )
                )
                return
            # Not pending: the runner drops and counts it; the bot hears which it got wrong.
            self.stats["wrong_seq"] += 1
            session.send(notices.wrong_seq(session, action))
            await self._forward(session, action)
        elif kind == "ping":
            session.send(
                pb.ArenaMessage(pong=pb.Pong(nonce=message.ping.nonce)).SerializeToString()
            )
        elif kind == "hello":
            session.send(error_message("unexpected_hello", "Hello is only the first message"))
        elif kind == "seat_fault":
            self.stats["seat_faults_refused"] += 1
            session.send(seatfaults.refusal(session, message.seat_fault))

    async def _forward(
        self, session: Session, action: pb.Action, latency_ms: float | None = None
    ) -> None:
        self.stats["actions"] += 1
        await self.relay.send_inbound(
            Inbound(
                InboundKind.ACTION,
                session.bot.bot_id,
                action.match_id,
                action.seq,
                action.SerializeToString(),
                latency_ms=latency_ms,
            )
        )

    async def _malformed(self, session: Session, message: pb.BotMessage | Unreadable) -> None:
        self.stats["malformed"] += 1
        what = (
            f"{message.size} bytes that are no BotMessage ({message.error})"
            if isinstance(message, Unreadable)
            else "a BotMessage with nothing in it"
        )
        target = session.oldest_outstanding()
        if target is None:
            session.send(error_message("malformed_message", f"ignored {what}"))
            return
        match_id, seq = target
        session.answered(match_id, seq)
        detail = f"answered decision {seq} with {what}"
        session.send(error_message("malformed_message", detail, match_id, seq))
        await self.relay.send_inbound(
            Inbound(InboundKind.MALFORMED, session.bot.bot_id, match_id, seq, detail=detail)
        )

    async def _too_large(self, session: Session, message: Oversized) -> None:
        """A message over the limit: the pending decision is a ``message_too_large``
        fault, and the stream is closed (the bot's other matches learn of it as a
        disconnect, with this reason)."""
        self.stats["message_too_large"] += 1
        reason, notice = notices.too_large(session, message, self.config.max_message_bytes)
        if notice is not None:
            await self.relay.send_inbound(notice)
        session.close(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, "message_too_large")

    async def _heartbeat(self, session: Session) -> None:
        interval, timeout = self.config.heartbeat_s, self.config.heartbeat_timeout_s
        while session.closing is None:
            await asyncio.sleep(interval)
            if session.outstanding:
                # A bot thinking may not read its pings; the runner's clock is the limit
                # then (and gRPC keepalives still catch a dead connection).
                session.last_heard = session.loop.time()
            silent = session.loop.time() - session.last_heard
            if silent > timeout:
                self.stats["heartbeat_timeouts"] += 1
                session.close(
                    grpc.StatusCode.UNAVAILABLE,
                    f"no message from the bot for {silent:.1f} s (heartbeat timeout)",
                    "heartbeat_timeout",
                )
                return
            ping = pb.ArenaMessage(ping=pb.Ping(nonce=next(self._nonces)))
            session.send(ping.SerializeToString())

    async def _cleanup(self, session: Session, attached: asyncio.Future[None]) -> None:
        try:
            await attached
        except Exception:  # noqa: BLE001 - e.g. Redis down: nothing to detach then
            logger.exception("could not attach bot %s", session.bot.name)
        self.sessions.discard(session)
        self.recheck.forget(session)
        bot = session.bot
        if session.conn_id:
            await self.relay.detach(bot.bot_id, session.conn_id)
        reason = session.closing.reason if session.closing else "the stream ended"
        for match_id in sorted(session.matches):
            # draining: the runners wait for the bot to come back elsewhere, its clock
            # stopped, and void the match if it does not (arena.runner.resume); a hosted
            # bot's stream is held by a bot host, so losing it is never the bot's doing
            await self.relay.send_inbound(
                Inbound(
                    InboundKind.DISCONNECTED,
                    bot.bot_id,
                    match_id,
                    detail=reason,
                    arena=self.draining or bot.hosted,
                    conn=session.conn_id,
                )
            )
        logger.info("bot %s (%s) disconnected: %s", bot.name, bot.bot_id, reason)
        try:
            await self._blocking(self.auth.seen, bot.bot_id)
        except Exception:  # noqa: BLE001 - last-seen bookkeeping must not break shutdown
            logger.warning("could not record when bot %s was last seen", bot.name, exc_info=True)

    # --- lifecycle

    async def shutdown(self, server: grpc.aio.Server, grace: float | None = None) -> None:
        """Stop taking streams, tell every bot to go elsewhere, wait for the cleanups."""
        grace = self.config.shutdown_grace_s if grace is None else grace
        self.draining = True
        await self.health.enter_graceful_shutdown()
        for session in list(self.sessions):
            session.close(
                grpc.StatusCode.UNAVAILABLE,
                "the gateway is shutting down; reconnect",
                "shutting_down",
            )
        await server.stop(grace)
        if self._cleanups:
            await asyncio.wait(set(self._cleanups), timeout=grace)
        await self.recheck.stop()
        await self.relay.stop()
        self._db.shutdown(wait=False)
        logger.info("gateway stopped; counters: %s", dict(self.stats))


def create_server(address: str, gateway: Gateway) -> tuple[grpc.aio.Server, int]:
    """The gateway's server bound to ``address`` (port 0 picks a free one), not started.
    Call from the event loop that will run it."""
    limit = gateway.config.max_message_bytes
    server = grpc.aio.server(
        options=[
            # The gateway's own limit is checked by the deserializer (bot_message_parser).
            ("grpc.max_receive_message_length", max(TRANSPORT_LIMIT, limit)),
            ("grpc.max_send_message_length", 16 * 1024 * 1024),
            # Transport-level liveness, below the protocol's own Ping/Pong.
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            ("grpc.keepalive_permit_without_calls", 1),
            # gRPC sets SO_REUSEPORT by default on Linux: a second gateway on a port in
            # use would then start "fine" and take half the bots. Refuse it instead.
            ("grpc.so_reuseport", 0),
        ]
    )
    handler = grpc.stream_stream_rpc_method_handler(
        gateway.connect,
        request_deserializer=bot_message_parser(limit),
        # Messages reach the stream already serialized (from the relay, or below).
        response_serializer=bytes,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"Connect": handler}),)
    )
    health_pb2_grpc.add_HealthServicer_to_server(gateway.health, server)
    tls = gateway.config.tls
    try:
        if tls is not None:
            port = server.add_secure_port(address, tls.credentials())
        else:
            port = server.add_insecure_port(address)
    except RuntimeError:  # grpcio >= 1.60 raises where older versions returned 0
        port = 0
    if port == 0:
        raise OSError(f"cannot listen on {address} (port in use, or no such interface)")
    return server, port


async def serve(
    address: str,
    gateway: Gateway,
    *,
    ready: Callable[[int], None] | None = None,
    stop: asyncio.Event | None = None,
    handle_signals: bool = False,
) -> None:
    """Run the gateway until ``stop`` is set (or SIGTERM/SIGINT with ``handle_signals``)."""
    stop = stop or asyncio.Event()
    server, port = create_server(address, gateway)
    await gateway.start()
    await server.start()
    await gateway.health.set(SERVICE, health_pb2.HealthCheckResponse.SERVING)
    if handle_signals:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
    if ready is not None:
        ready(port)
    await stop.wait()
    await gateway.shutdown(server)


class GatewayThread:
    """A gateway on its own event loop in a daemon thread (embedded mode, tests)."""

    def __init__(self, gateway: Gateway, address: str = "127.0.0.1:0") -> None:
        self.gateway = gateway
        self.address = address
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="gateway", daemon=True)

    def start(self, timeout: float = 10.0) -> int:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the gateway did not start")
        if self._error is not None:
            raise self._error
        return self.port

    def _main(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()

            def ready(port: int) -> None:
                self.port = port
                self._ready.set()

            await serve(self.address, self.gateway, ready=ready, stop=self._stop)

        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            self._error = exc
            self._ready.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Shut the gateway down gracefully (a no-op once stopped)."""
        if not self._thread.is_alive():
            return
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def call(self, fn: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``fn`` on the gateway's loop (e.g. to read its counters consistently)."""
        assert self._loop is not None
        result: list[T] = []
        done = threading.Event()

        def run() -> None:
            result.append(fn())
            done.set()

        self._loop.call_soon_threadsafe(run)
        if not done.wait(timeout):
            raise TimeoutError("the gateway's loop did not answer")
        return result[0]
