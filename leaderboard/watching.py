"""Which pages someone is looking at now: a league's standings page or a bot's page
viewed in the last ``WATCH_S`` seconds is *watched*, and a result that changes a watched
page builds its new sections into the cache right after its commit
(``leaderboard.refresh``), so that page's next visitor reads them instead of building
them. A page nobody watches costs its results one cache read (of these keys), nothing
more.

A view reads its watch key in the same ``get_many`` as its sections
(``fragments.cached_sections``) and writes it again only when it is past half its life,
so watching costs a page one cache write per ``WATCH_S / 2``, not one per request. With
the cache unreachable nothing is watched: every page builds itself, as it would without
this.
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from django.core.cache import cache

#: a page is watched this long after it was last viewed
WATCH_S = 600


def league_key(league_id: int) -> str:
    return f"watch:v1:league:{league_id}"


def bot_key(bot_id: int) -> str:
    return f"watch:v1:bot:{bot_id}"


def renew(key: str, seen: object) -> None:
    """A page under ``key`` is viewed; ``seen``: what the cache held there (the time it
    was last written, or nothing)."""
    now = time.time()
    if not isinstance(seen, float) or not 0 <= now - seen < WATCH_S / 2:
        cache.set(key, now, timeout=WATCH_S)


def watched(keys: Iterable[str]) -> set[str]:
    """Those of ``keys`` whose page was viewed in the last ``WATCH_S`` seconds."""
    return set(cache.get_many(list(keys)))
