"""``GET /api/leagues/<slug>/seasons/`` (a league's seasons) and
``GET /api/leagues/<slug>/seasons/<n>/`` (one season's table by division, its rule and
crosstable: frozen once it ended; as it stands while it runs)."""

from __future__ import annotations

from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response

from leaderboard.api.base import ArenaView
from leaderboard.api.views import ERRORS
from leaderboard.league_marks import page_league
from leaderboard.reads import seasons as season_reads


class SeasonSummarySerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["running", "ended"])
    started_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField(allow_null=True, help_text="null: no time limit")
    rounds = serializers.IntegerField(allow_null=True, help_text="null: no round limit")
    first_round = serializers.IntegerField()
    last_round = serializers.IntegerField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)
    start_rule = serializers.ChoiceField(choices=["reset", "carry", "soft"])
    soft_factor = serializers.FloatField()
    divisions_count = serializers.IntegerField()
    promote = serializers.IntegerField(help_text="the top and bottom K of each division move")
    placement_games = serializers.IntegerField(
        help_text="a new bot's provisional games against every division before it is placed "
        "in one mid-season; 0: it plays in the lowest division until the season's end"
    )


class SeasonLineSerializer(serializers.Serializer):
    bot = serializers.CharField()
    division = serializers.IntegerField(allow_null=True)
    place = serializers.IntegerField(help_text="within the division")
    rating = serializers.FloatField(help_text="the season's Elo")
    start = serializers.FloatField(help_text="the season's Elo at its start, by the rule")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()
    forfeits = serializers.IntegerField()
    live = serializers.FloatField(help_text="the league's live Elo (all games)")
    fit_elo = serializers.FloatField(allow_null=True, help_text="one fit over all games")
    fit_low = serializers.FloatField(allow_null=True)
    fit_high = serializers.FloatField(allow_null=True)
    fit_rank = serializers.IntegerField(allow_null=True)
    zone = serializers.CharField(help_text="up / down: promoted or relegated (ended), in the "
                                 "zone (running); empty otherwise")  # fmt: skip
    next_division = serializers.IntegerField(allow_null=True)


class DivisionSerializer(serializers.Serializer):
    division = serializers.IntegerField(allow_null=True)
    standings = SeasonLineSerializer(many=True)


class CrossRowSerializer(serializers.Serializer):
    bot = serializers.CharField()
    cells = serializers.ListField(child=serializers.CharField(allow_null=True),
                                  help_text="wins/games against each bot of `bots`")  # fmt: skip


class CrosstableSerializer(serializers.Serializer):
    bots = serializers.ListField(child=serializers.CharField())
    rows = CrossRowSerializer(many=True)


class SeasonSerializer(SeasonSummarySerializer):
    rule = serializers.CharField()
    divisions = DivisionSerializer(many=True)
    crosstable = CrosstableSerializer()


class Seasons(ArenaView):
    @extend_schema(responses={200: SeasonSummarySerializer(many=True), **ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        league = page_league(slug)
        return Response([season_reads.season_summary(s) for s in season_reads.seasons_of(league)])


class SeasonDetail(ArenaView):
    @extend_schema(responses={200: SeasonSerializer, **ERRORS})
    def get(self, request: Request, slug: str, number: int) -> Response:
        league = page_league(slug)
        found = season_reads.find_season(league, number)
        if found is None:
            raise NotFound(f"league {league.name} has no season {number}")
        return Response(season_reads.season_view(league, found).to_json())


urlpatterns = [
    path("", Seasons.as_view(), name="seasons"),
    path("<int:number>/", SeasonDetail.as_view(), name="season"),
]
