"""A bot's announced ``max_concurrent_matches`` as a ceiling across every worker.

A dial-in bot says in its ``Hello`` how many matches it plays at once (the gateway caps
it, ``GATEWAY_MAX_CONCURRENT_MATCHES``), a hosted bot's bot host says it for its bots
(``runbothost --max-matches``); the relay's presence record holds the value. A round
played in one process keeps to it by itself (``arena.adapters.play.roundplay``); Celery
workers each start what they are sent, so without this check a bot announcing 4 was seen
in 90-120 matches at once, with requests waiting behind each other on its clock.

Here, after the claim and before anything is sent to a bot (``check_seats``, called by
``arena.adapters.play.matches``): in one transaction holding the match's non-house bots' rows
locked (in id order, so two workers checking the same bot take turns), count for each
bot the *other* matches it is seated in that are running under a live lease (a dead
worker's stop counting when its lease lapses). A bot at its ceiling sends the match back
to the queue for ``ARENA_SEAT_WAIT_SECONDS``: the claim is undone (status queued, the
attempt number given back, so the attempt budget is not spent), no clock started, no
no-show counted. Since each check sees every claim committed before it and the bots'
locks order the checks, a bot never plays more than it asked for, and two matches that
wait for each other's seat cannot both step back for ever (the first to check plays).
A bot that is not connected has no ceiling here: the start-of-match wait handles it.
"""

from __future__ import annotations

import logging
from collections import Counter
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F
from django.utils import timezone

from arena.adapters.relay import RunnerRelay
from arena.dispatch import enqueue_match
from arena.models import Bot, BotKind, Match, MatchStatus, Participation
from arena.services.claims import Claim

logger = logging.getLogger(__name__)


def ceilings(parts: list[Participation], relay: RunnerRelay) -> dict[int, int]:
    """The match's connected dial-in and hosted bots, each with the matches it plays at
    once (from the relay's presence)."""
    caps: dict[int, int] = {}
    for p in parts:
        if p.bot.kind == BotKind.HOUSE or p.bot_id in caps:
            continue
        presence = relay.presence(str(p.bot_id))
        if presence is not None:
            caps[p.bot_id] = max(1, int(str(presence.get("max_matches", 1))))
    return caps


def check_seats(claim: Claim, parts: list[Participation], relay: RunnerRelay) -> str | None:
    """None if every bot of the match has a seat free; else the match is back in the
    queue (see the module doc) and the answer says which bot is full."""
    caps = ceilings(parts, relay)
    if not caps:
        return None
    now = timezone.now()
    wait = settings.ARENA_SEAT_WAIT_SECONDS
    with transaction.atomic():
        # the bots' rows, locked in id order: checks of the same bot take turns
        list(Bot.objects.select_for_update().filter(pk__in=caps).order_by("pk").values("pk"))
        rows = (
            Participation.objects.filter(
                bot_id__in=caps,
                match__status=MatchStatus.RUNNING,
                match__lease_expires_at__gt=now,
            )
            .exclude(match_id=claim.match_id)
            .order_by()
            .values("bot_id")
            .annotate(n=Count("match_id", distinct=True))
        )
        playing = Counter({r["bot_id"]: r["n"] for r in rows})
        full = [b for b, cap in sorted(caps.items()) if playing[b] >= cap]
        if not full:
            return None
        later = now + timedelta(seconds=wait)
        kept = Match.objects.filter(claim.mine()).update(
            status=MatchStatus.QUEUED, attempts=F("attempts") - 1, worker_id="",
            lease_expires_at=None, started_at=None, not_before=later, enqueued_at=later,
        )  # fmt: skip
        if kept:
            enqueue_match(claim.match_id, countdown=wait)
    why = ", ".join(f"bot {b} plays {playing[b]} of its {caps[b]}" for b in full)
    logger.info("match %d waits %d s for a seat: %s", claim.match_id, wait, why)
    return why
