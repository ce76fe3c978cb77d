"""The gateway's own check of open streams' tokens, every ``token_recheck_s``.

A rotated or revoked token's streams are normally ended at once by the relay's notice
(``arena.adapters.relay.revocation``). That notice can be lost (Redis unreachable at that moment,
a gateway resubscribing); this check bounds how long such a stream lives on. Streams the
check cannot verify (the database unreachable) stay open: the arena's trouble is never
charged to a bot.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import grpc

from arena.adapters.gateway.session import Session
from arena.services.bots import BotIdentity

logger = logging.getLogger(__name__)


class TokenRecheck:
    def __init__(
        self, interval_s: float, authenticate: Callable[[str], Awaitable[BotIdentity | None]]
    ) -> None:
        self.interval_s = interval_s
        self._authenticate = authenticate
        self._tokens: dict[Session, str] = {}
        self._task: asyncio.Task[None] | None = None
        self.ended = 0

    def track(self, session: Session, token: str) -> None:
        self._tokens[session] = token

    def forget(self, session: Session) -> None:
        self._tokens.pop(session, None)

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="token-recheck")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.check_all()

    async def check_all(self) -> None:
        for session, token in list(self._tokens.items()):
            if session.closing is not None:
                continue
            try:
                bot = await self._authenticate(token)
            except Exception:  # noqa: BLE001 - the database's trouble is not the bot's
                logger.warning("could not recheck the token of bot %s", session.bot.name)
                continue
            if bot is None:
                self.ended += 1
                session.close(
                    grpc.StatusCode.UNAUTHENTICATED,
                    "the bot's token was rotated or revoked",
                    "token_revoked",
                )
