"""Owners told what happened to their bots (issue 25 §5; docs/notifications.md).

The one entry point the rest of the arena calls is ``emit(bot_id, kind, payload)``: it
records the event in the caller's transaction (an outbox row, and a delivery row per
subscription of the bot to that kind), and once that transaction commits the deliveries
are handed to the workers (``arena.notify.delivery``), each sent at least once and tried
again with backoff, every attempt carrying the event's id so that a receiver can drop a
second copy.
"""

from __future__ import annotations

from typing import Any


def emit(bot_id: int, kind: str, payload: dict[str, Any], *, key: str | None = None) -> None:
    """Record that ``kind`` happened to bot ``bot_id`` (see ``arena.notify.outbox.emit``)."""
    from arena.notify.outbox import emit as _emit

    _emit(bot_id, kind, payload, key=key)


__all__ = ["emit"]
