"""A match's replay (or live game) for other sites: ``/matches/<id>/embed/`` is the viewer
alone, framable from anywhere (``?autoplay=1`` plays it), and ``/oembed/?url=...`` answers
oEmbed consumers with the iframe's HTML. The match page offers the snippet to copy."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.clickjacking import xframe_options_exempt

from arena.models import Match
from leaderboard import replays
from leaderboard.csp import BASE, policy
from leaderboard.embedding import HEIGHT, WIDTH, snippet
from leaderboard.league_marks import mark_of
from leaderboard.views import not_found

#: the embed page may be framed by any site (the rest of the site by none)
EMBED_POLICY = policy({**BASE, "frame-ancestors": "*"})
MATCH_PATH = re.compile(r"/matches/(\d{1,18})/?(?:embed/?)?")


@xframe_options_exempt
def embed(request: HttpRequest, pk: int) -> HttpResponse:
    match = Match.objects.filter(pk=pk).select_related("league").first()
    if match is None:
        response = not_found(request, f"There is no match {pk}.")
    else:
        state = replays.replay_state(match)
        response = render(
            request,
            "leaderboard/embed.html",
            {
                "match": match,
                # a requested game's or an event's, not the hidden league's name
                "played_in": mark_of(match.league.slug).name,
                "plain": True,
                "replay_state": state,
                "autoplay": request.GET.get("autoplay") == "1",
                "frames_url": reverse("api:match-frames", args=[match.pk]),
                "page_url": request.build_absolute_uri(
                    reverse("leaderboard:match", args=[match.pk])
                ),
            },
        )
    response["Content-Security-Policy"] = EMBED_POLICY
    return response


def oembed(request: HttpRequest) -> HttpResponse:
    """oEmbed (https://oembed.com/), JSON only: the match page's URL in, its iframe out."""
    url = request.GET.get("url", "")
    if request.GET.get("format", "json") != "json":
        return JsonResponse({"error": "only format=json is served"}, status=501)
    found = MATCH_PATH.fullmatch(urlsplit(url).path) if len(url) < 2000 else None
    if found is None:
        return JsonResponse({"error": "url must be a match page: .../matches/<id>/"}, status=404)
    match = Match.objects.filter(pk=int(found[1])).select_related("league").first()
    if match is None:
        return JsonResponse({"error": f"there is no match {found[1]}"}, status=404)

    def size(name: str, default: int) -> int:
        raw = request.GET.get(name, "")
        return min(default, int(raw)) if raw.isdigit() and 0 < int(raw) < 10_000 else default

    width, height = size("maxwidth", WIDTH), size("maxheight", HEIGHT)
    names = " vs ".join(
        p.bot.name for p in match.participations.select_related("bot").order_by("seat")
    )
    return JsonResponse(
        {
            "version": "1.0",
            "type": "rich",
            "provider_name": "Agent Avenue Arena",
            "provider_url": request.build_absolute_uri("/"),
            "title": f"Match {match.pk} ({mark_of(match.league.slug).name}): {names}",
            "html": snippet(request, match.pk, width, height),
            "width": width,
            "height": height,
        }
    )
