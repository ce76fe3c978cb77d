"""The site's Content-Security-Policy: scripts, styles, images, fonts and connections only
from the site itself, no plugins, no framing, forms only back to the site.

The pages are built for it: no inline scripts or ``style`` attributes, JSON data in
``<script type="application/json">`` blocks (data, not code), the replay viewer a static
file that fetches from the same origin. The API docs are the exception: Swagger UI's page
and Redoc (which injects ``<style>`` elements, and runs its search in a ``blob:`` worker)
need inline styles; their scripts are still files of ours (drf-spectacular-sidecar).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

BASE = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "font-src": "'self'",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
DOCS = {
    **BASE,
    "style-src": "'self' 'unsafe-inline'",
    "font-src": "'self' data:",
    "worker-src": "'self' blob:",
}
#: the pages of the API documentation (config/urls.py)
DOCS_PATHS = ("/api/docs/", "/api/redoc/")


def policy(directives: dict[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives.items())


SITE_POLICY = policy(BASE)
DOCS_POLICY = policy(DOCS)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            docs = request.path.startswith(DOCS_PATHS)
            response["Content-Security-Policy"] = DOCS_POLICY if docs else SITE_POLICY
        return response
