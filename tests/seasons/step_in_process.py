"""Run as a process by tests/seasons/test_season_end_once.py and test_placement_once.py:
end a season or place a league's newcomers, stopping at a named step to be killed there
(SIGKILL), or at a barrier to race another process.

    python tests/seasons/step_in_process.py end SEASON_ID [--stop-at STEP] [--barrier FILE]
    python tests/seasons/step_in_process.py place LEAGUE_ID [--stop-at STEP] [--barrier FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

from arena.seasons.ending import do_end_season  # noqa: E402
from arena.seasons.placement import do_place_newcomers  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["end", "place"])
    parser.add_argument("id", type=int, help="the season's (end) or the league's (place)")
    parser.add_argument("--stop-at", default="")
    parser.add_argument("--barrier", default="")
    o = parser.parse_args()

    def between(step: str) -> None:
        print(f"step {step}", flush=True)
        if step == o.stop_at:
            print("stopped", flush=True)
            while True:  # until killed, the transaction open (for the steps inside it)
                time.sleep(1)

    if o.barrier:
        print("ready", flush=True)
        while not Path(o.barrier).exists():
            time.sleep(0.01)
    answer: dict[str, Any]
    if o.what == "end":
        ended = do_end_season(o.id, between=between)
        answer = {"ended": None if ended is None else ended.to_json()}
    else:
        answer = {"placed": [p.entry_id for p in do_place_newcomers(o.id, between=between)]}
    print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
