"""Train a policy for Agent Avenue with REINFORCE, NumPy only, and play it as an SDK bot.

CleanRL-style: one file, the hyperparameters in ``Args`` at the top, no framework. A small
MLP (``OBSERVATION_SIZE`` -> ``hidden`` -> ``N_ACTIONS``, tanh) gives one logit per index of
``features.ACTIONS``; illegal actions are masked out before the softmax. The learner takes
every seat of one team (drawn per game) in ``avenue_sdk.env.AvenueEnv``; the other team is
the house random bot (uniform over the legal actions, as ``referee.bots.RandomBot``). The
reward is the env's: +1 for a win, -1 for a loss, at the end, undiscounted; the baseline is
the batch's mean return; Adam; an entropy bonus keeps exploring.

    python -m avenue_sdk.examples.train_rl --out policy.npz      # --help: every Args field
    AVENUE_RL_WEIGHTS=policy.npz python -m avenue_sdk play \\
        avenue_sdk.examples.train_rl:TrainedBot random --games 1000 --seed 1

Without ``AVENUE_RL_WEIGHTS`` the bot loads ``train_rl_weights.npz`` beside this file (a
policy trained with the defaults: 2 seats, simple mode). ``--seed`` makes a run repeat
exactly when it is bounded by ``--games`` rather than by ``--seconds``.
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import Bot
from avenue_sdk.env import AvenueEnv
from avenue_sdk.features import N_ACTIONS, OBSERVATION_SIZE, request_features
from avenue_sdk.local.stats import wilson

WEIGHTS = Path(__file__).with_name("train_rl_weights.npz")


@dataclass
class Args:
    seed: int = 1
    seats: int = 2
    mode: str = "simple"
    games: int = 40_960  # training games (640 updates); about 3 minutes on one core
    seconds: float = 900.0  # a wall-clock cap too: a run cut by it does not repeat exactly
    batch_games: int = 64  # games per policy update
    hidden: int = 64
    lr: float = 3e-3
    ent_coef: float = 0.01
    out: Path = WEIGHTS


class Policy:
    """Masked softmax over ``N_ACTIONS`` from a tanh MLP of the normalised observation."""

    def __init__(self, hidden: int = 64, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.p = {
            "w1": rng.normal(0, 1 / np.sqrt(OBSERVATION_SIZE), (OBSERVATION_SIZE, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0, 0.01, (hidden, N_ACTIONS)),
            "b2": np.zeros(N_ACTIONS),
        }
        self.mean = np.zeros(OBSERVATION_SIZE)
        self.std = np.ones(OBSERVATION_SIZE)

    def fit_normaliser(self, xs: np.ndarray) -> None:
        """Scale each entry by the spread random play shows (at least 0.1, so that an entry
        constant in these states cannot blow up when it does change)."""
        self.mean, self.std = xs.mean(0), np.maximum(xs.std(0), 0.1)

    def forward(self, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(hidden activations, action probabilities) for a batch of rows."""
        h = np.tanh(((x - self.mean) / self.std) @ self.p["w1"] + self.p["b1"])
        z = np.where(mask == 1, h @ self.p["w2"] + self.p["b2"], -np.inf)
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return h, e / e.sum(axis=-1, keepdims=True)

    def act(self, x: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None) -> int:
        """A sampled action index (``rng``), or the most probable one (``rng=None``)."""
        _, prob = self.forward(x[None], mask[None])
        if rng is None:
            return int(np.argmax(prob[0]))
        return int(rng.choice(N_ACTIONS, p=prob[0]))

    def grads(
        self, x: np.ndarray, mask: np.ndarray, a: np.ndarray, adv: np.ndarray, ent_coef: float
    ) -> dict[str, np.ndarray]:
        """Gradient of the loss -mean(adv * log p(a)) - ent_coef * mean(entropy)."""
        h, prob = self.forward(x, mask)
        n = len(a)
        logp = np.log(np.where(prob > 0, prob, 1.0))
        entropy = -(prob * logp).sum(1, keepdims=True)
        dz = prob.copy()
        dz[np.arange(n), a] -= 1.0
        dz *= adv[:, None]  # d(-adv * log p(a)) / dz
        dz += ent_coef * prob * (logp + entropy)  # d(-ent_coef * entropy) / dz
        dz /= n
        dh = (dz @ self.p["w2"].T) * (1 - h**2)
        xn = (x - self.mean) / self.std
        return {"w1": xn.T @ dh, "b1": dh.sum(0), "w2": h.T @ dz, "b2": dz.sum(0)}

    def save(self, path: Path) -> None:
        arrays: dict[str, np.ndarray] = {k: v.astype(np.float32) for k, v in self.p.items()}
        arrays.update(mean=self.mean.astype(np.float32), std=self.std.astype(np.float32))
        np.savez(path, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> Policy:
        with np.load(path) as data:
            policy = cls(hidden=data["b1"].shape[0])
            policy.p = {k: data[k].astype(np.float64) for k in ("w1", "b1", "w2", "b2")}
            policy.mean, policy.std = (
                data["mean"].astype(np.float64),
                data["std"].astype(np.float64),
            )
        return policy


class Adam:
    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            m_hat = self.m[k] / (1 - 0.9**self.t)
            v_hat = self.v[k] / (1 - 0.999**self.t)
            params[k] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)


def play_game(
    env: AvenueEnv, policy: Policy | None, team: int, rng: np.random.Generator, greedy: bool = False
) -> tuple[list[np.ndarray], list[np.ndarray], list[int], float]:
    """One game: ``policy`` (uniform random if None) holds every seat of ``team``, the house
    random bot the others. Returns the learner's observations, masks, actions and its reward."""
    xs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    acts: list[int] = []
    reward = 0.0
    for agent in env.agent_iter():
        obs, r, term, trunc, _ = env.last()
        mine = env.config.team_of(int(agent.rpartition("_")[2])) == team
        if mine:
            reward = r if term or trunc else reward
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        if mine and policy is not None:
            a = policy.act(obs["observation"], mask, None if greedy else rng)
        else:
            a = int(rng.choice(np.flatnonzero(mask)))
        if mine:
            xs.append(obs["observation"])
            masks.append(mask)
            acts.append(a)
        env.step(a)
    return xs, masks, acts, reward


def win_rate(
    policy: Policy | None, games: int, seed: int, seats: int = 2, mode: str = "simple"
) -> int:
    """Wins of ``policy`` (its most probable action) against random over ``games`` games,
    alternating teams; the deals are seeded apart from the training run's."""
    env, rng, wins = AvenueEnv(seats=seats, mode=mode), np.random.default_rng(seed), 0
    for g in range(games):
        env.reset(seed=seed * 100_003 + g)
        wins += int(play_game(env, policy, g % 2, rng, greedy=True)[3] > 0)
    return wins


def train(args: Args, log: bool = True) -> Policy:
    rng = np.random.default_rng(args.seed)
    env = AvenueEnv(seats=args.seats, mode=args.mode)
    env.reset(seed=args.seed)
    policy = Policy(args.hidden, args.seed)
    warm = []  # states random play shows a team, for the normaliser
    for g in range(50):
        warm.append(play_game(env, None, g % 2, rng))
        env.reset()
    policy.fit_normaliser(np.asarray([o for g in warm for o in g[0]], dtype=np.float64))
    opt = Adam(policy.p, args.lr)
    start, played, recent = time.monotonic(), 0, []
    while played < args.games and time.monotonic() - start < args.seconds:
        xs, masks, acts, rets = [], [], [], []
        for _ in range(args.batch_games):
            x, m, a, r = play_game(env, policy, int(rng.integers(2)), rng)
            env.reset()  # the env's next seed: a run from one --seed repeats
            xs += x
            masks += m
            acts += a
            rets += [r] * len(a)
            recent.append(r > 0)
        played += args.batch_games
        ret = np.asarray(rets)
        adv = ret - ret.mean()
        grads = policy.grads(
            np.asarray(xs), np.asarray(masks), np.asarray(acts), adv, args.ent_coef
        )
        opt.step(policy.p, grads)
        if log and played % (args.batch_games * 10) == 0:
            rate = np.mean(recent[-640:])
            print(f"{time.monotonic() - start:6.1f}s  {played:6d} games  win rate {rate:.3f}")
    if log:
        print(f"trained on {played} games in {time.monotonic() - start:.1f} s")
    return policy


class TrainedBot(Bot):
    """The trained policy as an SDK bot: ``$AVENUE_RL_WEIGHTS`` or the bundled weights."""

    version = "train-rl-1"

    def __init__(self) -> None:
        path = Path(os.environ.get("AVENUE_RL_WEIGHTS", WEIGHTS))
        if not path.is_file():
            raise FileNotFoundError(
                f"{path}: train one with python -m avenue_sdk.examples.train_rl"
            )
        self.policy = Policy.load(path)

    def decide(self, request: pb.DecisionRequest) -> int:
        observation, mask, to_request = request_features(request)
        return to_request[self.policy.act(observation, mask, None)]


def main() -> None:
    defaults = Args()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name, value in vars(defaults).items():
        parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    args = Args(**vars(parser.parse_args()))
    policy = train(args)
    policy.save(args.out)
    print(f"saved {args.out}")
    wins = win_rate(policy, 400, seed=args.seed + 7, seats=args.seats, mode=args.mode)
    low, high = wilson(wins, 400)
    print(f"its most probable actions vs random: {wins}/400, 95% CI [{low:.1%}, {high:.1%}]")


if __name__ == "__main__":
    main()
