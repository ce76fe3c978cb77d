"""The decision round trip's topology floor, for ``bench/relay_latency.py``: the whole path's
processes and hops with as little code as can carry them, the same payloads.

    runner (this process, a blocking TCP client, as the runner on its direct lane)
      -> relay process (asyncio: a TCP server for the runner, a grpc.aio server for the bot,
         as the gateway)
      -> bot process (a grpc.aio client, as the SDK) -> back the same way.

Each hop moves bytes only: a 4-byte length and the payload on TCP, the payload as it is on
gRPC; the bot answers each request with as many bytes as the whole path's answers. What
the whole path takes beyond this is its own code (runner, relay, gateway, SDK), not the
topology. Run by ``relay_latency.py`` in the same rounds as its other measurements; the
processes are this file's ``--role``s.

Two modes. ``floor`` (the first): one bot in a tight ping-pong with the runner.
``floor_like`` (like for like with the whole path): two bot processes, one per seat, each
on its own gRPC stream of the relay, answering in turn as the two seats of a match do, and
a runner that really plays simple two-seat games with the referee engine (the one
``referee.ENGINE`` names) between and around its decisions as the arena's runner does:
``legal_actions`` at every decision, ``apply`` after it, the decisions with one legal
option taken without asking, and for an asked one the seat's ``observe`` inside the clock
(where the whole path's clock starts), then the request sent to that seat's bot. The
payloads are the whole path's requests; the runner picks the move (seeded) once the
answer is back. Not in it: building the request and parsing the answer, the replay's
recorder, the match's start and end messages, the gateway's checks: the arena's code.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
METHOD = "/bench.Floor/Connect"
_LEN = struct.Struct(">I")


async def bytes_server(service: str, method: str, handler: Any) -> tuple[Any, int]:
    """A started grpc.aio server on a free port whose one bidirectional-stream method
    carries raw bytes each way, and its port."""
    import grpc

    server = grpc.aio.server()
    rpc = grpc.stream_stream_rpc_method_handler(
        handler, request_deserializer=bytes, response_serializer=bytes
    )
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, {method: rpc}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, port


def serve_relay(seats: int = 1) -> None:
    """The gateway's stand-in: frames from the runner go to the bot's stream, the bot's
    messages back to the runner, each as it comes, nothing parsed. With ``seats`` > 1 each
    frame's first byte is the seat whose bot's stream takes the rest, and each bot's hello
    is its seat."""
    import grpc

    async def main() -> None:
        outboxes: list[asyncio.Queue[bytes]] = [asyncio.Queue() for _ in range(seats)]
        runner: list[asyncio.Transport] = []

        class FromRunner(asyncio.Protocol):
            def __init__(self) -> None:
                self.buf = bytearray()

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                assert isinstance(transport, asyncio.Transport)
                sock = transport.get_extra_info("socket")
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                runner[:] = [transport]

            def data_received(self, data: bytes) -> None:
                self.buf += data
                while len(self.buf) >= 4:
                    (size,) = _LEN.unpack_from(self.buf)
                    if len(self.buf) < 4 + size:
                        break
                    if seats == 1:
                        outboxes[0].put_nowait(bytes(self.buf[4 : 4 + size]))
                    else:
                        outboxes[self.buf[4]].put_nowait(bytes(self.buf[5 : 4 + size]))
                    del self.buf[: 4 + size]

        async def connect(requests, context):  # type: ignore[no-untyped-def]
            hello = await context.read()  # the bot's hello: its seat when seats > 1
            outbox = outboxes[hello[0] if seats > 1 else 0]

            async def read() -> None:
                while (answer := await context.read()) is not grpc.aio.EOF:
                    runner[0].write(_LEN.pack(len(answer)) + answer)

            reader = asyncio.create_task(read())
            try:
                while True:
                    await context.write(await outbox.get())
            finally:
                reader.cancel()

        server, grpc_port = await bytes_server("bench.Floor", "Connect", connect)
        lane = await asyncio.get_running_loop().create_server(FromRunner, "127.0.0.1", 0)
        print(grpc_port, lane.sockets[0].getsockname()[1], flush=True)
        await server.wait_for_termination()

    asyncio.run(main())


def serve_bot(port: int, reply_bytes: int, seat: int = 0) -> None:
    """The SDK bot's stand-in: a grpc.aio client answering every message at once; its hello
    says its ``seat``."""
    import grpc

    async def main() -> None:
        reply = b"a" * reply_bytes
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.stream_stream(
                METHOD, request_serializer=bytes, response_deserializer=bytes
            )()
            await call.write(bytes([seat]) + b"hello")
            print(0, flush=True)
            while True:
                request = await call.read()
                if request is grpc.aio.EOF:
                    return
                await call.write(reply)

    asyncio.run(main())


def spawn(
    argv: list[str], env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], list[int]]:
    """A helper process (``argv`` after the interpreter) and the ports its first line says."""
    proc = subprocess.Popen(
        [sys.executable, *argv], cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    return proc, [int(x) for x in proc.stdout.readline().split()]


def stop(proc: subprocess.Popen[Any]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def _recv_frame(sock: socket.socket, buf: bytearray) -> bytes:
    while True:
        if len(buf) >= 4:
            (size,) = _LEN.unpack_from(buf)
            if len(buf) >= 4 + size:
                body = bytes(buf[4 : 4 + size])
                del buf[: 4 + size]
                return body
        data = sock.recv(65536)
        if not data:
            raise ConnectionError("the floor's relay closed the lane")
        buf += data


def floor(n: int, requests: Sequence[bytes], reply_bytes: int, warm_up: int = 200) -> list[float]:
    """``n`` round trips (ms) runner -> relay -> bot -> relay -> runner, the requests'
    payloads in turn; the relay and bot processes are started for this call."""
    relay, (grpc_port, lane_port) = spawn([__file__, "--role", "relay"])
    bot = None
    try:
        bot, _ = spawn(
            [__file__, "--role", "bot", "--port", str(grpc_port), "--reply-bytes", str(reply_bytes)]
        )
        sock = socket.create_connection(("127.0.0.1", lane_port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = bytearray()
        out = []
        for i in range(n + warm_up):
            payload = requests[i % len(requests)]
            t = time.perf_counter()
            sock.sendall(_LEN.pack(len(payload)) + payload)
            _recv_frame(sock, buf)
            if i >= warm_up:
                out.append((time.perf_counter() - t) * 1000)
        sock.close()
        return out
    finally:
        if bot is not None:
            stop(bot)
        stop(relay)


class LikeForLike:
    """The like-for-like floor's relay and two bots, started once; ``play`` times ``n``
    asked decisions of whole games (ms, from the asked seat's observation to its answer)."""

    def __init__(self, reply_bytes: int) -> None:
        self.relay, (grpc_port, lane_port) = spawn([__file__, "--role", "relay", "--seats", "2"])
        self.bots: list[subprocess.Popen[str]] = []
        try:
            for seat in range(2):
                argv = [__file__, "--role", "bot", "--port", str(grpc_port)]
                argv += ["--reply-bytes", str(reply_bytes), "--seat", str(seat)]
                self.bots.append(spawn(argv)[0])
            self.sock = socket.create_connection(("127.0.0.1", lane_port))
        except BaseException:
            self.close()
            raise
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.games = 0
        self.asked = 0

    def play(self, n: int, requests: Sequence[bytes]) -> list[float]:
        import random

        from referee import GameConfig, apply, legal_actions, new_game
        from referee.observation import observe

        config = GameConfig.for_seats(2, "simple")
        sock, buf = self.sock, self.buf
        out: list[float] = []
        while len(out) < n:
            pick = random.Random(self.games)
            state = new_game(config, self.games)
            self.games += 1
            while state.decision is not None:
                legal = legal_actions(state)
                if len(legal) > 1:
                    t = time.perf_counter()
                    actor = state.actor
                    observe(state, actor)
                    payload = requests[self.asked % len(requests)]
                    self.asked += 1
                    sock.sendall(_LEN.pack(len(payload) + 1) + bytes([actor]) + payload)
                    _recv_frame(sock, buf)
                    out.append((time.perf_counter() - t) * 1000)
                state = apply(state, pick.choice(legal))
        return out

    def close(self) -> None:
        if getattr(self, "sock", None) is not None:
            self.sock.close()
        for bot in self.bots:
            stop(bot)
        stop(self.relay)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role", choices=["relay", "bot"], required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reply-bytes", type=int, default=16)
    parser.add_argument("--seats", type=int, default=1, help="the relay's bots")
    parser.add_argument("--seat", type=int, default=0, help="the bot's seat")
    args = parser.parse_args()
    if args.role == "relay":
        serve_relay(args.seats)
    else:
        serve_bot(args.port, args.reply_bytes, args.seat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
