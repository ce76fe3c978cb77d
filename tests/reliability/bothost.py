"""Several SDK bots in one process, one ``avenue_sdk.Client`` per thread (each its own gRPC
channel, so its own TCP connection), for the load and fault runs (``loadrig.py``).

    python tests/reliability/bothost.py BOTS.json

``BOTS.json`` is a list of ``{"name": ..., "arena": "127.0.0.1:PORT", "token": ...}``, with
an optional ``"think_ms"`` (each answer waits that long: games that last, so that a fault
hits decisions in flight). Every bot plays ``RandomBot`` and reconnects quickly (backoff
0.2 s .. 2 s). SIGTERM or SIGINT stops them all; SIGKILL is how the fault run drops their
connections. $BOTHOST_LOG_LEVEL sets the log level (default WARNING).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.client import Client
from avenue_sdk.examples.random_bot import RandomBot

#: matches a bot plays at once: in a 4-seat league a round gives each bot 6 matches (3
#: team splits of its group of 4, each a mirrored pair), queued next to each other
MAX_MATCHES = 6


class ThinkingBot(RandomBot):
    def __init__(self, think_ms: float) -> None:
        super().__init__()
        self.think_s = think_ms / 1000

    def decide(self, request: pb.DecisionRequest) -> int:
        time.sleep(self.think_s)
        return super().decide(request)


def main() -> int:
    logging.basicConfig(
        level=os.environ.get("BOTHOST_LOG_LEVEL", "WARNING"),
        format="%(asctime)s %(levelname)s %(threadName)s %(message)s",
    )
    specs = json.loads(Path(sys.argv[1]).read_text())
    clients = [
        Client(
            ThinkingBot(float(s["think_ms"])) if s.get("think_ms") else RandomBot(),
            s["arena"],
            s["token"],
            max_matches=MAX_MATCHES,
            min_backoff=0.2,
            max_backoff=2.0,
        )
        for s in specs
    ]
    done = threading.Event()

    def stop(*_: object) -> None:
        done.set()
        for c in clients:
            c.stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    threads = [
        threading.Thread(target=c.run, name=s["name"], daemon=True)
        for c, s in zip(clients, specs, strict=True)
    ]
    for t in threads:
        t.start()
    print(f"bothost: {len(clients)} bots started", flush=True)
    while not done.wait(0.5):
        pass
    for t in threads:
        t.join(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
