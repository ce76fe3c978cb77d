"""Live spectating: the decisions of a match being played, as the runner records them.

The runner tells ``publisher(match)`` every decision; they are kept in the cache (Redis
when distributed, so every web process sees them; the process's own cache in embedded
mode, where the runner plays in the web server's process) until the match's time limit.
The web layer turns them into the spectator's frames, ``League.live_delay_decisions``
behind, and only when that shows nothing a bot still playing could use (see
``leaderboard.replays``). Nothing private leaves here: the decisions include face-down
choices, so only the spectator's frames built from them are ever served.

A match thread never waits on the cache for this: a decision is handed to the process's
``_Writer``, whose thread writes every match with news in one ``set_many`` at most every
``WRITE_EVERY_S``. Written by the match thread, each decision cost a round trip to Redis
and the pickling of the whole game so far, on the path of every decision: a quarter of a
worker's interpreter time when it plays hundreds of remote matches. A watcher's page hears
of each write (``livenews``) and reads it then; the tenth of a second is not seen.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings

from arena.cache import shared_cache as _cache
from arena.services import livenews
from referee.replay import RecordedDecision

logger = logging.getLogger(__name__)

#: the writer gathers news this long before it writes them
WRITE_EVERY_S = 0.1


class _Writer:
    """The process's writer of live decisions (see the module doc). ``forget`` takes a
    match out: not written any more, and deleted again if a write under way had it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._news: dict[int, list[dict[str, Any]]] = {}
        self._writing: set[int] = set()
        self._forgotten: set[int] = set()
        self._pid = 0

    def put(self, match_id: int, decisions: list[dict[str, Any]]) -> None:
        with self._cond:
            self._news[match_id] = decisions
            if self._pid != os.getpid():  # first use, or a forked child: no thread yet
                self._pid = os.getpid()
                threading.Thread(target=self._run, name="live-writer", daemon=True).start()
            self._cond.notify()

    def forget(self, match_ids: Iterable[int]) -> list[int]:
        ids = list(match_ids)
        with self._cond:
            for m in ids:
                self._news.pop(m, None)
            self._forgotten.update(m for m in ids if m in self._writing)
        return ids

    def idle(self, timeout: float) -> bool:
        """Wait until everything put so far is in the cache (tests' readiness signal)."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._news and not self._writing, timeout)

    def _run(self) -> None:
        timeout = settings.ARENA_MATCH_TIME_LIMIT_SECONDS
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._news))
            time.sleep(WRITE_EVERY_S)
            with self._cond:
                # list(): a copy as of now (the match thread goes on appending)
                batch = {_key(m): list(d) for m, d in self._news.items()}
                self._writing, self._news = set(self._news), {}
            try:
                _cache().set_many(batch, timeout=timeout)
            except Exception:  # noqa: BLE001 - spectating is best effort; the game goes on
                logger.warning("live decisions of %d matches not written", len(batch),
                               exc_info=True)  # fmt: skip
            livenews.announce(self._writing)
            with self._cond:
                again, self._forgotten, self._writing = self._forgotten, set(), set()
                self._cond.notify_all()
            if again:
                try:
                    _cache().delete_many([_key(m) for m in again])
                except Exception:  # noqa: BLE001
                    logger.warning("live decisions of %s not deleted", sorted(again))


_writer = _Writer()


def _key(match_id: int) -> str:
    return f"live:v1:{match_id}"


def publisher(
    match_id: int, every_s: float = 0.0, *, clear: bool = True
) -> Callable[[RecordedDecision], None]:
    """A listener for ``run_match(on_decision=...)``: each call stores the decisions so far
    (a game has at most a few hundred; a fresh attempt starts a fresh list). ``every_s``:
    store at most once per that many seconds, the first time ``every_s`` after the start
    (with 0, every decision; the writer's thread has it in the cache within about
    ``WRITE_EVERY_S``). A game of house bots only is over in milliseconds,
    faster than any spectator's page polls: a cache write per decision was a third of its
    whole orchestration, and one that ends within ``every_s`` writes none (its replay
    serves it as soon as it is over). ``clear``: drop what an earlier attempt stored
    first (False when the caller did, ``forget_many``)."""
    decisions: list[dict[str, Any]] = []
    last = time.monotonic() if every_s > 0 else -float("inf")

    def heard(decision: RecordedDecision) -> None:
        nonlocal last
        decisions.append(decision.to_json())
        now = time.monotonic()
        if now - last >= every_s:
            last = now
            _writer.put(match_id, decisions)

    if clear:
        forget_many([match_id])
    return heard


def decisions_so_far(match_id: int) -> list[dict[str, Any]]:
    found = _cache().get(_key(match_id))
    return list(found) if isinstance(found, list) else []


def forget(match_id: int) -> None:
    """The match is over: its replay serves it now."""
    forget_many([match_id])


def forget_many(match_ids: Iterable[int]) -> None:
    """``forget`` for several matches, in one cache call (a chunk's, before and after)."""
    ids = _writer.forget(match_ids)
    _cache().delete_many([_key(m) for m in ids])
    livenews.announce(ids)


def written(timeout: float = 30.0) -> bool:
    """True once every decision told so far is in the cache (False after ``timeout``)."""
    return _writer.idle(timeout)
