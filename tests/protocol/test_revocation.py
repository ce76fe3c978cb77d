"""Revoking or rotating a token ends the bot's open streams on every gateway: two
``manage.py rungateway`` processes over one Redis, a real SDK bot on each; and the
in-process relay of embedded mode."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.adapters.gateway import (
    DatabaseAuthenticator,
    Gateway,
    GatewayThread,
    StaticAuthenticator,
)
from arena.adapters.relay import InProcessRelay, shared_relay
from arena.adapters.relay.redis import Keys, RedisGatewayRelay, RedisRunnerRelay, _pack
from arena.adapters.relay.revocation import announce_revoked
from arena.models import Bot
from arena.services.bots import BotIdentity, revoke_token, rotate_token
from tests.protocol.harness import FAST, Arena, clear_prefix, finished, new_prefix, wait_for
from tests.protocol.test_distributed import cluster, sdk_at  # noqa: F401 - the fixture
from tests.protocol.test_relay import LoopThread, Sink

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"


@pytest.mark.processes
def test_revoking_or_rotating_ends_the_streams_on_every_gateway(
    cluster,  # type: ignore[no-untyped-def]  # noqa: F811
    settings: Any,  # pytest-django's settings fixture
) -> None:
    arena, env, (g1, g2) = cluster
    settings.RELAY_PREFIX = env["RELAY_PREFIX"]  # where this process announces revocations
    relay = RedisRunnerRelay(str(settings.REDIS_URL), env["RELAY_PREFIX"])
    tokens = {name: arena.bot(name)[1] for name in ("revoked", "rotated", "bystander")}
    procs = {
        "revoked": sdk_at(arena, g1, "revoked", RANDOM, tokens["revoked"]),
        "rotated": sdk_at(arena, g2, "rotated", RANDOM, tokens["rotated"]),
        "bystander": sdk_at(arena, g1, "bystander", RANDOM, tokens["bystander"]),
    }
    ids = {name: arena.bot_id(name) for name in procs}
    wait_for(lambda: all(relay.is_connected(i) for i in ids.values()), 30, "bots to connect")

    took = {}
    for name, change in (("revoked", revoke_token), ("rotated", rotate_token)):
        started = time.monotonic()
        result = change(Bot.objects.get(name=name))
        if name == "rotated":
            tokens["rotated-new"] = str(result)
        gone = functools.partial(lambda i: not relay.is_connected(i), ids[name])
        wait_for(gone, 30, f"{name}'s stream to end")
        took[name] = time.monotonic() - started
        out = finished(procs[name], 30)
        # The SDK gives up: the old token cannot work again.
        assert procs[name].proc.returncode == 2, out
        assert "arena error token_revoked" in out and "refused the bot (UNAUTHENTICATED)" in out
    print("stream ended after:", {k: f"{v * 1000:.0f} ms" for k, v in took.items()})

    assert relay.is_connected(ids["bystander"]) and procs["bystander"].proc.poll() is None
    # The rotated bot comes back with its new token, on the other gateway.
    sdk_at(arena, g1, "rotated-again", RANDOM, tokens["rotated-new"])
    wait_for(lambda: relay.is_connected(ids["rotated"]), 30, "the new token to connect")
    relay.close()


def test_a_notice_ends_only_the_streams_opened_before_it(settings: Any) -> None:
    settings.RELAY_PREFIX = prefix = new_prefix()
    loop, url = LoopThread(), str(settings.REDIS_URL)
    g1, g2 = RedisGatewayRelay(url, prefix), RedisGatewayRelay(url, prefix)
    try:
        for g in (g1, g2):
            loop.run(g.start())
        old, other = Sink(), Sink()
        loop.run(g1.attach("7", old, 1))
        loop.run(g2.attach("8", other, 1))
        announce_revoked("7", "revoked")
        wait_for(lambda: old.revoked == ["revoked"], 30, "the notice")
        # A later stream of bot 7 (a new token) is not ended by the same notice again.
        new = Sink()
        loop.run(g2.attach("7", new, 1))
        client = redis.Redis.from_url(url)
        client.publish(Keys(prefix).bot("7"), _pack({"t": "r", "c": 1, "d": "late"}))
        client.close()
        announce_revoked("8", "also revoked")
        wait_for(lambda: other.revoked == ["also revoked"], 30, "the second notice")
        assert new.revoked == []
    finally:
        for g in (g1, g2):
            loop.run(g.stop())
        loop.close()
        clear_prefix(prefix)


@pytest.fixture
def local_gateway(transactional_db: None) -> Iterator[GatewayThread]:
    thread = GatewayThread(Gateway(FAST, shared_relay(), DatabaseAuthenticator()))
    thread.start(30)
    yield thread
    thread.stop()


@pytest.mark.processes
def test_revocation_ends_the_stream_in_embedded_mode(
    local_gateway: GatewayThread, tmp_path: Path
) -> None:
    relay = shared_relay()
    arena = Arena(local_gateway.port, "", local_gateway.gateway, local_gateway, relay, tmp_path)
    try:
        bot, token = arena.bot("embedded")
        proc = arena.sdk_bot("embedded", RANDOM, token=token)
        revoke_token(bot)
        out = finished(proc, 30)
        assert proc.proc.returncode == 2 and "token_revoked" in out
        assert not relay.is_connected(str(bot.pk))
    finally:
        for p in arena.processes:
            p.stop()


@pytest.mark.processes
def test_a_lost_notice_is_caught_by_the_gateways_own_recheck(
    transactional_db: None, tmp_path: Path
) -> None:
    """A gateway on a relay of its own, which no revocation notice reaches (as when Redis
    was down at that moment): its periodic token check still ends the stream."""
    relay = InProcessRelay()
    thread = GatewayThread(
        Gateway(replace(FAST, token_recheck_s=0.5), relay, DatabaseAuthenticator())
    )
    port = thread.start(30)
    arena = Arena(port, "", thread.gateway, thread, relay, tmp_path)
    try:
        bot, token = arena.bot("unnoticed")
        proc = arena.sdk_bot("unnoticed", RANDOM, token=token)
        # welcomed: past the check made when the stream attaches
        wait_for(lambda: "connected as unnoticed" in proc.output(), 30, "the Welcome")
        revoke_token(bot)
        out = finished(proc, 30)
        assert proc.proc.returncode == 2 and "token_revoked" in out
        assert "the bot's token was rotated or revoked" in out
        assert thread.call(lambda: thread.gateway.recheck.ended) == 1
    finally:
        for p in arena.processes:
            p.stop()
        thread.stop()


class RevokedWhileAttaching(StaticAuthenticator):
    """The token is good at the first check and gone at the second: a revocation that
    lands between the gateway's token check and its relay attaching the stream."""

    def __init__(self, token: str, bot: BotIdentity) -> None:
        super().__init__({token: bot})
        self.checks = 0

    def authenticate(self, token: str) -> BotIdentity | None:
        self.checks += 1
        return super().authenticate(token) if self.checks == 1 else None


@pytest.mark.processes
def test_a_revocation_while_the_stream_attaches_still_ends_it(tmp_path: Path) -> None:
    relay = InProcessRelay()
    auth = RevokedWhileAttaching("aat_racing", BotIdentity("901", "racer"))
    thread = GatewayThread(Gateway(FAST, relay, auth))
    port = thread.start(30)
    arena = Arena(port, "", thread.gateway, thread, relay, tmp_path)
    try:
        out = finished(arena.raw_bot("racer", "plain", token="aat_racing", wait=False), 30)
        assert "<< error token_revoked" in out and "UNAUTHENTICATED" in out
        assert auth.checks == 2
    finally:
        for p in arena.processes:
            p.stop()
        thread.stop()
