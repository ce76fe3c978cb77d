"""How long the runner takes to build a decision's request (``convert.decision_request``),
this checkout's against a baseline commit's, in one process, taking turns.

    .venv/bin/python bench/request_build.py [--baseline 4e309a0] [--games 200] [--rounds 7]

The requests are recorded first: random games of five configurations (simple and advanced,
2, 3 and 4 seats), every decision with more than one legal choice, its history sent from
where that seat's last request left off (as a runner does). Each round builds every
recorded request once with each implementation, in turns; the baseline's ``convert.py``
is taken from the commit with ``git show`` and imported as a module of its own (same
referee, same protobuf runtime). Statistic: µs per request, the median over rounds, and
the ratio of the two medians. Also checks that both build the same bytes. Prints figures;
asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "sdk"))
sys.path.insert(0, str(ROOT))

CONFIGS = [(2, "simple"), (2, "advanced"), (3, "simple"), (4, "simple"), (4, "advanced")]


def baseline_module(commit: str, where: Path) -> ModuleType:
    source = subprocess.run(
        ["git", "show", f"{commit}:sdk/avenue_sdk/protocol/convert.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = where / "convert_baseline.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("convert_baseline", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recorded(games: int) -> list[dict[str, Any]]:
    from referee import GameConfig, apply, legal_actions, new_game
    from referee.observation import observe

    out: list[dict[str, Any]] = []
    for seats, mode in CONFIGS:
        config = GameConfig.for_seats(seats, mode)
        for game in range(games // len(CONFIGS)):
            state, rng, sent, seq = new_game(config, game), random.Random(game), {}, 0
            while getattr(state, "result", None) is None:
                legal = legal_actions(state)
                if not legal:
                    break
                if len(legal) > 1:
                    seat, seq = state.actor, seq + 1
                    obs = observe(state, seat)
                    out.append(
                        dict(
                            match_id=f"{game}.1",
                            seq=seq,
                            obs=obs,
                            first_team=game % 2,
                            legal=legal,
                            history_start=sent.get(seat, 0),
                            decision_ms=1000,
                            bank_ms=5000,
                            previous_latency_ms=0.4,
                        )
                    )
                    sent[seat] = len(obs.history)
                state = apply(state, rng.choice(legal))
    return out


def per_request_us(build: Any, requests: list[dict[str, Any]]) -> float:
    started = time.perf_counter()
    for request in requests:
        build(**request)
    return (time.perf_counter() - started) / len(requests) * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="4e309a0", help="commit (default: before the cache)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    from avenue_sdk.protocol import convert

    with tempfile.TemporaryDirectory() as tmp:
        base = baseline_module(args.baseline, Path(tmp))
        requests = recorded(args.games)
        same = all(convert.decision_request(**r) == base.decision_request(**r) for r in requests)
        times: dict[str, list[float]] = {"baseline": [], "this checkout": []}
        for _ in range(args.rounds):
            times["baseline"].append(per_request_us(base.decision_request, requests))
            times["this checkout"].append(per_request_us(convert.decision_request, requests))
    print(
        f"{len(requests):,} recorded requests"
        f" ({args.games} games over {len(CONFIGS)} configurations)"
    )
    print(f"same bytes from both: {'yes' if same else 'NO'}")
    medians = {k: statistics.median(v) for k, v in times.items()}
    for name, values in times.items():
        rounds = " ".join(f"{v:.2f}" for v in values)
        print(
            f"{name + ' (' + (args.baseline if name == 'baseline' else 'HEAD') + ')':<28}"
            f" median {medians[name]:6.2f} µs a request   rounds: {rounds}"
        )
    print(
        f"this checkout / baseline, medians: {medians['this checkout'] / medians['baseline']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
