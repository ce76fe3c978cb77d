"""``GET /api/tv/`` (``?bot=<name>``): the match TV shows now, and why
(``leaderboard.reads.tv``). The TV pages ask it to learn what to show next."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from arena import names
from arena.models import Bot
from arena.services import owned_bots as svc
from leaderboard.api.base import ArenaView, fields_of
from leaderboard.api.views import ERRORS
from leaderboard.reads import tv as tv_reads


class TvQuery(serializers.Serializer):
    bot = serializers.RegexField(
        names.ANCHORED,
        required=False,
        help_text="follow this bot: its match being played, if it has one",
        error_messages={"invalid": f"bot must be a bot's name: {names.RULE}"},
    )


class TvCandidateSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    url = serializers.CharField(help_text="the match's page")
    watchable = serializers.BooleanField(
        help_text="its moves can be followed (false: a game of a mirrored pair whose other "
        "game is not over, which shows only its deal until then)"
    )
    mean_rating = serializers.FloatField()
    gap = serializers.FloatField(help_text="between the teams' mean ratings")


class TvSerializer(serializers.Serializer):
    bot = serializers.CharField(allow_null=True, help_text="the bot followed, if any")
    match = serializers.IntegerField(allow_null=True, help_text="null: nothing is being played")
    url = serializers.CharField(allow_null=True, help_text="the chosen match's page")
    tv_url = serializers.CharField(help_text="the TV page that shows it")
    reason = serializers.CharField(help_text="why this match (or why none), in words")
    rule = serializers.CharField(help_text="the rule TV chooses by")
    live = TvCandidateSerializer(
        many=True, help_text="the matches being played, in the rule's order (the first 20)"
    )


def tv_answer(bot: Bot | None) -> dict[str, Any]:
    """What the endpoint answers (the pages render the same choice)."""
    found = tv_reads.candidates(bot)
    chosen = found[0] if found else None
    tv_url = reverse("leaderboard:bot-tv", args=[bot.name]) if bot else reverse("leaderboard:tv")
    if chosen is not None:
        reason = chosen.reason()
    elif bot is not None:
        reason = f"{bot.name} is not playing now"
    else:
        reason = "no match is being played now"
    return {
        "bot": bot.name if bot else None,
        "match": chosen.match_id if chosen else None,
        "url": reverse("leaderboard:match", args=[chosen.match_id]) if chosen else None,
        "tv_url": tv_url,
        "reason": reason,
        "rule": tv_reads.RULE,
        "live": [
            {
                "match": c.match_id,
                "url": reverse("leaderboard:match", args=[c.match_id]),
                "watchable": c.watchable,
                "mean_rating": round(c.mean_rating, 1),
                "gap": round(c.gap, 1),
            }
            for c in found[: tv_reads.LISTED]
        ],
    }


class Tv(ArenaView):
    query = fields_of(TvQuery)

    @extend_schema(
        parameters=[TvQuery],
        responses={200: TvSerializer, **ERRORS},
        description="The match being played that TV shows now (`/tv/`; with `bot`, that "
        "bot's: `/bots/<name>/tv/`), why it was chosen, and every match being played in the "
        "rule's order. `match` is null when nothing is being played (or the bot is not "
        "playing). 400: a malformed bot name or an unknown parameter; 404: no such bot.",
    )
    def get(self, request: Request) -> Response:
        params = TvQuery(data=request.query_params)
        params.is_valid(raise_exception=True)
        bot = None
        name = params.validated_data.get("bot")
        if name is not None:
            bot = Bot.objects.filter(name=name).first()
            if bot is None:
                raise svc.NotFound(f"no bot named {name!r}")
        response = Response(tv_answer(bot))
        response["Cache-Control"] = "no-store"
        return response
