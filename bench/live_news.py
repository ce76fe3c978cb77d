"""How long a live match's news takes to wake the streams of its watchers, beside the floor
of its design measured in the same run.

    REDIS_URL=redis://127.0.0.1:6379/7 .venv/bin/python bench/live_news.py [--n 500]

1. the arena's path: ``arena.services.livenews.announce([match])`` in one thread (as the
   live writer does after each write of decisions) until ``Listener.wait`` returns in
   another (as ``leaderboard.live_stream`` waits), over the deployed cache's Redis;
2. the floor: the same hop with minimal code, one redis-py ``PUBLISH`` on a channel and a
   subscriber's ``get_message(timeout=...)``, on the same Redis.

Both in turns (rounds of each, so the machine's load falls on both alike), from the
moment the announcing thread is about to publish to the moment the listener's wait
returns. Printed: median and p95 of each, and the ratio of the medians. What it leaves
out: the live writer batches decisions for at most ``live.WRITE_EVERY_S`` (0.1 s) before
it writes and announces, and a stream then reads the decisions and re-simulates the game
so far to build its event.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from collections.abc import Callable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

import redis  # noqa: E402
from django.conf import settings  # noqa: E402

from arena.services import livenews  # noqa: E402


def hop(fire: Callable[[], None], wait: Callable[[], bool], n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = [0.0]
        ready = threading.Event()
        t = threading.Thread(target=_announce, args=(ready, started, fire))
        t.start()
        ready.set()
        assert wait(), "no news within 5 s"
        out.append(time.perf_counter() - started[0])
        t.join()
    return out


def _announce(ready: threading.Event, started: list[float], fire: Callable[[], None]) -> None:
    ready.wait()
    time.sleep(0.002)  # the listener is in its wait
    started[0] = time.perf_counter()
    fire()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=500, help="hops of each kind")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not os.environ.get("REDIS_URL"):
        raise SystemExit("set REDIS_URL: the news travel over Redis in distributed mode")
    match = 990_001
    arena, floor = [], []
    client = redis.Redis.from_url(settings.REDIS_URL)
    sub = client.pubsub(ignore_subscribe_messages=True)
    sub.subscribe("bench:live-news")
    sub.get_message(timeout=1.0)  # the subscription's confirmation
    with livenews.listen(match) as listener:
        listener.wait(0.05)
        per_round = max(1, args.n // args.rounds)
        for r in range(args.rounds):
            arena += hop(lambda: livenews.announce([match]), lambda: listener.wait(5.0), per_round)
            floor += hop(
                lambda: client.publish("bench:live-news", b"1"),
                lambda: sub.get_message(timeout=5.0) is not None,
                per_round,
            )
            print(f"round {r + 1}/{args.rounds}: {len(arena)} hops of each", flush=True)
    sub.close()

    def show(name: str, xs: list[float]) -> float:
        xs = sorted(xs)
        med = statistics.median(xs)
        print(f"{name:<40} median {med * 1e3:6.3f} ms  p95 {xs[int(0.95 * len(xs))] * 1e3:6.3f} ms")
        return med

    a = show("arena: announce -> Listener.wait", arena)
    f = show("floor: PUBLISH -> get_message", floor)
    print(f"ratio of the medians (arena / floor): {a / f:.2f}x")


if __name__ == "__main__":
    main()
