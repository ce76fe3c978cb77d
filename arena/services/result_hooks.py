"""What other parts of the arena do right after a result is committed, registered by them:
a part that must act on a result registers here rather than the result's writer importing
it (``arena.events``: a tournament whose round the result completed gets its next round).
The site registers nothing: what its pages read is written in the result's own transaction
(``arena.ratings.headtohead``, the standings' rows), so a result rebuilds no page.

A hook runs after the result's transaction commits (``transaction.on_commit``: at once
outside a transaction, else when the outermost one commits; never for a result rolled
back), on the result's own thread. A hook that raises is logged and skipped: the result is
written already, and the beat's own check (``arena.advance_tournaments``) catches up
with what it missed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction

if TYPE_CHECKING:  # importable before Django's apps are (a Celery app module registers)
    from arena.models import League

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResultCommitted:
    """A match's result (finished or void) written: its league and the bots it seated
    (a mirrored partner released with it seats the same bots)."""

    league: League
    bot_ids: tuple[int, ...]


Hook = Callable[[ResultCommitted], None]
_hooks: list[Hook] = []


def register(hook: Hook) -> None:
    """Run ``hook`` after every committed result (once, however often registered)."""
    if hook not in _hooks:
        _hooks.append(hook)


def unregister(hook: Hook) -> None:
    if hook in _hooks:
        _hooks.remove(hook)


def result_committed(league: League, bot_ids: Iterable[int]) -> None:
    """Called by the result's writer once per result, after its transaction."""
    if not _hooks:
        return
    event = ResultCommitted(league, tuple(sorted(set(bot_ids))))
    transaction.on_commit(lambda: run(event))


def run(event: ResultCommitted) -> None:
    """Every registered hook, each failure logged and not raised."""
    for hook in list(_hooks):
        try:
            hook(event)
        except Exception:  # noqa: BLE001 - the result is committed; the page builds itself
            logger.warning("after-result hook %r failed", hook, exc_info=True)
