"""The owner's side: which kinds of event of a bot go where, the webhook secret, and the
delivery log. ``check_*`` validates, ``do_*`` changes (the callers have checked that the
user owns the bot: ``arena.services.owned_bots.owned_bot``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_interval_entry
from arena.models import Bot
from arena.notify import retention, signing, webhooks
from arena.notify.models import Channel, Delivery, EventKind, OwnerSecret, Subscription

if TYPE_CHECKING:
    from django.contrib.auth.models import User

SWEEP_TASK = "arena.notify_sweep"
SWEEP_ENTRY = "notify: send due deliveries"


class NotifyError(ValueError):
    """A subscription that cannot be made as asked (the message says why)."""


def check_kinds(kinds: Iterable[object]) -> list[str]:
    known = {k.value for k in EventKind}
    out: list[str] = []
    for k in kinds:
        if not isinstance(k, str) or k not in known:
            raise NotifyError(f"unknown event kind {k!r}; one of {', '.join(sorted(known))}")
        if k not in out:
            out.append(k)
    return [k.value for k in EventKind if k.value in out]  # in the kinds' own order


def check_subscription(channel: str, kinds: Iterable[object], url: str) -> tuple[list[str], str]:
    """The kinds in order and the URL to store (checked and resolved now)."""
    if channel not in {c.value for c in Channel}:
        raise NotifyError(f"unknown channel {channel!r}; one of webhook, email")
    checked = check_kinds(kinds)
    if channel == Channel.EMAIL:
        return checked, ""
    if not checked:
        return checked, url.strip()
    try:
        webhooks.resolve(url)
    except webhooks.WebhookRefused as exc:
        raise NotifyError(str(exc)) from None
    return checked, url.strip()


def subscriptions(bot: Bot) -> dict[str, Subscription]:
    return {s.channel: s for s in Subscription.objects.filter(bot=bot)}


@transaction.atomic
def do_subscribe(
    user: User, bot: Bot, channel: str, kinds: Iterable[object], url: str = ""
) -> str | None:
    """Tell ``bot``'s owner of ``kinds`` by ``channel`` (no kinds: stop). Returns the
    owner's new webhook secret when this made one (the first webhook), to show once."""
    checked, url = check_subscription(channel, kinds, url)
    if channel == Channel.EMAIL and checked and not user.email:
        raise NotifyError("your account has no e-mail address to send to")
    if not checked:
        Subscription.objects.filter(bot=bot, channel=channel).delete()
        return None
    Subscription.objects.update_or_create(
        bot=bot, channel=channel, defaults={"kinds": checked, "url": url}
    )
    ensure_sweeper()
    retention.ensure_cleanup()
    if channel == Channel.WEBHOOK and not OwnerSecret.objects.filter(owner=user).exists():
        return do_rotate_secret(user)
    return None


@transaction.atomic
def do_rotate_secret(user: User) -> str:
    """A new webhook secret for the owner (the old one signs nothing from now on)."""
    secret = signing.new_secret()
    OwnerSecret.objects.update_or_create(
        owner=user, defaults={"secret": secret, "created_at": timezone.now()}
    )
    return secret


def secret_of(user: User) -> OwnerSecret | None:
    return OwnerSecret.objects.filter(owner_id=user.pk).first()


def delivery_log(bot: Bot, limit: int = 30) -> list[Delivery]:
    """The bot's latest deliveries, newest first, with their events."""
    return list(
        Delivery.objects.filter(event__bot=bot)
        .select_related("event")
        .order_by("-created_at", "-id")[:limit]
    )


def ensure_sweeper() -> PeriodicTask:
    """The beat entry that sends due deliveries every ``NOTIFY_SWEEP_EVERY_S`` (idempotent)."""
    return ensure_interval_entry(SWEEP_ENTRY, SWEEP_TASK, settings.NOTIFY_SWEEP_EVERY_S)
