"""``{% notify_panel bot %}``: the notifications section of the My bot page."""

from __future__ import annotations

from typing import Any

from django import template

from arena.models import Bot
from arena.notify import subscriptions as notify
from arena.notify.models import Channel, EventKind

register = template.Library()


@register.inclusion_tag("leaderboard/_notify_panel.html", takes_context=True)
def notify_panel(context: template.Context, bot: Bot) -> dict[str, Any]:
    subs = notify.subscriptions(bot)
    webhook, email = subs.get(Channel.WEBHOOK), subs.get(Channel.EMAIL)
    request = context.get("request")
    user = getattr(request, "user", None)
    return {
        "bot": bot,
        "csrf_token": context.get("csrf_token"),
        "kinds": [
            {
                "value": k.value,
                "label": k.label,
                "webhook": bool(webhook and k.value in webhook.kinds),
                "email": bool(email and k.value in email.kinds),
            }
            for k in EventKind
        ],
        "webhook_url": webhook.url if webhook else "",
        "owner_email": getattr(user, "email", ""),
        "secret": notify.secret_of(user) if user is not None else None,
        "deliveries": notify.delivery_log(bot),
    }
