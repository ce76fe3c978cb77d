"""Decision round trip through the whole path, beside its two ingredients measured raw.

    .venv/bin/python bench/relay_latency.py [--decisions 5000]

1. raw Redis: PING round trips from a synchronous client;
2. raw gRPC: a bidirectional stream ping-pong with an asyncio server in another process
   and a synchronous client feeding its stream from a queue (as the SDK does);
3. the relay alone: the runner's request through Redis to a gateway process's relay and
   straight back (no gRPC, no bot), to show where the time goes;
4. the whole path: runner (this process) -> Redis relay -> gateway (another process) ->
   SDK bot (two more processes, the example RandomBot) -> back, twice: as the runner waits
   for it (its wall time around each remote decision) and as the bot is charged (the
   gateway's measure, from writing the request to the stream to reading the answer, as
   the replay records it); whole games of two remote bots until enough decisions were
   asked.

Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/0), no database: the gateway
knows the two bench bots from a fixed token table. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import queue
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
TOKENS = {"aat_bench-alice": ("1", "alice"), "aat_bench-bob": ("2", "bob")}
ECHO = "/bench.Echo/Stream"


def stats(values: Sequence[float]) -> dict[str, float]:
    ordered = sorted(values)

    def pct(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {
        "n": len(ordered),
        "p50": pct(0.50),
        "p90": pct(0.90),
        "p99": pct(0.99),
        "mean": statistics.fmean(ordered),
    }


# --- helper processes -------------------------------------------------------------------------


def serve_echo() -> None:
    import grpc

    async def main() -> None:
        async def stream(requests, context):  # type: ignore[no-untyped-def]
            async for item in requests:
                yield item

        server = grpc.aio.server()
        handler = grpc.stream_stream_rpc_method_handler(
            stream, request_deserializer=bytes, response_serializer=bytes
        )
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("bench.Echo", {"Stream": handler}),)
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(port, flush=True)
        await server.wait_for_termination()

    asyncio.run(main())


def serve_gateway(prefix: str) -> None:
    import django

    django.setup()
    from arena.gateway import Gateway, GatewayConfig, StaticAuthenticator, serve
    from arena.relay.redis import RedisGatewayRelay
    from arena.services.bots import BotIdentity

    auth = StaticAuthenticator({t: BotIdentity(*who) for t, who in TOKENS.items()})
    gateway = Gateway(GatewayConfig(), RedisGatewayRelay(REDIS_URL, prefix), auth)
    asyncio.run(
        serve("127.0.0.1:0", gateway, ready=lambda p: print(p, flush=True), handle_signals=True)
    )


def serve_relay_echo(prefix: str) -> None:
    """A gateway's relay side with no gRPC: a fake bot that answers every request."""
    import django

    django.setup()
    from arena.relay.base import Delivery, Inbound, InboundKind
    from arena.relay.redis import RedisGatewayRelay

    async def main() -> None:
        relay = RedisGatewayRelay(REDIS_URL, prefix)
        await relay.start()
        loop = asyncio.get_running_loop()

        class Echo:
            def deliver(self, d: Delivery) -> None:
                answer = Inbound(InboundKind.ACTION, "echo", d.match_id, d.seq, b"")
                loop.create_task(relay.send_inbound(answer))

            def supersede(self, reason: str) -> None:
                pass

        await relay.attach("echo", Echo(), 1)
        print(0, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def spawn(args: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


# --- measurements -----------------------------------------------------------------------------


def raw_redis(n: int) -> list[float]:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    client.ping()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        client.ping()
        out.append((time.perf_counter() - t) * 1000)
    client.close()
    return out


def raw_grpc(n: int) -> list[float]:
    import grpc

    proc, port = spawn([__file__, "--role", "echo"])
    try:
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        call = channel.stream_stream(ECHO, request_serializer=bytes, response_deserializer=bytes)
        outgoing: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        replies: Iterator[bytes] = call(iter(outgoing.get, None))
        payload = b"x" * 24  # about an Action's size
        for _ in range(200):  # warm up
            outgoing.put(payload)
            next(replies)
        out = []
        for _ in range(n):
            t = time.perf_counter()
            outgoing.put(payload)
            next(replies)
            out.append((time.perf_counter() - t) * 1000)
        outgoing.put(None)
        channel.close()
        return out
    finally:
        proc.terminate()
        proc.wait(5)


def relay_only(n: int) -> list[float]:
    import django

    django.setup()
    from arena.relay.base import Delivery, DeliveryKind, DropCounts
    from arena.relay.redis import RedisRunnerRelay

    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    proc, _ = spawn([__file__, "--role", "relay-echo", "--prefix", prefix])
    relay = RedisRunnerRelay(REDIS_URL, prefix)
    try:
        relay.open_match("m")
        payload = b"x" * 400  # about a DecisionRequest's size
        out = []
        for seq in range(1, n + 201):
            t = time.perf_counter()
            got = relay.request(
                "echo",
                Delivery(DeliveryKind.REQUEST, "m", seq, payload),
                time.monotonic() + 5,
                DropCounts(),
            )
            assert got is not None and got.seq == seq
            if seq > 200:  # after a warm-up
                out.append((time.perf_counter() - t) * 1000)
        return out
    finally:
        proc.terminate()
        proc.wait(5)
        relay.close()


def whole_path(n: int) -> tuple[list[float], list[float], float, int]:
    import django

    django.setup()
    from arena.relay.redis import RedisRunnerRelay
    from arena.runner import RemoteSeat, TimeControl, run_match
    from referee import GameConfig

    walls: list[float] = []

    class TimedSeat(RemoteSeat):
        def ask(self, ctx, seat, ask):  # type: ignore[no-untyped-def]
            t = time.perf_counter()
            try:
                return super().ask(ctx, seat, ask)
            finally:
                walls.append((time.perf_counter() - t) * 1000)

    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    gateway, port = spawn([__file__, "--role", "gateway", "--prefix", prefix])
    bots = []
    relay = RedisRunnerRelay(REDIS_URL, prefix)
    try:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        for token in TOKENS:
            argv = ["-m", "avenue_sdk", "run", "avenue_sdk.examples.random_bot:RandomBot"]
            argv += ["--arena", f"127.0.0.1:{port}", "--token", token]
            bots.append(
                subprocess.Popen(
                    [sys.executable, *argv], cwd=ROOT, env=env, stderr=subprocess.DEVNULL
                )
            )
        while not all(relay.is_connected(bot_id) for bot_id, _ in TOKENS.values()):
            time.sleep(0.05)
        seats = [TimedSeat(bot_id, name, relay) for bot_id, name in TOKENS.values()]
        latencies: list[float] = []
        games = 0
        started = time.perf_counter()
        while len(latencies) < n:
            outcome = run_match(
                seats if games % 2 == 0 else seats[::-1],
                GameConfig.for_seats(2, "simple"),
                games,
                match_id=f"{prefix}-{games}",
                time_control=TimeControl(10_000, 10_000),
            )
            assert not outcome.faults, outcome.to_json()
            latencies += [d.latency_ms for d in outcome.record.decisions if d.latency_ms]
            games += 1
        elapsed = time.perf_counter() - started
        return latencies, walls, len(latencies) / elapsed, games
    finally:
        for bot in bots:
            bot.terminate()
            bot.wait(10)
        gateway.terminate()
        gateway.wait(10)
        relay.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=5000)
    parser.add_argument("--role", choices=["echo", "gateway", "relay-echo"], help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "echo":
        serve_echo()
        return 0
    if args.role == "relay-echo":
        serve_relay_echo(args.prefix)
        return 0
    if args.role == "gateway":
        serve_gateway(args.prefix)
        return 0

    n = args.decisions
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    redis_ms = stats(raw_redis(n))
    grpc_ms = stats(raw_grpc(n))
    relay_ms = stats(relay_only(n))
    path, walls, rate, games = whole_path(n)
    path_ms = stats(walls)
    charged_ms = stats(path)
    print(f"{'round trip (ms)':<44}{'n':>7}{'p50':>9}{'p90':>9}{'p99':>9}{'mean':>9}")
    for label, s in [
        ("raw Redis PING", redis_ms),
        ("raw gRPC bidi ping-pong", grpc_ms),
        ("relay only: runner-Redis-gateway loop-back", relay_ms),
        ("decision: runner-relay-gateway-SDK bot-back", path_ms),
        ("  of which charged to the bot (gateway's)", charged_ms),
    ]:
        row = "".join(f"{s[k]:>9.3f}" for k in ("p50", "p90", "p99", "mean"))
        print(f"{label:<44}{s['n']:>7}{row}")
    budget = 2 * (grpc_ms["p50"] + redis_ms["p50"])
    verdict = "met" if path_ms["p50"] <= budget else "NOT met"
    print(
        f"target p50 <= 2 x (raw gRPC + raw Redis) = {budget:.3f} ms: {verdict} "
        f"({path_ms['p50'] / (grpc_ms['p50'] + redis_ms['p50']):.2f} x)"
    )
    print(
        f"charged / runner's wall time, p50: {charged_ms['p50'] / path_ms['p50']:.2f} "
        "(the rest is the arena's: runner, Redis, gateway)"
    )
    print(f"{games} games, {rate:,.0f} remote decisions/s through the whole path, one runner")
    return 0


if __name__ == "__main__":
    sys.exit(main())
