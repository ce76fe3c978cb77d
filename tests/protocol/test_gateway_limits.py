"""The gateway's transport: failed token attempts limited per peer address and logged
without the token; TLS with a certificate of the operator's (here a self-signed one)."""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.gateway.limits import FailedAuthLimiter, peer_host
from arena.adapters.gateway.tls import TlsError, tls_files
from arena.adapters.relay.redis import RedisRunnerRelay
from arena.adapters.runner import HouseSeat, MatchStatus, RemoteSeat, run_match
from referee import GameConfig
from tests.protocol.harness import (
    FAST,
    ROOT,
    Arena,
    clear_prefix,
    new_prefix,
    running_arena,
    wait_for,
)
from tests.protocol.test_distributed import django_env
from tests.reliability.protofuzz import RawChannel

RANDOM = "avenue_sdk.examples.random_bot:RandomBot"

HELLO = pb.BotMessage(hello=pb.Hello(protocol_version=1)).SerializeToString()
WRONG = [f"aat_wrong-guess-{i:04d}" for i in range(6)]


@pytest.fixture
def strict(tmp_path: Path, transactional_db: None, redis_url: str) -> Iterator[Arena]:
    """A gateway allowing a burst of 5 failed attempts, then 1 a minute."""
    config = replace(FAST, auth_failure_burst=5, auth_failures_per_minute=1)
    with running_arena(tmp_path, config) as a:
        yield a


@pytest.mark.processes
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


def self_signed(tmp: Path) -> tuple[Path, Path]:
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


@pytest.mark.processes
def test_the_gateway_serves_tls_to_the_sdk(arena: Arena, tmp_path: Path, settings: Any) -> None:
    """``rungateway --tls-cert/--tls-key`` with a self-signed certificate: the SDK with
    ``--tls --ca-cert`` plays a match through it; a plain-text stream gets nowhere."""
    if shutil.which("openssl") is None:
        pytest.fail("needs the openssl command to make a self-signed certificate")
    cert, key = self_signed(tmp_path)
    env = django_env(new_prefix())
    log = tmp_path / "gateway.log"
    with open(log, "w") as out:
        gateway = subprocess.Popen(
            [sys.executable, "manage.py", "rungateway", "--port", "0"]
            + ["--tls-cert", str(cert), "--tls-key", str(key)],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
        )
    relay = RedisRunnerRelay(str(settings.REDIS_URL), env["RELAY_PREFIX"])
    try:
        listening = r"gateway listening on [\d.]+:(\d+) \(TLS\)"
        wait_for(lambda: re.search(listening, log.read_text()) is not None, 30, "the gateway")
        port = int(re.search(listening, log.read_text()).group(1))  # type: ignore[union-attr]
        _, token = arena.bot("secure")
        argv = [sys.executable, "-m", "avenue_sdk", "run", RANDOM, "--arena"]
        argv += [f"localhost:{port}", "--token", token, "--tls", "--ca-cert", str(cert)]
        bot = arena._spawn("secure", argv, None, wait=False)
        bot_id = arena.bot_id("secure")
        wait_for(lambda: relay.is_connected(bot_id), 30, "the bot to connect over TLS")
        seats = [RemoteSeat(bot_id, "secure", relay), HouseSeat("random", 1)]
        outcome = run_match(seats, GameConfig.for_seats(2), 3, match_id="over-tls")
        assert outcome.status == MatchStatus.FINISHED and not outcome.faults
        assert "match over-tls started" in bot.output()

        plain = RawChannel(f"127.0.0.1:{port}")
        try:
            ex = plain.exchange([HELLO], token, timeout=30)
        finally:
            plain.close()
        assert ex.status is grpc.StatusCode.UNAVAILABLE and not ex.replies
    finally:
        gateway.kill()
        gateway.wait(30)
        relay.close()
        clear_prefix(env["RELAY_PREFIX"])


def test_tls_needs_both_files_and_says_so(tmp_path: Path) -> None:
    with pytest.raises(TlsError, match="needs both a certificate"):
        tls_files(tmp_path / "cert.pem", None)
    (tmp_path / "junk.pem").write_text("not a certificate")
    with pytest.raises(TlsError, match="is not a PEM file"):
        tls_files(tmp_path / "junk.pem", tmp_path / "junk.pem")
    with pytest.raises(TlsError, match="cannot read"):
        tls_files(tmp_path / "junk.pem", tmp_path / "missing.pem")
