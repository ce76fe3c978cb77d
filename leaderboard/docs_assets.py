"""Redoc's bundle as the API docs page loads it: drf-spectacular-sidecar's
``redoc.standalone.js`` with the one address it would fetch from a CDN (the sidebar's
"API docs by Redocly" logo) replaced by an empty image, so that the page loads nothing from
outside and its Content-Security-Policy (``img-src 'self' data:``) reports nothing. Served
at ``REDOC_DIST`` + ``/bundles/redoc.standalone.js`` (settings.SPECTACULAR_SETTINGS), read
once per process."""

from __future__ import annotations

import functools
import hashlib
from importlib.resources import files

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.views.decorators.http import require_GET

#: what the bundle would fetch from Redocly's CDN, and what it shows instead
CDN_LOGO = b"https://cdn.redoc.ly/redoc/logo-mini.svg"
EMPTY_IMAGE = b"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"


@functools.cache
def redoc_bundle_bytes() -> tuple[bytes, str]:
    """The bundle with the logo's address replaced, and its ETag."""
    path = files("drf_spectacular_sidecar") / "static/drf_spectacular_sidecar/redoc/bundles"
    body = (path / "redoc.standalone.js").read_bytes().replace(CDN_LOGO, EMPTY_IMAGE)
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@require_GET
def redoc_bundle(request: HttpRequest) -> HttpResponse:
    body, etag = redoc_bundle_bytes()
    if request.headers.get("If-None-Match") == etag:
        return HttpResponseNotModified(headers={"ETag": etag})
    return HttpResponse(
        body,
        content_type="text/javascript; charset=utf-8",
        headers={"ETag": etag, "Cache-Control": "public, max-age=86400"},
    )
