from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def home(request: HttpRequest) -> HttpResponse:
    """The site's front page. Standings, bot and match pages join it in later issues."""
    return render(
        request,
        "leaderboard/home.html",
        {"embedded": settings.ARENA_EMBEDDED, "gateway_address": settings.GATEWAY_ADDRESS},
    )
