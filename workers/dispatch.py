"""The dispatch port (``arena.dispatch``) implemented with Celery: each call sends a task."""

from __future__ import annotations

from workers.tasks import fit_batch_ratings, run_match


class CeleryDispatcher:
    in_process = False

    def run_match(self, match_id: int, countdown: float | None = None) -> None:
        run_match.apply_async((match_id,), countdown=countdown)

    def fit_ratings(self, league_id: int) -> None:
        fit_batch_ratings.delay(league_id)
