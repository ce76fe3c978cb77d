"""Django's error handlers (``config.urls``): JSON for ``/api/`` paths, a page elsewhere.
They are reached for what no view handled: unknown URLs, CSRF failures, crashes."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt

from leaderboard.api.errors import json_error


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _page(status: int, title: str, message: str, request: HttpRequest | None) -> HttpResponse:
    # no request context on a 500: the failure may be in what a context processor needs
    html = render_to_string(
        "leaderboard/error.html",
        {"title": title, "message": message, "plain": request is None, "status": status},
        request=request,
    )
    return HttpResponse(html, status=status)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return json_error(400, "bad request", "bad_request")
    return _page(400, "Bad request", "The request could not be understood.", None)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = str(exception) if exception and str(exception) else "You may not do that."
    if _is_api(request):
        return json_error(403, message, "permission_denied")
    return _page(403, "Forbidden", message, None)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _is_api(request):
        return json_error(404, f"no API endpoint at {request.path[:200]}", "not_found")
    return _page(404, "Page not found", "There is no page at this address.", request)


@csrf_exempt  # it changes nothing; without it a POST to no address got the CSRF page
def not_found_anywhere(request: HttpRequest, path: str = "") -> HttpResponse:
    """The last URL pattern: every unknown address gets the friendly 404 (or JSON under
    /api/), DEBUG on or off; with DEBUG on Django would list every URL pattern instead.
    Being a pattern, it must do CommonMiddleware's APPEND_SLASH redirect itself."""
    if settings.APPEND_SLASH and not request.path.endswith("/"):
        try:
            match = resolve(request.path + "/")
        except Resolver404:
            match = None
        if match is not None and match.func is not not_found_anywhere:
            query = request.META.get("QUERY_STRING", "")
            target = request.path + "/" + (f"?{query}" if query else "")
            return HttpResponsePermanentRedirect(target)
    return page_not_found(request)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return json_error(500, "internal error; it has been logged", "server_error")
    return _page(500, "Server error", "Something went wrong on our side; it has been logged.", None)
