"""The API of hosted bots (issue 13): create one, upload versions (multipart: ``file`` and
``entry_point``), list them with their check logs (owner only), switch the active one; start
a version test ("is v2 better than v1?") and follow it. The checks and changes are
``arena.hosting.services`` and ``arena.adapters.bothost.versiontest``; refusals answer 400
``invalid_upload`` / ``invalid_test``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from arena import names
from arena.adapters.bothost import versiontest
from arena.hosting import services as hosting
from arena.hosting.models import CodeVersion
from arena.services import owned_bots as svc
from leaderboard.api.base import ArenaView
from leaderboard.api.views import AUTH_ERRORS


def version_json(v: CodeVersion) -> dict[str, Any]:
    return {
        "number": v.number,
        "parent": v.parent.number if v.parent_id and v.parent else None,
        "status": v.status,
        "active": v.active,
        "entry_point": v.entry_point,
        "filename": v.filename,
        "size": v.size,
        "sha256": v.sha256,
        "created_at": v.created_at.isoformat(),
        "checked_at": v.checked_at.isoformat() if v.checked_at else None,
        "check_log": v.check_log,
    }


class HostedBots(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={201: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description='Create a hosted bot owned by you ({"name": ...}): no token, '
        "upload its code to /api/bots/<name>/versions/.",
    )
    def post(self, request: Request) -> Response:
        name = request.data.get("name") if hasattr(request.data, "get") else None
        if not isinstance(name, str) or not name:
            raise ValidationError({"name": ["a bot name is required"]})
        bot = hosting.do_create_hosted_bot(request.user, name)
        return Response({"bot": bot.name, "kind": bot.kind}, status=status.HTTP_201_CREATED)


class Versions(ArenaView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description="Your hosted bot's versions, newest first, with check logs.",
    )
    def get(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        return Response(
            {"bot": bot.name, "versions": [version_json(v) for v in hosting.versions(bot)]}
        )

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={201: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description="Upload a new version: multipart with `file` (.py or .zip) and "
        "`entry_point` (module:Class). It is checked in a sandbox before it plays.",
    )
    def post(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        upload = request.FILES.get("file")
        data = request.data if hasattr(request.data, "get") else {}
        entry_point = data.get("entry_point", "")
        if upload is None:
            raise ValidationError({"file": ["attach the bot's .py or .zip as `file`"]})
        if not isinstance(entry_point, str) or not entry_point:
            raise ValidationError({"entry_point": ["name the bot's class as module:Class"]})
        limit = hosting.upload_limits().upload_bytes
        if upload.size is not None and upload.size > limit:
            raise hosting.HostingError(
                f"the file is {upload.size:,} bytes; uploads may be at most {limit:,}"
            )
        data = upload.read(limit + 1)
        version = hosting.do_upload(request.user, bot, upload.name or "", data, entry_point)
        return Response(version_json(version), status=status.HTTP_201_CREATED)


class Activate(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=None,
        responses={200: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description="Make a checked version the one that plays (switch back).",
    )
    def post(self, request: Request, name: str, number: int) -> Response:
        bot = svc.owned_bot(request.user, name)
        version = hosting.do_activate(request.user, bot, number)
        return Response(version_json(version))


def _number(data: Any, key: str, kind: type, default: Any) -> Any:
    value = data.get(key, default) if hasattr(data, "get") else default
    if value is None or value == "":
        return default
    if isinstance(value, bool):
        raise ValidationError({key: [f"{key} must be a number"]})
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ValidationError({key: [f"{key} must be a number"]}) from None
    if kind is float and number != number:  # NaN
        raise ValidationError({key: [f"{key} must be a number"]})
    if kind is int and number != float(value):
        raise ValidationError({key: [f"{key} must be a whole number"]})
    return number


class VersionTests(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="bots_tests_list",
        responses={200: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description="Your hosted bot's version tests, newest first, with their progress.",
    )
    def get(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        return Response(
            {"bot": bot.name, "tests": [versiontest.to_json(t) for t in versiontest.tests_of(bot)]}
        )

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={201: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description="Is `candidate` better than `baseline` (version numbers; `baseline_bot` "
        "another hosted bot of yours, default this one)? An SPRT on mirrored pairs played on "
        "the workers, unrated: `elo0` (default 0) and `elo1` (default 50) in logistic Elo, "
        "`alpha` and `beta` (default 0.05), `max_games` (default 400, even). It stops when "
        "the LLR crosses ln(beta/(1-alpha)) or ln((1-beta)/alpha), or at the budget.",
    )
    def post(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        data = request.data
        candidate = _number(data, "candidate", int, None)
        baseline = _number(data, "baseline", int, None)
        for key, value in (("candidate", candidate), ("baseline", baseline)):
            if value is None:
                raise ValidationError({key: [f"name the {key} version by its number"]})
        other_name = data.get("baseline_bot") if hasattr(data, "get") else None
        other = None
        if other_name:
            if not isinstance(other_name, str) or not names.is_valid(other_name):
                raise ValidationError({"baseline_bot": ["baseline_bot is a bot's name"]})
            other = svc.find_bot(other_name)
        defaults = versiontest.SprtSettings()
        settings = versiontest.SprtSettings(
            elo0=_number(data, "elo0", float, defaults.elo0),
            elo1=_number(data, "elo1", float, defaults.elo1),
            alpha=_number(data, "alpha", float, defaults.alpha),
            beta=_number(data, "beta", float, defaults.beta),
            max_games=_number(data, "max_games", int, defaults.max_games),
        )
        test = versiontest.do_start(request.user, bot, candidate, baseline, settings, other)
        test.refresh_from_db()  # embedded mode played it already
        return Response(versiontest.to_json(test), status=status.HTTP_201_CREATED)


class VersionTestDetail(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description="A version test: LLR and bounds, games, pentanomial pairs, W/D/L, Elo "
        "with its 95% interval, verdict (running, H1 accepted, H0 accepted, budget "
        "exhausted, failed).",
    )
    def get(self, request: Request, name: str, pk: int) -> Response:
        bot = svc.owned_bot(request.user, name)
        return Response(versiontest.to_json(versiontest.find_test(bot, pk)))
