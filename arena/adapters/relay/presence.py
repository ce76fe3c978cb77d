"""Gateways announce that they are alive, so that a runner can tell a bot that left from a
gateway that died.

Every Redis gateway keeps ``{p}:gw:{gateway_id}`` alive: set with a TTL of
``GATEWAY_TTL`` seconds, renewed every ``BEAT`` seconds, deleted when it stops cleanly. A
gateway killed outright leaves its bots' presence entries behind (nobody detached them)
while their channels lose their subscriber at once; once its key has expired, a runner
that finds such a bot unreachable knows that the arena lost it (``Reach.gateway_lost``):
its clock does not run, and if it does not come back the match is voided, never charged
to the bot. A gateway that is shut down (SIGTERM) says so itself: the disconnect notices
it sends its bots' matches carry ``arena=True``.
"""

from __future__ import annotations

import asyncio
import logging

import redis
import redis.asyncio as aioredis

logger = logging.getLogger(__name__)

#: seconds a gateway's key outlives its last beat
GATEWAY_TTL = 5
#: seconds between two beats
BEAT = 1.0
#: a gateway whose last beat is older than this has stopped running (SIGSTOP, a frozen
#: machine): a runner waits for it rather than charge its bots (``gateway_paused``)
STALL_S = 2.0


def gateway_key(prefix: str, gateway_id: str) -> str:
    return f"{prefix}:gw:{gateway_id}"


class Beacon:
    """Keeps one gateway's key alive while the gateway runs (a task on its loop)."""

    def __init__(self, client: aioredis.Redis, key: str) -> None:
        self._client = client
        self.key = key
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self._beat()
        self._task = asyncio.create_task(self._run(), name="gateway-beacon")

    async def _beat(self) -> None:
        await self._client.set(self.key, "1", ex=GATEWAY_TTL)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(BEAT)
            try:
                await self._beat()
            except (redis.RedisError, OSError) as exc:
                # Redis down: runners cannot reach anyone either (they void their matches);
                # beat again when it is back
                logger.warning("gateway beacon: cannot reach Redis (%s)", exc)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
        try:
            await self._client.delete(self.key)
        except (redis.RedisError, OSError):
            logger.warning("gateway beacon: could not delete %s", self.key)
