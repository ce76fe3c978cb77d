"""The dispatch port: how the competition domain hands work to whoever runs it.

Domain services never import Celery. They call ``enqueue_match`` / ``enqueue_matches`` /
``enqueue_fit`` /
``enqueue_version_test`` here, which hand the work, once the current transaction commits,
to the dispatcher named by ``settings.ARENA_DISPATCHER``:

* ``workers.dispatch.CeleryDispatcher`` (distributed mode): sends the Celery tasks;
* ``arena.adapters.embedded.InProcessDispatcher`` (embedded mode, no broker): runs the same
  service functions in this process.

On commit, so that a worker never looks for a row that is not committed yet; harmless if
sent twice, since the claim lets only one worker play an attempt.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string


@dataclass(frozen=True)
class BrokerView:
    """What the broker holds for the matches, seen by the reaper (``do_reap``)."""

    #: matches with a ``run_match`` (or ``run_matches``) message waiting in the queue, or
    #: delivered to a worker that is still to start it (an ETA in the future, or delivered recently)
    held: frozenset[int]
    #: the broker came back without its data since the last look (its epoch key is gone):
    #: every queued match it does not hold was lost
    lost_data: bool = False


class Dispatcher(Protocol):
    #: whether handed-over work runs in this process, inside the call (embedded mode)
    in_process: bool

    def run_match(self, match_id: int, countdown: float | None = None) -> None:
        """Play (an attempt of) the match, after ``countdown`` seconds if given."""

    def run_matches(self, match_ids: list[int]) -> None:
        """Play (an attempt of) each of the matches, one after the other in one task, their
        results written together (a chunk of a round of house bots)."""

    def fit_ratings(self, league_id: int) -> None:
        """Refit the league's batch ratings."""

    def run_version_test(self, test_id: int) -> None:
        """Play a hosted bot's version test (``arena.adapters.bothost.versiontest.play``)."""

    def broker_view(self) -> BrokerView | None:
        """What the broker holds now; None when this dispatcher cannot tell (no broker,
        or it cannot be reached): the reaper then goes by the age of a message alone."""

    def missing_before(self, missing: frozenset[int], at_least: float) -> frozenset[int]:
        """Of ``missing`` (queued matches the broker does not hold at this look), those it
        did not hold at an earlier look either, at least ``at_least`` seconds ago; the
        others are remembered for the next look (in the broker, since any process may
        reap). Only called after ``broker_view`` gave a view."""


@functools.cache
def _load(path: str) -> Dispatcher:
    dispatcher: Dispatcher = import_string(path)()
    return dispatcher


def dispatcher() -> Dispatcher:
    """The configured dispatcher (one instance per dotted path)."""
    return _load(settings.ARENA_DISPATCHER)


def enqueue_match(match_id: int, countdown: float | None = None) -> None:
    """Play the match once the current transaction commits."""
    transaction.on_commit(lambda: dispatcher().run_match(match_id, countdown))


def enqueue_matches(match_ids: list[int]) -> None:
    """Play the matches, as one chunk, once the current transaction commits."""
    ids = list(match_ids)
    transaction.on_commit(lambda: dispatcher().run_matches(ids))


def enqueue_round(match_ids: list[int], *, house_only: bool) -> None:
    """Send a round's matches once the current transaction commits: a round of house bots
    only as chunks of ``ARENA_MATCH_CHUNK`` (in the given order: each chunk's results are
    written in one batch), any other round a match at a time (a remote bot's game waits on
    the bot: a chunk would hold the others' results behind it)."""
    chunk = settings.ARENA_MATCH_CHUNK
    if house_only and chunk > 1:
        for i in range(0, len(match_ids), chunk):
            enqueue_matches(match_ids[i : i + chunk])
        return
    for match_id in match_ids:
        enqueue_match(match_id)


def enqueue_fit(league_id: int) -> None:
    """Refit the league's batch ratings once the current transaction commits (not for a
    league an app said has no ratings: ``register_unrated``, asked after the commit so that
    the result's transaction carries no question of it)."""

    def send() -> None:
        if not any(test(league_id) for test in _unrated):
            dispatcher().fit_ratings(league_id)

    transaction.on_commit(send)


def enqueue_version_test(test_id: int) -> None:
    """Play the version test once the current transaction commits."""
    transaction.on_commit(lambda: dispatcher().run_version_test(test_id))


# ------------------------------------------------------------------ behind league play

#: the priority a deferred match's message is sent with: on a Redis broker 0 is taken
#: first and 9 last (kombu keeps a list per step and a worker pops them in that order), and
#: league play is sent at the default, 0
DEFERRED_PRIORITY = 9
_deferred: list[Callable[[Sequence[int]], bool]] = []


def register_deferred(test: Callable[[Sequence[int]], bool]) -> None:
    """``test(match_ids)`` says whether these matches wait behind league play (an app whose
    matches are extra, as challenges: ``arena.challenges``)."""
    if test not in _deferred:
        _deferred.append(test)


#: tests (league_id) -> whether the league has no ratings to fit (a challenge league:
#: unrated, listed nowhere; a fit of all its games after every challenge would only grow)
_unrated: list[Callable[[int], bool]] = []


def register_unrated(test: Callable[[int], bool]) -> None:
    if test not in _unrated:
        _unrated.append(test)


def deferred(match_ids: Sequence[int]) -> bool:
    """Whether the dispatcher sends these matches behind league play (any sending path:
    the first send, the reaper's, a retry)."""
    return any(test(match_ids) for test in _deferred)
