"""Failed token attempts at the gateway are limited per peer address and logged without
the token; TLS with a certificate of the operator's."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import grpc
import pytest

from agent_avenue.v1 import arena_pb2 as pb
from arena.gateway.limits import FailedAuthLimiter, peer_host
from tests.protocol.harness import FAST, Arena, running_arena
from tests.reliability.protofuzz import RawChannel

HELLO = pb.BotMessage(hello=pb.Hello(protocol_version=1)).SerializeToString()
WRONG = [f"aat_wrong-guess-{i:04d}" for i in range(6)]


@pytest.fixture
def strict(tmp_path: Path, transactional_db: None, redis_url: str) -> Iterator[Arena]:
    """A gateway allowing a burst of 5 failed attempts, then 1 a minute."""
    config = replace(FAST, auth_failure_burst=5, auth_failures_per_minute=1)
    with running_arena(tmp_path, config) as a:
        yield a


def test_wrong_tokens_from_one_peer_are_limited_and_never_logged(
    strict: Arena, caplog: pytest.LogCaptureFixture
) -> None:
    _, token = strict.bot("honest")
    raw = RawChannel(strict.address)
    caplog.set_level(logging.INFO)
    try:
        for guess in WRONG[:5]:
            ex = raw.exchange([HELLO], guess)
            assert ex.status is grpc.StatusCode.UNAUTHENTICATED, ex.details
            assert ex.errors() == ["invalid_token"]
        # The bucket is empty: refused before the token is looked at, even a good one
        # (else a guesser would learn which of its guesses was right).
        for guess in (WRONG[5], token):
            ex = raw.exchange([HELLO], guess)
            assert ex.status is grpc.StatusCode.RESOURCE_EXHAUSTED, ex.details
            assert ex.errors() == ["too_many_failed_tokens"]
            assert "too many failed token attempts from ipv4:127.0.0.1: try again in" in (
                ex.details
            )
    finally:
        raw.close()
    stats = strict.stats()
    assert stats["refused_invalid_token"] == 5 and stats["refused_too_many_failed_tokens"] == 2
    logged = caplog.text
    assert "refused a bot stream from ipv4:127.0.0.1: unknown, rotated or revoked token" in logged
    assert "refusing token attempts from ipv4:127.0.0.1 for now: 5 failed attempts" in logged
    for secret in [*WRONG, token]:
        assert secret not in logged and secret[:10] not in logged.replace("aat_wrong-", "")


def test_the_bucket_refills_and_peers_are_counted_apart() -> None:
    limiter = FailedAuthLimiter(per_minute=60, burst=2)
    for _ in range(2):
        limiter.failed("ipv4:10.0.0.1", 0.0, "wrong")
    assert limiter.retry_after("ipv4:10.0.0.1", 0.0) == pytest.approx(1.0)
    assert limiter.retry_after("ipv4:10.0.0.2", 0.0) == 0.0
    assert limiter.retry_after("ipv4:10.0.0.1", 1.0) == 0.0  # one a second at 60/min


@pytest.mark.parametrize(
    ("peer", "host"),
    [
        ("ipv4:127.0.0.1:53422", "ipv4:127.0.0.1"),
        ("ipv6:[::1]:40000", "ipv6:[::1]"),
        ("unix:/tmp/gw.sock", "unix:/tmp/gw.sock"),
        ("", "unknown"),
    ],
)
def test_peers_are_keyed_by_host(peer: str, host: str) -> None:
    assert peer_host(peer) == host
