"""Serving a gateway: the gRPC server around it, a process's main coroutine, and a
gateway on a thread of its own (embedded mode, tests)."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable
from typing import TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.adapters.gateway.server import SERVICE, Gateway
from arena.adapters.gateway.session import TRANSPORT_LIMIT, bot_message_parser

T = TypeVar("T")


def create_server(address: str, gateway: Gateway) -> tuple[grpc.aio.Server, int]:
    """The gateway's server bound to ``address`` (port 0 picks a free one), not started.
    Call from the event loop that will run it."""
    limit = gateway.config.max_message_bytes
    server = grpc.aio.server(
        options=[
            # The gateway's own limit is checked by the deserializer (bot_message_parser).
            ("grpc.max_receive_message_length", max(TRANSPORT_LIMIT, limit)),
            ("grpc.max_send_message_length", 16 * 1024 * 1024),
            # Transport-level liveness, below the protocol's own Ping/Pong.
            ("grpc.keepalive_time_ms", 20_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            ("grpc.keepalive_permit_without_calls", 1),
            # gRPC sets SO_REUSEPORT by default on Linux: a second gateway on a port in
            # use would then start "fine" and take half the bots. Refuse it instead.
            ("grpc.so_reuseport", 0),
        ]
    )
    handler = grpc.stream_stream_rpc_method_handler(
        gateway.connect,
        request_deserializer=bot_message_parser(limit),
        # Messages reach the stream already serialized (from the relay, or below).
        response_serializer=bytes,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"Connect": handler}),)
    )
    health_pb2_grpc.add_HealthServicer_to_server(gateway.health, server)
    tls = gateway.config.tls
    try:
        if tls is not None:
            port = server.add_secure_port(address, tls.credentials())
        else:
            port = server.add_insecure_port(address)
    except RuntimeError:  # grpcio >= 1.60 raises where older versions returned 0
        port = 0
    if port == 0:
        raise OSError(f"cannot listen on {address} (port in use, or no such interface)")
    return server, port


async def serve(
    address: str,
    gateway: Gateway,
    *,
    ready: Callable[[int], None] | None = None,
    stop: asyncio.Event | None = None,
    handle_signals: bool = False,
) -> None:
    """Run the gateway until ``stop`` is set (or SIGTERM/SIGINT with ``handle_signals``)."""
    stop = stop or asyncio.Event()
    server, port = create_server(address, gateway)
    await gateway.start()
    await server.start()
    await gateway.health.set(SERVICE, health_pb2.HealthCheckResponse.SERVING)
    if handle_signals:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
    if ready is not None:
        ready(port)
    await stop.wait()
    await gateway.shutdown(server)


class GatewayThread:
    """A gateway on its own event loop in a daemon thread (embedded mode, tests)."""

    def __init__(self, gateway: Gateway, address: str = "127.0.0.1:0") -> None:
        self.gateway = gateway
        self.address = address
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._main, name="gateway", daemon=True)

    def start(self, timeout: float = 10.0) -> int:
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError("the gateway did not start")
        if self._error is not None:
            raise self._error
        return self.port

    def _main(self) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()

            def ready(port: int) -> None:
                self.port = port
                self._ready.set()

            await serve(self.address, self.gateway, ready=ready, stop=self._stop)

        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported to start()
            self._error = exc
            self._ready.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Shut the gateway down gracefully (a no-op once stopped)."""
        if not self._thread.is_alive():
            return
        if self._loop is not None and self._stop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def call(self, fn: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``fn`` on the gateway's loop (e.g. to read its counters consistently)."""
        assert self._loop is not None
        result: list[T] = []
        done = threading.Event()

        def run() -> None:
            result.append(fn())
            done.set()

        self._loop.call_soon_threadsafe(run)
        if not done.wait(timeout):
            raise TimeoutError("the gateway's loop did not answer")
        return result[0]
