"""Tournaments of house bots for the tests, made through the services (as the admin, the
command and the API make them)."""

from __future__ import annotations

from typing import Any

from arena.adapters.play.matches import play_match
from arena.events.advance import Advanced, do_advance, do_start
from arena.events.models import Tournament
from arena.events.services import TournamentSettings, do_create
from arena.models import Match, MatchStatus
from arena.services import leagues as league_services
from arena.services.claims import PlayOutcome


def house_bots(prefix: str, specs: list[str]) -> list[str]:
    names = []
    for i, spec in enumerate(specs):
        name = f"{prefix}-{i}-{spec.replace(':', '')}"
        league_services.do_create_house_bot(name, spec)
        names.append(name)
    return names


def house_event(name: str, fmt: str, specs: list[str], **kw: Any) -> Tournament:
    bots = house_bots(name.lower().replace(" ", "-"), specs)
    return do_create(TournamentSettings(name=name, format=fmt, bots=bots, **kw))


def play_queued(t: Tournament) -> list[int]:
    """Every queued match of the event, played here through the real path (claim, run,
    one-transaction result)."""
    ids = list(
        Match.objects.filter(league_id=t.league_id, status=MatchStatus.QUEUED)
        .order_by("id")
        .values_list("id", flat=True)
    )
    for match_id in ids:
        assert play_match(match_id) is PlayOutcome.FINISHED
    return ids


def play_out(t: Tournament) -> list[Advanced]:
    """Start (unless running) and play the event to its end, here, round by round."""
    steps = [] if t.status != "draft" else [do_start(t, enqueue=False)]
    while True:
        play_queued(t)
        step = do_advance(t.pk, enqueue=False)
        steps.append(step)
        if step.finished or step.waiting:
            return steps
