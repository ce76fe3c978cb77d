"""One seeded game played in the local arena and through a real gateway: the bot is sent
the same DecisionRequest messages, byte for byte, and the game ends the same way.

Both sides write the SDK's transcript (the arena's client with ``run --transcript``, the
local arena with ``play --transcript``). The one field that cannot agree is
``previous_latency_ms``, a measured time; it is cleared on both sides before comparing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import text_format

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.runner import HouseSeat, MatchStatus, Seat, TimeControl
from avenue_sdk.local import game_seed
from referee import GameConfig
from referee.seeds import house_bot_seed
from tests.protocol.harness import ROOT, Arena, bot_env

pytestmark = pytest.mark.processes

HEURISTIC = "avenue_sdk.examples.heuristic_bot:HeuristicBot"


def transcript_requests(path: Path) -> list[bytes]:
    """The DecisionRequests a transcript says the bot received, serialized."""
    out: list[bytes] = []
    blocks = path.read_text().split("\n# ")
    for block in blocks:
        header, _, body = block.lstrip("# ").partition("\n")
        if "arena -> bot" not in header:
            continue
        message = text_format.Parse(body, pb.ArenaMessage())
        if message.WhichOneof("kind") == "decision_request":
            message.decision_request.ClearField("previous_latency_ms")
            out.append(message.SerializeToString())
    return out


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "mode"), [(2, "simple"), (4, "advanced")])
def test_local_and_arena_send_the_same_requests(
    arena: Arena, tmp_path: Path, seats: int, mode: str
) -> None:
    run_seed, index = 2026, 0  # game 0: the bot under test plays team A
    seed = game_seed(run_seed, index)
    config = GameConfig.for_seats(seats, mode)

    remote_log = tmp_path / "remote.txt"
    arena.sdk_bot("cmp", HEURISTIC, args=("--transcript", str(remote_log), "--max-matches", "2"))
    # the local arena's house opponents for game 0: one per seat, seeded as the arena's
    table: list[Seat] = [
        arena.remote("cmp")
        if config.team_of(s) == 0
        else HouseSeat("greedy", house_bot_seed(seed, s))
        for s in range(seats)
    ]
    outcome = arena.play(table, config, seed, match_id="cmp-1", time_control=TimeControl())
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults

    local_log = tmp_path / "local.txt"
    replays = tmp_path / "replays"
    played = subprocess.run(
        [
            sys.executable,
            "-m",
            "avenue_sdk",
            "play",
            HEURISTIC,
            "greedy",
            "--games",
            "1",
            "--seed",
            str(run_seed),
            "--seats",
            str(seats),
            "--mode",
            mode,
            "--match-prefix",
            "cmp-",
            "--transcript",
            str(local_log),
            "--replay-dir",
            str(replays),
            "--json",
            str(tmp_path / "summary.json"),
            "-q",
        ],
        cwd=ROOT,
        env=bot_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr

    local, remote = transcript_requests(local_log), transcript_requests(remote_log)
    assert len(remote) == sum(r.decisions for r in outcome.seats if r.kind == "remote")
    assert local and local == remote

    replay = json.loads((replays / "cmp-1.json").read_text())
    arena_replay = outcome.replay_json()
    strip = lambda ds: [{k: v for k, v in d.items() if k != "latency_ms"} for d in ds]  # noqa: E731
    assert strip(replay["decisions"]) == strip(arena_replay["decisions"])  # type: ignore[arg-type]
    assert replay["result"] == arena_replay["result"]
    assert replay["deck"] == arena_replay["deck"] and replay["seed"] == arena_replay["seed"]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert outcome.result is not None
    assert summary["wins"] == (1 if outcome.result.winner == 0 else 0)


@pytest.mark.parametrize("spec", ["avenue_sdk.house:GreedyBot", "search"])
def test_house_bots_run_on_an_arena_as_sdk_bots(arena: Arena, spec: str) -> None:
    """`python -m avenue_sdk run avenue_sdk.house:GreedyBot` (or just `run search`)."""
    arena.sdk_bot("sparring", spec)
    config = GameConfig.for_seats(2, "advanced")
    outcome = arena.play([arena.remote("sparring"), HouseSeat("random", 3)], config, seed=8)
    assert outcome.status == MatchStatus.FINISHED and not outcome.faults
    assert outcome.seats[0].decisions > 0
