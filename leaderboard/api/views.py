"""API views: parse and validate input, call a read or a service, shape the answer.

Authorization lives in ``arena.services.owned_bots`` (``NotOwner`` -> 403, ``NotFound`` ->
404); ``leaderboard.api.errors`` maps every domain error to a JSON error.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import authenticate
from django.db.models import Prefetch
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import NotAuthenticated, NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle

from arena.models import Bot, BotKind, League, LeagueFormat, listed_q
from arena.ratings.models import LiveRating
from arena.services import owned_bots as svc
from avenue_sdk.viewer.frames import SPECTATOR
from leaderboard import league_marks, replays
from leaderboard.api import serializers as s
from leaderboard.api.auth import issue_api_key, revoke_api_key
from leaderboard.api.base import ArenaView, fields_of
from leaderboard.models import ApiToken
from leaderboard.reads import leagues as league_reads
from leaderboard.reads import matches as match_reads
from leaderboard.reads.bots import connected_now, version_records

USERNAME = re.compile(r"[\w.@+-]{1,150}")
#: every view may answer these (401: a bad API key, or none where one is needed)
ERRORS = {
    400: s.ErrorSerializer,
    401: s.ErrorSerializer,
    403: s.ErrorSerializer,
    404: s.ErrorSerializer,
}
#: endpoints that act for a user may also be refused in the current state (409)
AUTH_ERRORS = {**ERRORS, 409: s.ErrorSerializer}
#: and the rate-limited ones 429 too
THROTTLED = {**ERRORS, 429: s.ErrorSerializer}


def _league_json(summary: league_reads.LeagueSummary) -> dict[str, Any]:
    lg = summary.league
    return {
        "slug": lg.slug,
        "name": lg.name,
        "description": lg.description,
        "mode": lg.mode,
        "seats": lg.seats,
        "ruleset": lg.ruleset,
        "format": lg.format,
        "games_per_bot": lg.games_per_bot if lg.format == LeagueFormat.INFORMATION else None,
        "status": lg.status,
        "open_for_entries": lg.open_for_entries,
        "rated": lg.rated,
        "entries": summary.entries,
        "matches_played": summary.played,
        "live_matches": summary.live,
        "next_round_at": summary.next_round.isoformat() if summary.next_round else None,
        "schedule_note": summary.schedule_note,
    }


class LeagueList(ArenaView):
    @extend_schema(
        responses={200: s.LeagueSerializer(many=True), 401: s.ErrorSerializer},
        operation_id="leagues_list",
    )
    def get(self, request: Request) -> Response:
        return Response([_league_json(x) for x in league_reads.league_summaries()])


def _league(slug: str) -> League:
    return league_marks.page_league(slug)


class LeagueDetail(ArenaView):
    @extend_schema(responses={200: s.LeagueSerializer, **ERRORS})
    def get(self, request: Request, slug: str) -> Response:
        league = _league(slug)
        summaries = league_reads.league_summaries(hidden=True)
        summary = next(x for x in summaries if x.league.pk == league.pk)
        return Response(_league_json(summary))


class LeagueStandings(ArenaView):
    query = fields_of(s.StandingsQuery)

    @extend_schema(
        parameters=[s.StandingsQuery],
        responses={200: s.StandingsSerializer, **ERRORS},
    )  # fmt: skip
    def get(self, request: Request, slug: str) -> Response:
        league = _league(slug)
        try:
            st = league_reads.league_standings(league, request.query_params.get("sort"))
        except league_reads.BadSort as exc:
            raise ValidationError({"sort": [str(exc)]}) from None
        return Response(
            {
                "league": league.slug,
                "provisional_games": league_reads.PROVISIONAL_GAMES,
                "batch_computed_at": st.batch_at.isoformat() if st.batch_at else None,
                "standings": [r.to_json() for r in st.rows],
            }
        )


# ------------------------------------------------------------------ bots


def bot_json(bot: Bot, request: Request, *, connected: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": bot.name,
        "kind": bot.kind,
        "owner": bot.owner.get_username() if bot.owner else None,
        "active": bot.active,
        "created_at": bot.created_at.isoformat(),
        "bot_version": bot.bot_version,
        "protocol_version": bot.protocol_version,
        "last_seen_at": bot.last_seen_at.isoformat() if bot.last_seen_at else None,
        "connected": connected,
        "leagues": [
            # as the standings show them (a mirrored pair's game waits for the other)
            {"league": r.league.slug, "rating": float(r.shown_rating), "games": r.shown_games}
            for r in bot.live_ratings.all()
        ],
    }
    if request.user.is_authenticated and bot.owner_id == request.user.pk:
        out["token_prefix"] = bot.token_prefix
    return out


def _bots_with_ratings() -> Any:
    return Bot.objects.select_related("owner").prefetch_related(
        Prefetch(
            "live_ratings",
            # a bot's ratings are its listed leagues' (arena.models.leagues)
            LiveRating.objects.filter(listed_q("league__"))
            .select_related("league")
            .order_by("league"),
        )
    )


class BotPagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class BotList(ArenaView):
    query = fields_of(s.BotListQuery)

    def get_throttles(self) -> list[Any]:
        if self.request.method == "POST":
            self.throttle_scope = "bot_tokens"
            return [ScopedRateThrottle()]
        return []

    @extend_schema(
        parameters=[s.BotListQuery],
        responses={200: s.BotPageSerializer, **ERRORS},
        operation_id="bots_list",
    )
    def get(self, request: Request) -> Response:
        qs = _bots_with_ratings().order_by("name")
        owner = request.query_params.get("owner")
        if owner:
            if not USERNAME.fullmatch(owner):
                raise ValidationError({"owner": ["owner must be a user name"]})
            qs = qs.filter(owner__username=owner)
        paginator = BotPagination()
        page = paginator.paginate_queryset(qs, request, view=self) or []
        return paginator.get_paginated_response([bot_json(b, request) for b in page])

    @extend_schema(
        request=s.BotCreateSerializer,
        responses={201: s.TokenSerializer, **AUTH_ERRORS, **THROTTLED},
        description="Create a remote bot owned by you. The answer holds its token, once.",
    )
    def post(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("log in (or send an API key) to create a bot")
        data = s.BotCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot, token = svc.do_create_bot(request.user, data.validated_data["name"])
        return Response(
            {"bot": bot.name, "token": token, "token_prefix": bot.token_prefix},
            status=status.HTTP_201_CREATED,
        )


class BotDetail(ArenaView):
    @extend_schema(responses={200: s.BotSerializer, **ERRORS})
    def get(self, request: Request, name: str) -> Response:
        bot = _bots_with_ratings().filter(name=name).first()
        if bot is None:
            raise svc.NotFound(f"no bot named {name!r}")
        connected = None if bot.kind == BotKind.HOUSE else connected_now([bot.pk])[bot.pk]
        out = bot_json(bot, request, connected=connected)
        if bot.kind == BotKind.HOSTED:
            out["versions"] = [v.to_json() for v in version_records(bot)]
        return Response(out)


class BotToken(ArenaView):
    permission_classes = [IsAuthenticated]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "bot_tokens"

    @extend_schema(
        request=None,
        responses={200: s.TokenSerializer, **AUTH_ERRORS, **THROTTLED},
        description="A new token for your bot (the old one stops working).",
    )
    def post(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        token = svc.do_rotate_token(request.user, bot)
        return Response({"bot": bot.name, "token": token, "token_prefix": bot.token_prefix})

    @extend_schema(
        request=None,
        responses={204: None, **AUTH_ERRORS, **THROTTLED},
        description="Revoke your bot's token: no new stream opens with it.",
    )
    def delete(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        svc.do_revoke_token(request.user, bot)
        return Response(status=status.HTTP_204_NO_CONTENT)


class BotEntries(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=s.EntrySerializer, responses={201: s.EntryResultSerializer, **AUTH_ERRORS}
    )
    def post(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        data = s.EntrySerializer(data=request.data)
        data.is_valid(raise_exception=True)
        league = svc.find_league(data.validated_data["league"])
        svc.do_enter_league(request.user, bot, league)
        return Response(
            {"bot": bot.name, "league": league.slug, "entered": True},
            status=status.HTTP_201_CREATED,
        )


class BotEntry(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: s.EntryResultSerializer, **AUTH_ERRORS})
    def delete(self, request: Request, name: str, slug: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        league = svc.find_league(slug)
        svc.do_leave_league(request.user, bot, league)
        return Response({"bot": bot.name, "league": league.slug, "entered": False})


# ------------------------------------------------------------------ matches


class MatchList(ArenaView):
    query = fields_of(s.MatchQuery)

    @extend_schema(
        parameters=[s.MatchQuery],
        responses={200: s.MatchPageSerializer, **ERRORS},
        description="Newest first; follow `next` for older matches.",
        operation_id="matches_list",
    )
    def get(self, request: Request) -> Response:
        try:
            f = match_reads.parse_filter(request.query_params)
            results, next_before = match_reads.match_summaries(f)
        except match_reads.BadFilter as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None
        next_url = None
        if next_before is not None:
            query = urlencode({**f.query(), "before": next_before})
            next_url = request.build_absolute_uri(f"{request.path}?{query}")
        return Response({"results": results, "next": next_url})


def _match(pk: int) -> Any:
    m = match_reads.match_detail(pk)
    if m is None:
        raise NotFound(f"no match {pk}")
    return m


class MatchDetail(ArenaView):
    @extend_schema(responses={200: s.MatchSerializer, **ERRORS})
    def get(self, request: Request, pk: int) -> Response:
        m = _match(pk)
        return Response(match_reads.match_json(m, replays.replay_state(m)))


class MatchReplay(ArenaView):
    query = frozenset({"download"})

    @extend_schema(
        parameters=[OpenApiParameter("download", bool, description="as a file attachment")],
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        description="The stored replay (referee.replay JSON): header with the deck order, "
        "every decision, the result. Refused (403) while the match or the other game of its "
        "mirrored pair is being played.",
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        if pk > match_reads.MAX_ID:
            raise NotFound(f"no match {pk}")
        response = HttpResponse(replays.replay_text_of(pk), content_type="application/json")
        if request.query_params.get("download"):
            response["Content-Disposition"] = f'attachment; filename="match-{pk}.json"'
        return response


class MatchFrames(ArenaView):
    query = fields_of(s.FramesQuery)

    @extend_schema(
        parameters=[s.FramesQuery],
        responses={200: s.ViewerSerializer, **ERRORS},
        description="The replay viewer's frames, re-simulated through the referee.",
    )  # fmt: skip
    def get(self, request: Request, pk: int) -> Response:
        m = _match(pk)
        perspective = request.query_params.get("perspective") or SPECTATOR
        return Response(replays.viewer_json(m, perspective))


# ------------------------------------------------------------------ accounts


class AuthToken(ArenaView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth"

    @extend_schema(
        request=s.CredentialsSerializer,
        responses={201: s.ApiKeySerializer, **ERRORS, **THROTTLED},
        description="Trade a username and password for an API key (replacing any older "
        "one). Rate-limited.",
        auth=[],
    )
    def post(self, request: Request) -> Response:
        data = s.CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=data.validated_data["username"],
            password=data.validated_data["password"],
        )
        if user is None or not user.is_active:
            raise ValidationError({"non_field_errors": ["wrong username or password"]})
        key = issue_api_key(user)
        return Response({"key": key, "prefix": key[:10]}, status=status.HTTP_201_CREATED)

    @extend_schema(
        request=None,
        responses={204: None, **AUTH_ERRORS, **THROTTLED},
        description="Revoke your API key.",
    )
    def delete(self, request: Request) -> Response:
        if not request.user.is_authenticated:
            raise NotAuthenticated("send your API key (or log in) to revoke it")
        revoke_api_key(request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class Me(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: s.MeSerializer, **AUTH_ERRORS})
    def get(self, request: Request) -> Response:
        bots = list(_bots_with_ratings().filter(owner_id=request.user.pk).order_by("name"))
        presence = connected_now([b.pk for b in bots])
        key = ApiToken.objects.filter(user_id=request.user.pk).values_list("prefix", flat=True)
        return Response(
            {
                "username": request.user.get_username(),
                "api_key_prefix": key.first(),
                "bots": [bot_json(b, request, connected=presence.get(b.pk)) for b in bots],
            }
        )
