"""Every API error is JSON: ``{"error": message, "code": code, "fields": {...}}``.

``exception_handler`` is DRF's hook; ``json_error`` is used by Django's own error
handlers (``config.urls``) for ``/api/`` paths, so an unknown URL or a crash under the API
answers JSON too. Domain errors (``BotError``, ``LeagueError``, ``NotOwner``, ...) are
mapped to status codes here, never raised as HTTP errors by the domain itself.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from arena.adapters.bothost.versiontest import VersionTestError
from arena.hosting.services import HostingError
from arena.services.bots import BotError
from arena.services.leagues import LeagueError
from arena.services.owned_bots import NotFound, NotOwner
from leaderboard.replays import ReplayUnavailable


def _first_message(detail: Any) -> str:
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    if isinstance(detail, dict) and detail:
        key, value = next(iter(detail.items()))
        message = _first_message(value)
        return message if key in ("non_field_errors", "detail") else f"{key}: {message}"
    return str(detail)


def _body(message: str, code: str, fields: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {"error": message, "code": code}
    if fields:
        body["fields"] = fields
    return body


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, NotFound):
        return Response(_body(str(exc), "not_found"), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, NotOwner):
        return Response(_body(str(exc), "not_owner"), status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, ReplayUnavailable):
        return Response(_body(str(exc), exc.code), status=exc.status)
    if isinstance(exc, VersionTestError):
        # a version test that cannot start as asked (itself, not ready, already running)
        return Response(_body(str(exc), "invalid_test"), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, HostingError):
        # an upload or a switch the owner can fix (too big, no such module, not checked)
        return Response(_body(str(exc), "invalid_upload"), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, (BotError, LeagueError)):
        # the request is well formed but the state refuses it (name taken, already
        # entered, league closed, ...)
        return Response(_body(str(exc), "refused"), status=status.HTTP_409_CONFLICT)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or "not found")
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or "permission denied")
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.APIException):
        detail = exc.detail
        if isinstance(detail, (dict, list)):
            fields = detail if isinstance(detail, dict) else None
            response.data = _body(_first_message(detail), "invalid", fields)
        else:
            response.data = _body(str(detail), getattr(detail, "code", exc.default_code))
    return response


def json_error(status_code: int, message: str, code: str) -> JsonResponse:
    return JsonResponse(_body(message, code), status=status_code)
