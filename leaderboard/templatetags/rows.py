"""``matches|match_rows:show_league``: a match table's rows, cached one by one
(``leaderboard.fragments``): a finished match's row never changes, so after a result only
the rows whose match started or ended (or was released from a pair's embargo) render."""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.safestring import SafeString

from arena.models import Match
from leaderboard.fragments import cached_rows

register = template.Library()


def _key(m: Match, show_league: bool) -> str:
    withheld = getattr(m, "withheld", "")
    return f"{m.pk}:{m.status}:{withheld}:{show_league}:{m.finished_at}"


@register.filter
def match_rows(matches: Iterable[Match], show_league: bool) -> list[tuple[Match, SafeString]]:
    show = bool(show_league)
    return cached_rows(
        matches,
        lambda m: _key(m, show),
        "leaderboard/_match_row.html",
        {"show_league": show},
        name="m",
    )
