"""Building leagues for tests through the services (the same path as the admin and CLI)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from arena.models import League, Match, MatchStatus
from arena.ratings.models import START_RATING, LiveRating, RatedMatch
from arena.services import leagues as svc


def house_league(name: str, specs: list[str], **settings: Any) -> League:
    """A league whose entries are house bots ``{name}-{i}`` playing ``specs[i]``."""
    league = svc.do_create_league(svc.LeagueSettings(name=name, **settings))
    for i, spec in enumerate(specs):
        bot = svc.do_create_house_bot(f"{league.slug}-{i}-{spec.replace(':', '')}", spec)
        svc.do_enter(league, bot)
    return league


def rating_total(league: League) -> tuple[Decimal, Decimal]:
    """(sum of the league's live ratings, 1500 x rating rows)."""
    rows = list(LiveRating.objects.filter(league=league).values_list("rating", flat=True))
    return sum(rows, Decimal(0)), START_RATING * len(rows)


def assert_rated_once(league: League) -> None:
    """Every match finished and rated exactly once; every participation in the ledger."""
    matches = list(Match.objects.filter(league=league))
    assert matches
    assert all(m.status == MatchStatus.FINISHED for m in matches), [
        (m.pk, m.status, m.error) for m in matches if m.status != MatchStatus.FINISHED
    ]
    assert all(m.rated for m in matches)
    ledger = list(RatedMatch.objects.filter(league=league).values_list("match_id", flat=True))
    assert sorted(ledger) == sorted(m.pk for m in matches)
    games = sum(LiveRating.objects.filter(league=league).values_list("games", flat=True))
    seats = sum(m.participations.count() for m in matches)
    assert games == seats
    for m in matches:
        for p in m.participations.all():
            assert p.rating_before is not None and p.rating_change is not None
            assert p.rating_after == p.rating_before + p.rating_change
    total, expected = rating_total(league)
    assert total == expected
