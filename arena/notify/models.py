"""Subscriptions, the outbox of events and their deliveries.

An ``Event`` is written in the transaction of what it tells (``arena.notify.emit``), with a
``Delivery`` per matching ``Subscription``; a delivery changes state only under its row's
lock (``arena.notify.delivery``), so that a worker killed mid-delivery leaves a row that the
sweeper takes up again, and two workers never send one attempt twice.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models


class EventKind(models.TextChoices):
    #: a match charged one of the bot's faults (timeout, crash, no-show, ...) that did not
    #: forfeit it (the league's fault policy aborted the match instead)
    FAULT = "fault", "faulted"
    #: the bot lost the match by forfeit for one of its faults (the event names the cause;
    #: no ``fault`` event is told of it too, and subscribers of ``fault`` hear of it)
    FORFEIT = "forfeit", "charged a forfeit"
    #: a remote bot is not connected while matches of its wait for it
    OFFLINE_WAITING = "offline_waiting", "offline with matches waiting"
    #: a hosted bot's uploaded version passed or failed its sandbox check
    VERSION_CHECK = "version_check", "version check finished"
    #: a version test (SPRT) reached its verdict or failed
    VERSION_TEST = "version_test", "version test finished"
    #: a season of a league the bot played in ended (``arena.signals.season_ended``)
    SEASON_ENDED = "season_ended", "season ended"
    #: another owner challenged the bot to a match
    CHALLENGE = "challenge", "challenge received"


class Channel(models.TextChoices):
    WEBHOOK = "webhook", "webhook"
    EMAIL = "email", "e-mail"


class DeliveryState(models.TextChoices):
    #: waiting for its (next) attempt, due at ``next_try_at``
    PENDING = "pending", "pending"
    #: an attempt is under way until ``lease_until`` (then the sweeper takes it again)
    SENDING = "sending", "sending"
    DELIVERED = "delivered", "delivered"
    #: the last attempt (``NOTIFY_MAX_ATTEMPTS``) failed too, or the target was refused
    FAILED = "failed", "failed"


class OwnerSecret(models.Model):
    """The key an owner's webhooks are signed with (HMAC-SHA256). Stored as is, since the
    arena must sign with it; shown to the owner once, when made or rotated."""

    owner = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notify_secret"
    )
    secret = models.CharField(max_length=100)
    created_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"webhook secret of user {self.owner_id}"

    @property
    def prefix(self) -> str:
        return self.secret[:8]


class Subscription(models.Model):
    """One channel of one bot: the kinds of event it is told of, and where."""

    bot = models.ForeignKey(
        "arena.Bot", on_delete=models.CASCADE, related_name="notify_subscriptions"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    #: a list of ``EventKind`` values
    kinds = models.JSONField(default=list)
    #: the webhook's URL (empty for e-mail, which goes to the owner's address)
    url = models.CharField(max_length=2000, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["bot", "channel"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "channel"], name="notify_subscription_unique")
        ]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.channel} {','.join(self.kinds)}"


class Event(models.Model):
    """Something that happened to a bot, written in the transaction that made it so."""

    #: sent as ``X-Avenue-Event-Id`` (and in the body): the same on every attempt, so a
    #: receiver can drop a second delivery of one event
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    bot = models.ForeignKey("arena.Bot", on_delete=models.CASCADE, related_name="notify_events")
    kind = models.CharField(max_length=32, choices=EventKind.choices)
    payload = models.JSONField(default=dict)
    created_at = models.DateTimeField(db_index=True)
    #: the source's own name for it, when the source may tell it twice (a result written
    #: again, an offline bot seen by two workers): one event per key
    key = models.CharField(max_length=200, unique=True, null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["bot", "-created_at"], name="notify_event_bot_time")]

    def __str__(self) -> str:
        return f"{self.kind} for bot {self.bot_id} ({self.id})"


class Delivery(models.Model):
    """One event sent through one subscription: its attempts and where they stand."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    subscription = models.ForeignKey(
        Subscription, on_delete=models.SET_NULL, null=True, related_name="deliveries"
    )
    channel = models.CharField(max_length=16, choices=Channel.choices)
    #: where it goes, as the subscription said when the event happened
    target = models.CharField(max_length=2000)
    state = models.CharField(
        max_length=16, choices=DeliveryState.choices, default=DeliveryState.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_try_at = models.DateTimeField(null=True, blank=True)
    lease_until = models.DateTimeField(null=True, blank=True)
    #: the HTTP status of the last attempt (None: no answer, or an e-mail)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    #: a line per attempt (time, outcome), for the delivery log
    log = models.TextField(blank=True)
    created_at = models.DateTimeField()
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "subscription"], name="notify_delivery_unique")
        ]
        indexes = [
            models.Index(fields=["state", "next_try_at"], name="notify_delivery_due"),
        ]

    def __str__(self) -> str:
        return f"{self.channel} of {self.event_id}: {self.state}"
