"""Opening a stream: the bearer token, the Hello, and the Welcome that answers them.

A stream that fails any of it is ``Refused``: the gateway writes it an ``Error`` with the
code and aborts the call with the status, before the bot is attached to the relay.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import grpc

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway.config import GatewayConfig
from arena.adapters.gateway.limits import FailedAuthLimiter, peer_host
from arena.adapters.gateway.session import Oversized, Session
from arena.services.bots import BotIdentity
from avenue_sdk.protocol.convert import PROTOCOL_VERSION, SUPPORTED_VERSIONS


class Refused(Exception):
    """A stream turned away before it is attached: its status, error code and message."""

    def __init__(self, status: grpc.StatusCode, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


async def authenticate(
    context: grpc.aio.ServicerContext,
    limiter: FailedAuthLimiter,
    check: Callable[[str], Awaitable[BotIdentity | None]],
) -> tuple[BotIdentity, str]:
    """The bot a stream's bearer token names, and the token; ``Refused`` if none (each
    failure counts against the peer's address in ``limiter``)."""
    peer = peer_host(context.peer())
    now = asyncio.get_running_loop().time()
    wait = limiter.retry_after(peer, now)
    if wait > 0:
        raise Refused(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "too_many_failed_tokens",
            f"too many failed token attempts from {peer}: try again in {wait:.0f} s",
        )
    metadata = {k.lower(): v for k, v in (context.invocation_metadata() or ())}
    header = metadata.get("authorization", "")
    scheme, _, token = str(header).partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        limiter.failed(peer, now, "no bearer token")
        raise Refused(
            grpc.StatusCode.UNAUTHENTICATED,
            "missing_token",
            "no bot token: send the call metadata 'authorization: Bearer <token>'",
        )
    bot = await check(token.strip())
    if bot is None:
        # Never the token itself, not even in part: logs travel further than secrets.
        limiter.failed(peer, now, "unknown, rotated or revoked token")
        raise Refused(
            grpc.StatusCode.UNAUTHENTICATED,
            "invalid_token",
            "the bot token is not valid: it is unknown, was rotated or revoked, or its "
            "bot is deactivated",
        )
    return bot, token.strip()


async def read_hello(context: grpc.aio.ServicerContext, config: GatewayConfig) -> pb.Hello:
    """The stream's first message, which must be a Hello of a protocol version spoken here."""
    try:
        first = await asyncio.wait_for(context.read(), config.hello_timeout_s)
    except TimeoutError:
        raise Refused(
            grpc.StatusCode.DEADLINE_EXCEEDED,
            "hello_expected",
            f"no Hello within {config.hello_timeout_s:g} s of opening the stream",
        ) from None
    if isinstance(first, Oversized):
        raise Refused(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            "message_too_large",
            f"a first message of {first.size} bytes, over the limit of {config.max_message_bytes}",
        )
    if not isinstance(first, pb.BotMessage) or first.WhichOneof("kind") != "hello":
        raise Refused(
            grpc.StatusCode.INVALID_ARGUMENT,
            "hello_expected",
            "the first message of a stream must be a Hello",
        )
    version = first.hello.protocol_version
    if version not in SUPPORTED_VERSIONS:
        raise Refused(
            grpc.StatusCode.FAILED_PRECONDITION,
            "unsupported_protocol_version",
            f"protocol version {version} is not supported: this arena speaks versions "
            f"{SUPPORTED_VERSIONS.start} to {SUPPORTED_VERSIONS.stop - 1} "
            "(upgrade agent-avenue-sdk)",
        )
    return first.hello


def welcome(config: GatewayConfig, session: Session) -> bytes:
    """The serialized Welcome: who the bot is and the limits of this gateway."""
    c = config
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
