"""The API of notifications (issue 25 §5): a bot's subscriptions by channel and its
delivery log (owner only), and the owner's webhook secret (made or rotated, shown once).
The changes are ``arena.notify.subscriptions``; a refused subscription answers 400
``invalid``, naming why (a private address, an unknown kind, ...)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response

from arena.models import Bot
from arena.notify import subscriptions as notify
from arena.notify.models import Channel, Delivery, EventKind
from arena.services import owned_bots as svc
from leaderboard.api.base import ArenaView
from leaderboard.api.views import AUTH_ERRORS, ERRORS


def delivery_json(d: Delivery) -> dict[str, Any]:
    return {
        "id": d.pk,
        "event": str(d.event_id),
        "kind": d.event.kind,
        "channel": d.channel,
        "state": d.state,
        "status_code": d.status_code,
        "attempts": d.attempts,
        "created_at": d.created_at.isoformat(),
        "next_try_at": d.next_try_at.isoformat() if d.next_try_at else None,
        "delivered_at": d.delivered_at.isoformat() if d.delivered_at else None,
        "error": d.error,
    }


def _state(bot: Bot) -> dict[str, Any]:
    subs = notify.subscriptions(bot)
    return {
        "bot": bot.name,
        "kinds": [k.value for k in EventKind],
        "subscriptions": {
            c.value: {
                "kinds": subs[c.value].kinds if c.value in subs else [],
                **({"url": subs[c.value].url if c.value in subs else ""} if c == "webhook" else {}),
            }
            for c in Channel
        },
        "deliveries": [delivery_json(d) for d in notify.delivery_log(bot)],
    }


class BotNotifications(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        description="Your bot's subscriptions (per channel: the event kinds, and the "
        "webhook's URL) and its latest deliveries, newest first.",
    )
    def get(self, request: Request, name: str) -> Response:
        return Response(_state(svc.owned_bot(request.user, name)))

    @extend_schema(
        request=OpenApiTypes.OBJECT,
        responses={200: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description='Set one channel: {"channel": "webhook", "kinds": ["fault", ...], '
        '"url": "https://..."} or {"channel": "email", "kinds": [...]}; no kinds stops it. '
        "The first webhook makes your secret: the answer holds it (`secret`), once.",
    )
    def put(self, request: Request, name: str) -> Response:
        bot = svc.owned_bot(request.user, name)
        data = request.data if isinstance(request.data, dict) else {}
        channel, kinds, url = data.get("channel"), data.get("kinds"), data.get("url", "")
        if not isinstance(channel, str):
            raise ValidationError({"channel": ["webhook or email"]})
        if not isinstance(kinds, list):
            raise ValidationError({"kinds": ["a list of event kinds"]})
        if not isinstance(url, str):
            raise ValidationError({"url": ["a URL"]})
        try:
            made = notify.do_subscribe(request.user, bot, channel, kinds, url)  # type: ignore[arg-type]
        except notify.NotifyError as exc:
            raise ValidationError({"subscription": [str(exc)]}) from None
        body = _state(bot)
        if made is not None:
            body["secret"] = made
        return Response(body)


class NotifySecret(ArenaView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        description="Whether you have a webhook secret, and its first characters.",
    )
    def get(self, request: Request) -> Response:
        secret = notify.secret_of(request.user)  # type: ignore[arg-type]
        return Response(
            {
                "exists": secret is not None,
                "prefix": secret.prefix if secret else None,
                "created_at": secret.created_at.isoformat() if secret else None,
            }
        )

    @extend_schema(
        request=None,
        responses={201: OpenApiTypes.OBJECT, **AUTH_ERRORS},
        description="Make a new webhook secret (the old one signs nothing from now on); "
        "the answer holds it, once.",
    )
    def post(self, request: Request) -> Response:
        secret = notify.do_rotate_secret(request.user)  # type: ignore[arg-type]
        return Response({"secret": secret}, status=status.HTTP_201_CREATED)
