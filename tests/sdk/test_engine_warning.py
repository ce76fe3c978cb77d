"""A match under a ruleset version the local engine does not have: the SDK bot (a real
process, over a real gRPC stream) warns once, clearly, and keeps playing."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from agent_avenue.v1 import arena_pb2 as pb
from agent_avenue.v1 import arena_pb2_grpc
from avenue_sdk.protocol import convert
from referee import GameConfig, legal_actions, new_game
from referee.observation import observe

ROOT = Path(__file__).resolve().parents[2]


def _message(payload: bytes, version: int) -> pb.ArenaMessage:
    message = pb.ArenaMessage.FromString(payload)
    kind = message.WhichOneof("kind")
    config = (
        message.match_started.config
        if kind == "match_started"
        else message.decision_request.observation.config
    )
    config.ruleset_version = version
    return message


class _NewerArena(arena_pb2_grpc.BotArenaServicer):
    """Plays one match announced as ruleset "standard" version 99, two decisions long."""

    def __init__(self) -> None:
        self.answers: list[pb.Action] = []

    def Connect(  # noqa: N802 - named by the generated base class
        self, request_iterator: Iterator[pb.BotMessage], context: grpc.ServicerContext
    ) -> Iterator[pb.ArenaMessage]:
        assert next(request_iterator).WhichOneof("kind") == "hello"
        yield pb.ArenaMessage(welcome=pb.Welcome(bot_id="1", bot_name="probe"))
        config = GameConfig.for_seats(2)
        state = new_game(config, 3)
        started = convert.match_started(
            match_id="m1", seat=state.actor, config=config, first_team=state.active,
            names=("probe", "other"), decision_ms=5000, bank_ms=5000,
        )  # fmt: skip
        yield _message(started, 99)
        for seq in (1, 2):
            request = convert.decision_request(
                match_id="m1", seq=seq, obs=observe(state, state.actor), first_team=state.active,
                legal=legal_actions(state), history_start=0, decision_ms=5000, bank_ms=5000,
                previous_latency_ms=None,
            )  # fmt: skip
            yield _message(request, 99)
            for message in request_iterator:
                if message.WhichOneof("kind") == "action":
                    self.answers.append(message.action)
                    break


@pytest.mark.processes
def test_a_newer_ruleset_version_warns_once(tmp_path: Path) -> None:
    arena = _NewerArena()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    arena_pb2_grpc.add_BotArenaServicer_to_server(arena, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        out = subprocess.run(
            [sys.executable, "-m", "avenue_sdk", "run", "avenue_sdk.examples.random_bot:RandomBot",
             "--arena", f"127.0.0.1:{port}", "--token", "t", "--no-reconnect"],
            cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        server.stop(grace=None)
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stderr.splitlines() if "version 99" in line]
    assert len(warnings) == 1, out.stderr
    assert "WARNING" in warnings[0] and "local engine" in warnings[0]
    assert [a.seq for a in arena.answers] == [1, 2], "the bot keeps playing"
