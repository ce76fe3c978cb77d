"""``manage.py rungateway [--port N] [--tls-cert PEM --tls-key PEM]``: the gRPC gateway
bots connect to."""

from __future__ import annotations

import asyncio
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from arena.adapters.gateway import DatabaseAuthenticator, Gateway, GatewayConfig, serve
from arena.adapters.gateway.tls import TlsError, tls_files
from arena.adapters.relay import gateway_relay


def split_address(address: str) -> tuple[str, int]:
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise CommandError(f"GATEWAY_ADDRESS={address!r} is not host:port")
    return host, int(port)


class Command(BaseCommand):
    help = (
        "Run the gRPC gateway that bots connect to (SIGTERM or Ctrl-C stops it gracefully). "
        "Listens on GATEWAY_ADDRESS unless --host/--port say otherwise; --port 0 picks a "
        "free port. Serves TLS with --tls-cert/--tls-key (or GATEWAY_TLS_CERT/GATEWAY_TLS_KEY): "
        "use it on any network but loopback, tokens are bearer secrets. Prints "
        "'gateway listening on HOST:PORT' once it accepts streams."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", help="interface to listen on")
        parser.add_argument("--port", type=int, help="port to listen on (0: any free port)")
        parser.add_argument("--heartbeat", type=float, help="seconds between pings")
        parser.add_argument(
            "--heartbeat-timeout", type=float, help="close a stream silent this many seconds"
        )
        parser.add_argument("--tls-cert", help="PEM certificate (chain) to serve TLS with")
        parser.add_argument("--tls-key", help="PEM private key of --tls-cert")

    def handle(self, *args: Any, **options: Any) -> None:
        host, port = split_address(settings.GATEWAY_ADDRESS)
        host = options["host"] or host
        port = port if options["port"] is None else options["port"]
        try:
            tls = tls_files(
                options["tls_cert"] or settings.GATEWAY_TLS_CERT,
                options["tls_key"] or settings.GATEWAY_TLS_KEY,
            )
            config = GatewayConfig.from_settings(
                heartbeat_s=options["heartbeat"],
                heartbeat_timeout_s=options["heartbeat_timeout"],
                tls=tls,
            )
        except TlsError as exc:
            raise CommandError(str(exc)) from None
        if settings.ARENA_EMBEDDED:
            self.stderr.write(
                "embedded mode (no REDIS_URL): only matches run in this process can reach "
                "these bots; `manage.py playmatch` starts its own gateway instead."
            )
        gateway = Gateway(config, gateway_relay(), DatabaseAuthenticator())

        def ready(bound: int) -> None:
            transport = "TLS" if config.tls else "plain text: use TLS beyond loopback"
            self.stdout.write(f"gateway listening on {host}:{bound} ({transport})")
            self.stdout.flush()

        try:
            asyncio.run(serve(f"{host}:{port}", gateway, ready=ready, handle_signals=True))
        except OSError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write("gateway stopped")
