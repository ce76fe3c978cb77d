"""Which pages someone is looking at now: a league's standings page or a bot's page
viewed in the last ``settings.PAGE_WATCH_SECONDS`` (10 minutes) is *watched*, and a
result that changes a watched page builds its new sections into the cache right after its
commit (``leaderboard.refresh``), so that page's next visitor reads them instead of
building them. A page nobody watches costs its results one cache read (of these keys),
nothing more.

A view reads its watch key in the same ``get_many`` as its sections
(``fragments.cached_sections``) and writes it again only when it is past half its life,
so watching costs a page one cache write per half of that time, not one per request.
With the cache unreachable nothing is watched: every page builds itself, as it would
without this; with ``PAGE_WATCH_SECONDS=0`` likewise, and a result reads nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache


def league_key(league_id: int) -> str:
    return f"watch:v1:league:{league_id}"


def bot_key(bot_id: int) -> str:
    return f"watch:v1:bot:{bot_id}"


def renew(key: str, seen: object) -> None:
    """A page under ``key`` is viewed; ``seen``: what the cache held there (the time it
    was last written, or nothing)."""
    ttl = settings.PAGE_WATCH_SECONDS
    now = time.time()
    if ttl and (not isinstance(seen, float) or not 0 <= now - seen < ttl / 2):
        cache.set(key, now, timeout=ttl)


def watched(keys: Iterable[str]) -> set[str]:
    """Those of ``keys`` whose page was viewed in the last ``PAGE_WATCH_SECONDS``."""
    if not settings.PAGE_WATCH_SECONDS:
        return set()
    return set(cache.get_many(list(keys)))
