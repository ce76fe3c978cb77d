"""Leagues in seasons for the tests, built and played through the services."""

from __future__ import annotations

from arena.adapters.play.matches import play_match
from arena.models import League, Round
from arena.seasons.models import Season, SeasonStatus
from arena.seasons.services import SeasonConfig, do_configure_seasons
from arena.services.claims import PlayOutcome
from arena.services.rounds import do_schedule_round
from tests.leagues.factory import house_league


def season_league(name: str, bots: int, **config: object) -> League:
    """A league of ``bots`` house bots (``random``, the quickest) in seasons."""
    league = house_league(name, ["random"] * bots)
    do_configure_seasons(league, SeasonConfig(**config))  # type: ignore[arg-type]
    return league


def play_round(league: League) -> Round:
    scheduled = do_schedule_round(league, enqueue=False)
    assert scheduled is not None
    for match_id in scheduled.matches:
        assert play_match(match_id) is PlayOutcome.FINISHED
    scheduled.round.refresh_from_db()
    assert scheduled.round.status == "complete"
    return scheduled.round


def running(league: League) -> Season:
    return Season.objects.get(league=league, status=SeasonStatus.RUNNING)
