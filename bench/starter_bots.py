"""The TypeScript starter's bot against the SDK's, through the same gateway in the same run:
win rates against a house bot and the decision round trips the runner measures.

    .venv/bin/python bench/starter_bots.py [--games 200] [--opponent greedy]

Needs the starter built (`cd starters/typescript && npm ci && npm run build`). Starts a
gateway in this process (in-process relay, fixed tokens instead of the database), runs the
starter's `heuristic` bot (node) and the SDK's example HeuristicBot (python) as processes
of their own, and plays each of them the same seeded games against the house bot, seats
alternating. Prints wins with a Wilson 95% interval, faults, and the round-trip latency
of every asked decision (runner -> gateway -> bot process -> back): median, p90, p99 and
mean; the SDK bot is the baseline the ratio is taken against.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STARTER = ROOT / "starters" / "typescript"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def pct(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Row:
    wins: int = 0
    faults: int = 0
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per bot")
    parser.add_argument("--opponent", default="greedy", help="house bot spec")
    parser.add_argument("--mode", default="simple", choices=["simple", "advanced"])
    parser.add_argument("--ts-bot", default="heuristic", help="the starter's --bot")
    args = parser.parse_args()
    main_js = STARTER / "dist" / "src" / "main.js"
    node = shutil.which("node")
    if node is None or not main_js.exists():
        print("build the starter first: cd starters/typescript && npm ci && npm run build")
        return 2

    import django

    django.setup()
    from arena.adapters.gateway import Gateway, GatewayConfig, GatewayThread, StaticAuthenticator
    from arena.adapters.relay.local import InProcessRelay
    from arena.adapters.runner import HouseSeat, RemoteSeat, Seat, TimeControl, run_match
    from arena.services.bots import BotIdentity
    from referee import GameConfig

    bots = {
        f"ts-{args.ts_bot}": ("1", [node, str(main_js), "--bot", args.ts_bot]),
        "sdk-heuristic": (
            "2",
            [sys.executable, "-m", "avenue_sdk", "run"]
            + ["avenue_sdk.examples.heuristic_bot:HeuristicBot"],
        ),
    }
    relay = InProcessRelay()
    auth = StaticAuthenticator(
        {f"aat_bench-{name}": BotIdentity(bot_id, name) for name, (bot_id, _) in bots.items()}
    )
    gateway = GatewayThread(Gateway(GatewayConfig(), relay, auth))
    port = gateway.start()
    procs = [
        subprocess.Popen(
            [*argv, "--arena", f"127.0.0.1:{port}", "--token", f"aat_bench-{name}"],
            cwd=STARTER if name.startswith("ts") else ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, (_, argv) in bots.items()
    ]
    rows: dict[str, Row] = {}
    try:
        deadline = time.monotonic() + 60
        while not all(relay.is_connected(bot_id) for bot_id, _ in bots.values()):
            if time.monotonic() > deadline:
                print("the bots did not connect within 60 s")
                return 1
            time.sleep(0.05)
        for name, (bot_id, _) in bots.items():
            row = rows[name] = Row()
            started = time.perf_counter()
            for game in range(args.games):
                me = game % 2
                seats: list[Seat] = [HouseSeat(args.opponent, game), HouseSeat(args.opponent, game)]
                seats[me] = RemoteSeat(bot_id, name, relay)
                outcome = run_match(
                    seats,
                    GameConfig.for_seats(2, args.mode),
                    1000 + game // 2,  # each deal twice, once from each seat
                    match_id=f"{name}-{game}.1",
                    time_control=TimeControl(5_000, 60_000),
                )
                row.faults += sum(1 for f in outcome.faults if f.seat == me)
                if outcome.result is not None and outcome.result.winner == me:
                    row.wins += 1
                row.latencies += [
                    d.latency_ms
                    for d in outcome.record.decisions
                    if d.seat == me and d.latency_ms is not None
                ]
            row.latencies.sort()
            row.seconds = time.perf_counter() - started
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        gateway.stop()

    print(
        f"{args.games} {args.mode} games per bot against house {args.opponent!r} "
        "(same deals, seats alternating); latency = runner-measured round trip per asked "
        "decision, in ms"
    )
    print(
        f"{'bot':<15}{'wins':>6}{'win rate [95% Wilson]':>26}{'faults':>8}{'decisions':>11}"
        f"{'p50':>8}{'p90':>8}{'p99':>8}{'mean':>8}{'games/s':>9}"
    )
    base = statistics.median(rows["sdk-heuristic"].latencies)
    for name, row in rows.items():
        lat, n = row.latencies, args.games
        lo, hi = wilson(row.wins, n)
        interval = f"{row.wins / n:6.1%} [{lo:5.1%}, {hi:5.1%}]"
        print(
            f"{name:<15}{row.wins:>6}{interval:>26}{row.faults:>8}{len(lat):>11}"
            f"{pct(lat, 0.5):>8.3f}{pct(lat, 0.9):>8.3f}{pct(lat, 0.99):>8.3f}"
            f"{statistics.fmean(lat):>8.3f}{n / row.seconds:>9.1f}"
        )
    ts_p50 = statistics.median(rows[f"ts-{args.ts_bot}"].latencies)
    print(f"median round trip, ts-{args.ts_bot} / sdk-heuristic: {ts_p50 / base:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
