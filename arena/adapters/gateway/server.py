"""The gateway: an asyncio adapter between bot streams and the relay.

Per stream: check the token (``UNAUTHENTICATED``), read the Hello (``FAILED_PRECONDITION``
for an unsupported protocol version; both in ``arena.adapters.gateway.handshake``), attach to the
relay (the newest stream of a bot wins), then pump deliveries to the bot and its messages
to the runners (``arena.adapters.gateway.messages``) until the stream ends. On the way out every
match the bot was still in gets a disconnect notice, so its runner does not wait for the
deadline. The gRPC server around it: ``arena.adapters.gateway.serving``.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import grpc
from grpc_health.v1._async import HealthServicer

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway.auth import Authenticator
from arena.adapters.gateway.config import GatewayConfig
from arena.adapters.gateway.handshake import Refused, authenticate, read_hello, welcome
from arena.adapters.gateway.limits import FailedAuthLimiter
from arena.adapters.gateway.messages import BotMessages
from arena.adapters.gateway.recheck import TokenRecheck
from arena.adapters.gateway.session import Session, error_message
from arena.adapters.gateway.stalls import StallClock
from arena.adapters.relay.base import GatewayRelay, Inbound, InboundKind, RelayError
from arena.models import IncidentKind
from arena.services.bots import BotIdentity
from arena.services.faultreport import record_incident

logger = logging.getLogger(__name__)
T = TypeVar("T")

SERVICE = "agent_avenue.v1.BotArena"


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
        self.recheck = TokenRecheck(config.token_recheck_s, self._check_token)
        self.messages = BotMessages(config, relay, self.stats)
        self.stalls = StallClock()

    async def start(self) -> None:
        await self.relay.start()
        self.recheck.start()
        self.stalls.start()

    async def _blocking(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._db, fn, *args)

    def _check_token(self, token: str) -> Awaitable[BotIdentity | None]:
        return self._blocking(self.auth.authenticate, token)

    # --- the stream

    async def connect(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:
        try:
            bot, token = await authenticate(context, self.failed_auth, self._check_token)
            hello = await read_hello(context, self.config)
        except Refused as refused:
            self.stats[f"refused_{refused.code}"] += 1
            try:
                await context.write(error_message(refused.code, refused.message))
            except Exception:  # noqa: BLE001 - the bot may be gone already; abort anyway
                pass
            await context.abort(refused.status, refused.message)
            return
        max_matches = min(max(hello.max_concurrent_matches, 1), self.config.max_concurrent_matches)
        session = Session(bot, self.config, max_matches, asyncio.get_running_loop())
        session.stalls = self.stalls
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
                session.welcome(welcome(self.config, session))
                tasks = [
                    asyncio.create_task(self.messages.read(session, context)),
                    asyncio.create_task(self._heartbeat(session)),
                ]
            while (item := await session.outbox.get()) is not None:
                await context.write(session.stamp(item))
                session.next_notice()
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

    async def _still_valid(self, session: Session, token: str) -> None:
        """Check the token again once attached: a revocation between the first check and
        the relay's routing would otherwise miss this stream (arena.adapters.relay.revocation)."""
        if await self._blocking(self.auth.authenticate, token) is None:
            session.close(
                grpc.StatusCode.UNAUTHENTICATED,
                "the bot token was revoked or rotated while the stream opened",
                "token_revoked",
            )

    async def _heartbeat(self, session: Session) -> None:
        interval, timeout = self.config.heartbeat_s, self.config.heartbeat_timeout_s
        while session.closing is None:
            await asyncio.sleep(interval)
            if session.outstanding:
                # A bot thinking may not read its pings; the runner's clock is the limit
                # then (and gRPC keepalives still catch a dead connection).
                session.last_heard = session.loop.time()
            silent = session.silent_for(session.loop.time())
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
            await self.relay.detach(bot.bot_id, session.conn_id, arena=self.draining or bot.hosted)
        reason = session.closing.reason if session.closing else "the stream ended"
        for match_id in sorted(session.matches):
            # draining: the runners wait for the bot to come back elsewhere, its clock
            # stopped, and void the match if it does not (arena.adapters.runner.resume); a hosted
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
        gateway_id = str(getattr(self.relay, "gateway_id", ""))
        detail = f"{len(self.sessions)} bot streams ended by the gateway's shutdown"
        # a drain that ends no stream can have caused no fault: on the operator's record it
        # would only mark unrelated faults near it as suspect
        try:
            if self.sessions:
                await asyncio.wait_for(
                    self._blocking(record_incident, IncidentKind.GATEWAY_DRAIN, gateway_id, detail),
                    timeout=2.0,
                )
        except Exception:  # noqa: BLE001 - the database may be what is down: drain anyway
            logger.warning("could not record the gateway's drain", exc_info=True)
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
        relay_stats = getattr(self.relay, "stats", None) or {}
        logger.info("gateway stopped; counters: %s", {**self.stats, **relay_stats})
