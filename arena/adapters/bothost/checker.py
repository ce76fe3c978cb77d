"""The bot host's side of the upload check: claim a waiting version, check it in a
sandbox, record the verdict. Kept apart from ``services`` so that the domain's services
never start processes.

A check that raises anything (a stored archive no host can unpack, a bug, the host's own
trouble: an ``OSError``, no free sandbox uid) is this host's failure, not a verdict: it is
logged here with its traceback, the version's owner reads what failed in its check log
(``services.fail_check``), and the bot host goes on serving. The version is tried again,
and rejected once its check has failed ``services.MAX_CHECK_ATTEMPTS`` times.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError

from arena.adapters.bothost.check import run_check
from arena.adapters.bothost.sandbox import Limits
from arena.hosting import services
from arena.hosting.archives import unpack_stored
from arena.hosting.models import CodeVersion

log = logging.getLogger(__name__)


def check_next(checker: str, limits: Limits | None = None) -> CodeVersion | None:
    """Check one waiting version; None when none waits. Raises only when the database
    fails while claiming or recording (the caller logs that and goes on)."""
    version = services.claim_check(checker)
    if version is None:
        return None
    try:
        result = run_check(
            unpack_stored(bytes(version.archive)),
            version.entry_point,
            limits or Limits.from_settings(),
        )
    except Exception as exc:
        log.exception(
            "the check of bot %s v%s (attempt %s) failed on this host",
            version.bot_id,
            version.number,
            version.check_attempts,
        )
        return services.fail_check(version.pk, checker, owner_reason(exc))
    return services.finish_check(version.pk, checker, result.passed, result.log)


def owner_reason(exc: BaseException) -> str:
    """What the version's owner is told of an exception of the check: its type and message
    (``OSError: [Errno 36] File name too long: ...``), but nothing of a database error's
    (it may name the database's host and user); the host's log has the whole traceback."""
    if isinstance(exc, DatabaseError):
        return f"{type(exc).__name__} (a database error of the bot host)"
    text = str(exc)
    if len(text) > 500:
        text = text[:500] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
