"""Who is online, for a challenge's check: the relay's presence (the domain cannot ask it)."""

from __future__ import annotations

from arena.models import Bot, BotKind
from leaderboard.reads.bots import connected_now


def online(*bots: Bot) -> dict[int, bool | None]:
    """Presence of the bots that are not house bots (house bots always play)."""
    return connected_now([b.pk for b in bots if b.kind != BotKind.HOUSE])
