"""The iframe another site pastes to show a match (``leaderboard.embed_views``)."""

from __future__ import annotations

from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import escape

WIDTH, HEIGHT = 960, 720


def snippet(request: HttpRequest, match_id: int, width: int = WIDTH, height: int = HEIGHT) -> str:
    src = request.build_absolute_uri(reverse("leaderboard:match-embed", args=[match_id]))
    return (
        f'<iframe src="{escape(src)}" width="{width}" height="{height}" '
        f'title="Agent Avenue match {match_id}" loading="lazy" style="border:0"></iframe>'
    )
