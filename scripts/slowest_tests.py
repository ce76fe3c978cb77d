"""Print the slowest tests of one or more pytest runs, from their JUnit XML reports.

    python scripts/slowest_tests.py [-n 20] REPORT.xml [REPORT.xml ...]

`make test` runs pytest in phases (parallel, serial, the pure engine's referee tests) and
lists the slowest tests of all of them together here; a test's time is its setup, call and
teardown (pytest's --junitxml). Missing reports are skipped (a phase that did not run).
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20, help="how many (default 20)")
    parser.add_argument("reports", nargs="+", type=Path)
    args = parser.parse_args()
    times: list[tuple[float, str, str]] = []
    total = 0.0
    for report in args.reports:
        if not report.is_file():
            continue
        phase = report.stem
        for case in ET.parse(report).getroot().iter("testcase"):
            seconds = float(case.get("time") or 0)
            total += seconds
            name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
            times.append((seconds, phase, name))
    times.sort(reverse=True)
    print(
        f"slowest {min(args.n, len(times))} of {len(times)} tests "
        f"({total:.0f} s of test time in all, summed over the workers):"
    )
    for seconds, phase, name in times[: args.n]:
        print(f"{seconds:8.2f}s  {phase:9}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
