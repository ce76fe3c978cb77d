"""The demo's challenges (issue 25 §6): ``sdk-heuristic`` (the demo's own dial-in bot) and
the house bots accept challenges, the visitor (``admin``) gets ``your-greedy``, a bot of
theirs the arena plays with its greedy house bot, so a challenge can be sent from the site
at once (``your-bot`` can send one too once it is connected); and, since embedded mode has
no worker, a thread here plays the challenge games that wait (``play_queued``)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.core.management.base import OutputWrapper
from django.db import close_old_connections, connection
from django.db.models import Q
from django.utils import timezone

from arena.adapters.play.matches import play_match
from arena.challenges.models import ChallengeSetting
from arena.models import Bot, BotKind, Match, MatchStatus

log = logging.getLogger(__name__)

#: the visitor's own bot for challenges: played by the referee's greedy bot
VISITOR_BOT = "your-greedy"
#: the demo's bot that accepts challenges (besides the ownerless house bots)
ACCEPTING = "sdk-heuristic"
#: how often the thread looks for challenge games to play
POLL_S = 0.5


def setup(owner_name: str) -> Bot | None:
    """``your-greedy`` for the visitor, and ``sdk-heuristic`` accepting (idempotent)."""
    owner = get_user_model().objects.filter(username=owner_name).first()
    accepting = Bot.objects.filter(name=ACCEPTING).first()
    if accepting is not None:
        ChallengeSetting.objects.update_or_create(bot=accepting, defaults={"accepts": True})
    if owner is None:
        return None
    bot = Bot.objects.filter(name=VISITOR_BOT).first()
    if bot is None:
        bot = Bot.objects.create(
            name=VISITOR_BOT, kind=BotKind.HOUSE, house_spec="greedy", owner=owner
        )
    return bot


def play_queued(should_stop: Callable[[], bool]) -> int:
    """Play the challenge games that are due, oldest first, here (as a worker would:
    claim, run, one-transaction result); returns how many were tried."""
    now = timezone.now()
    due = (
        Match.objects.filter(status=MatchStatus.QUEUED, league__challenge_rules__isnull=False)
        .filter(Q(not_before__isnull=True) | Q(not_before__lte=now))
        .order_by("id")
        .values_list("id", flat=True)[:20]
    )
    played = 0
    for match_id in list(due):
        if should_stop():
            break
        play_match(match_id)
        played += 1
    return played


def _loop(stop: threading.Event) -> None:
    try:
        while not stop.wait(POLL_S):
            try:
                close_old_connections()
                play_queued(stop.is_set)
            except Exception:  # noqa: BLE001 - keep playing; the log has the details
                log.exception("demo challenges: a game failed")
    finally:
        connection.close()


def start(stop: threading.Event, out: OutputWrapper, site: str, owner_name: str) -> None:
    """Set the demo's challenges up, start the thread that plays them, and say how to send one."""
    bot = setup(owner_name)
    threading.Thread(target=_loop, args=(stop,), name="demo-challenges", daemon=True).start()
    if bot is None:
        return
    out.write(
        f"Challenge: log in as {owner_name}, open {site}/bots/{ACCEPTING}/ (or a house bot's "
        f"page, e.g. {site}/bots/greedy/) and press Challenge: your bot {bot.name} plays it now, "
        f"unrated, live on its match page; yours at {site}/my/challenges/ (docs/challenges.md)."
    )
