"""``AvenueEnv``'s renders: the ansi text shows the seat's hand, the positions and the table,
the rgb image has a fixed shape and dtype, and both change as the game moves; names, infos
and seeding as a PettingZoo user expects them."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import render_test

from avenue_sdk import features, render
from avenue_sdk.env import AvenueEnv
from referee.cards import title
from referee.observation import observe


def _random_step(env: AvenueEnv, rng: np.random.Generator) -> None:
    observation, _, termination, truncation, _ = env.last()
    if termination or truncation:
        env.step(None)
    else:
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


@pytest.mark.parametrize(("seats", "mode"), [(2, "simple"), (4, "advanced")])
def test_ansi_shows_the_hand_the_positions_and_changes(seats: int, mode: str) -> None:
    env = AvenueEnv(seats=seats, mode=mode, render_mode="ansi")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    seen = set()
    for _ in range(40):
        if not env.agents:
            break
        text = env.render()
        assert isinstance(text, str) and len(text.splitlines()) >= 12
        state = env.state_
        assert state is not None
        seat = state.actor if state.actor >= 0 else 0
        obs = observe(state, seat)
        lines = text.splitlines()
        hand_line = next(line for line in lines if line.startswith(f"seat {seat}'s hand"))
        for agent in obs.hand_cards:
            assert title(agent) in hand_line
        assert f"meeple A on {state.pos[0]}, B on {state.pos[1]}" in text
        board = "\n".join(text.splitlines()[4:8])
        assert board.count("A") == 1 and board.count("B") == 1, "each meeple drawn once"
        if mode == "advanced":
            assert "Black Market:" in text and "$" in board
        seen.add(text)
        _random_step(env, rng)
    assert len(seen) > 10, "the picture follows the game"


def test_rgb_array_is_an_image_that_follows_the_game() -> None:
    env = AvenueEnv(seats=2, mode="advanced", render_mode="rgb_array")
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    images = []
    while env.agents:
        img = env.render()
        assert isinstance(img, np.ndarray)
        assert img.shape == (render.HEIGHT, render.WIDTH, 3) and img.dtype == np.uint8
        images.append(img)
        _random_step(env, rng)
    assert len({i.tobytes() for i in images}) > len(images) // 3
    assert not np.array_equal(images[0], images[-1])
    assert len(np.unique(images[0].reshape(-1, 3), axis=0)) > 5, "more than a blank"


def test_pettingzoo_render_test_and_the_human_mode(capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode: AvenueEnv(seats=2, mode="advanced", render_mode=render_mode))
    env = AvenueEnv(render_mode="human")
    env.reset(seed=1)
    capsys.readouterr()
    assert env.render() is None
    assert "meeple A on 0, B on 7" in capsys.readouterr().out


def test_render_seat_and_modes() -> None:
    assert AvenueEnv().render() is None  # no render mode
    with pytest.raises(ValueError, match="render_mode"):
        AvenueEnv(render_mode="svg")
    env = AvenueEnv(seats=2, render_mode="ansi", render_seat=1)
    env.reset(seed=1)
    text = env.render()
    assert isinstance(text, str) and "seat 1's hand" in text and "seat 0's hand" not in text


def test_infos_names_and_seeding() -> None:
    env = AvenueEnv(seats=4, mode="advanced")
    env.reset(seed=9)
    assert env.infos["seat_3"] == {"seat": 3, "team": 1}
    assert env.observation_names == features.observation_names()
    assert env.action_names[0] == "stop_discarding"

    def trace(env: AvenueEnv, seed: int | None) -> list[bytes]:
        env.reset(seed=seed)
        rng, out = np.random.default_rng(0), []
        while env.agents:
            out.append(env.observe(env.agent_selection)["observation"].tobytes())
            _random_step(env, rng)
        return out

    first = trace(env, 9)
    second = trace(env, None)  # the next deal, 10
    assert trace(AvenueEnv(seats=4, mode="advanced"), 9) == first
    assert trace(AvenueEnv(seats=4, mode="advanced"), 10) == second
    assert first != second
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for agent in env.agent_iter():
        _, reward, termination, _, info = env.last()
        if termination:
            assert info["seat"] == int(agent[-1]) and info["reason"]
            assert (info["winner_team"] == info["team"]) == (reward == 1.0)
        _random_step(env, rng)
