"""What a match page shows the owner of a bot only: where their bot faulted, with the
fault's detail and, for a hosted bot, the last lines its sandbox wrote to stderr (Kaggle
shows an agent's owner its per-step status and logs; nobody else sees them here)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from arena.hosting.models import SandboxFault
from arena.models import BotKind, Match, Participation

#: stderr lines shown under a hosted bot's fault
TAIL_LINES = 30


def owner_faults(match: Match, seats: list[Participation], user: User | AnonymousUser) -> list[Any]:
    """The faults of ``user``'s bots in ``match``: seat, bot, cause, detail, the viewer's
    step where the faulty decision was pending (the position after the last recorded
    decision), and a hosted bot's stderr tail. Empty for anyone else."""
    if not user.is_authenticated:
        return []
    mine = [p for p in seats if p.fault_cause and p.bot.owner_id == user.pk]
    out = []
    for p in mine:
        stderr = ""
        if p.bot.kind == BotKind.HOSTED:
            found = (
                SandboxFault.objects.filter(bot=p.bot, match_id__startswith=f"{match.pk}.")
                .order_by("-created_at")
                .values_list("stderr", flat=True)
                .first()
            )
            stderr = "\n".join((found or "").splitlines()[-TAIL_LINES:])
        out.append(
            {
                "seat": p.seat,
                "bot": p.bot.name,
                "cause": p.fault_cause,
                "detail": p.fault_detail,
                "step": match.decisions,
                "stderr": stderr,
            }
        )
    return out
