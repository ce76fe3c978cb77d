"""The full hidden-information audit: N games (default 20,000) spread over every mode,
seat count and ruleset, each message checked against what its seat may know
(tests/reliability/audit.py explains the checks). Prints the counts; a leak count above
zero is a bug.

    .venv/bin/python bench/audit_hidden_info.py [--games 20000] [--jobs 2]
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()
logging.getLogger("arena.adapters.runner").setLevel(logging.WARNING)  # one line per match otherwise

from tests.reliability.audit import AuditReport, run_audit  # noqa: E402


def _chunk(args: tuple[int, int]) -> AuditReport:
    start, games = args
    return run_audit(games, seed=7, start=start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    chunk = 500
    work = [(s, min(chunk, args.games - s)) for s in range(0, args.games, chunk)]
    total = AuditReport()
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        for part in pool.map(_chunk, work):
            total.merge(part)
            print(
                f"\r{total.games:,}/{args.games:,} games, {total.messages:,} messages, "
                f"{total.leaks} leaks",
                end="",
                file=sys.stderr,
                flush=True,
            )
    print(file=sys.stderr)
    elapsed = time.perf_counter() - started
    print(f"hidden-information audit: {total.games:,} games, {total.messages:,} messages checked")
    print(f"  leaks: {total.leaks}")
    for example in total.examples:
        print(f"  e.g. {example}")
    print(f"  {elapsed:.0f} s with {args.jobs} processes")
    sys.exit(1 if total.leaks else 0)


if __name__ == "__main__":
    main()
