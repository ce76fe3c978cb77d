"""The PettingZoo environment: PettingZoo's own api_test for every mode and seat count, whole
games with the right rewards, and the same arrays for an SDK bot as for the environment."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import features
from avenue_sdk.env import AvenueEnv
from avenue_sdk.protocol import convert
from referee import GameConfig, apply, legal_actions, new_game
from referee.observation import observe

ROOT = Path(__file__).resolve().parents[2]
TABLES = [(seats, mode) for seats in (2, 3, 4) for mode in ("simple", "advanced")]
# api_test's advice for Box or Discrete observations; a dict with an action mask is the
# convention of PettingZoo's own board games, which get the same two warnings.
DICT_OBSERVATIONS = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]


@pytest.mark.parametrize(("seats", "mode"), TABLES)
@DICT_OBSERVATIONS[0]
@DICT_OBSERVATIONS[1]
def test_pettingzoo_api_test(seats: int, mode: str) -> None:
    api_test(AvenueEnv(seats=seats, mode=mode), num_cycles=300)


@DICT_OBSERVATIONS[0]
@DICT_OBSERVATIONS[1]
def test_summary_board_ruleset_passes_too() -> None:
    api_test(AvenueEnv(seats=2, mode="advanced", ruleset="summary-board"), num_cycles=300)


@pytest.mark.parametrize(("seats", "mode"), TABLES)
def test_random_agents_play_whole_games(seats: int, mode: str) -> None:
    env = AvenueEnv(seats=seats, mode=mode)
    rng = np.random.default_rng(1)
    for game in range(3):
        env.reset(seed=game)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        steps = 0
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            totals[agent] += reward
            if termination or truncation:
                action = None
            else:
                mask = observation["action_mask"]
                assert mask.sum() >= 1
                action = int(rng.choice(np.flatnonzero(mask)))
                steps += 1
            env.step(action)
        assert steps > 0 and not env.agents
        winners = {a for a, r in totals.items() if r == 1.0}
        losers = {a for a, r in totals.items() if r == -1.0}
        assert winners and losers and winners | losers == set(env.possible_agents)
        teams = {env.config.team_of(int(a.rpartition("_")[2])) for a in winners}
        assert len(teams) == 1, "the seats of one team win together"


def test_an_illegal_action_is_a_clear_error() -> None:
    env = AvenueEnv()
    env.reset(seed=3)
    observation = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not legal now"):
        env.step(illegal)


def test_an_sdk_bot_sees_the_arrays_the_environment_gives() -> None:
    rng = random.Random(2)
    config = GameConfig.for_seats(4, "advanced")
    state = new_game(config, 5)
    env = AvenueEnv(seats=4, mode="advanced")
    env.reset(seed=5)
    while state.decision is not None:
        legal = legal_actions(state)
        payload = convert.decision_request(
            match_id="m",
            seq=1,
            obs=observe(state, state.actor),
            first_team=state.active,
            legal=legal,
            history_start=0,
            decision_ms=1,
            bank_ms=0,
            previous_latency_ms=None,
        )
        vector, mask, to_request = features.request_features(
            pb.ArenaMessage.FromString(payload).decision_request
        )
        seen = env.observe(env.agent_selection)
        assert env.agent_selection == f"seat_{state.actor}"
        assert np.array_equal(seen["observation"], vector)
        assert np.array_equal(seen["action_mask"], mask)
        pick = rng.choice([int(i) for i in np.flatnonzero(mask)])
        assert legal[to_request[pick]] == features.ACTIONS[pick]
        state = apply(state, features.ACTIONS[pick])
        env.step(pick)


@pytest.mark.processes
def test_the_policy_example_plays_in_the_local_arena(tmp_path: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "avenue_sdk",
            "play",
            "avenue_sdk.examples.policy_bot:PolicyBot",
            "random",
            "--games",
            "6",
            "--seats",
            "4",
            "--mode",
            "advanced",
            "--seed",
            "3",
            "-q",
            "--json",
            str(tmp_path / "s.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["games"] == 6 and s["faults"] == []
