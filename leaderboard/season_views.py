"""The season pages: a league's seasons (``/leagues/<slug>/seasons/``) and one season's
table (``/leagues/<slug>/seasons/<n>/``): frozen once the season ended."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render

from leaderboard.reads import seasons as season_reads
from leaderboard.views import not_found, page_league_or_error


def seasons(request: HttpRequest, slug: str) -> HttpResponse:
    league = page_league_or_error(request, slug)
    if isinstance(league, HttpResponseBase):
        return league
    found = season_reads.seasons_of(league)
    return render(
        request,
        "leaderboard/seasons.html",
        {
            "league": league,
            "seasons": found,
            "rules": {s.number: season_reads.rule_of(s) for s in found},
        },
    )


def season(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    league = page_league_or_error(request, slug)
    if isinstance(league, HttpResponseBase):
        return league
    found = season_reads.find_season(league, number)
    if found is None:
        return not_found(request, f"League {league.name} has no season {number}.")
    view = season_reads.season_view(league, found)
    return render(request, "leaderboard/season.html", {"league": league, "view": view})
