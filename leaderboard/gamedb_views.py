"""The league page's game database: its monthly archives for download."""

from __future__ import annotations

from django.http import FileResponse, HttpRequest
from django.http.response import HttpResponseBase

from arena.models import League
from arena.services import gamedb
from leaderboard.views import not_found


def archive(request: HttpRequest, slug: str, name: str) -> HttpResponseBase:
    league = League.objects.filter(slug=slug).first()
    if league is None:
        return not_found(request, f"There is no league {slug!r}.")
    path = gamedb.archive_path(league, name)
    if path is None:
        return not_found(request, f"League {league.name} has no archive {name[:100]!r}.")
    response = FileResponse(open(path, "rb"), as_attachment=True, filename=path.name)  # noqa: SIM115
    response["Content-Type"] = "application/gzip"
    return response
