"""``manage.py rungateway [--port N]``: the gRPC gateway bots connect to."""

from __future__ import annotations

import asyncio
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.gateway import DatabaseAuthenticator, Gateway, GatewayConfig, serve
from arena.relay import gateway_relay


def split_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise CommandError(f"GATEWAY_ADDRESS={address!r} is not host:port")
    return host, int(port)


class Command(BaseCommand):
    help = (
        "Run the gRPC gateway that bots connect to (SIGTERM or Ctrl-C stops it gracefully). "
        "Listens on GATEWAY_ADDRESS unless --host/--port say otherwise; --port 0 picks a "
        "free port. Prints 'gateway listening on HOST:PORT' once it accepts streams."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", help="interface to listen on")
        parser.add_argument("--port", type=int, help="port to listen on (0: any free port)")
        parser.add_argument("--heartbeat", type=float, help="seconds between pings")
        parser.add_argument(
            "--heartbeat-timeout", type=float, help="close a stream silent this many seconds"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        host, port = split_address(settings.GATEWAY_ADDRESS)
        host = options["host"] or host
        port = port if options["port"] is None else options["port"]
        config = GatewayConfig.from_settings(
            heartbeat_s=options["heartbeat"], heartbeat_timeout_s=options["heartbeat_timeout"]
        )
        if settings.ARENA_EMBEDDED:
            self.stderr.write(
                "embedded mode (no REDIS_URL): only matches run in this process can reach "
                "these bots; `manage.py playmatch` starts its own gateway instead."
            )
        gateway = Gateway(config, gateway_relay(), DatabaseAuthenticator())

        def ready(bound: int) -> None:
            self.stdout.write(f"gateway listening on {host}:{bound}")
            self.stdout.flush()

        try:
            asyncio.run(serve(f"{host}:{port}", gateway, ready=ready, handle_signals=True))
        except OSError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write("gateway stopped")
