"""The SDK distribution: grpc, protobuf and the engine only, and the generated protocol
really works."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest

import avenue_sdk
from agent_avenue.v1 import arena_pb2, arena_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]


def test_sdk_depends_on_grpc_protobuf_and_the_engine_only() -> None:
    meta = tomllib.loads((ROOT / "sdk" / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "agent-avenue-sdk"
    deps = meta["project"]["dependencies"]
    names = {dep.split(">")[0].split("<")[0].split("=")[0].split("@")[0].strip() for dep in deps}
    assert names == {"grpcio", "protobuf", "agent-avenue-engine"}
    # the engine comes from referee/ beside sdk/, never from an index
    assert "agent-avenue-engine @ {root:parent:uri}/referee" in deps
    assert set(meta["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"]) == {
        "avenue_sdk",
        "agent_avenue",
    }
    engine = tomllib.loads((ROOT / "referee" / "pyproject.toml").read_text())
    assert engine["project"]["name"] == "agent-avenue-engine"
    assert engine["project"]["dependencies"] == [], "the engine is standard library only"
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert not any(
        p.startswith("referee") for p in root["tool"]["setuptools"]["packages"]["find"]["include"]
    ), "the engine is packaged by its own distribution, not the server's"


def test_sdk_has_a_version() -> None:
    assert avenue_sdk.__version__.count(".") == 2


@pytest.mark.processes
def test_sdk_imports_without_django() -> None:
    code = (
        "import sys, avenue_sdk, avenue_sdk.local, avenue_sdk.sim, avenue_sdk.house, "
        "avenue_sdk.protocol.convert; from agent_avenue.v1 import arena_pb2_grpc; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'django', 'arena', 'leaderboard', 'workers', 'celery'}); "
        "assert not bad, bad"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


class _EchoArena(arena_pb2_grpc.BotArenaServicer):
    """Just enough of a server to prove the generated stubs talk over a real channel."""

    def Connect(  # noqa: N802 (name fixed by the generated base class)
        self, request_iterator: Iterator[arena_pb2.BotMessage], context: grpc.ServicerContext
    ) -> Iterator[arena_pb2.ArenaMessage]:
        for message in request_iterator:
            kind = message.WhichOneof("kind")
            if kind == "hello":
                yield arena_pb2.ArenaMessage(
                    welcome=arena_pb2.Welcome(bot_id="b1", bot_name=message.hello.bot_version)
                )
            elif kind == "ping":
                yield arena_pb2.ArenaMessage(pong=arena_pb2.Pong(nonce=message.ping.nonce))


@pytest.fixture
def arena_channel() -> Iterator[grpc.Channel]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    arena_pb2_grpc.add_BotArenaServicer_to_server(_EchoArena(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield channel
    finally:
        channel.close()
        server.stop(grace=None)


def test_generated_stubs_stream_over_a_real_channel(arena_channel: grpc.Channel) -> None:
    stub = arena_pb2_grpc.BotArenaStub(arena_channel)
    outgoing = [
        arena_pb2.BotMessage(
            hello=arena_pb2.Hello(protocol_version=1, bot_version="v7", max_concurrent_matches=2)
        ),
        arena_pb2.BotMessage(ping=arena_pb2.Ping(nonce=42)),
    ]
    replies = list(stub.Connect(iter(outgoing), timeout=10))
    assert [r.WhichOneof("kind") for r in replies] == ["welcome", "pong"]
    assert replies[0].welcome.bot_name == "v7"
    assert replies[1].pong.nonce == 42
