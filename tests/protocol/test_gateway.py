"""The gateway's contract with one bot stream: who may connect, with what, for how long."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.adapters.gateway import GatewayConfig
from arena.adapters.gateway.server import SERVICE
from arena.adapters.runner import HouseSeat, MatchStatus
from arena.services.bots import revoke_token, rotate_token
from tests.protocol.harness import Arena, finished, running_arena, wait_for

pytestmark = pytest.mark.processes

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"


def test_health_service_reports_serving(arena: Arena) -> None:
    with grpc.insecure_channel(arena.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for service in ("", SERVICE):
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_a_wrong_token_is_unauthenticated(arena: Arena) -> None:
    raw = arena.raw_bot("nobody", "plain", token="aat_not-a-real-token", wait=False)
    out = finished(raw)
    assert "status UNAUTHENTICATED: the bot token is not valid" in out
    assert "aat_not" not in out.split("status UNAUTHENTICATED")[1]
    assert "<< error invalid_token" in out
    # The SDK gives up at once instead of retrying a token that cannot work.
    sdk = arena.sdk_bot("ghost", RANDOM, token="aat_not-a-real-token", wait=False)
    assert "refused the bot (UNAUTHENTICATED)" in finished(sdk)
    assert sdk.proc.returncode == 2
    assert arena.stats()["refused_invalid_token"] == 2
    still_serving(arena)


def test_rotated_and_revoked_tokens_stop_working(arena: Arena) -> None:
    bot, old = arena.bot("rotor")
    new = rotate_token(bot)
    assert "UNAUTHENTICATED" in finished(arena.raw_bot("r1", "plain", token=old, wait=False))
    ok = arena.raw_bot("r2", "plain", token=new, wait=False)
    arena.wait_connected("rotor")
    ok.stop()
    wait_for(lambda: not arena.relay.is_connected(str(bot.pk)), 5, "the stream to close")
    revoke_token(bot)
    assert "UNAUTHENTICATED" in finished(arena.raw_bot("r3", "plain", token=new, wait=False))


def test_an_old_protocol_version_names_the_supported_range(arena: Arena) -> None:
    out = finished(arena.raw_bot("fossil", "old", wait=False))
    assert (
        "status FAILED_PRECONDITION: protocol version 0 is not supported: this arena speaks "
        "versions 1 to 1" in out
    )
    assert "<< error unsupported_protocol_version" in out
    still_serving(arena)


def still_serving(arena: Arena) -> None:
    """After a refusal the gateway still takes and serves other bots."""
    arena.sdk_bot("after", RANDOM)
    outcome = arena.play([arena.remote("after"), HouseSeat("random", 1)])
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults


def test_a_silent_stream_is_closed_and_a_live_one_is_kept(
    tmp_path: Path, transactional_db: None, redis_url: str
) -> None:
    config = GatewayConfig(heartbeat_s=0.2, heartbeat_timeout_s=0.8, shutdown_grace_s=1)
    with running_arena(tmp_path, config) as arena:
        arena.sdk_bot("alive", RANDOM)
        mute = arena.raw_bot("mute", "no_pong")
        out = finished(mute, timeout=10)
        assert "<< error heartbeat_timeout" in out and "status UNAVAILABLE" in out
        assert arena.relay.is_connected(arena.bot_id("alive"))
        assert not arena.relay.is_connected(arena.bot_id("mute"))
        assert arena.stats()["heartbeat_timeouts"] == 1


def test_a_flood_is_rate_limited_without_closing_the_stream(arena: Arena) -> None:
    flood = arena.raw_bot("flood", "flood")
    wait_for(lambda: "rate_limited" in flood.output(), 10, "a rate_limited error")
    assert arena.stats()["rate_limited"] > 0
    assert flood.proc.poll() is None and arena.relay.is_connected(arena.bot_id("flood"))
    # Answers to decisions are never rate limited: the bot still plays a whole match.
    outcome = arena.play([arena.remote("flood"), HouseSeat("random", 1)])
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults


def test_an_oversized_message_ends_only_that_stream(arena: Arena) -> None:
    arena.sdk_bot("small", RANDOM)
    out = finished(arena.raw_bot("big", "big", wait=False))
    assert "status RESOURCE_EXHAUSTED" in out
    outcome = arena.play([arena.remote("small"), HouseSeat("random", 1)])
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults


def test_the_newest_connection_of_a_bot_wins(arena: Arena) -> None:
    _, token = arena.bot("twin")
    first = arena.sdk_bot("twin-1", RANDOM, token=token, wait=False)
    arena.wait_connected("twin")
    time.sleep(0.2)
    second = arena.sdk_bot("twin-2", RANDOM, token=token, wait=False)
    out = finished(first)
    assert "another connection of this bot took over" in out and first.proc.returncode == 2
    assert second.proc.poll() is None
    outcome = arena.play([arena.remote("twin"), HouseSeat("random", 1)])
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    assert "match" in second.output() and "started" in second.output()


def test_the_sdk_reconnects_after_the_gateway_restarts(
    tmp_path: Path, transactional_db: None, redis_url: str
) -> None:
    with running_arena(tmp_path) as arena:
        bot = arena.sdk_bot("phoenix", RANDOM)
        port = arena.port
        arena.processes.remove(bot)  # it outlives this gateway
        arena.thread.stop()
        wait_for(lambda: "reconnecting in" in bot.output(), 10, "the SDK to notice")
    with running_arena(tmp_path, port=port) as again:
        again.processes.append(bot)
        again.wait_connected("phoenix", timeout=20)
        outcome = again.play([again.remote("phoenix"), HouseSeat("random", 1)])
        assert outcome.status == MatchStatus.FINISHED and not outcome.faults


def test_the_raw_test_bot_plays_by_the_rules_when_told_to(arena: Arena) -> None:
    arena.raw_bot("plainbot", "plain")
    outcome = arena.play([arena.remote("plainbot"), HouseSeat("greedy", 1)])
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
