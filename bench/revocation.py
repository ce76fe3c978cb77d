"""How long a revoked token's stream lives on: two gateways over one Redis, bots
connected to both, each bot's token revoked in turn (``arena.adapters.relay.revocation``), the
time from the announcement to the bot seeing its stream end.

    .venv/bin/python bench/revocation.py [--bots 40]

Baseline in the same run: a relay delivery (a runner publishes a MatchStarted; the time
until the bot has read it), the path a notice takes too. Needs Redis (REDIS_URL, default
redis://127.0.0.1:6379/0); the gateways run in threads of this process with a fixed
token table. Prints median, p95 and max of each, and the ratio of the medians.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
os.environ["RELAY_PREFIX"] = f"bench-revoke-{uuid.uuid4().hex[:8]}"


class Bot:
    """A raw stream: Hello, pongs, and the time of every message read."""

    def __init__(self, port: int, token: str) -> None:
        import grpc

        from agent_avenue.v1 import arena_pb2 as pb
        from agent_avenue.v1 import arena_pb2_grpc

        self.pb = pb
        self.out: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.out.put(pb.BotMessage(hello=pb.Hello(protocol_version=1, bot_version="bench")))
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.call = arena_pb2_grpc.BotArenaStub(self.channel).Connect(
            iter(self.out.get, None), metadata=[("authorization", f"Bearer {token}")]
        )
        self.seen: dict[str, float] = {}
        self.welcomed = threading.Event()
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for message in self.call:
                kind = message.WhichOneof("kind")
                self.seen.setdefault(kind, time.perf_counter())
                if kind == "welcome":
                    self.welcomed.set()
                elif kind == "ping":
                    self.out.put(self.pb.BotMessage(pong=self.pb.Pong(nonce=message.ping.nonce)))
        except Exception:  # noqa: BLE001 - the end of the stream is what we time
            pass
        self.seen["end"] = time.perf_counter()
        self.ended.set()
        self.out.put(None)


def quantiles(xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    return f"median {statistics.median(xs):.2f} ms, p95 {p95:.2f} ms, max {xs[-1]:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=40)
    args = parser.parse_args()
    import django

    django.setup()
    import redis
    from django.conf import settings

    from agent_avenue.v1 import arena_pb2 as pb
    from arena.adapters.gateway import Gateway, GatewayConfig, GatewayThread, StaticAuthenticator
    from arena.adapters.relay.base import Delivery, DeliveryKind
    from arena.adapters.relay.redis import RedisGatewayRelay, RedisRunnerRelay
    from arena.adapters.relay.revocation import announce_revoked
    from arena.services.bots import BotIdentity

    url, prefix = str(settings.REDIS_URL), str(settings.RELAY_PREFIX)
    tokens = {f"aat_bench-{i}": BotIdentity(str(i), f"b{i}") for i in range(args.bots)}
    threads = [
        GatewayThread(
            Gateway(GatewayConfig(), RedisGatewayRelay(url, prefix), StaticAuthenticator(tokens))
        )
        for _ in range(2)
    ]
    ports = [t.start(30) for t in threads]
    runner = RedisRunnerRelay(url, prefix)
    try:
        bots = [Bot(ports[i % 2], tok) for i, tok in enumerate(tokens)]
        for b in bots:
            assert b.welcomed.wait(30), "a bot got no Welcome"
        deadline = time.monotonic() + 30
        while not all(runner.is_connected(str(i)) for i in range(args.bots)):
            assert time.monotonic() < deadline, "bots not attached"
            time.sleep(0.01)
        started = pb.ArenaMessage(match_started=pb.MatchStarted(match_id="bench"))
        deliveries, revocations = [], []
        for i, b in enumerate(bots):
            t0 = time.perf_counter()
            payload = started.SerializeToString()
            runner.deliver(str(i), Delivery(DeliveryKind.STARTED, "bench", 0, payload))
            while "match_started" not in b.seen:
                time.sleep(0.0002)
            deliveries.append((b.seen["match_started"] - t0) * 1000)
            t0 = time.perf_counter()
            announce_revoked(str(i), "bench")
            assert b.ended.wait(30), "a revoked stream stayed open"
            revocations.append((b.seen["end"] - t0) * 1000)
        print(f"{args.bots} bots over 2 gateways, one Redis ({url})")
        print(f"delivery (baseline):      {quantiles(deliveries)}")
        print(f"revocation to stream end: {quantiles(revocations)}")
        ratio = statistics.median(revocations) / statistics.median(deliveries)
        print(f"ratio of medians (revocation / delivery): {ratio:.1f}")
    finally:
        runner.close()
        for t in threads:
            t.stop()
        client = redis.Redis.from_url(url)
        keys = list(client.scan_iter(f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        client.close()


if __name__ == "__main__":
    main()
