"""``--seed`` means one thing everywhere: game ``i`` of ``python -m avenue_sdk play A B
--seed S`` is game ``i`` of ``manage.py playmatch`` with the same bots in the same seats and
``--seed S``, house bots included (issue 28: greedy recruited face down locally and face up
on the arena, its randomness seeded differently on the two paths).

Both commands run as their users run them (the SDK's ``main``, Django's ``call_command``)
and write replays; the replays must agree in everything but the measured latencies: the
deal, the first team, every decision (seat, kind, action) and the result. A replay is the
whole transcript: every request a seat was sent is its observation of the state those
decisions reach (``referee.observe``), so equal replays are equal requests, which the test
also checks decision by decision."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from avenue_sdk import cli
from referee import GameConfig, apply, legal_actions
from referee.observation import observe
from referee.replay import loads, validate
from referee.seeds import game_seed

pytestmark = pytest.mark.django_db

RUN_SEED = 2026


def _decisions(path: Path) -> dict[str, Any]:
    record = json.loads(path.read_text())
    for decision in record["decisions"]:
        decision.pop("latency_ms", None)
    return record


def _requests(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """Every decision put to a seat, as (seat, its observation, the legal actions)."""
    record = loads(path.read_text())
    validate(record)
    state = record.initial_state()
    out = []
    for decision in record.decisions:
        legal = legal_actions(state)
        out.append((decision.seat, repr(observe(state, decision.seat)), tuple(map(repr, legal))))
        state = apply(state, decision.action)
    return out


def _local(tmp: Path, bot: str, opponent: str, seats: int, mode: str, games: int) -> Path:
    out = tmp / "local"
    argv = ["play", bot, opponent, "--games", str(games), "--seed", str(RUN_SEED), "-q"]
    argv += ["--seats", str(seats), "--mode", mode, "--replay-dir", str(out)]
    assert cli.main(argv) == 0
    return out


def _arena(tmp: Path, table: list[str], mode: str, games: int, name: str) -> dict[int, Path]:
    """playmatch's replays by deal (its file names are random match ids)."""
    out = tmp / name
    call_command(
        "playmatch", *table, "--mode", mode, "--games", str(games), "--seed", str(RUN_SEED),
        "--replay-dir", str(out),
    )  # fmt: skip
    return {json.loads(p.read_text())["seed"]: p for p in out.glob("*.json")}


@pytest.mark.parametrize(
    ("seats", "mode", "bot", "opponent"),
    [
        (2, "simple", "greedy", "random"),
        (2, "advanced", "search:20", "greedy"),
        (3, "advanced", "greedy", "random"),
        (4, "advanced", "random", "greedy"),
        (4, "simple", "greedy", "search:20"),
    ],
)
def test_one_seed_one_game_locally_and_on_the_arena(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    seats: int,
    mode: str,
    bot: str,
    opponent: str,
) -> None:
    games = 2  # game 0: the bot under test on team A, game 1: on team B
    local = _local(tmp_path, bot, opponent, seats, mode, games)
    config = GameConfig.for_seats(seats, mode)
    layouts = {
        team: [bot if config.team_of(s) == team else opponent for s in range(seats)]
        for team in (0, 1)
    }
    arena = {team: _arena(tmp_path, layouts[team], mode, games, f"arena{team}") for team in (0, 1)}
    capsys.readouterr()
    for index in range(games):
        deal = game_seed(RUN_SEED, index)
        local_replay = local / f"local-{index + 1}.json"
        arena_replay = arena[index % 2][deal]  # game i of playmatch is dealt game_seed(S, i)
        assert _decisions(local_replay)["seed"] == deal
        assert _decisions(local_replay) == _decisions(arena_replay), f"game {index} diverged"
        assert _requests(local_replay) == _requests(arena_replay)
        assert len(_requests(local_replay)) > 5
