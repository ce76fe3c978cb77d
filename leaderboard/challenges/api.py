"""``/api/challenges/``: ask for a challenge (POST, as the bot's owner) and list yours,
sent and received (GET); ``/api/bots/<name>/challenges/accept/``: the bot's setting;
``/api/bots/<name>/sparring/``: "play my version against the house bots now"."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from arena.challenges import reads
from arena.challenges import services as challenges
from arena.models import LeagueMode
from arena.services import owned_bots as svc
from leaderboard.api.base import ArenaView
from leaderboard.api.serializers import ErrorSerializer
from leaderboard.challenges.presence import online

#: what these endpoints may answer beside their success (429: the day's quota is used)
ERRORS = {code: ErrorSerializer for code in (400, 401, 403, 404, 429)}


class ChallengeRequest(serializers.Serializer):  # type: ignore[type-arg]
    bot = serializers.CharField(max_length=64, help_text="your bot")
    opponent = serializers.CharField(max_length=64, help_text="a bot whose owner accepts")
    games = serializers.IntegerField(
        default=1, min_value=1, max_value=99, help_text="N of a best-of-N (odd)"
    )
    mode = serializers.ChoiceField(choices=LeagueMode.choices, default=LeagueMode.SIMPLE)


class AcceptRequest(serializers.Serializer):  # type: ignore[type-arg]
    accepts = serializers.BooleanField()


class SparRequest(serializers.Serializer):  # type: ignore[type-arg]
    games = serializers.IntegerField(default=1, min_value=1, max_value=99)


def refusal(exc: Exception) -> Response:
    """A refused challenge as the API's JSON error (``leaderboard.api.errors``' shape)."""
    if isinstance(exc, challenges.QuotaExceeded):
        response = Response(
            {"error": str(exc), "code": "quota", "retry_after": exc.retry_after},
            status=status.HTTP_429_TOO_MANY_REQUESTS,
        )
        response["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, challenges.NotAccepting):
        return Response(
            {"error": str(exc), "code": "not_accepting"}, status=status.HTTP_403_FORBIDDEN
        )
    return Response({"error": str(exc), "code": "refused"}, status=status.HTTP_400_BAD_REQUEST)


def _valid(serializer: serializers.Serializer) -> dict[str, Any]:  # type: ignore[type-arg]
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


class Challenges(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        description="Your challenges, sent and received, newest first, each with its state "
        "(queued, playing, finished), score and matches (`watch`: the game to watch now).",
    )
    def get(self, request: Request) -> Response:
        found = reads.sent_and_received(request.user)
        return Response(
            {
                "challenges": [reads.payload(st.challenge, st) for st in reads.states(found)],
                "per_day": settings.CHALLENGES_PER_DAY,
            }
        )

    @extend_schema(
        request=ChallengeRequest,
        responses={201: OpenApiTypes.OBJECT, **ERRORS},
        description="Challenge a bot whose owner accepts challenges: your `bot` plays "
        "`opponent` a best-of-`games` (odd, at most CHALLENGE_MAX_GAMES), unrated, behind "
        "league play in the queue. 403: not your bot, or the opponent does not accept; "
        "400: yourself, a bad N, or a bot that is not connected (nothing is queued for an "
        "offline bot); 429: your CHALLENGES_PER_DAY are used (`retry_after` seconds).",
    )
    def post(self, request: Request) -> Response:
        data = _valid(ChallengeRequest(data=request.data))
        bot = svc.owned_bot(request.user, data["bot"])
        opponent = svc.find_bot(data["opponent"])
        try:
            made = challenges.do_challenge(
                request.user, bot, opponent, data["games"], data["mode"],
                online=online(bot, opponent),
            )  # fmt: skip
        except (challenges.ChallengeError, challenges.NotAccepting) as exc:
            return refusal(exc)
        return Response(reads.payload(made), status=status.HTTP_201_CREATED)


class Accept(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=AcceptRequest,
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        description="Whether others may challenge your bot (off until you say so).",
    )
    def put(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        data = _valid(AcceptRequest(data=request.data))
        challenges.do_set_accepts(request.user, bot, data["accepts"])
        return Response({"bot": bot.name, "accepts": challenges.accepts(bot)})


class Sparring(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=SparRequest,
        responses={201: OpenApiTypes.OBJECT, **ERRORS},
        description="Play your hosted bot's current version against every house bot now: "
        "a best-of-`games` against each, unrated; each counts against your quota.",
    )
    def post(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        data = _valid(SparRequest(data=request.data))
        try:
            made = challenges.do_spar(request.user, bot, data["games"], online=online(bot))
        except challenges.ChallengeError as exc:
            return refusal(exc)
        return Response(
            {"challenges": [reads.payload(c) for c in made]}, status=status.HTTP_201_CREATED
        )

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS})
    def get(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        found = reads.sparring_of(bot.pk)
        return Response(
            {"challenges": [reads.payload(st.challenge, st) for st in reads.states(found)]}
        )
