"""The outbox: an event and its deliveries written in the caller's transaction, handed to
the workers once it commits (never for a transaction rolled back: a match result that is
not written tells nobody of its faults)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from arena import signals
from arena.models import Bot
from arena.notify import retention
from arena.notify.models import Channel, Delivery, DeliveryState, Event, EventKind, Subscription
from arena.notify.texts import summary

logger = logging.getLogger(__name__)

KINDS = frozenset(k.value for k in EventKind)

#: the kinds a connected bot is told of on its stream too (``ArenaMessage.notice``). Not
#: ``fault`` (the match's ``MatchEnded`` names it; its forfeit is here), not
#: ``offline_waiting`` (the bot is not connected), not ``version_check`` / ``version_test``
#: (a hosted bot's: its stream is the bot host's, which plays and tells its code nothing)
STREAM_KINDS = frozenset({EventKind.CHALLENGE, EventKind.SEASON_ENDED, EventKind.FORFEIT})

#: a kind that a subscription to another kind hears of as well: a forfeit is the fault
#: that lost the match, told once (``sources.match_faults``), so "tell me of faults" hears it
ALSO_FOR: dict[str, frozenset[str]] = {EventKind.FORFEIT.value: frozenset({EventKind.FAULT.value})}


def subscribed(kind: str, kinds: Sequence[str]) -> bool:
    """Whether a subscription to ``kinds`` is told of an event of ``kind``."""
    return kind in kinds or not ALSO_FOR.get(kind, frozenset()).isdisjoint(kinds)


def emit(bot_id: int, kind: str, payload: dict[str, Any], *, key: str | None = None) -> None:
    """Record the event (one per ``key``, when given) and a delivery per subscription of
    the bot to ``kind`` (or to a kind that hears of it: ``ALSO_FOR``); the deliveries are
    sent after the caller's transaction commits.

    Never raises for a failure of its own (it runs inside results and checks that must
    not be undone by a notification): the failure is logged, and its savepoint rolled
    back. A bot without an owner (a house bot) has nobody to tell: nothing is written."""
    if kind not in KINDS:
        raise ValueError(f"unknown event kind {kind!r}; one of {', '.join(sorted(KINDS))}")
    try:
        with transaction.atomic():  # a savepoint inside the caller's transaction
            event, ids = _record(bot_id, kind, payload, key)
    except Exception:  # noqa: BLE001 - what it tells of is more important than the telling
        logger.exception("could not record a %s event for bot %s", kind, bot_id)
        return
    told = event is not None and kind in STREAM_KINDS
    if told or ids:
        transaction.on_commit(lambda: _committed(event if told else None, ids))
    if not retention.ensured():
        transaction.on_commit(retention.ensure_cleanup_once)


def _committed(event: Event | None, ids: list[int]) -> None:
    """After the commit: the bot's stream first (it returns at once), then the workers."""
    if event is not None:
        tell_bot(event)
    if ids:
        hand_off(ids)


def _record(
    bot_id: int, kind: str, payload: dict[str, Any], key: str | None
) -> tuple[Event | None, list[int]]:
    """The event written (None: a house bot, or the key's event exists) and its deliveries."""
    bot = Bot.objects.filter(pk=bot_id).values("owner_id", "name", "owner__email").first()
    if bot is None or bot["owner_id"] is None:
        return None, []
    if key is not None:
        key = key[:200]
        if Event.objects.filter(key=key).exists():
            return None, []
    now = timezone.now()
    event = Event.objects.create(
        bot_id=bot_id, kind=kind, payload={"bot": bot["name"], **payload}, created_at=now,
        key=key,
    )  # fmt: skip
    subs = [s for s in Subscription.objects.filter(bot_id=bot_id) if subscribed(kind, s.kinds)]
    rows = [
        Delivery(
            event=event,
            subscription=s,
            channel=s.channel,
            created_at=now,
            next_try_at=now,
            target=s.url if s.channel == Channel.WEBHOOK else bot["owner__email"] or "",
            state=DeliveryState.PENDING,
        )  # fmt: skip
        for s in subs
    ]
    Delivery.objects.bulk_create(rows)
    return event, [d.pk for d in rows]


def tell_bot(event: Event) -> None:
    """Tell the bot's open stream, if any (``signals.bot_notice``; the adapters push it,
    without waiting for the bot). Whatever fails is logged: the owner's channels stand."""
    try:
        signals.bot_notice.send(
            sender=Event,
            bot_id=event.bot_id,
            event_id=str(event.id),
            kind=event.kind,
            text=summary(event.kind, event.payload),
            data=event.payload,
            created_at=event.created_at,
        )
    except Exception:  # noqa: BLE001 - the stream is a courtesy; the outbox is the record
        logger.warning("could not tell bot %s of event %s", event.bot_id, event.id, exc_info=True)


def hand_off(delivery_ids: Sequence[int]) -> None:
    """Give the deliveries to ``settings.NOTIFY_SENDER`` (the workers' task). A hand-off
    that fails is logged: the rows stay pending, and the sweeper sends them."""
    try:
        sender = import_string(settings.NOTIFY_SENDER)
        sender(list(delivery_ids))
    except Exception:  # noqa: BLE001 - e.g. the broker is down; the sweeper has the rows
        logger.warning("could not hand over deliveries %s", list(delivery_ids), exc_info=True)
