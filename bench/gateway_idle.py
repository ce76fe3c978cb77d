"""One gateway holding many idle bots: its resident memory, and the time to deliver a
decision request to every one of them (and to get every answer back).

    .venv/bin/python bench/gateway_idle.py [--bots 1000]

Three processes: the gateway (Redis relay, default limits, a fixed token table instead of
the database), one process running all the bots (each its own gRPC channel, so its own
TCP connection, answering pings and requests), and this one, the runner side, which
publishes one DecisionRequest to each bot through the relay at once and waits for all the
answers. Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/0). Prints figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


def token(i: int) -> str:
    return f"aat_idle-{i}"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def serve_gateway(prefix: str, bots: int) -> None:
    import django

    django.setup()
    from arena.adapters.gateway import Gateway, GatewayConfig, StaticAuthenticator, serve
    from arena.adapters.relay.redis import RedisGatewayRelay
    from arena.services.bots import BotIdentity

    auth = StaticAuthenticator({token(i): BotIdentity(str(i), f"idle{i}") for i in range(bots)})
    gateway = Gateway(GatewayConfig(), RedisGatewayRelay(REDIS_URL, prefix), auth)
    asyncio.run(
        serve("127.0.0.1:0", gateway, ready=lambda p: print(p, flush=True), handle_signals=True)
    )


def run_bots(port: int, bots: int) -> None:
    import grpc

    from agent_avenue.v1 import arena_pb2 as pb
    from agent_avenue.v1 import arena_pb2_grpc

    async def bot(i: int) -> None:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        call = arena_pb2_grpc.BotArenaStub(channel).Connect(
            metadata=[("authorization", f"Bearer {token(i)}")]
        )
        await call.write(pb.BotMessage(hello=pb.Hello(protocol_version=1, bot_version="idle")))
        async for message in call:
            kind = message.WhichOneof("kind")
            if kind == "ping":
                await call.write(pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce)))
            elif kind == "decision_request":
                r = message.decision_request
                action = pb.Action(match_id=r.match_id, seq=r.seq, choice_index=0)
                await call.write(pb.BotMessage(action=action))

    async def main() -> None:
        tasks = []
        for i in range(bots):
            tasks.append(asyncio.create_task(bot(i)))
            if i % 50 == 49:
                await asyncio.sleep(0.05)  # do not open a thousand connections in one burst
        await asyncio.gather(*tasks)

    asyncio.run(main())


def pack_delivery(match_id: str, payload: bytes) -> bytes:
    """What ``RedisRunnerRelay.deliver`` publishes for a request."""
    from arena.adapters.relay.redis import _pack

    return _pack({"t": "d", "k": "request", "m": match_id, "s": 7}, payload)


def sample_request(match_id: str) -> bytes:
    """A realistic DecisionRequest (a mid-game advanced observation, with its history)."""
    from avenue_sdk.protocol import convert
    from referee import GameConfig, apply, legal_actions, new_game
    from referee.observation import observe

    state = new_game(GameConfig.for_seats(2, "advanced"), 3)
    for _ in range(6):
        state = apply(state, legal_actions(state)[-1])
    return convert.decision_request(
        match_id=match_id,
        seq=7,
        obs=observe(state, state.actor),
        first_team=0,
        legal=legal_actions(state),
        history_start=0,
        decision_ms=5000,
        bank_ms=60000,
        previous_latency_ms=1.0,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument(
        "--sequential", action="store_true", help="publish one by one instead of in one batch"
    )
    parser.add_argument("--role", choices=["gateway", "bots"], help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "gateway":
        serve_gateway(args.prefix, args.bots)
        return 0
    if args.role == "bots":
        run_bots(args.port, args.bots)
        return 0

    import django

    django.setup()
    import redis

    from arena.adapters.relay.base import Delivery, DeliveryKind
    from arena.adapters.relay.redis import RedisRunnerRelay, decode_inbound

    n = args.bots
    prefix = f"bench-idle-{uuid.uuid4().hex[:8]}"
    gateway = subprocess.Popen(
        [sys.executable, __file__, "--role", "gateway", "--prefix", prefix, "--bots", str(n)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert gateway.stdout is not None
    port = int(gateway.stdout.readline())
    time.sleep(0.5)
    empty_mb = rss_mb(gateway.pid)
    started = time.perf_counter()
    bots = subprocess.Popen(
        [sys.executable, __file__, "--role", "bots", "--port", str(port), "--bots", str(n)],
        cwd=ROOT,
    )
    client = redis.Redis.from_url(REDIS_URL)
    relay = RedisRunnerRelay(REDIS_URL, prefix)
    try:
        while client.hlen(f"{prefix}:presence") < n:  # type: ignore[operator]
            assert bots.poll() is None and gateway.poll() is None, "a process died"
            time.sleep(0.1)
        connect_s = time.perf_counter() - started
        time.sleep(1.0)
        idle_mb = rss_mb(gateway.pid)

        match_id = f"{prefix}-fanout"
        relay.open_match(match_id)
        payload = sample_request(match_id)
        t0 = time.perf_counter()
        if args.sequential:  # as one runner would, one request after the other
            for i in range(n):
                assert relay.deliver(str(i), Delivery(DeliveryKind.REQUEST, match_id, 7, payload))
        else:  # as many runners would, all at once
            pipe = client.pipeline(transaction=False)
            for i in range(n):
                pipe.publish(relay.keys.bot(str(i)), pack_delivery(match_id, payload))
            assert all(pipe.execute())
        published = time.perf_counter() - t0
        arrivals: list[float] = []
        inbox = relay.keys.inbox(match_id)
        while len(arrivals) < n:
            item = client.blpop([inbox], timeout=30)
            assert item is not None, f"only {len(arrivals)} answers"
            decode_inbound(item[1])  # type: ignore[index]
            arrivals.append(time.perf_counter() - t0)
        busy_mb = rss_mb(gateway.pid)
    finally:
        bots.terminate()
        bots.wait(10)
        gateway.terminate()
        gateway.wait(10)
        relay.close()
        keys = list(client.scan_iter(f"{prefix}:*"))
        if keys:
            client.delete(*keys)
        client.close()
    arrivals.sort()
    print(f"{n} bots connected to one gateway in {connect_s:.1f} s")
    print(
        f"gateway resident memory: {empty_mb:.0f} MB empty, {idle_mb:.0f} MB with {n} idle "
        f"bots ({(idle_mb - empty_mb) * 1024 / n:.0f} kB per bot), {busy_mb:.0f} MB after the "
        f"fan-out; target <= 300 MB: {'met' if max(idle_mb, busy_mb) <= 300 else 'NOT met'}"
    )
    print(
        f"one request ({len(payload)} bytes) to each of {n} bots: published "
        f"{'one by one' if args.sequential else 'in one batch'} in "
        f"{published * 1000:.0f} ms; every answer back after {arrivals[-1] * 1000:.0f} ms "
        f"(half of them after {arrivals[n // 2] * 1000:.0f} ms)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
