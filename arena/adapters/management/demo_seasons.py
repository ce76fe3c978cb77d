"""The demo's seasons (issue 25 §6): the Demo league in two divisions over a short season,
so a visitor sees a season end and a promotion within a few minutes; and the season's end
after a round played in one process (``league run``, the demo), which has no beat."""

from __future__ import annotations

from django.core.management.base import OutputWrapper

from arena.models import League
from arena.seasons.ending import do_end_due_seasons
from arena.seasons.models import SeasonSettings
from arena.seasons.services import SeasonConfig, do_configure_seasons

#: two rounds a season, two divisions of two, one bot up and one down
DEMO_SEASONS = SeasonConfig(rounds_per_season=2, divisions=2, division_size=2, promote=1)


def setup_demo_seasons(league: League, out: OutputWrapper) -> None:
    """Put the demo league in seasons the first time (a later run keeps what it has)."""
    if SeasonSettings.objects.filter(league=league).exists():
        return
    season = do_configure_seasons(league, DEMO_SEASONS)
    out.write(
        f"{league.name}: season {season.number} of {DEMO_SEASONS.rounds_per_season} rounds, "
        f"{DEMO_SEASONS.divisions} divisions of {DEMO_SEASONS.division_size}, "
        f"top {DEMO_SEASONS.promote} up and bottom {DEMO_SEASONS.promote} down"
    )


def end_due_seasons_here(league: League, out: OutputWrapper) -> None:
    """After a round played here: end the league's season if it is due (as the beat's
    ``arena.end_due_seasons`` would), and say who moved."""
    for ended in do_end_due_seasons(league.pk):
        out.write(
            f"season {ended.season} of {ended.league} ended: {len(ended.promoted)} promoted, "
            f"{len(ended.relegated)} relegated; season {ended.next_season} starts "
            f"(/leagues/{league.slug}/seasons/{ended.season}/)"
        )
