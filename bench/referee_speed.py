"""Referee speed on one core: random-vs-random full games per second through the public
frozen-state API, for three engines measured in the same run:

- baseline: the engine of a git commit (default: 4bb15a6, before issue 14's speed work),
  pure Python, extracted with ``git archive`` into a temporary directory;
- pure: this checkout's engine, pure Python (``AVENUE_ENGINE=pure``);
- compiled: the same sources compiled with mypyc in place (``referee/*.so``, built by
  make install): what every process of the arena runs from the checkout;
- compiled wheel: the same compiled as ``AVENUE_ENGINE_COMPILE=1 pip install ./referee``
  installs it (.venv/compiled), as a bot author's SDK would.

Each engine runs in its own process pinned to the same core; the engines take turns,
round after round, so that the machine's load falls on all of them alike. Statistic: the
median over rounds of each engine's games/s; ratios are of those medians. Two tables: games
per second of wall-clock time (what a caller waits), and games per second of the process's
own CPU time (the engine's speed on one core, without the time other processes on a busy
machine take from that core). Prints figures; asserts nothing.

    .venv/bin/python bench/referee_speed.py [--seconds 2] [--rounds 5] [--baseline 4bb15a6]
        [--also NAME=PYTHON ...]
    .venv/compiled/bin/python -s -P bench/referee_speed.py --parts   # where a game's time goes
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parent.parent
COMPILED_PY = ROOT / ".venv" / "compiled" / "bin" / "python"

CASES = [
    ("simple, 2 seats", 2, "simple"),
    ("advanced, 2 seats", 2, "advanced"),
    ("simple, 4 seats (2 v 2)", 4, "simple"),
    ("advanced, 4 seats (2 v 2)", 4, "advanced"),
    ("simple, 3 seats (2 v 1)", 3, "simple"),
]


def child(seconds: float) -> None:
    """One round in this process: games/s and decisions/s per case, as JSON."""
    import random

    from referee import GameConfig, apply, engine, legal_actions, new_game

    out: dict[str, object] = {"engine": engine.__file__}
    for label, seats, mode in CASES:
        config = GameConfig.for_seats(seats, mode)
        rng = random.Random(1)
        games = decisions = seed = 0
        start = time.perf_counter()
        cpu_start = time.process_time()
        deadline = start + seconds
        while time.perf_counter() < deadline:
            for _ in range(50):
                state = new_game(config, seed)
                seed += 1
                while state.decision is not None:
                    legal = legal_actions(state)
                    state = apply(state, legal[int(rng.random() * len(legal))])
                    decisions += 1
                games += 1
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        out[label] = (games / elapsed, decisions / elapsed, games / cpu)
    print(json.dumps(out))


def parts() -> None:
    """Where a simple 2-seat game's time goes: each part timed alone, per CPU time, best of
    5 runs, on this interpreter's engine (decisions recorded from 300 seeded games)."""
    import _random
    import random

    from referee import GameConfig, apply, legal_actions, new_game
    from referee.work import Work

    config = GameConfig.for_seats(2, "simple")
    rng = random.Random(1)
    recorded = []
    for seed in range(300):
        state = new_game(config, seed)
        while state.decision is not None:
            legal = legal_actions(state)
            action = legal[int(rng.random() * len(legal))]
            recorded.append((state, action))
            state = apply(state, action)
    n = len(recorded)

    def best_us(f: Callable[[int], object], runs: int = 20_000) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            for i in range(runs):
                f(i)
            best = min(best, (time.process_time() - start) / runs * 1e6)
        return best

    new, seed_c = random.Random.__new__, _random.Random.seed
    # consecutive calls ask about different states, so legal_actions' cache of the last
    # state asked about never answers (in a game apply() asks again and it does)
    print(f"engine: {sys.modules['referee.engine'].__file__}")
    print(f"decisions per game: {n / 300:.1f}")
    print(f"new_game:                 {best_us(lambda i: new_game(config, i)):6.2f} us a game")
    print(f"  of which seeding:       {best_us(lambda i: seed_c(new(random.Random), i)):6.2f} us")
    # apply here finds no cached legal actions either: it builds them to check the action
    apply_us = best_us(lambda i: apply(*recorded[i % n]))
    print(f"apply, legality included: {apply_us:6.2f} us a decision")
    print(
        f"  of which Work().freeze: {best_us(lambda i: Work(recorded[i % n][0]).freeze()):6.2f} us"
    )
    print(
        "legal_actions:            "
        f"{best_us(lambda i: legal_actions(recorded[i % n][0])):6.2f} us a decision"
    )


def run_child(
    python: str, pythonpath: str | None, seconds: float, pure: bool = False
) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AVENUE_ENGINE")}
    if pure:
        env["AVENUE_ENGINE"] = "pure"
    # -s -P: no user site, no script directory on sys.path (the checkout's referee/ source
    # must not shadow the engine under test); PYTHONPATH names the baseline's copy only
    flags = ["-s", "-P"]
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    proc = subprocess.run(
        [python, *flags, __file__, "--child", "--seconds", str(seconds)],
        capture_output=True,
        text=True,
        env=env,
        cwd="/",
        check=True,
    )
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per case per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", default="4bb15a6", help="git commit of the baseline")
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="NAME=PYTHON",
        help="another engine to time: an interpreter with its own installed referee "
        "(e.g. a copy of .venv/compiled built from another commit)",
    )
    parser.add_argument(
        "--parts",
        action="store_true",
        help="time new_game, apply and legal_actions alone on this interpreter's engine",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, inherited
    if args.child:
        child(args.seconds)
        return
    if args.parts:
        parts()
        return
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.baseline, "referee"],
            capture_output=True,
            check=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        #: name -> (interpreter, PYTHONPATH, pure sources asked for)
        engines: dict[str, tuple[str, str | None, bool]] = {
            f"baseline {args.baseline}": (sys.executable, tmp, True),
            "pure": (sys.executable, None, True),
            "compiled": (sys.executable, None, False),
        }
        for extra in args.also:
            name, _, python = extra.partition("=")
            engines[name] = (python, None, False)
        if COMPILED_PY.exists():
            engines["compiled wheel"] = (str(COMPILED_PY), None, False)
        else:
            print("(no .venv/compiled: run make install to time the compiled wheel)")
        rates: dict[str, dict[str, list[float]]] = {e: {c[0]: [] for c in CASES} for e in engines}
        cpu_rates: dict[str, dict[str, list[float]]] = {
            e: {c[0]: [] for c in CASES} for e in engines
        }
        where: dict[str, str] = {}
        for _ in range(args.rounds):
            for name, (python, path, pure) in engines.items():
                out = run_child(python, path, args.seconds, pure)
                where[name] = str(out["engine"])
                for label, *_ in CASES:
                    games, _decisions, games_cpu = cast("list[float]", out[label])
                    rates[name][label].append(games)
                    cpu_rates[name][label].append(games_cpu)
    print(
        f"referee speed, one core, {platform.python_implementation()} "
        f"{platform.python_version()}; {args.rounds} rounds of {args.seconds:g} s per case "
        "per engine, engines interleaved"
    )
    for name in engines:
        print(f"  {name}: {where[name]}")
    print("statistic: median games/s over the rounds; ratios of medians, same run")
    names = list(engines)
    for title, table in (("wall-clock", rates), ("CPU time of the process", cpu_rates)):
        print(f"games per second of {title}:")
        print_table(names, table)
        # the target is the engine the arena's processes run: the in-place build
        runs = statistics.median(table["compiled"][CASES[0][0]])
        print(
            "target: 20,000 simple 2-seat games/s; the engine every process runs "
            f"(compiled, in place), {title}: {runs:,.0f}"
        )


def print_table(names: list[str], rates: dict[str, dict[str, list[float]]]) -> None:
    width = [max(12, len(n) + 2) for n in names]
    head = "".join(f"{n:>{w}}" for n, w in zip(names, width, strict=True))
    ratios = "".join(f"{n + ' / base':>{w + 7}}" for n, w in zip(names[1:], width[1:], strict=True))
    print(f"{'configuration':<27}{head}{ratios}")
    for label, *_ in CASES:
        med = [statistics.median(rates[n][label]) for n in names]
        cells = "".join(f"{m:>{w},.0f}" for m, w in zip(med, width, strict=True))
        rel = "".join(f"{m / med[0]:>{w + 6}.2f}x" for m, w in zip(med[1:], width[1:], strict=True))
        print(f"{label:<27}{cells}{rel}")


if __name__ == "__main__":
    main()
