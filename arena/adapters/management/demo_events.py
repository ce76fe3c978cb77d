"""The demo's event (issue 25 §6): a small Swiss among the house bots (the Demo league's
three and two more), seeded by their Demo league ratings, played in a thread of the
demo's process after the league's first rounds (embedded mode has no workers: this
loop plays each round and writes the next, ``arena.adapters.play.eventplay``). Its
page, ``/events/demo-swiss/``, fills in as the games finish."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from django.db import connection

from arena.adapters.play.eventplay import play_here
from arena.events.advance import do_start
from arena.events.models import Tournament, TournamentStatus
from arena.events.services import TournamentSettings, do_create
from arena.models import DealMode, League
from arena.services import leagues as league_services

log = logging.getLogger(__name__)

DEMO_EVENT = "Demo Swiss"
#: the two house bots the event adds to the Demo league's three
EXTRA_BOTS = (("random-2", "random"), ("search-8", "search:8"))


def demo_event(league: League) -> Tournament:
    """The demo's Swiss (made and started the first time; later runs go on with it)."""
    t = Tournament.objects.filter(name=DEMO_EVENT).first()
    if t is None:
        entrants = [e.bot.name for e in league_services.active_entries(league)][:3]
        for name, spec in EXTRA_BOTS:
            entrants.append(league_services.do_create_house_bot(name, spec).name)
        t = do_create(
            TournamentSettings(
                name=DEMO_EVENT, slug="demo-swiss", format="swiss", bots=entrants, rounds=3,
                games_per_pairing=2, deals=DealMode.MIRRORED, seed_league=league.slug,
                description="Five house bots, three Swiss rounds, each pairing a mirrored "
                "pair of games; seeded by their Demo league ratings; unrated.",
            )
        )  # fmt: skip
    if t.status == TournamentStatus.DRAFT:
        do_start(t, enqueue=False)  # this process plays it (play_here)
        t.refresh_from_db()
    return t


def start_demo_event(
    league: League, stop: threading.Event, say: Callable[[str], None], site: str
) -> threading.Thread | None:
    """The event's thread (None if it could not be made: said, and the demo goes on)."""
    try:
        t = demo_event(league)
    except Exception:  # noqa: BLE001 - the demo serves without its event
        log.exception("the demo event could not be made")
        return None
    finally:
        connection.close()
    say(f"demo event: {t.name} ({t.status}), {site}/events/{t.slug}/")
    if t.status != TournamentStatus.RUNNING:
        return None

    def run() -> None:
        try:
            play_here(t, should_stop=stop.is_set)
            t.refresh_from_db()
            if t.status == TournamentStatus.FINISHED and t.winner is not None:
                say(f"demo event: {t.name} finished, won by {t.winner.name}")
        except Exception:  # noqa: BLE001 - keep serving; the log has the details
            log.exception("the demo event failed")
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="demo-event", daemon=True)
    thread.start()
    return thread
