"""Live spectating: the decisions of a match being played, as the runner records them.

The runner tells ``publisher(match)`` every decision; they are kept in the cache (Redis
when distributed, so every web process sees them; the process's own cache in embedded
mode, where the runner plays in the web server's process) until the match's time limit.
The web layer turns them into the spectator's frames, ``League.live_delay_decisions``
behind, and only when that shows nothing a bot still playing could use (see
``leaderboard.replays``). Nothing private leaves here: the decisions include face-down
choices, so only the spectator's frames built from them are ever served.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.core.cache import cache

from referee.replay import RecordedDecision


def _key(match_id: int) -> str:
    return f"live:v1:{match_id}"


def publisher(
    match_id: int, every_s: float = 0.0, *, clear: bool = True
) -> Callable[[RecordedDecision], None]:
    """A listener for ``run_match(on_decision=...)``: each call stores the decisions so far
    (a game has at most a few hundred; a fresh attempt starts a fresh list). ``every_s``:
    store at most once per that many seconds, the first time ``every_s`` after the start
    (with 0, every decision at once). A game of house bots only is over in milliseconds,
    faster than any spectator's page polls: a cache write per decision was a third of its
    whole orchestration, and one that ends within ``every_s`` writes none (its replay
    serves it as soon as it is over). ``clear``: drop what an earlier attempt stored
    first (False when the caller did, ``forget_many``)."""
    decisions: list[dict[str, Any]] = []
    timeout = settings.ARENA_MATCH_TIME_LIMIT_SECONDS
    last = time.monotonic() if every_s > 0 else -float("inf")

    def heard(decision: RecordedDecision) -> None:
        nonlocal last
        decisions.append(decision.to_json())
        now = time.monotonic()
        if now - last >= every_s:
            last = now
            cache.set(_key(match_id), decisions, timeout=timeout)

    if clear:
        cache.delete(_key(match_id))
    return heard


def decisions_so_far(match_id: int) -> list[dict[str, Any]]:
    found = cache.get(_key(match_id))
    return list(found) if isinstance(found, list) else []


def forget(match_id: int) -> None:
    """The match is over: its replay serves it now."""
    cache.delete(_key(match_id))


def forget_many(match_ids: Iterable[int]) -> None:
    """``forget`` for several matches, in one cache call (a chunk's, before and after)."""
    cache.delete_many([_key(m) for m in match_ids])
