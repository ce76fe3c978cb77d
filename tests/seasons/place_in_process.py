"""Run as a process by tests/seasons/test_placement_once.py: place a league's newcomers,
stopping at a named step to be killed there (SIGKILL), or at a barrier to race another
process.

    python tests/seasons/place_in_process.py LEAGUE_ID [--stop-at STEP] [--barrier FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from arena.seasons.placement import do_place_newcomers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("league", type=int)
    parser.add_argument("--stop-at", default="")
    parser.add_argument("--barrier", default="")
    o = parser.parse_args()

    def between(step: str) -> None:
        print(f"step {step}", flush=True)
        if step == o.stop_at:
            print("stopped", flush=True)
            while True:  # until killed (inside the transaction for "placed")
                time.sleep(1)

    if o.barrier:
        print("ready", flush=True)
        while not Path(o.barrier).exists():
            time.sleep(0.01)
    placed = do_place_newcomers(o.league, between=between)
    print(json.dumps({"placed": [p.entry_id for p in placed]}), flush=True)


if __name__ == "__main__":
    main()
