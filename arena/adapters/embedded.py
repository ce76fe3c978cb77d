"""The dispatch port in embedded mode: the work runs here, in the calling process.

Embedded mode has no broker and no worker, so the service functions a Celery task would
call run inside ``enqueue_*``'s on-commit hook. A delayed retry (``countdown``) cannot wait
here: it is left to the loop that drives the league (``manage.py league run``, the demo),
which finds the match still queued and plays it when it is due.
"""

from __future__ import annotations

from arena.adapters.play.matches import play_match, play_matches
from arena.dispatch import BrokerView
from arena.ratings.services import fit_batch_ratings


class InProcessDispatcher:
    in_process = True

    def run_match(self, match_id: int, countdown: float | None = None) -> None:
        if countdown:
            return
        play_match(match_id)

    def run_matches(self, match_ids: list[int]) -> None:
        play_matches(match_ids)

    def fit_ratings(self, league_id: int) -> None:
        fit_batch_ratings(league_id)

    def run_version_test(self, test_id: int) -> None:
        # the whole test, here and now (as a match is): the caller waits for its verdict
        from arena.adapters.bothost.versiontest import play

        play(test_id)

    def broker_view(self) -> BrokerView | None:
        # no broker: a queued match is played by the loop that drives the league
        return None

    def missing_before(self, missing: frozenset[int], at_least: float) -> frozenset[int]:
        return missing  # never asked: there is no broker view
