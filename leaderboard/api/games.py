"""``GET /api/games/``: the game database as a stream of NDJSON (``arena.services.gamedb``),
one finished game per line, oldest first, with filters and a cursor."""

from __future__ import annotations

import re

from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request

from arena.models import Bot
from arena.services import gamedb
from leaderboard.api.base import ArenaView
from leaderboard.api.views import ERRORS
from leaderboard.league_marks import page_league

SLUG = re.compile(r"[-a-zA-Z0-9_]{1,80}")
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MAX_ID = 2**63 - 1


def _int(request: Request, name: str, default: int | None, high: int) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit() or not 0 <= int(raw) <= high:
        raise ValidationError({name: [f"{name} must be a whole number from 0 to {high}"]})
    return int(raw)


class Games(ArenaView):
    query = frozenset({"league", "bot", "after", "month", "limit"})

    @extend_schema(
        parameters=[
            OpenApiParameter("league", str, description="a league's slug"),
            OpenApiParameter("bot", str, description="only the games this bot played"),
            OpenApiParameter("after", int, description="only matches with a larger id (cursor)"),
            OpenApiParameter("month", str, description="finished in this month, YYYY-MM (UTC)"),
            OpenApiParameter("limit", int, description="at most this many games"),
        ],
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR, **ERRORS},
        description="Every finished game, one JSON object per line (NDJSON), by match id: "
        "match, league, mode, seats, finished_at, bots (by seat), winner_team, end_reason, "
        "turns, and replay (the stored referee.replay record, as /api/matches/<id>/replay/ "
        "serves it). A game whose mirrored partner is still being played is left out until "
        "it is over. Resume a broken download with after=<the last match read>. "
        "avenue_sdk.games.load reads this stream and the league pages' monthly archives.",
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        params = request.query_params
        league = None
        slug = params.get("league")
        if slug is not None:
            if not SLUG.fullmatch(slug):
                raise ValidationError({"league": ["league must be a league's slug"]})
            league = page_league(slug)
        bot = params.get("bot")
        if bot is not None:
            if not NAME.fullmatch(bot):
                raise ValidationError({"bot": ["bot must be a bot's name"]})
            if not Bot.objects.filter(name=bot).exists():
                raise NotFound(f"no bot {bot!r}")
        month = params.get("month")
        if month is not None and not gamedb.MONTH.fullmatch(month):
            raise ValidationError({"month": ["month must be YYYY-MM, e.g. 2026-12"]})
        filters = gamedb.Filters(
            league=league,
            bot=bot,
            after=_int(request, "after", 0, MAX_ID) or 0,
            month=month,
            limit=_int(request, "limit", None, 10**9),
        )
        response = StreamingHttpResponse(gamedb.lines(filters), content_type="application/x-ndjson")
        response["Content-Disposition"] = 'inline; filename="games.ndjson"'
        return response
