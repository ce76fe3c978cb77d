"""House bots (deterministic, observation-only) and the local command line."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from referee import GameConfig, apply, legal_actions, new_game
from referee.bots import GreedyBot, RandomBot, SearchBot, make_bot
from referee.bots.determinize import determinize, unseen_agents
from referee.cli import main, wilson
from referee.observation import observe
from referee.play import play_game, play_pairs
from tests.referee.hidden import perturb


@pytest.mark.parametrize("name", ["random", "greedy", "search:30"])
def test_bots_are_deterministic_under_a_seed(name: str) -> None:
    config = GameConfig.for_seats(2, "advanced")
    runs = [play_game(config, 5, [make_bot(name, 1), make_bot(name, 2)]).record for _ in range(2)]
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    "bot_cls", [GreedyBot, RandomBot, lambda seed: SearchBot(seed, playouts=20)]
)
def test_bots_decide_from_the_observation_only(bot_cls) -> None:  # type: ignore[no-untyped-def]
    """Redealing the cards a seat cannot see never changes the bot's choice."""
    rng = random.Random(3)
    for mode, seats in (("simple", 2), ("advanced", 4)):
        state = new_game(GameConfig.for_seats(seats, mode), seed=11)
        for _ in range(30):
            if state.over:
                break
            legal = legal_actions(state)
            seat = state.actor
            choice = bot_cls(7).act(observe(state, seat), legal)
            other = perturb(state, seat, rng)
            assert bot_cls(7).act(observe(other, seat), legal_actions(other)) == choice
            state = apply(state, rng.choice(legal))


def test_determinize_keeps_every_visible_count() -> None:
    rng = random.Random(1)
    state = new_game(GameConfig.for_seats(3, "advanced"), seed=2)
    for _ in range(40):
        if state.over:
            break
        obs = observe(state, state.actor)
        world = determinize(obs, rng)
        assert world.hands[state.actor] == state.hands[state.actor]
        assert [sum(h) for h in world.hands] == [sum(h) for h in state.hands]
        assert len(world.deck) == len(state.deck) and world.in_play == state.in_play
        assert sorted(world.bm_deck) == sorted(state.bm_deck)
        assert observe(world, state.actor).hand == obs.hand
        assert len(unseen_agents(obs)) == len(state.deck) + sum(
            sum(state.hands[s]) + sum(state.discards[s])
            for s in range(state.config.seats)
            if s != state.actor
        ) + (state.offer_down is not None and state.face_down_seat() != state.actor)
        state = apply(state, rng.choice(legal_actions(state)))


def test_mirrored_pairs_share_decks_and_swap_teams() -> None:
    stats = play_pairs(("greedy", "random"), range(20), seed=3)
    assert stats.games == 40 and sum(stats.wins) == 40
    assert stats.wins[0] > stats.wins[1]  # greedy beats random (83% over 2,000 games)
    assert stats.team_wins[(0, 0)] + stats.team_wins[(0, 1)] == stats.wins[0]


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(10, 10)[1] == 1.0


def test_cli_play_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "-n", "10", "-q", "--a", "greedy", "--b", "random", "--seats", "4"]) == 0
    out = capsys.readouterr().out
    assert "10 games (5 mirrored pairs), simple mode, 4 seats" in out
    assert "95% CI" in out and "end reasons:" in out and "games/s" in out


def test_cli_show_and_validate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.json"
    assert main(["show", "--mode", "advanced", "--seed", "2", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "team A's turn" in out and "result: team" in out
    assert main(["validate", str(path)]) == 0
    assert "ok," in capsys.readouterr().out
    data = json.loads(path.read_text())
    data["result"]["winner"] = 1 - data["result"]["winner"]
    path.write_text(json.dumps(data))
    assert main(["validate", str(path)]) == 1
    assert "INVALID: the record claims" in capsys.readouterr().out


def test_cli_reports_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--a", "nonsense", "-n", "2"]) == 2
    assert "unknown bot 'nonsense'" in capsys.readouterr().err
    assert main(["play", "--ruleset", "house", "-n", "2", "-q"]) == 2
    assert "unknown ruleset 'house'" in capsys.readouterr().err
    assert main(["validate", "/nonexistent/replay.json"]) == 1
