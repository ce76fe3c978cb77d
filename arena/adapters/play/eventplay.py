"""A tournament played out in this process (``manage.py tournament play``, the demo):
each round's matches as ``league run`` plays a league's (claim, run, one-transaction
result, ``arena.adapters.play.roundplay``), then the next round (``do_advance``), until
the event is over. With workers running, the hook after each result does the advancing
instead, and this is not needed."""

from __future__ import annotations

from collections.abc import Callable

from django.db import close_old_connections

from arena.adapters.play.roundplay import play_round_here
from arena.events.advance import do_advance
from arena.events.models import Tournament, TournamentStatus
from arena.models import Round, RoundStatus
from arena.services.claims import PlayOutcome


def play_here(
    t: Tournament,
    *,
    on_round: Callable[[int], None] | None = None,
    on_done: Callable[[int, PlayOutcome], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> bool:
    """Play the running event to its end; False if ``should_stop`` stopped it first (the
    next call goes on from where it is)."""
    while True:
        close_old_connections()
        t.refresh_from_db()
        if t.status != TournamentStatus.RUNNING:
            return True
        rnd = (
            Round.objects.filter(league_id=t.league_id)
            .exclude(status=RoundStatus.COMPLETE)
            .order_by("number")
            .first()
        )
        if rnd is not None:
            if on_round is not None:
                on_round(rnd.number)
            played = play_round_here(
                rnd, on_done=on_done or (lambda m, o: None), should_stop=should_stop
            )
            if not played.completed:
                return False
            continue  # complete now, or a match was queued again (a retry): look again
        if should_stop is not None and should_stop():
            return False
        done = do_advance(t.pk, enqueue=False)
        if done.waiting:
            return False  # another process holds it, or it is no longer running
