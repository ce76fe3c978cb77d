"""What a bot sends on its stream, once attached: actions for the runners, pings,
and what is wrong (unreadable, unsolicited, over the size or rate limit)."""

from __future__ import annotations

import asyncio
from collections import Counter

import grpc

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway import notices, seatfaults
from arena.adapters.gateway.config import GatewayConfig
from arena.adapters.gateway.session import Oversized, Session, Unreadable, error_message
from arena.adapters.relay.base import GatewayRelay, Inbound, InboundKind


class BotMessages:
    """Reads each session's stream and hands the runners what they wait for."""

    def __init__(self, config: GatewayConfig, relay: GatewayRelay, stats: Counter[str]) -> None:
        self.config = config
        self.relay = relay
        self.stats = stats

    async def read(self, session: Session, context: grpc.aio.ServicerContext) -> None:
        """Until the stream ends or breaks (which closes the session)."""
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
            if latency is not None and action.arena_wait_us and session.bot.hosted:
                # the bot host's own wait for the sandbox to start: the arena's, not the bot's
                latency = max(0.0, latency - action.arena_wait_us / 1000)
                self.stats["arena_waits_credited"] += 1
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
        if isinstance(message, pb.BotMessage) and kind == "host_failure":
            notice = seatfaults.host_failed(session, message.host_failure)
            if notice is not None:
                self.stats["host_failures"] += 1
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
        elif kind == "host_failure":
            self.stats["host_failures_refused"] += 1
            session.send(seatfaults.host_refusal(session, message.host_failure))

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
        text, notice = notices.too_large(session, message, self.config.max_message_bytes)
        reason = f"message_too_large: {text}"
        if notice is not None:
            # its Error, naming the match and the decision, is queued: one is enough
            await self.relay.send_inbound(notice)
            session.close(grpc.StatusCode.RESOURCE_EXHAUSTED, reason)
        else:
            session.close(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, "message_too_large", text)
