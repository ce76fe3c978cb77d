"""Whether a bot host is running: each host's loop says so on every pass (a cache key that
outlives a few of its polls), and the site reads it to tell the owner of a hosted bot that
uploads are checked and hosted bots play (or, plainly, that this arena runs no bot host).

The cache is Redis in distributed mode (every process sees every host) and the process's
own memory in embedded mode, where the only bot host is the demo's own thread.
"""

from __future__ import annotations

from django.core.cache import cache

KEY = "bothost:alive"
#: a host that has not said so for this many polls (at least ``MIN_TTL_S``) is gone
POLLS = 5
MIN_TTL_S = 15.0


def beat(name: str, poll_s: float) -> None:
    """Host ``name`` is alive (it polls every ``poll_s`` seconds)."""
    cache.set(KEY, name, timeout=max(MIN_TTL_S, POLLS * poll_s))


def gone(name: str) -> None:
    """Host ``name`` stopped: forget it unless another host has said it is alive since."""
    if cache.get(KEY) == name:
        cache.delete(KEY)


def running() -> str | None:
    """The name of a bot host seen alive lately (None: none is running)."""
    found = cache.get(KEY)
    return found if isinstance(found, str) else None
