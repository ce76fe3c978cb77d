"""Many lightweight bots in one process: one asyncio loop, ``grpc.aio`` streams (a few
hundred per channel), a random legal answer to every request. For the concurrent-matches
rig (``concurrency.py``: ``bench/load.py --concurrent``, ``test_concurrent_matches.py``).

    python tests/reliability/aiobots.py SPEC.json STATS.json

``SPEC.json``: ``{"bots": [{"arena": "127.0.0.1:PORT", "token": ...}, ...],
"max_matches": 16, "think_ms": 0, "per_channel": 200}``. Each bot plays up to
``max_matches`` matches at once on its stream, answers pings, and reconnects after 0.2 s
when its stream ends. It prints ``aiobots: N connected`` once every bot has its Welcome.

On SIGTERM it writes ``STATS.json``: per match id, the wall-clock times (``time.time()``,
comparable across the rig's processes on one machine) at which a request arrived and its
answer was written; the rig merges the files of every process into the arena's share of
each decision (from one answer leaving a bot to the next request of that match arriving).
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

import grpc

from agent_avenue.v1 import arena_pb2 as pb
from agent_avenue.v1 import arena_pb2_grpc

#: the protocol version these bots speak (avenue_sdk.client.PROTOCOL_VERSION)
PROTOCOL_VERSION = 1


class Stats:
    def __init__(self) -> None:
        #: match id -> [[received, answered], ...]
        self.decisions: dict[str, list[list[float]]] = {}
        self.welcomed: set[int] = set()
        self.streams_opened = 0
        self.errors: dict[str, int] = {}

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "streams_opened": self.streams_opened,
            "errors": self.errors,
        }


async def play(
    i: int,
    stub: arena_pb2_grpc.BotArenaStub,
    spec: dict[str, Any],
    cfg: dict[str, Any],
    stats: Stats,
) -> None:
    think_s = float(cfg.get("think_ms", 0)) / 1000
    hello = pb.Hello(
        protocol_version=PROTOCOL_VERSION,
        bot_version="aiobot-1",
        max_concurrent_matches=int(cfg.get("max_matches", 16)),
    )
    while True:
        stats.streams_opened += 1
        call = stub.Connect(metadata=[("authorization", f"Bearer {spec['token']}")])
        lock = asyncio.Lock()  # grpc.aio: one write at a time per stream

        async def send(message: pb.BotMessage, call: Any = call, lock: asyncio.Lock = lock) -> None:
            async with lock:
                await call.write(message)

        async def answer(request: pb.DecisionRequest, received: float) -> None:
            await asyncio.sleep(think_s)
            action = pb.Action(
                match_id=request.match_id,
                seq=request.seq,
                choice_index=random.randrange(len(request.legal)),
            )
            await send(pb.BotMessage(action=action))
            stats.decisions.setdefault(request.match_id, []).append([received, time.time()])

        try:
            await send(pb.BotMessage(hello=hello))
            async for message in call:
                kind = message.WhichOneof("kind")
                if kind == "decision_request":
                    if think_s:
                        asyncio.create_task(answer(message.decision_request, time.time()))
                    else:
                        await answer(message.decision_request, time.time())
                elif kind == "ping":
                    await send(pb.BotMessage(pong=pb.Pong(nonce=message.ping.nonce)))
                elif kind == "welcome":
                    stats.welcomed.add(i)
                elif kind == "error":
                    code = message.error.code
                    stats.errors[code] = stats.errors.get(code, 0) + 1
        except grpc.aio.AioRpcError as exc:
            key = f"stream ended: {exc.code().name}"
            stats.errors[key] = stats.errors.get(key, 0) + 1
        stats.welcomed.discard(i)
        await asyncio.sleep(0.2)


async def main(spec_path: Path, stats_path: Path) -> None:
    cfg = json.loads(spec_path.read_text())
    bots: list[dict[str, Any]] = cfg["bots"]
    per_channel = int(cfg.get("per_channel", 200))
    stats = Stats()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    channels: dict[tuple[str, int], grpc.aio.Channel] = {}
    tasks = []
    for i, spec in enumerate(bots):
        key = (spec["arena"], i // per_channel)
        if key not in channels:
            channels[key] = grpc.aio.insecure_channel(
                spec["arena"], options=[("grpc.max_receive_message_length", 4 << 20)]
            )
        stub = arena_pb2_grpc.BotArenaStub(channels[key])
        tasks.append(asyncio.create_task(play(i, stub, spec, cfg, stats)))
        if i % 50 == 49:
            await asyncio.sleep(0.02)  # not every Hello in one burst
    announced = False
    while not stop.is_set():
        if not announced and len(stats.welcomed) == len(bots):
            print(f"aiobots: {len(bots)} connected", flush=True)
            announced = True
        try:
            await asyncio.wait_for(stop.wait(), 0.2)
        except TimeoutError:
            pass
    stats_path.write_text(json.dumps(stats.to_json()))
    for task in tasks:
        task.cancel()
    for channel in channels.values():
        await channel.close(grace=None)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
