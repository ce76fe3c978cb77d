"""Which pages someone is looking at now: a league's standings page or a bot's page
viewed in the last ``settings.PAGE_WATCH_SECONDS`` (10 minutes) is *watched*, and a
result that changes a watched page builds its new sections into the cache right after its
commit (``leaderboard.refresh``), so that page's next visitor reads them instead of
building them. A page nobody watches costs its results one cache read (of these keys),
nothing more.

A refresh builds a page at most ``BUILDS_PER_VIEW`` times between two views of it
(``built`` counts them, a view clears the count): a watched page that gets a few results
between its visitors' requests has each of them built, and in a burst of results nobody
looks at the first few build the page and the rest skip it (the next visitor builds the
page of the latest result, as without this), so a watched page costs its results at most
that many builds per view, never one per result however many arrive.

A view reads its keys in the same ``get_many`` as its sections
(``fragments.cached_sections``), writes the watch key again only when it is past half its
life (one write per half of ``PAGE_WATCH_SECONDS``, not one per request) and clears the
count of a page a refresh built (one delete per view after a build). With the cache
unreachable nothing is watched: every page builds itself, as it would without this; with
``PAGE_WATCH_SECONDS=0`` likewise, and a result reads nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping

from django.conf import settings
from django.core.cache import cache

#: a page is built by the results at most this many times between two views of it
BUILDS_PER_VIEW = 8


def league_key(league_id: int) -> str:
    return f"watch:v1:league:{league_id}"


def bot_key(bot_id: int) -> str:
    return f"watch:v1:bot:{bot_id}"


def _builds(key: str) -> str:
    return f"{key}:builds"


def view_keys(key: str) -> list[str]:
    """What a view of the page under ``key`` reads with its sections."""
    return [key, _builds(key)]


def viewed(key: str, found: Mapping[str, object]) -> None:
    """A visitor views the page under ``key``; ``found``: what the cache held of
    ``view_keys(key)``."""
    ttl = settings.PAGE_WATCH_SECONDS
    if not ttl:
        return
    seen, now = found.get(key), time.time()
    if not isinstance(seen, float) or not 0 <= now - seen < ttl / 2:
        cache.set(key, now, timeout=ttl)
    if _builds(key) in found:
        cache.delete(_builds(key))


def due(keys: Iterable[str]) -> dict[str, int]:
    """Those of ``keys`` whose page was viewed in the last ``PAGE_WATCH_SECONDS`` and
    built fewer than ``BUILDS_PER_VIEW`` times since, each with that count (one
    ``get_many``)."""
    if not settings.PAGE_WATCH_SECONDS:
        return {}
    keys = list(keys)
    found = cache.get_many([k for key in keys for k in view_keys(key)])
    out = {}
    for k in keys:
        count = found.get(_builds(k), 0)
        if k in found and isinstance(count, int) and count < BUILDS_PER_VIEW:
            out[k] = count
    return out


def built(counts: Mapping[str, int]) -> None:
    """A refresh built these pages (``due``'s counts): one write counting the builds."""
    builds = {_builds(k): n + 1 for k, n in counts.items()}
    if builds:
        cache.set_many(builds, timeout=settings.PAGE_WATCH_SECONDS)
