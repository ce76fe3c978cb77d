"""Pages ride out a database restart: a safe request (GET, HEAD) that failed because the
database could not be reached is played again, with its connections opened afresh, for
up to ``DATABASE_RETRY_SECONDS``; past that it gets a short 503 with ``Retry-After``
rather than a 500 and a traceback.

A PostgreSQL restart resets every open connection and refuses new ones for a few
seconds: without this, every page request in that window answered 500 (the fault
matrix, ``tests/reliability/test_fault_matrix.py``, counted 18 in a 3 s restart). The
failure is seen through Django's ``got_request_exception`` signal, so a failure in a
middleware (sessions, the user) counts as much as one in a view. ``/healthz`` is left
alone: it must say the database is down, not wait for it. Unsafe requests are never
replayed (a POST may have half happened).
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.signals import got_request_exception
from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

_FLAG = "_arena_database_unreachable"
_SAFE = frozenset({"GET", "HEAD"})
_UNREACHABLE = (OperationalError, InterfaceError)


def _mark(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """``got_request_exception``: note on the request that the database failed it."""
    exc = sys.exc_info()[1]
    if request is not None and isinstance(exc, _UNREACHABLE):
        setattr(request, _FLAG, True)


got_request_exception.connect(_mark, dispatch_uid="arena.dbretry")


class DatabaseRetryMiddleware:
    """Outermost middleware (see the module doc)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method not in _SAFE or request.path == "/healthz":
            return self.get_response(request)
        deadline = time.monotonic() + settings.DATABASE_RETRY_SECONDS
        delay = 0.25
        tries = 0
        while True:
            response = self.get_response(request)
            if not getattr(request, _FLAG, False):
                if tries:
                    logger.warning("%s answered after %d database retries", request.path, tries)
                return response
            setattr(request, _FLAG, False)
            for conn in connections.all(initialized_only=True):
                try:
                    conn.close()
                except DatabaseError:
                    pass  # broken already: closing is all that was asked
            if time.monotonic() + delay > deadline:
                logger.error("%s: the database did not answer for %d tries", request.path, tries)
                return _unavailable()
            tries += 1
            time.sleep(delay)
            delay = min(2.0, delay * 2)


def _unavailable() -> HttpResponse:
    response = HttpResponse(
        "<!doctype html><title>Agent Avenue Arena: back in a moment</title>"
        "<h1>Back in a moment</h1><p>The arena's database is not answering (a restart?). "
        "This page will work again as soon as it does: try again in a few seconds.</p>",
        status=503,
    )
    response["Retry-After"] = "5"
    return response
