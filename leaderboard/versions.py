"""The versions a bot reported (its Hello), for the version history on its page."""

from __future__ import annotations

from datetime import datetime

from django.db.models import F

from leaderboard.models import BotVersion


def record_version(bot_id: str | int, version: str, protocol_version: int, now: datetime) -> None:
    """Count one Hello of this version (idempotent row per version; concurrent Hellos of
    one bot may race on the first insert, which the unique constraint settles)."""
    updated = BotVersion.objects.filter(
        bot_id=bot_id, version=version, protocol_version=protocol_version
    ).update(last_seen=now, hellos=F("hellos") + 1)
    if not updated:
        BotVersion.objects.get_or_create(
            bot_id=bot_id,
            version=version,
            protocol_version=protocol_version,
            defaults={"first_seen": now, "last_seen": now},
        )
