"""A live match pushed to its watchers: ``/matches/<id>/live/`` is a stream of server-sent
events (``text/event-stream``) that the viewer opens on a live match's page.

Events:

* ``frames``: the spectator's view as ``/api/matches/<id>/frames/`` gives it (the same
  ``LiveFeed``: the league's delay behind, the deal only while the other game of a
  mirrored pair is played), except that ``frames`` holds only the frames from index
  ``from`` on; the ones before are those the stream sent already. The first event of a
  stream has ``from`` 0. Its ``id`` is the number of frames.
* ``end``: the match is over (``status``); the page plays it out to its last step (the
  match page as its replay, TV before it moves on).
* comments (``: keep-alive``) at least every ``KEEPALIVE_S``, so that a proxy keeps the
  connection and a closed one is noticed.

The stream reads the live decisions when the process that plays the match announces news
of it (``arena.services.livenews``), and the match's status on news that brought no new
decision (the end forgets the decisions after the result is written) and at least every
``STATUS_EVERY_S`` (a void attempt, a pair partner that ended). It holds no database
connection while it waits. A process keeps at most ``settings.LIVE_STREAMS_MAX`` open
(each holds one of the server's threads); past them, and for a match that does not exist,
it answers with an error, and the page falls back to asking every 2 s. A stream lasts
``settings.LIVE_STREAM_SECONDS``; the browser then opens the next (``retry``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.views.decorators.http import require_GET

from arena.models import Match
from arena.services import live, livenews
from leaderboard.replays import LIVE, LiveFeed

#: the longest silence on a stream: a comment line at least this often
KEEPALIVE_S = 15.0
#: the match's status is read at least this often
STATUS_EVERY_S = 5.0
#: what the browser waits before it opens the next stream (ms)
RETRY_MS = 1000


class _Streams:
    """The streams this process has open (at most ``LIVE_STREAMS_MAX``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0

    def take(self) -> bool:
        with self._lock:
            if self.open >= settings.LIVE_STREAMS_MAX:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1


streams = _Streams()


def event(name: str, data: dict[str, Any], event_id: int | None = None) -> str:
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def _unchanged(old: list[Any], new: list[Any]) -> int:
    """How many frames at the start of ``new`` the watcher has already (``old``)."""
    n = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        n += 1
    return n


def _no_connection() -> None:
    """A stream waits for minutes: it holds no database connection meanwhile."""
    if not connection.in_atomic_block:
        connection.close()


def frames_events(feed: LiveFeed) -> Iterator[str]:
    """The stream of one match (the module doc)."""
    pk = feed.match.pk
    with livenews.listen(pk) as news:
        yield f"retry: {RETRY_MS}\n\n"
        deadline = time.monotonic() + settings.LIVE_STREAM_SECONDS
        sent: list[Any] = []
        count = -1
        partner, checked = feed.partner(), time.monotonic()
        _no_connection()
        heard = True
        while True:
            now = time.monotonic()
            decisions = live.decisions_so_far(pk)
            if (heard and len(decisions) <= count) or now - checked >= STATUS_EVERY_S:
                status = Match.objects.filter(pk=pk).values_list("status", flat=True).first()
                before, partner = partner, feed.partner() if status in LIVE else None
                checked = now
                _no_connection()
                if status not in LIVE:
                    yield event("end", {"match": pk, "status": status})
                    return
                feed.match.status = status
                if (before is None) != (partner is None):
                    count = -1  # the pair's other game ended: the moves are shown now
            if len(decisions) != count:
                count = len(decisions)
                payload = feed.payload(decisions, partner)
                frames = payload.pop("frames")
                start = _unchanged(sent, frames)
                if start < len(frames) or len(frames) != len(sent):
                    data = {**payload, "from": start, "frames": frames[start:]}
                    yield event("frames", data, len(frames))
                    sent = frames
            if now >= deadline:
                yield ": this stream ends here; the browser opens the next\n\n"
                return
            heard = news.wait(min(KEEPALIVE_S, max(0.0, deadline - now)))
            if not heard:
                yield ": keep-alive\n\n"


class _Held:
    """A stream that gives its place back (``release``) once it is over or closed, even
    if it was closed before it started (a generator's ``finally`` would not run then)."""

    def __init__(self, events: Iterator[str], release: Callable[[], None]) -> None:
        self.events, self.release, self.closed = events, release, False

    def __iter__(self) -> _Held:
        return self

    def __next__(self) -> str:
        try:
            return next(self.events)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            try:
                self.events.close()  # type: ignore[attr-defined]
            finally:
                self.release()


async def _async(events: Iterator[str]) -> AsyncIterator[str]:
    """Under ASGI: each step of the stream in a thread of its own (it blocks while it waits
    for news), so that the server sends each event as it comes."""

    def step() -> str | None:
        return next(events, None)

    later = sync_to_async(step, thread_sensitive=False)
    try:
        while (chunk := await later()) is not None:
            yield chunk
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            await sync_to_async(close, thread_sensitive=False)()


@require_GET
def live_events(request: HttpRequest, pk: int) -> HttpResponseBase:
    match = Match.objects.select_related("league").filter(pk=pk).first()
    if match is None:
        return JsonResponse({"error": f"there is no match {pk}"}, status=404)
    feed = LiveFeed(match) if match.status in LIVE else None
    if feed is None:
        body: Iterator[str] = iter([event("end", {"match": pk, "status": match.status})])
    elif not streams.take():
        refused = JsonResponse(
            {"error": "every live stream of this server is taken: ask /api/matches/"
             f"{pk}/frames/ every few seconds instead"},
            status=503,
        )  # fmt: skip
        refused["Retry-After"] = "10"
        return refused
    else:
        body = _Held(frames_events(feed), streams.give_back)
    content: Any = _async(body) if isinstance(request, ASGIRequest) else body
    response = StreamingHttpResponse(content, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: send each event as it comes
    return response
