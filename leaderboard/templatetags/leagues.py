"""``{% league_link league %}``: a match's league in a list of matches, by the one rule
(``leaderboard.league_marks``): its page, its event's page marked "event", or "requested"
for a challenge's game (no page)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString

from leaderboard.league_marks import CHALLENGE, EVENT, mark_of

register = template.Library()


@register.simple_tag
def league_link(league: Any) -> SafeString:
    m = mark_of(str(league.slug), str(getattr(league, "name", "")))
    if m.kind == CHALLENGE:
        return SafeString(
            '<span class="tag requested" title="a challenge or sparring game: unrated">'
            "requested</span>"
        )
    if m.url is None:
        return format_html("{}", m.name)
    if m.kind == EVENT:
        return format_html(
            '<a href="{}">{}</a> <span class="tag event">event</span>', m.url, m.name
        )
    return format_html('<a href="{}">{}</a>', m.url, m.name)
