"""The demo's web server: Django's WSGI app on a threaded server, with a free-port check
that tells a newcomer what to do when ``make demo`` is already running."""

from __future__ import annotations

import socket
import socketserver
from typing import Any

from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.management.base import CommandError
from django.core.servers.basehttp import WSGIRequestHandler, WSGIServer
from django.core.wsgi import get_wsgi_application


class ThreadedServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    """Django's request handler, logging only failed requests (the replay viewer polls)."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
        status = str(args[1]) if len(args) > 1 else ""
        if status[:1] in ("4", "5"):
            super().log_message(format, *args)


def port_taken(host: str, port: int) -> bool:
    """True when something listens on host:port. The probe sets SO_REUSEADDR (as the
    servers do), so connections of a previous run in TIME_WAIT do not count, and not
    SO_REUSEPORT, so any listener does."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return True
    return False


def check_ports(host: str, port: int, gw_host: str, gw_port: int) -> None:
    """Refuse to start, saying which port is taken and how to pick others."""
    taken = [
        f"{what} port {p} on {h} is already in use"
        for what, h, p in (("web", host, port), ("gateway", gw_host, gw_port))
        if port_taken(h, p)
    ]
    if port == gw_port and host == gw_host:
        taken.append(f"the web site and the gateway cannot share port {port}")
    if taken:
        raise CommandError(
            "; ".join(taken) + " (another `make demo`?). Stop it, or pick free ports: "
            "make demo PORT=8080 GATEWAY_PORT=50052 "
            "(manage.py demo --port 8080 --gateway-port 50052)."
        )


def web_server(host: str, port: int) -> ThreadedServer:
    """Bind the web port now (requests wait in the backlog until ``serve_forever``)."""
    try:
        httpd = ThreadedServer((host, port), _QuietHandler, ipv6=":" in host)
    except OSError as exc:
        raise CommandError(f"cannot listen on {host}:{port} for the web site: {exc}") from None
    httpd.set_app(StaticFilesHandler(get_wsgi_application()))
    return httpd
