"""A PettingZoo AEC environment of Agent Avenue (``pip install ./sdk[rl]``).

    from avenue_sdk.env import AvenueEnv

    env = AvenueEnv(seats=2, mode="simple")
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)  # a random legal action
        env.step(action)

Agents are ``seat_0`` .. ``seat_{n-1}``; one acts at a time (the referee's seat to move).
Each observation is ``{"observation": float32[OBSERVATION_SIZE], "action_mask":
int8[N_ACTIONS]}`` from the agent's own view (``avenue_sdk.features``); actions index the
fixed list ``features.ACTIONS``. At the end every seat of the winning team gets +1 and every
seat of the other -1. Decisions with one legal option are asked like any other.

Names: ``env.observation_names[i]`` names float ``i`` of an observation ("hand.SENTINEL",
"position.mine", ...), ``env.action_names[j]`` action index ``j`` ("play.ENFORCER.MOLE"),
``env.observation_fields`` the blocks (``features.OBSERVATION_FIELDS``); each agent's
``info`` holds ``seat``, ``team`` (0 = A, 1 = B) and, at the end, the winner and the reason.

Seeding: ``reset(seed=s)`` deals game ``s``; each later ``reset()`` without a seed deals
``s + 1``, ``s + 2``, ... so a run repeats from its first seed (without any, one is drawn).

Rendering: ``render_mode="ansi"`` makes ``render()`` return a multi-line text of the table,
``"rgb_array"`` an ``HxWx3`` uint8 image (``avenue_sdk.render``), ``"human"`` prints the
text (and returns None); each from the view of ``render_seat`` (default None: the seat to
act, seat 0 once the game is over), so that it shows that seat's hand and no other.

Seats, teams and agents are numbered from 0 here; the protocol's enums from 1 (see
``avenue_sdk.features`` and sdk/README.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from avenue_sdk import features, render
from referee import GameConfig, State, apply, legal_actions, new_game, result
from referee.observation import observe


class AvenueEnv(AECEnv):  # type: ignore[misc]
    RENDER_MODES = ("ansi", "rgb_array", "human")
    metadata = {
        "name": "agent_avenue_v0",
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
    }
    observation_names = features.observation_names()
    action_names = features.action_names()
    observation_fields = features.OBSERVATION_FIELDS

    def __init__(
        self,
        seats: int = 2,
        mode: str = "simple",
        ruleset: str = "standard",
        render_mode: str | None = None,
        render_seat: int | None = None,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.RENDER_MODES:
            raise ValueError(
                f"render_mode {render_mode!r}: use one of {', '.join(self.RENDER_MODES)}"
            )
        self.config = GameConfig.for_seats(seats, mode, ruleset=ruleset)
        self.possible_agents = [f"seat_{s}" for s in range(seats)]
        self.render_mode = render_mode
        self.render_seat = render_seat
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    -np.inf, np.inf, (features.OBSERVATION_SIZE,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, (features.N_ACTIONS,), dtype=np.int8),
            }
        )
        self._act_space = spaces.Discrete(features.N_ACTIONS)
        self._seed: int | None = None
        self.state_: State | None = None

    def observation_space(self, agent: str) -> spaces.Space:  # type: ignore[type-arg]
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:  # type: ignore[type-arg]
        return self._act_space

    def _seat(self, agent: str) -> int:
        return int(agent.rpartition("_")[2])

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed = seed
        elif self._seed is None:
            self._seed = int(np.random.SeedSequence().generate_state(1)[0])
        else:
            self._seed += 1
        self.state_ = new_game(self.config, self._seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: self._info(a) for a in self.agents}
        self.agent_selection = self.possible_agents[self.state_.actor]

    def _info(self, agent: str) -> dict[str, Any]:
        seat = self._seat(agent)
        return {"seat": seat, "team": self.config.team_of(seat)}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.state_ is not None
        seat = self._seat(agent)
        obs = observe(self.state_, seat)
        mask = np.zeros(features.N_ACTIONS, dtype=np.int8)
        if self.state_.decision is not None and self.state_.actor == seat:
            mask = features.action_mask(legal_actions(self.state_))
        return {"observation": features.observation_vector(obs), "action_mask": mask}

    def step(self, action: int | None) -> None:
        assert self.state_ is not None
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = legal_actions(self.state_)
        if action is None or not 0 <= int(action) < features.N_ACTIONS:
            raise ValueError(f"{agent}: action {action!r} is not in 0..{features.N_ACTIONS - 1}")
        chosen = features.ACTIONS[int(action)]
        if chosen not in legal:
            raise ValueError(f"{agent}: {chosen.describe()!r} is not legal now (see the mask)")
        self._cumulative_rewards[agent] = 0.0
        self.state_ = apply(self.state_, chosen)
        self.rewards = {a: 0.0 for a in self.agents}
        final = result(self.state_)
        if final is not None:
            for a in self.agents:
                won = self.config.team_of(self._seat(a)) == final.winner
                self.rewards[a] = 1.0 if won else -1.0
                self.terminations[a] = True
                self.infos[a] = {
                    **self._info(a),
                    "winner_team": final.winner,
                    "reason": final.reason.value,
                }
        else:
            self.agent_selection = self.possible_agents[self.state_.actor]
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        """The table from ``render_seat``'s view: text (``"ansi"``) or an image
        (``"rgb_array"``); None without a render mode or before ``reset``."""
        if self.render_mode is None or self.state_ is None:
            return None
        seat = self.render_seat
        if seat is None:
            seat = self.state_.actor if self.state_.actor >= 0 else 0
        obs = observe(self.state_, seat)
        if self.render_mode == "rgb_array":
            return render.rgb(obs)
        text = render.ansi(obs)
        if self.render_mode == "human":  # PettingZoo's convention: print, return nothing
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
