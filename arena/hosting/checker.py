"""The bot host's side of the upload check: claim a waiting version, check it in a
sandbox, record the verdict. Kept apart from ``services`` so that the domain's services
never start processes."""

from __future__ import annotations

from arena.hosting import services
from arena.hosting.archives import unpack_stored
from arena.hosting.check import run_check
from arena.hosting.models import CodeVersion
from arena.hosting.sandbox import Limits


def check_next(checker: str, limits: Limits | None = None) -> CodeVersion | None:
    """Check one waiting version; None when none waits."""
    version = services.claim_check(checker)
    if version is None:
        return None
    result = run_check(
        unpack_stored(bytes(version.archive)), version.entry_point, limits or Limits.from_settings()
    )
    return services.finish_check(version.pk, checker, result.passed, result.log)
