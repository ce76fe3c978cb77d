"""``/api/tournaments/``: the events list (GET, anyone), a new event (POST, staff only),
and ``/api/tournaments/<slug>/``: one event with its rounds, pairings, byes and table or
bracket (``leaderboard.event_reads``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated, PermissionDenied, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from arena import names
from arena.events.advance import do_start
from arena.events.models import Tournament, TournamentFormat
from arena.events.services import (
    MAX_ENTRANTS,
    MAX_GAMES_PER_PAIRING,
    EventConflict,
    EventError,
    TournamentSettings,
    do_create,
)
from arena.models import DealMode
from arena.services import owned_bots as svc
from leaderboard import event_reads
from leaderboard.api.base import ArenaView
from leaderboard.api.views import AUTH_ERRORS, ERRORS

STAFF_ONLY = (
    "creating a tournament is for staff: ask an operator, or log in with a staff account's API key"
)


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=60)
    slug = serializers.SlugField(max_length=60, required=False, default="")
    description = serializers.CharField(max_length=2000, required=False, default="")
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    bots = serializers.ListField(
        child=serializers.RegexField(
            names.ANCHORED, error_messages={"invalid": f"a bot's name: {names.RULE}"}
        ),
        min_length=2,
        max_length=MAX_ENTRANTS,
        help_text="the entrants' names",
    )
    rounds = serializers.IntegerField(
        min_value=0, max_value=64, required=False, default=0,
        help_text="Swiss: rounds, at most the smaller of ceil(bots/2) and 2 log2(bots) + 2 "
        "(0: that many, at most 7); ignored by the other formats",
    )  # fmt: skip
    games_per_pairing = serializers.IntegerField(
        min_value=1, max_value=MAX_GAMES_PER_PAIRING, required=False, default=2,
        help_text="games per pairing (a knockout tie), teams swapped every other game",
    )  # fmt: skip
    deals = serializers.ChoiceField(
        choices=DealMode.values, required=False, default=DealMode.MIRRORED,
        help_text="mirrored: each two games on one deal (memory-controlled bots only); "
        "independent: a deal a game",
    )  # fmt: skip
    rated = serializers.BooleanField(required=False, default=False)
    seed_league = serializers.SlugField(
        max_length=80, required=False, default="",
        help_text="seed by the bots' live ratings in this league (empty: the listed order)",
    )  # fmt: skip
    start = serializers.BooleanField(
        required=False, default=False, help_text="start it at once (seed, round 1)"
    )


class TournamentSummarySerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    format = serializers.ChoiceField(choices=TournamentFormat.choices)
    format_label = serializers.CharField()
    status = serializers.CharField(help_text="draft, running or finished")
    rated = serializers.BooleanField(help_text="the event's games change ratings")
    deals = serializers.CharField()
    games_per_pairing = serializers.IntegerField()
    bots = serializers.IntegerField()
    rounds_planned = serializers.IntegerField()
    rounds_played = serializers.IntegerField(help_text="rounds started so far")
    winner = serializers.CharField(allow_null=True)
    url = serializers.CharField(help_text="the event's page")
    api_url = serializers.CharField()
    created_at = serializers.DateTimeField()


class EventGameSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    url = serializers.CharField(help_text="the match's page (live view, replay)")
    status = serializers.CharField()
    winner = serializers.CharField(
        allow_null=True, help_text="null until its pair of games is over"
    )


class EventPairingSerializer(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()
    a_wins = serializers.IntegerField()
    b_wins = serializers.IntegerField()
    over = serializers.BooleanField()
    games = EventGameSerializer(many=True)


class EventRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    complete = serializers.BooleanField()
    pairings = EventPairingSerializer(many=True)
    byes = serializers.ListField(child=serializers.CharField())


class EventEntrantSerializer(serializers.Serializer):
    bot = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True, help_text="null until it starts")
    seed_rating = serializers.FloatField(allow_null=True)


class EventStandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    bot = serializers.CharField()
    seed = serializers.IntegerField()
    score = serializers.FloatField()
    buchholz = serializers.FloatField()
    median_buchholz = serializers.FloatField()
    sonneborn_berger = serializers.FloatField()
    games_won = serializers.IntegerField()
    games = serializers.IntegerField()
    byes = serializers.IntegerField()


class EventTieSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    a = serializers.CharField(allow_null=True, help_text="the better seed; null: not known yet")
    b = serializers.CharField(allow_null=True)
    bye = serializers.BooleanField()
    a_wins = serializers.IntegerField()
    b_wins = serializers.IntegerField()
    winner = serializers.CharField(allow_null=True)
    decided_by = serializers.CharField(help_text="bye, games, over the board, seed or empty")
    games = EventGameSerializer(many=True)


class TournamentDetailSerializer(TournamentSummarySerializer):
    entrants = EventEntrantSerializer(many=True)
    rule = serializers.CharField(help_text="the ranking or tie-break rule")
    rounds = EventRoundSerializer(many=True)
    standings = EventStandingSerializer(
        many=True, allow_null=True, help_text="Swiss and round robin; null for a knockout"
    )
    bracket = serializers.ListField(
        child=EventTieSerializer(many=True), allow_null=True,
        help_text="knockout: its rounds, ties in bracket order; null otherwise",
    )  # fmt: skip


class Tournaments(ArenaView):
    @extend_schema(
        responses={200: TournamentSummarySerializer(many=True), **ERRORS},
        operation_id="tournaments_list",
        description="Every tournament, newest first.",
    )
    def get(self, request: Request) -> Response:
        return Response(event_reads.summaries())

    @extend_schema(
        request=TournamentCreateSerializer,
        responses={201: TournamentDetailSerializer, **AUTH_ERRORS},
        operation_id="tournaments_create",
        description="A new tournament (staff only: 401 without an API key or session, "
        "403 for a user who is not staff). 400: a setting refused (the message says "
        "which and why: an unknown bot, a Swiss with more rounds than can be paired, "
        "mirrored deals with a dial-in bot, ...); 409: a tournament of that name exists.",
    )
    def post(self, request: Request) -> Response:
        user = request.user
        if not user or not user.is_authenticated:
            raise NotAuthenticated(STAFF_ONLY)
        if not user.is_staff:
            raise PermissionDenied(STAFF_ONLY)
        body = TournamentCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        d: dict[str, Any] = dict(body.validated_data)
        start = d.pop("start")
        try:
            t = do_create(TournamentSettings(**d))
            if start:
                do_start(t)
        except EventConflict:
            raise  # 409
        except EventError as exc:
            raise ValidationError({exc.field or "detail": [str(exc)]}) from None
        t.refresh_from_db()
        return Response(event_reads.detail(t), status=status.HTTP_201_CREATED)


class TournamentView(ArenaView):
    @extend_schema(
        responses={200: TournamentDetailSerializer, **ERRORS},
        operation_id="tournaments_retrieve",
        description="One tournament: entrants and seeds, rounds with their pairings and "
        "games (a game's winner once its pair is over), byes, and the table (Swiss, round "
        "robin) or the bracket (knockout), with the rule they are ranked by. 404: no "
        "tournament of that slug.",
    )
    def get(self, request: Request, slug: str) -> Response:
        t = Tournament.objects.select_related("league", "winner").filter(slug=slug).first()
        if t is None:
            raise svc.NotFound(f"no tournament {slug!r}")
        response = Response(event_reads.detail(t))
        response["Cache-Control"] = "no-store"
        return response
