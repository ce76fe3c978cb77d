"""Facts the site shows that only the running processes know: where the gateway bots dial
really listens, and when a league's next round really starts when no beat schedule says it.

Embedded mode (``manage.py demo``) runs the gateway and the rounds in the web server's own
process, so it states them here and the pages read them. Otherwise the site shows
``GATEWAY_PUBLIC_ADDRESS`` (or ``GATEWAY_ADDRESS`` with a wildcard host made local) and the
league's beat schedule.
"""

from __future__ import annotations

import threading
from datetime import datetime

from django.conf import settings

_lock = threading.Lock()
_gateway: str | None = None
_next_rounds: dict[int, datetime] = {}
_WILDCARDS = ("0.0.0.0", "[::]", "::", "")


def set_gateway_address(address: str | None) -> None:
    """The address of the gateway this process runs (None: it stopped)."""
    global _gateway
    with _lock:
        _gateway = address


def gateway_address() -> str:
    """Where a bot should connect: the gateway this process runs, else the configured
    public address; a listening wildcard (0.0.0.0) is no address to dial."""
    with _lock:
        if _gateway is not None:
            return _gateway
    public = getattr(settings, "GATEWAY_PUBLIC_ADDRESS", "")
    if public:
        return str(public)
    host, _, port = str(settings.GATEWAY_ADDRESS).rpartition(":")
    return f"127.0.0.1:{port}" if host in _WILDCARDS else str(settings.GATEWAY_ADDRESS)


def announce_next_round(league_id: int, when: datetime | None) -> None:
    """A process that plays a league's rounds itself says when the next one starts."""
    with _lock:
        if when is None:
            _next_rounds.pop(league_id, None)
        else:
            _next_rounds[league_id] = when


def announced_next_round(league_id: int) -> datetime | None:
    with _lock:
        return _next_rounds.get(league_id)
