"""Sending a delivery: claimed under its row's lock, sent, its outcome recorded under the
lock again.

* ``claim`` moves a due row to ``sending`` with a lease (one more attempt) and commits
  before anything is sent: a second worker (a task sent twice, or the sweeper's) finds it
  locked or leased and sends nothing.
* ``record`` writes the attempt's outcome only if the row is still that attempt's: a
  worker whose lease ran out mid-attempt (stalled, or killed and its row taken over)
  changes nothing.
* A worker killed between the two leaves ``sending`` with a lease; once it has run out the
  sweeper (``due``, every ``NOTIFY_SWEEP_EVERY_S`` from beat) sends it again. So an event
  reaches its receiver at least once, and more than once only when an attempt's answer
  was lost: every attempt carries the event's id (``X-Avenue-Event-Id``) for that.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.notify import signing, webhooks
from arena.notify.models import Channel, Delivery, DeliveryState, OwnerSecret

logger = logging.getLogger(__name__)


def lease() -> timedelta:
    """Long enough for an attempt's connect, send and answer (each within the timeout)."""
    return timedelta(seconds=3 * settings.NOTIFY_TIMEOUT_S + 5)


def backoff(attempt: int) -> timedelta:
    """The wait after failed attempt ``attempt`` (1, 2, ...): base, 2 base, 4 base, ..."""
    return timedelta(seconds=settings.NOTIFY_BACKOFF_BASE_S * 2 ** max(0, attempt - 1))


@dataclass(frozen=True)
class Outcome:
    ok: bool
    status_code: int | None = None
    error: str = ""
    #: False: no later attempt can do better (a refused URL, no address to mail)
    retry: bool = True


def claim(delivery_id: int) -> Delivery | None:
    """The delivery, now ``sending`` as its next attempt; None if it is not due, done, or
    held by another worker."""
    now = timezone.now()
    with transaction.atomic():
        d = (
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("event__bot__owner")
            .filter(pk=delivery_id)
            .first()
        )
        if d is None or d.state in (DeliveryState.DELIVERED, DeliveryState.FAILED):
            return None
        if d.state == DeliveryState.PENDING and d.next_try_at and d.next_try_at > now:
            return None
        if d.state == DeliveryState.SENDING and d.lease_until and d.lease_until > now:
            return None
        if d.state == DeliveryState.SENDING:
            _log(d, now, "the attempt's worker did not say how it ended (it died or stalled)")
        d.state, d.attempts, d.lease_until = DeliveryState.SENDING, d.attempts + 1, now + lease()
        d.save(update_fields=["state", "attempts", "lease_until", "log"])
    return d


def record(d: Delivery, outcome: Outcome) -> timedelta | None:
    """The attempt's outcome, if the row is still this attempt's; the wait before the next
    attempt (None: none is due: delivered, given up, or not this attempt's any more)."""
    now = timezone.now()
    with transaction.atomic():
        row = (
            Delivery.objects.select_for_update()
            .filter(pk=d.pk, state=DeliveryState.SENDING, attempts=d.attempts)
            .first()
        )
        if row is None:
            logger.warning("delivery %d attempt %d: taken over; outcome dropped", d.pk, d.attempts)
            return None
        row.status_code, row.error, row.lease_until = outcome.status_code, outcome.error, None
        wait = None
        if outcome.ok:
            row.state, row.delivered_at, row.next_try_at = DeliveryState.DELIVERED, now, None
            _log(row, now, f"attempt {row.attempts}: delivered ({outcome.status_code or 'sent'})")
        elif not outcome.retry or row.attempts >= settings.NOTIFY_MAX_ATTEMPTS:
            row.state, row.next_try_at = DeliveryState.FAILED, None
            _log(row, now, f"attempt {row.attempts}: {_said(outcome)}; given up")
        else:
            wait = backoff(row.attempts)
            row.state, row.next_try_at = DeliveryState.PENDING, now + wait
            _log(row, now, f"attempt {row.attempts}: {_said(outcome)}; next in {wait.seconds} s")
        row.save()
    return wait


def _said(o: Outcome) -> str:
    return " ".join(x for x in (str(o.status_code or ""), o.error) if x) or "failed"


def _log(d: Delivery, at: datetime, line: str) -> None:
    d.log = ((d.log + "\n") if d.log else "") + f"{at:%Y-%m-%d %H:%M:%S} {line}"
    d.log = d.log[-4000:]


def body(d: Delivery, sent_at: datetime) -> bytes:
    """The JSON a webhook receives (the same for every attempt but ``sent_at`` and
    ``attempt``)."""
    e = d.event
    doc = {
        "id": str(e.id),
        "kind": e.kind,
        "bot": {"id": e.bot_id, "name": e.bot.name},
        "created_at": e.created_at.isoformat(),
        "sent_at": sent_at.isoformat(),
        "attempt": d.attempts,
        "data": e.payload,
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def send(d: Delivery) -> Outcome:
    """One attempt of a claimed delivery; never raises."""
    try:
        if d.channel == Channel.EMAIL:
            return _mail(d)
        return _webhook(d)
    except Exception as exc:  # noqa: BLE001 - an attempt's failure is the row's to show
        logger.exception("delivery %d attempt %d failed", d.pk, d.attempts)
        return Outcome(False, None, f"{type(exc).__name__}: {exc}"[:300])


def _webhook(d: Delivery) -> Outcome:
    secret = OwnerSecret.objects.filter(owner_id=d.event.bot.owner_id).first()
    if secret is None:
        return Outcome(False, None, "the owner has no webhook secret (make one on the page)")
    now = timezone.now()
    data = body(d, now)
    headers = {
        "X-Avenue-Event-Id": str(d.event_id),
        "X-Avenue-Event": d.event.kind,
        "X-Avenue-Delivery": str(d.pk),
        "X-Avenue-Timestamp": str(int(now.timestamp())),
        "X-Avenue-Signature": signing.sign(secret.secret, data),
    }
    try:
        answer = webhooks.post(d.target, data, headers, settings.NOTIFY_TIMEOUT_S)
    except webhooks.WebhookRefused as exc:
        return Outcome(False, None, f"refused: {exc}"[:300], retry=False)
    if answer.status is not None and 300 <= answer.status < 400:
        return Outcome(False, answer.status, "a redirect (not followed)")
    return Outcome(answer.ok, answer.status, answer.error)


def _mail(d: Delivery) -> Outcome:
    from arena.notify.texts import mail_text

    if not d.target:
        return Outcome(False, None, "the owner has no e-mail address", retry=False)
    subject, text = mail_text(d.event)
    send_mail(subject, text, settings.DEFAULT_FROM_EMAIL, [d.target])
    return Outcome(True)


def deliver(delivery_id: int) -> timedelta | None:
    """Claim, send and record one attempt (the workers' task); the wait before the next
    attempt when one is due."""
    d = claim(delivery_id)
    if d is None:
        return None
    return record(d, send(d))


def due(limit: int = 500, overdue: timedelta | None = None) -> list[int]:
    """Deliveries the sweeper sends again: pending ones ``overdue`` past their time
    (default: a lease; their task was lost, or never sent) and attempts whose lease ran out
    (their worker died). A pending row only just due has its own task on the way: sending
    it another at every sweep would pile up copies in a queue that is behind."""
    now = timezone.now()
    late = now - (lease() if overdue is None else overdue)
    rows = Delivery.objects.filter(
        Q(state=DeliveryState.PENDING, next_try_at__lte=late)
        | Q(state=DeliveryState.SENDING, lease_until__lte=now)
    ).order_by("next_try_at", "pk")
    return list(rows.values_list("pk", flat=True)[:limit])
