"""The site's URLs plus the trivial views that bench/web_pages.py measures beside them."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from arena.models import League
from config.urls import handler400, handler403, handler404, handler500  # noqa: F401
from config.urls import urlpatterns as site


def trivial_page(request: HttpRequest) -> HttpResponse:
    """The site's layout with one indexed query: what every page pays before its work."""
    league = League.objects.order_by("pk").first()
    return render(request, "leaderboard/error.html", {"title": "Trivial", "message": str(league)})


class TrivialApi(APIView):
    """One indexed row through DRF: what every API answer pays before its work."""

    def get(self, request: Request) -> Response:
        league = League.objects.order_by("pk").values("slug", "name").first()
        return Response(league)


urlpatterns = [
    path("bench/trivial/", trivial_page),
    path("bench/trivial-api/", TrivialApi.as_view()),
    *site,
]
