"""The league page's game database: its monthly archives for download."""

from __future__ import annotations

from django.http import FileResponse, HttpRequest
from django.http.response import HttpResponseBase

from arena.services import gamedb
from leaderboard.views import not_found, page_league_or_error


def archive(request: HttpRequest, slug: str, name: str) -> HttpResponseBase:
    league = page_league_or_error(request, slug)
    if isinstance(league, HttpResponseBase):
        return league
    path = gamedb.archive_path(league, name)
    if path is None:
        return not_found(request, f"League {league.name} has no archive {name[:100]!r}.")
    response = FileResponse(open(path, "rb"), as_attachment=True, filename=path.name)  # noqa: SIM115
    response["Content-Type"] = "application/gzip"
    return response
