"""Referee speed on one core: random-vs-random full games per second, decisions per second,
and the search bot's playouts per second. Prints figures; asserts nothing.

    .venv/bin/python bench/referee_speed.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee import GameConfig, apply, legal_actions, new_game  # noqa: E402
from referee.bots import GreedyBot, SearchBot  # noqa: E402
from referee.observation import observe  # noqa: E402
from referee.play import play_game  # noqa: E402

CASES = [
    ("simple, 2 seats", GameConfig.for_seats(2, "simple")),
    ("advanced, 2 seats", GameConfig.for_seats(2, "advanced")),
    ("simple, 4 seats (2 v 2)", GameConfig.for_seats(4, "simple")),
    ("advanced, 4 seats (2 v 2)", GameConfig.for_seats(4, "advanced")),
    ("simple, 3 seats (2 v 1)", GameConfig.for_seats(3, "simple")),
]


def random_games(
    config: GameConfig, seconds: float, with_observations: bool
) -> tuple[float, float]:
    """Games/s and decisions/s of uniform random play through the public API."""
    rng = random.Random(1)
    games = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    seed = 0
    while time.perf_counter() < deadline:
        for _ in range(50):
            state = new_game(config, seed)
            seed += 1
            while state.decision is not None:
                legal = legal_actions(state)
                if with_observations:
                    observe(state, state.actor)
                state = apply(state, legal[int(rng.random() * len(legal))])
                decisions += 1
            games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed


def search_playouts(seconds: float) -> float:
    bot = SearchBot(seed=1, playouts=200)
    config = GameConfig.for_seats(2, "simple")
    done = 0
    start = time.perf_counter()
    seed = 0
    while time.perf_counter() - start < seconds:
        state = new_game(config, seed)
        seed += 1
        while state.decision is not None:
            legal = legal_actions(state)
            if len(legal) > 1 and state.actor == 0:
                bot.act(observe(state, 0), legal)
                done += bot.playouts
            state = apply(state, legal[0])
    return done / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="per figure")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(
        f"referee speed, one core, {platform.python_implementation()} {platform.python_version()}"
    )
    print(f"{'configuration':<28} {'games/s':>10} {'decisions/s':>12} {'+observe games/s':>17}")
    for label, config in CASES:
        games, decisions = random_games(config, args.seconds, with_observations=False)
        obs_games, _ = random_games(config, args.seconds / 2, with_observations=True)
        print(f"{label:<28} {games:>10,.0f} {decisions:>12,.0f} {obs_games:>17,.0f}")
    rate = search_playouts(args.seconds)
    print(f"search bot: {rate:,.0f} playouts/s (simple, 2 seats, one playout = one full game)")
    greedy = GreedyBot(1)
    t = time.perf_counter()
    played = 0
    while time.perf_counter() - t < args.seconds:
        play_game(GameConfig.for_seats(2, "simple"), played, [greedy, greedy])
        played += 1
    print(f"greedy vs greedy: {played / (time.perf_counter() - t):,.1f} games/s")


if __name__ == "__main__":
    main()
