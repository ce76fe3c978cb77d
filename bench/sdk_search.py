"""The SDK's forward model, measured: a search bot written with the SDK's public API only
(``avenue_sdk.examples.search_bot``: ``avenue_sdk.sim``) plays the house ``greedy`` bot in
the local arena, and its playouts per second are set beside the referee's own search bot's
on the same decisions, in the same run. Prints figures; asserts nothing.

    .venv/bin/python bench/sdk_search.py [--games 1000] [--jobs 2] [--playouts 150]

Statistics: the win rate of the SDK bot with its 95% Wilson interval (the target is a lower
end above 50%); playouts/s is the median of 5 timed rounds over the same requests, one core.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_avenue.v1 import arena_pb2 as pb  # noqa: E402
from avenue_sdk import sim  # noqa: E402
from avenue_sdk.examples import search_bot  # noqa: E402
from avenue_sdk.local import Setup, run, stats  # noqa: E402
from avenue_sdk.protocol import convert  # noqa: E402
from avenue_sdk.protocol.timing import TimeControl  # noqa: E402
from referee import Action, GameConfig, apply, legal_actions, new_game  # noqa: E402
from referee.bots import SearchBot  # noqa: E402
from referee.bots.determinize import determinize  # noqa: E402
from referee.observation import Observation, observe  # noqa: E402

#: a request the arena would send, and the referee's own view of it
Case = tuple[pb.DecisionRequest, Observation, tuple[Action, ...]]


def requests(config: GameConfig, count: int) -> list[Case]:
    """Decisions of a few random games: the request bytes the arena would send, and the
    referee's own view of them."""
    rng = random.Random(7)
    out: list[Case] = []
    seed = 0
    while len(out) < count:
        seed += 1
        state = new_game(config, seed)
        while state.decision is not None and len(out) < count:
            legal = legal_actions(state)
            if len(legal) > 1:
                obs = observe(state, state.actor)
                payload = convert.decision_request(
                    match_id="bench",
                    seq=1,
                    obs=obs,
                    first_team=0,
                    legal=legal,
                    history_start=0,
                    decision_ms=5000,
                    bank_ms=60000,
                    previous_latency_ms=None,
                )
                out.append((pb.ArenaMessage.FromString(payload).decision_request, obs, legal))
            state = apply(state, legal[int(rng.random() * len(legal))])
    return out


def playouts_per_second(
    config: GameConfig, n_requests: int = 60, per: int = 20
) -> tuple[float, float]:
    """(SDK, referee) playouts/s: sample a world, apply a legal action, play to the end."""
    cases = requests(config, n_requests)
    house = SearchBot(1)

    def sdk_round() -> float:
        rng = random.Random(1)
        start = time.perf_counter()
        for request, _, _ in cases:
            pos = sim.Position(request)
            for i in range(per):
                world = sim.apply(pos.sample(rng), pos.legal[i % len(pos.legal)])
                sim.winner(sim.rollout(world, rng))
        return len(cases) * per / (time.perf_counter() - start)

    def referee_round() -> float:
        house._rng = random.Random(1)
        start = time.perf_counter()
        for _, obs, legal in cases:
            assert obs.team is not None
            for i in range(per):
                world = determinize(obs, house._rng)
                house.playout(apply(world, legal[i % len(legal)]), obs.team)
        return len(cases) * per / (time.perf_counter() - start)

    sdk, ref = [], []
    for _ in range(5):
        sdk.append(sdk_round())
        ref.append(referee_round())
    return statistics.median(sdk), statistics.median(ref)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--playouts", type=int, default=search_bot.SearchBot.playouts)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--mode", default="simple")
    args = parser.parse_args()
    search_bot.SearchBot.playouts = args.playouts  # inherited by the workers (fork)
    config = GameConfig.for_seats(2, args.mode)
    print(f"python {platform.python_version()}, {os.cpu_count()} cores, {args.mode} mode, 2 seats")

    sdk, ref = playouts_per_second(config)
    print(
        f"playouts/s (median of 5 rounds, one core): SDK {sdk:,.0f}, referee {ref:,.0f}, "
        f"SDK/referee {sdk / ref:.2f}"
    )

    setup = Setup(
        bot="avenue_sdk.examples.search_bot:SearchBot",
        opponent="greedy",
        config=config,
        time_control=TimeControl(),
        seed=args.seed,
    )
    summary = run(setup, args.games, args.jobs, progress=sys.stderr.isatty())
    print(
        f"SDK search bot ({args.playouts} playouts per decision) vs house greedy, "
        f"{args.jobs} processes, seed {args.seed}:"
    )
    print(summary.report())
    low = stats.wilson(summary.wins, summary.games)[0]
    print(f"target (lower end of the 95% interval above 50%): {'met' if low > 0.5 else 'NOT met'}")


if __name__ == "__main__":
    main()
