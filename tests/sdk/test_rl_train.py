"""The training example (``avenue_sdk.examples.train_rl``): a short seeded run learns to beat
the random bot, with the lower end of a 95% Wilson interval above one half; the weights
survive a save and a load; the bundled policy plays as an SDK bot in the local arena and
beats random there too.

Every run here is bounded by a number of games, never by the clock, so that it repeats
exactly on a busy machine (it only takes longer)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from avenue_sdk.examples import train_rl
from avenue_sdk.local.stats import wilson

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_short_seeded_training_run_beats_random(tmp_path: Path) -> None:
    args = train_rl.Args(seed=1, games=3072, seconds=1e9, out=tmp_path / "p.npz")
    policy = train_rl.train(args, log=False)
    games = 400
    wins = train_rl.win_rate(policy, games, seed=11)
    untrained = train_rl.win_rate(train_rl.Policy(args.hidden, args.seed), games, seed=11)
    low, _ = wilson(wins, games)
    assert low > 0.5, f"{wins}/{games} against random"
    assert wins > untrained, (wins, untrained)
    policy.save(args.out)
    loaded = train_rl.Policy.load(args.out)
    x = np.random.default_rng(0).normal(size=(50, len(policy.mean)))
    mask = np.ones((50, policy.p["b2"].shape[0]), dtype=np.int8)
    assert np.allclose(policy.forward(x, mask)[1], loaded.forward(x, mask)[1], atol=1e-4)


def test_the_gradient_is_the_loss_s() -> None:
    """The hand-written backward pass against finite differences."""
    policy = train_rl.Policy(hidden=8, seed=3)
    rng = np.random.default_rng(3)
    n = 6
    x = rng.normal(size=(n, len(policy.mean)))
    mask = (rng.random((n, policy.p["b2"].shape[0])) < 0.3).astype(np.int8)
    mask[:, 0] = 1
    acts = np.array([int(rng.choice(np.flatnonzero(m))) for m in mask])
    adv = rng.normal(size=n)
    for k in policy.p:
        policy.p[k] = policy.p[k] + rng.normal(0, 0.3, policy.p[k].shape)

    def loss() -> float:
        prob = policy.forward(x, mask)[1]
        logp = np.log(np.where(prob > 0, prob, 1.0))
        entropy = -(prob * logp).sum(1)
        return float(-(adv * logp[np.arange(n), acts]).mean() - 0.05 * entropy.mean())

    grads = policy.grads(x, mask, acts, adv, 0.05)
    for k, where in (("w1", (3, 2)), ("b1", (5,)), ("w2", (1, int(acts[0]))), ("b2", (0,))):
        old = policy.p[k][where]
        policy.p[k][where] = old + 1e-6
        up = loss()
        policy.p[k][where] = old - 1e-6
        down = loss()
        policy.p[k][where] = old
        assert grads[k][where] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-8), k


@pytest.mark.processes
def test_the_bundled_policy_beats_random_in_the_local_arena(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "AVENUE_RL_WEIGHTS"}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "avenue_sdk",
            "play",
            "avenue_sdk.examples.train_rl:TrainedBot",
            "random",
            "--games",
            "200",
            "--seed",
            "1",
            "-q",
            "--json",
            str(tmp_path / "s.json"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["games"] == 200 and s["faults"] == []
    assert s["wilson95"][0] > 0.5, s
