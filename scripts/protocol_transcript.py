"""Print a complete transcript of a short real game over the bot protocol (docs/protocol.md).

    .venv/bin/python scripts/protocol_transcript.py [--seed N] > transcript.md

Starts a gateway in this process (in-process relay, a fixed token instead of the
database), runs the SDK's example HeuristicBot as a separate process with
``--transcript``, and plays simple games against the house ``random`` bot until one ends
within a few turns; prints every message of that game in both directions, in protobuf
text format, as the SDK wrote them.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
TOKEN = "aat_transcript-demo-token"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-turns", type=int, default=3)
    parser.add_argument("--tries", type=int, default=60)
    args = parser.parse_args()

    import django

    django.setup()
    from arena.adapters.gateway import Gateway, GatewayConfig, GatewayThread, StaticAuthenticator
    from arena.adapters.relay.local import InProcessRelay
    from arena.adapters.runner import HouseSeat, RemoteSeat, TimeControl, run_match
    from arena.services.bots import BotIdentity
    from referee import GameConfig

    relay = InProcessRelay()
    auth = StaticAuthenticator({TOKEN: BotIdentity("42", "heuristic-demo")})
    # The gateway's defaults (heartbeat every 10 s), as Welcome.limits states them live.
    gateway = GatewayThread(Gateway(GatewayConfig(), relay, auth))
    port = gateway.start()
    transcript = Path(tempfile.mkdtemp()) / "transcript.txt"
    bot = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "avenue_sdk",
            "run",
            "avenue_sdk.examples.heuristic_bot:HeuristicBot",
        ]
        + ["--arena", f"127.0.0.1:{port}", "--token", TOKEN, "--transcript", str(transcript)],
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )
    chosen = None
    try:
        while not relay.is_connected("42"):
            time.sleep(0.05)
        for seed in range(1, args.tries + 1):
            outcome = run_match(
                [RemoteSeat("42", "heuristic-demo", relay), HouseSeat("random", seed)],
                GameConfig.for_seats(2, "simple", first_team=0),
                seed,
                # ids as a league gives them: "<match>.<attempt>", the replay under "<match>"
                match_id=f"{seed}.1",
                replay_id=str(seed),
                time_control=TimeControl(5_000, 60_000),
                reconnect_grace_s=30.0,  # a league's default
            )
            if outcome.result is not None and outcome.result.turns <= args.max_turns:
                chosen = outcome
                break
    finally:
        time.sleep(0.3)
        bot.terminate()
        bot.wait(10)
        gateway.stop()
    if chosen is None:
        print(f"no game within {args.max_turns} turns in {args.tries} tries", file=sys.stderr)
        return 1
    blocks = re.split(r"\n(?=# +[\d.]+ s  )", transcript.read_text().strip())
    keep = [b for b in blocks if f'"{chosen.match_id}"' in b or "hello {" in b or "welcome {" in b]
    r = chosen.result
    assert r is not None
    print(
        f"Match `{chosen.match_id}` (attempt 1 of match {chosen.replay_id}, replay_id "
        f"`{chosen.replay_id}`): the SDK's HeuristicBot (seat 0, team A) against the house "
        f"`random` bot (seat 1, team B), simple mode; team {'AB'[r.winner]} wins by "
        f"{r.reason.value} after {r.turns} turns. {len(chosen.record.decisions)} decisions, "
        f"{chosen.seats[0].decisions} of them asked of the remote bot.\n"
    )
    print("```")
    print("\n\n".join(b.rstrip() for b in keep))
    print("```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
