"""What other parts of the arena do right after a result is committed, registered by them:
the domain does not import the web layer (the import contract in ``pyproject.toml``), so
the site registers its own hook here (``leaderboard.refresh``: the pages a result changed,
when someone is watching them, are built into the cache before their next visitor asks).

A hook runs after the result's transaction commits (``transaction.on_commit``: at once
outside a transaction, else when the outermost one commits; never for a result rolled
back), on the result's own thread. A hook that raises is logged and skipped: the result is
written already, and a page whose cache was not refreshed builds itself from the database
as before.
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
