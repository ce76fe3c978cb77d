"""``matches|match_rows:show_league``: a match table's rows, cached one by one
(``leaderboard.match_rows``)."""

from __future__ import annotations

from collections.abc import Iterable

from django import template
from django.utils.safestring import SafeString

from arena.models import Match
from leaderboard import match_rows as rows

register = template.Library()


@register.filter
def match_rows(matches: Iterable[Match], show_league: bool) -> list[tuple[Match, SafeString]]:
    return rows.match_rows(matches, bool(show_league))
