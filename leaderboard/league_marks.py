"""How a match's league is shown in a list of matches, by the one rule of
``arena.models.leagues`` (docs/rulings.md, "Hidden leagues"): a listed league links to its
page; an event's league to the event (``/events/<slug>/``), marked "event"; a challenge
league, which has no page, says "requested" and links nowhere (the row's challenge badge
says who asked). Asked of the database once per league and process: a league is made a
challenge's or an event's in the transaction that creates it and never stops being one."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from arena.models import League
from arena.services.owned_bots import NotFound

LEAGUE, EVENT, CHALLENGE = "league", "event", "challenge"

#: the 404 of a challenge league's pages (site and API)
NO_PAGE = (
    "{slug!r} is where challenge and sparring matches are played: they are unrated and "
    "have no league page. Each game is on its match page and on its bots' pages; your own "
    "are under My challenges."
)


@dataclass(frozen=True)
class Mark:
    kind: str
    #: the page to link to (None: a challenge league has none)
    url: str | None
    name: str


_marks: dict[str, Mark] = {}


def mark_of(slug: str, name: str = "") -> Mark:
    found = _marks.get(slug)
    if found is None:
        row = (
            League.objects.filter(slug=slug)
            .values("name", "challenge_rules__id", "tournament__slug", "tournament__name")
            .first()
        )
        if row is None:
            return Mark(LEAGUE, None, name or slug)
        if row["challenge_rules__id"] is not None:
            found = Mark(CHALLENGE, None, "requested")
        elif row["tournament__slug"] is not None:
            url = reverse("leaderboard:event", args=[row["tournament__slug"]])
            found = Mark(EVENT, url, row["tournament__name"])
        else:
            found = Mark(LEAGUE, reverse("leaderboard:league", args=[slug]), row["name"])
        _marks[slug] = found
    return found


def page_league(slug: str) -> League:
    """The league of an API path ``/api/leagues/<slug>/...``; ``NotFound`` (404) for none
    and for a challenge league, saying why."""
    why = no_page(slug)
    found = None if why else League.objects.with_pages().filter(slug=slug).first()
    if found is None:
        raise NotFound(why or f"no league {slug!r}")
    return found


def no_page(slug: str) -> str | None:
    """Why the league of this slug has no page (a challenge league), or None."""
    return NO_PAGE.format(slug=slug) if mark_of(slug).kind == CHALLENGE else None
