"""``GET /api/bots/<name>/analytics/``: how a bot plays (``leaderboard.reads.analytics``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from arena.models import Bot
from arena.services import owned_bots as svc
from leaderboard.api import serializers as s
from leaderboard.api.base import ArenaView, fields_of
from leaderboard.api.views import ERRORS
from leaderboard.league_marks import page_league
from leaderboard.reads import analytics as analytics_reads


class BotAnalyticsView(ArenaView):
    query = fields_of(s.AnalyticsQuery)

    @extend_schema(
        parameters=[s.AnalyticsQuery],
        responses={200: s.BotAnalyticsSerializer, **ERRORS},
        description="How the bot plays, overall and per opponent (in one league with "
        "`league`, otherwise over all its leagues): how often its face-down card is taken, "
        "the spaces its offers gain against the choice the opponent passed up, how often it "
        "hands over a third Daredevil or Codebreaker, end reasons, decision times. While one "
        "of the bot's mirrored games is withheld (its partner is still to be played) the "
        "counters of that league are as they were before it, and `held` is true.",
    )
    def get(self, request: Request, name: str) -> Response:
        bot = Bot.objects.filter(name=name).first()
        if bot is None:
            raise svc.NotFound(f"no bot named {name!r}")
        params = s.AnalyticsQuery(data=request.query_params)
        params.is_valid(raise_exception=True)
        league = None
        slug = params.validated_data.get("league")
        if slug:
            league = page_league(slug)
        # as the bot page: a mirrored pair's game that is not out yet is not counted
        view = (
            analytics_reads.shown_bot_analytics(bot, league)
            if league is not None
            else analytics_reads.shown_bot_analytics_all(bot)
        )
        return Response(
            {
                "bot": bot.name,
                "league": league.slug if league else None,
                "held": view.held,
                "overall": view.overall.to_json(),
                "opponents": [o.to_json() for o in view.opponents],
            }
        )
