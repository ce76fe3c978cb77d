"""The Celery tasks: thin, named, ids as arguments, JSON results, one service call each.

Each is also a management command (``manage.py league schedule|recompute-ratings|
fit-ratings``, and ``league run`` plays matches the way ``run_match`` does).
"""

from __future__ import annotations

from django.conf import settings

from workers.celery import app


@app.task(
    name="arena.run_match",
    # The message is acknowledged after the task: a worker killed mid-match leaves it for
    # another worker; the claim (a conditional update with a lease) makes a second
    # delivery of a match that is running or done a no-op.
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.ARENA_MATCH_TIME_LIMIT_SECONDS,
    # + arena.services.claims.HARD_LIMIT_MARGIN_S: the lease keeper enforces the same limit
    # in a --pool threads worker, where Celery does not
    time_limit=settings.ARENA_MATCH_TIME_LIMIT_SECONDS + 60,
    ignore_result=True,
)
def run_match(match_id: int) -> str:
    from arena.adapters.play.matches import play_match

    return play_match(match_id).value


@app.task(
    name="arena.run_matches",
    # as run_match: a worker killed mid-chunk leaves the message for another worker, and
    # each match's claim and lease for the reaper (the matches are re-sent one by one)
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.ARENA_MATCH_TIME_LIMIT_SECONDS,
    time_limit=settings.ARENA_MATCH_TIME_LIMIT_SECONDS + 60,
    ignore_result=True,
)
def run_matches(match_ids: list[int]) -> list[str]:
    """A chunk of a round of house bots (``ARENA_MATCH_CHUNK`` matches at most): played one
    after the other, their results written in one batch (``play_matches``)."""
    from arena.adapters.play.matches import play_matches

    return [end.value for end in play_matches([int(m) for m in match_ids])]


@app.task(name="arena.schedule_due_rounds", acks_late=True, soft_time_limit=120, time_limit=180)
def schedule_due_rounds(league_id: int | None = None) -> dict[str, object]:
    from arena.hosting import testlease
    from arena.seasons.ending import do_end_due_seasons
    from arena.services.rounds import do_schedule_due_rounds

    # a season whose last round is complete ends first: the next round is the next
    # season's, in the divisions its promotion made
    ended = [] if league_id is None else do_end_due_seasons(league_id)
    report = do_schedule_due_rounds(league_id).to_json()
    if ended:
        report["seasons_ended"] = [e.to_json() for e in ended]
    if league_id is None:  # the reaper's run: lost version tests too
        report["version_tests_resent"] = testlease.reap()
    return report


@app.task(name="arena.end_due_seasons", acks_late=True, soft_time_limit=600, time_limit=660)
def end_due_seasons(league_id: int | None = None) -> list[dict[str, object]]:
    """The beat's check of due seasons (``arena.seasons.ending``): each ends exactly once,
    however many workers run this at once."""
    from arena.seasons.ending import do_end_due_seasons

    return [e.to_json() for e in do_end_due_seasons(league_id)]


@app.task(name="arena.advance_tournaments", acks_late=True, soft_time_limit=120, time_limit=180)
def advance_tournaments() -> dict[str, str]:
    """Running tournaments whose rounds are all over get their next round (or finish):
    the beat's safety net under the hook after each result (``arena.events.advance``)."""
    from arena.events.advance import do_advance_all

    return do_advance_all()


@app.task(name="arena.recompute_ratings", soft_time_limit=1800, time_limit=1900)
def recompute_ratings(league_id: int, fix: bool = False) -> dict[str, object]:
    from arena.ratings.services import recompute_ratings as recompute

    return recompute(league_id, fix=fix).to_json()


@app.task(name="arena.fit_batch_ratings", soft_time_limit=600, time_limit=660)
def fit_batch_ratings(league_id: int) -> dict[str, object]:
    from arena.ratings.services import fit_batch_ratings as fit

    return fit(league_id).to_json()


#: a version test plays pairs for about this long per task, then sends itself on
VERSION_TEST_SLICE_SECONDS = 120


@app.task(
    name="arena.run_version_test",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=VERSION_TEST_SLICE_SECONDS + 900,
    time_limit=VERSION_TEST_SLICE_SECONDS + 960,
    ignore_result=True,
)
def run_version_test(test_id: int) -> bool:
    """Pairs of a hosted bot's version test for a while; if it has no verdict yet, the
    next slice goes back on the queue (other work runs in between)."""
    from arena.adapters.bothost.versiontest import play

    running = play(test_id, seconds=VERSION_TEST_SLICE_SECONDS)
    if running:
        run_version_test.apply_async((test_id,), queue=settings.ARENA_VERSION_TEST_QUEUE or None)
    return running


# the notification tasks live in their own module; imported here so that a worker has them
from workers import notify as _notify  # noqa: E402,F401
