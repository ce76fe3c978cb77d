"""Decision round trip through the whole path, beside its two ingredients measured raw.

    .venv/bin/python bench/relay_latency.py [--decisions 6000] [--rounds 3]

Six measurements, taken in turns (``--rounds`` rounds of each, ``--decisions`` / rounds
round trips per round) so that the machine's load falls on all of them alike; every
helper process is started once, before the first round:

1. the whole path: runner (this process) -> relay -> gateway (another process) -> SDK
   bot (two more processes, the example RandomBot) -> back; whole simple games of two
   remote bots. Twice, round after round, against the same gateway: as deployed, the
   runner writing to the gateway's direct lane (``arena.adapters.relay.direct``, the default), and
   with the runner's lanes turned off, every message through Redis (as before the
   lanes). Each asked decision is timed as the runner waits for it: from where the runner
   starts on it (computing the asked seat's observation, right after finding that the
   decision has more than one legal choice) to the moment it holds the parsed, checked
   answer (``RemoteSeat.ask`` returns): building the request, both hops between runner
   and gateway, the gateway, the bot, reading the answer, all in. Also printed: the part the bot is
   charged (the gateway's measure, from writing the request to the stream to reading the
   answer, as the replay records it);
2. raw Redis: PING round trips from a synchronous client;
3. raw gRPC: a bidirectional-stream ping-pong of the same sizes, between an asyncio
   server in another process and two clients in turn: a synchronous one feeding its
   stream from a queue (as the SDK did up to issue 14) and a grpc.aio one writing and
   reading on its event loop (as the SDK does now); each sends the very request payloads
   the whole path sent in that round, the server answers each with as many bytes as the
   bot's median answer. The target's baseline is the faster of the two (by p50). As an
   aside (not the target's baseline), the grpc.aio client once more with both ends idle
   before each round trip as long as the whole path's mean decision: a bot of the whole
   path idles between two of its decisions, and a process that idles wakes slower than
   one in a tight ping-pong (on this machine kind 226 µs hot, ~300 µs paused);
4. the relay alone: the runner's request (same payloads) to a gateway process's relay and
   straight back (no gRPC, no bot), through Redis and on a direct lane, to show where the
   time goes;
5. the topology floor (``bench/relay_floor.py``): the whole path's processes and hops
   (blocking TCP client -> asyncio relay process -> grpc.aio -> bot process -> back) with
   minimal code at every hop, the same payloads: how far the arena's code is from its own
   topology's floor ("whole path / floor");
6. the like-for-like floor (``relay_floor.LikeForLike``): the same minimal code, but as
   the whole path is shaped: two bot processes answering in turn as the two seats of a
   match, and a runner that plays whole games with the referee engine between and around
   its decisions (legal actions, apply, the asked seat's observation inside the clock),
   started once like the whole path's processes. "whole / floor-like" says how far the
   arena's code is from the floor of its own design, "floor-like / raw" where that floor
   stands against the target's baseline.

Statistic: percentiles of all round trips of a kind, over all rounds; the target and every
ratio compare p50 with p50. Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/0), no
database: the gateway knows the two bench bots from a fixed token table. Prints figures;
asserts nothing.

Why one file of this length: the whole path and both baselines are measured in one
run, so that their ratio compares like with like.
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
from dataclasses import dataclass, field
from pathlib import Path

import relay_floor

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
TOKENS = {"aat_bench-alice": ("1", "alice"), "aat_bench-bob": ("2", "bob")}
ECHO = "/bench.Echo/Stream"
WARM_UP = 200


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


def serve_echo(reply_bytes: int) -> None:
    """gRPC: answer every message with ``reply_bytes`` bytes (an answer's size)."""

    async def main() -> None:
        async def stream(requests, context):  # type: ignore[no-untyped-def]
            reply = b"a" * reply_bytes
            async for _ in requests:
                yield reply

        server, port = await relay_floor.bytes_server("bench.Echo", "Stream", stream)
        print(port, flush=True)
        await server.wait_for_termination()

    asyncio.run(main())


def direct_config():  # type: ignore[no-untyped-def]
    from django.conf import settings

    from arena.adapters.relay.redis_gateway import DirectConfig

    return DirectConfig("127.0.0.1:0", str(settings.SECRET_KEY))


def serve_gateway(prefix: str) -> None:
    import django

    django.setup()
    from arena.adapters.gateway import Gateway, GatewayConfig, StaticAuthenticator, serve
    from arena.adapters.relay.redis import RedisGatewayRelay
    from arena.services.bots import BotIdentity

    auth = StaticAuthenticator({t: BotIdentity(*who) for t, who in TOKENS.items()})
    relay = RedisGatewayRelay(REDIS_URL, prefix, direct=direct_config())
    gateway = Gateway(GatewayConfig(), relay, auth)
    asyncio.run(
        serve("127.0.0.1:0", gateway, ready=lambda p: print(p, flush=True), handle_signals=True)
    )


def serve_relay_echo(prefix: str, reply_bytes: int) -> None:
    """A gateway's relay side with no gRPC: a fake bot that answers every request."""
    import django

    django.setup()
    from arena.adapters.relay.base import Delivery, DeliveryKind, Inbound, InboundKind
    from arena.adapters.relay.redis import RedisGatewayRelay

    async def main() -> None:
        relay = RedisGatewayRelay(REDIS_URL, prefix, direct=direct_config())
        await relay.start()
        loop = asyncio.get_running_loop()
        reply = b"a" * reply_bytes

        class Echo:
            def deliver(self, d: Delivery) -> None:
                if d.kind is DeliveryKind.REQUEST:
                    answer = Inbound(InboundKind.ACTION, "echo", d.match_id, d.seq, reply)
                    loop.create_task(relay.send_inbound(answer))

            def supersede(self, reason: str) -> None:
                pass

            def revoke(self, reason: str) -> None:
                pass

            def notice(self, payload: bytes) -> None:
                pass

        await relay.attach("echo", Echo(), 1)
        print(0, flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def spawn(args: list[str], env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int]:
    proc, ports = relay_floor.spawn(args, env)
    return proc, ports[0]


stop = relay_floor.stop


# --- measurements -----------------------------------------------------------------------------


@dataclass
class Sent:
    """What the whole path carried: the requests' payloads and the answers' sizes."""

    requests: list[bytes] = field(default_factory=list)
    answers: list[int] = field(default_factory=list)

    def answer_bytes(self) -> int:
        return int(statistics.median(self.answers)) if self.answers else 16


def raw_redis(n: int) -> list[float]:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    for _ in range(WARM_UP):
        client.ping()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        client.ping()
        out.append((time.perf_counter() - t) * 1000)
    client.close()
    return out


def raw_grpc(n: int, sent: Sent, pause_s: float) -> tuple[list[float], list[float], list[float]]:
    """(synchronous client, grpc.aio client, grpc.aio client idle ``pause_s`` between round
    trips): ``n`` round trips each, on one echo server."""
    proc, port = spawn([__file__, "--role", "echo", "--reply-bytes", str(sent.answer_bytes())])
    try:
        return (
            raw_grpc_sync(n, sent, port),
            asyncio.run(raw_grpc_aio(n, sent, port)),
            asyncio.run(raw_grpc_aio(n, sent, port, pause_s)),
        )
    finally:
        stop(proc)


def raw_grpc_sync(n: int, sent: Sent, port: int) -> list[float]:
    """A synchronous client feeding its stream from a queue (as the SDK did up to issue 14)."""
    import grpc

    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    call = channel.stream_stream(ECHO, request_serializer=bytes, response_deserializer=bytes)
    outgoing: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
    replies: Iterator[bytes] = call(iter(outgoing.get, None))
    payloads = sent.requests
    out = []
    for i in range(n + WARM_UP):
        payload = payloads[i % len(payloads)]
        t = time.perf_counter()
        outgoing.put(payload)
        next(replies)
        if i >= WARM_UP:
            out.append((time.perf_counter() - t) * 1000)
    outgoing.put(None)
    channel.close()
    return out


async def raw_grpc_aio(n: int, sent: Sent, port: int, pause_s: float = 0.0) -> list[float]:
    """A grpc.aio client writing and reading on its event loop (as the SDK does); with
    ``pause_s``, both ends idle that long before each round trip (``time.sleep``: the
    loop's timers are too coarse), as a bot and its gateway are between two decisions."""
    import grpc

    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stream = channel.stream_stream(ECHO, request_serializer=bytes, response_deserializer=bytes)
        call = stream()
        payloads = sent.requests
        out = []
        for i in range(n + WARM_UP):
            payload = payloads[i % len(payloads)]
            if pause_s:
                time.sleep(pause_s)
            t = time.perf_counter()
            await call.write(payload)
            await call.read()
            if i >= WARM_UP:
                out.append((time.perf_counter() - t) * 1000)
        await call.done_writing()
        return out


def relay_only(n: int, sent: Sent, direct: bool) -> list[float]:
    from arena.adapters.relay.base import Delivery, DeliveryKind, DropCounts
    from arena.adapters.relay.redis import RedisRunnerRelay

    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    args = ["--role", "relay-echo", "--prefix", prefix, "--reply-bytes", str(sent.answer_bytes())]
    proc, _ = spawn([__file__, *args])
    relay = RedisRunnerRelay(REDIS_URL, prefix, direct=direct)
    try:
        relay.open_match("m")
        # as a match starts: its MatchStarted goes to the bot (on the lane, when direct)
        assert relay.deliver("echo", Delivery(DeliveryKind.STARTED, "m", 0, b""))
        payloads = sent.requests
        out = []
        for seq in range(1, n + WARM_UP + 1):
            delivery = Delivery(DeliveryKind.REQUEST, "m", seq, payloads[seq % len(payloads)])
            t = time.perf_counter()
            got = relay.request("echo", delivery, time.monotonic() + 5, DropCounts())
            assert got is not None and got.seq == seq
            if seq > WARM_UP:
                out.append((time.perf_counter() - t) * 1000)
        relay.close_match("m")
        return out
    finally:
        stop(proc)
        relay.close()


class WholePath:
    """A gateway and two SDK bots, started once; ``play`` plays games until ``n`` more
    remote decisions were asked."""

    def __init__(self) -> None:
        import django

        django.setup()
        import arena.adapters.runner.match as runner_match
        from arena.adapters.relay.redis import RedisRunnerRelay
        from arena.adapters.runner import RemoteSeat

        self.prefix = f"bench-{uuid.uuid4().hex[:8]}"
        self.gateway, port = spawn([__file__, "--role", "gateway", "--prefix", self.prefix])
        self.relay = RedisRunnerRelay(REDIS_URL, self.prefix)
        self.redis_only = RedisRunnerRelay(REDIS_URL, self.prefix, direct=False)
        # the SDK of this tree, not the one installed in the venv (before/after runs)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "sdk"), str(ROOT)])}
        self.bots = []
        for token in TOKENS:
            argv = ["-m", "avenue_sdk", "run", "avenue_sdk.examples.random_bot:RandomBot"]
            argv += ["--arena", f"127.0.0.1:{port}", "--token", token]
            self.bots.append(
                subprocess.Popen(
                    [sys.executable, *argv], cwd=ROOT, env=env, stderr=subprocess.DEVNULL
                )
            )
        while not all(self.relay.is_connected(bot_id) for bot_id, _ in TOKENS.values()):
            time.sleep(0.05)

        bench = self
        self.walls: list[float] = []
        self.sent = Sent()
        self._started_at = 0.0

        # The clock starts where the runner starts on an asked decision: it computes the
        # seat's observation right after finding more than one legal choice.
        observe = runner_match.observe

        def timed_observe(state, seat):  # type: ignore[no-untyped-def]
            bench._started_at = time.perf_counter()
            return observe(state, seat)

        runner_match.observe = timed_observe

        class TimedSeat(RemoteSeat):
            def ask(self, ctx, seat, ask):  # type: ignore[no-untyped-def]
                try:
                    return super().ask(ctx, seat, ask)  # the parsed, checked answer
                finally:
                    bench.walls.append((time.perf_counter() - bench._started_at) * 1000)

            def _request(self, ctx, ask, spent_ms, resent):  # type: ignore[no-untyped-def]
                delivery = super()._request(ctx, ask, spent_ms, resent)
                bench.sent.requests.append(delivery.payload)
                return delivery

            def _read(self, inbound, ask, latency):  # type: ignore[no-untyped-def]
                # as the bot wrote it: a BotMessage around the Action (2 bytes of framing)
                bench.sent.answers.append(len(inbound.payload) + 2)
                return super()._read(inbound, ask, latency)

        self.seats = {
            direct: [TimedSeat(bot_id, name, relay) for bot_id, name in TOKENS.values()]
            for direct, relay in ((True, self.relay), (False, self.redis_only))
        }
        self.games = 0
        self.decisions = 0
        self.elapsed = 0.0

    def play(self, n: int, direct: bool = True) -> tuple[list[float], list[float]]:
        """(runner's waits, what the bots were charged) of at least ``n`` decisions, the
        runner on the gateway's direct lane or (``direct`` False) through Redis alone."""
        from arena.adapters.runner import TimeControl, run_match
        from referee import GameConfig

        del self.walls[:]
        self.sent = Sent()
        charged: list[float] = []
        started = time.perf_counter()
        seats = self.seats[direct]
        while len(self.walls) < n:
            outcome = run_match(
                seats if self.games % 2 == 0 else seats[::-1],
                GameConfig.for_seats(2, "simple"),
                self.games,
                match_id=f"{self.prefix}-{self.games}",
                time_control=TimeControl(10_000, 10_000),
            )
            assert not outcome.faults, outcome.to_json()
            charged += [d.latency_ms for d in outcome.record.decisions if d.latency_ms]
            self.games += 1
        self.elapsed += time.perf_counter() - started
        self.decisions += len(self.walls)
        return list(self.walls), charged

    def close(self) -> None:
        for bot in self.bots:
            stop(bot)
        stop(self.gateway)
        self.relay.close()
        self.redis_only.close()


def referee_engine() -> str:
    import referee

    return str(referee.ENGINE)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=6000, help="of each kind, all rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--role", choices=["echo", "gateway", "relay-echo"], help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    parser.add_argument("--reply-bytes", type=int, default=16, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "echo":
        serve_echo(args.reply_bytes)
        return 0
    if args.role == "relay-echo":
        serve_relay_echo(args.prefix, args.reply_bytes)
        return 0
    if args.role == "gateway":
        serve_gateway(args.prefix)
        return 0

    per_round = max(1, args.decisions // args.rounds)
    print(f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores")
    kinds = ["redis", "grpc", "grpc_aio", "grpc_paused", "relay", "lane", "path", "charged"]
    kinds += ["path_redis", "floor", "floor_like"]
    rows: dict[str, list[float]] = {k: [] for k in kinds}
    medians: dict[str, list[float]] = {k: [] for k in rows}
    whole = WholePath()
    sizes: list[int] = []
    answers: list[int] = []
    pauses: list[float] = []
    like = None
    try:
        whole.play(WARM_UP)
        whole.play(WARM_UP, direct=False)
        like = relay_floor.LikeForLike(whole.sent.answer_bytes())
        like.play(WARM_UP, whole.sent.requests)
        for _ in range(args.rounds):
            walls, charged = whole.play(per_round)
            redis_walls, _ = whole.play(per_round, direct=False)
            sent = whole.sent
            sizes += [len(p) for p in sent.requests]
            answers += sent.answers
            # a bot of the whole path idles about one decision of the other bot between
            # two of its own, its gateway about the runner's share: the mean decision
            pause = statistics.fmean(walls) / 1000
            pauses.append(pause)
            grpc_sync, grpc_aio, grpc_paused = raw_grpc(per_round, sent, pause)
            for key, values in [
                ("path", walls),
                ("charged", charged),
                ("path_redis", redis_walls),
                ("redis", raw_redis(per_round)),
                ("grpc", grpc_sync),
                ("grpc_aio", grpc_aio),
                ("grpc_paused", grpc_paused),
                ("relay", relay_only(per_round, sent, direct=False)),
                ("lane", relay_only(per_round, sent, direct=True)),
                ("floor", relay_floor.floor(per_round, sent.requests, sent.answer_bytes())),
                ("floor_like", like.play(per_round, sent.requests)),
            ]:
                rows[key] += values
                medians[key].append(statistics.median(values))
    finally:
        whole.close()
        if like is not None:
            like.close()
    s = {k: stats(v) for k, v in rows.items()}
    print(
        f"messages: request p50 {statistics.median(sizes):.0f} B (max {max(sizes)}), "
        f"answer p50 {statistics.median(answers):.0f} B"
    )
    print(f"{'round trip (ms)':<46}{'n':>7}{'p50':>9}{'p90':>9}{'p99':>9}{'mean':>9}  p50 by round")
    for label, key in [
        ("raw Redis PING", "redis"),
        ("raw gRPC bidi ping-pong, same sizes, sync", "grpc"),
        ("raw gRPC bidi ping-pong, same sizes, aio", "grpc_aio"),
        ("  the same, idle between round trips (below)", "grpc_paused"),
        ("relay only: runner-Redis-gateway loop-back", "relay"),
        ("relay only: runner-lane-gateway loop-back", "lane"),
        ("topology floor: runner-relay-bot, minimal code", "floor"),
        ("  like for like: 2 bots in turn, engine plays", "floor_like"),
        ("decision: runner-lane-gateway-SDK bot-back", "path"),
        ("  of which charged to the bot (gateway's)", "charged"),
        ("decision, lanes off: runner-Redis-gateway-bot", "path_redis"),
    ]:
        row = "".join(f"{s[key][k]:>9.3f}" for k in ("p50", "p90", "p99", "mean"))
        by_round = " ".join(f"{m:.3f}" for m in medians[key])
        print(f"{label:<46}{s[key]['n']:>7}{row}  {by_round}")
    # the baseline is the faster of the two raw gRPC clients (by p50)
    fast = min(("grpc", "grpc_aio"), key=lambda k: s[k]["p50"])
    raw = s[fast]["p50"] + s["redis"]["p50"]
    raw99 = s[fast]["p99"] + s["redis"]["p99"]
    client = "aio" if fast == "grpc_aio" else "sync"
    print(f"raw gRPC baseline: the {client} client's, the faster p50")
    verdict = "met" if s["path"]["p50"] <= 2 * raw else "NOT met"
    print(
        f"target p50 <= 2 x (raw gRPC + raw Redis) = {2 * raw:.3f} ms: {verdict} "
        f"({s['path']['p50'] / raw:.2f} x; p99 {s['path']['p99'] / raw99:.2f} x)"
    )
    floor = s["floor"]["p50"]
    print(
        f"p50 ratios: whole path / raw {s['path']['p50'] / raw:.2f}, floor / raw "
        f"{floor / raw:.2f}, whole path / floor {s['path']['p50'] / floor:.2f} "
        f"(the arena's own code: {1000 * (s['path']['p50'] - floor):.0f} us a decision)"
    )
    like50 = s["floor_like"]["p50"]
    print(
        f"p50 ratios, like for like: floor-like / raw {like50 / raw:.2f}, whole path / "
        f"floor-like {s['path']['p50'] / like50:.2f} (the arena's own code: "
        f"{1000 * (s['path']['p50'] - like50):.0f} us a decision; the engine: "
        f"{referee_engine()})"
    )
    paused = s["grpc_paused"]["p50"] + s["redis"]["p50"]
    print(
        f"aside, not the target's baseline: raw gRPC aio idle "
        f"{1000 * statistics.fmean(pauses):.2f} ms before each round trip (the whole path's mean "
        f"decision, about what a bot and its gateway idle between two decisions) + raw "
        f"Redis = {paused:.3f} ms; the whole path is {s['path']['p50'] / paused:.2f} x that"
    )
    print(
        f"charged / runner's wait, p50: {s['charged']['p50'] / s['path']['p50']:.2f} "
        "(the rest is the arena's: runner, relay, gateway)"
    )
    print(
        f"lanes off / on, p50: {s['path_redis']['p50'] / s['path']['p50']:.2f} "
        f"({s['path_redis']['p50'] / raw:.2f} x the baseline without the lanes)"
    )
    rate = whole.decisions / whole.elapsed
    print(f"{whole.games} games, {rate:,.0f} remote decisions/s through the whole path, one runner")
    return 0


if __name__ == "__main__":
    sys.exit(main())
