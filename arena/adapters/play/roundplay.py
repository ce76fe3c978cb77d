"""Playing a round's matches in this process (``manage.py league run``, the demo).

Embedded mode has no workers, so the loop that drives a league plays its matches itself,
each exactly as a worker would (``play_match``: claim, run, one-transaction result). Two
things keep one bot from holding everyone hostage:

* **a bounded pool** (``ARENA_ROUND_CONCURRENCY`` matches at once): a slow bot (seconds
  per decision, all legal) slows its own matches only. A remote bot is given no more
  matches at once than it said it plays (``Hello.max_concurrent_matches``, from its
  presence): a request waiting behind another of its matches would run its clock;
* **absent bots wait at the end of the round**: a match whose remote bot is not connected
  is not started (it would wait out the connect grace, then a no-show retry minutes
  away); the others are played first. When only such matches are left, the round waits
  up to the league's ``absent_wait_s`` for their bots, playing each as soon as its bots
  connect; after that they are played with no retry left, so the no-show policy decides
  (a ``no_show`` forfeit by default, void if the league aborts on no-shows).

Matches of house bots only are played in chunks, as a worker's ``arena.run_matches`` plays
them (``play_matches``: one claim, one read of the seats and one batch of results for up to
``ARENA_MATCH_CHUNK`` games, no fewer chunks than the pool has threads): one match at a
time, each of them cost the round two new connections and some twenty statements.
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection

from arena.adapters.play.matches import play_matches
from arena.adapters.relay import RunnerRelay, runner_relay
from arena.models import BotKind, League, Match, MatchStatus, Participation, Round
from arena.notify import sources as notify
from arena.services.claims import PlayOutcome

logger = logging.getLogger(__name__)

#: how often the loop looks again while it waits (a match to end, a bot to connect)
_POLL_S = 0.25


@dataclass
class RoundPlay:
    """What playing the round here did."""

    #: False: ``should_stop`` said so (the round is left playing; the next call finishes it)
    completed: bool = True
    #: matches whose bots were absent when the round's end wait ran out
    absent: list[int] = field(default_factory=list)


def _play(match_ids: Sequence[int]) -> list[PlayOutcome]:
    try:
        return play_matches(match_ids)
    finally:
        connection.close()  # a pool thread's own connection, not kept between matches


def _play_inline(match_ids: Sequence[int]) -> Future[list[PlayOutcome]]:
    """In the caller's thread and transaction (which other threads cannot see)."""
    future: Future[list[PlayOutcome]] = Future()
    try:
        future.set_result(play_matches(match_ids))
    except Exception as exc:  # noqa: BLE001 - reported like a pool thread's
        future.set_exception(exc)
    return future


def _chunks(ids: list[int], threads: int) -> list[list[int]]:
    """House-only matches in chunks of at most ``ARENA_MATCH_CHUNK``, and at least as many
    chunks as there are threads (while there are matches), so none idles."""
    if not ids:
        return []
    size = max(1, min(settings.ARENA_MATCH_CHUNK, math.ceil(len(ids) / threads)))
    return [ids[i : i + size] for i in range(0, len(ids), size)]


class _Presence:
    """Which remote bots are connected and how many matches each plays at once, looked up
    once per pass of the loop."""

    def __init__(self, relay: RunnerRelay) -> None:
        self.relay = relay
        self._seen: dict[str, int | None] = {}

    def clear(self) -> None:
        self._seen.clear()

    def capacity(self, bot_id: str) -> int | None:
        """Matches the bot plays at once; None when it is not connected."""
        if bot_id not in self._seen:
            try:
                presence = self.relay.presence(bot_id)
            except Exception:  # noqa: BLE001 - the relay's trouble: play_match reports it
                logger.warning("presence of bot %s unknown; playing its match", bot_id)
                presence = {"max_matches": 1}
            self._seen[bot_id] = (
                None if presence is None else max(1, int(str(presence.get("max_matches", 1))))
            )
        return self._seen[bot_id]


def play_round_here(
    rnd: Round,
    *,
    on_done: Callable[[int, PlayOutcome], None],
    should_stop: Callable[[], bool] | None = None,
    concurrency: int | None = None,
    relay_factory: Callable[[], RunnerRelay] = runner_relay,
) -> RoundPlay:
    """Play the round's queued matches (see the module doc); ``on_done`` is called in the
    calling thread after each attempt that did something."""
    league: League = rnd.league
    # inside a caller's transaction (a test's, say) the rows are visible on this
    # connection only: play one match at a time, here
    inline = connection.in_atomic_block
    size = 1 if inline else concurrency or settings.ARENA_ROUND_CONCURRENCY
    remote: dict[int, list[str]] = {}
    not_house: set[int] = set()  # matches a chunk may not hold
    for pk, bot_pk, kind in (
        Participation.objects.filter(match__round=rnd)
        .exclude(bot__kind=BotKind.HOUSE)
        .values_list("match_id", "bot_id", "bot__kind")
    ):
        not_house.add(pk)
        if kind == BotKind.REMOTE:
            remote.setdefault(pk, []).append(str(bot_pk))
    result = RoundPlay()
    relay = relay_factory()
    presence = _Presence(relay)
    pool = ThreadPoolExecutor(size, thread_name_prefix=f"round-{rnd.number}")
    running: dict[Future[list[PlayOutcome]], list[int]] = {}
    busy: Counter[str] = Counter()
    final: set[int] = set()  # past the end wait: played whoever is there
    wait_until: float | None = None
    try:
        while True:
            if should_stop is not None and should_stop():
                result.completed = False
                break
            presence.clear()
            ours = {pk for chunk in running.values() for pk in chunk}
            queued = [
                pk
                for pk in Match.objects.filter(round=rnd, status=MatchStatus.QUEUED)
                .order_by("id")
                .values_list("id", flat=True)
                if pk not in ours
            ]
            elsewhere = (
                Match.objects.filter(round=rnd, status=MatchStatus.RUNNING)
                .exclude(pk__in=ours)
                .exists()
            )  # held by a worker of another process
            if not queued and not running and not elsewhere:
                break
            absent: list[int] = []
            house = [pk for pk in queued if pk not in not_house]
            for chunk in _chunks(house, size) if not inline else [[pk] for pk in house]:
                if len(running) >= size:
                    break
                Match.objects.filter(
                    pk__in=chunk, status=MatchStatus.QUEUED, not_before__isnull=False
                ).update(not_before=None)  # house bots are never absent
                running[_play_inline(chunk) if inline else pool.submit(_play, chunk)] = chunk
            for match_id in (pk for pk in queued if pk in not_house):
                if len(running) >= size:
                    break
                bots = remote.get(match_id, [])
                caps = [presence.capacity(b) for b in bots]
                if match_id not in final:
                    if any(c is None for c in caps):
                        absent.append(match_id)
                        continue
                    if any(busy[b] >= c for b, c in zip(bots, caps, strict=True) if c):
                        continue  # the bot plays as many matches as it said it would
                # a match held back for a no-show retry is due now: its bots are here
                Match.objects.filter(
                    pk=match_id, status=MatchStatus.QUEUED, not_before__isnull=False
                ).update(not_before=None)
                busy.update(bots)
                one = [match_id]
                running[_play_inline(one) if inline else pool.submit(_play, one)] = one
            if absent and not running and len(absent) == len(queued):
                # only matches of absent bots are left: the end of the round
                if wait_until is None:
                    wait_until = time.monotonic() + league.absent_wait_s
                    notify.offline_waiting(
                        (int(b) for pk in absent for b in remote.get(pk, [])
                         if presence.capacity(b) is None), league,
                    )  # fmt: skip
                    logger.info(
                        "round %d of %s: %d matches wait up to %d s for absent bots",
                        rnd.number, league.name, len(absent), league.absent_wait_s,
                    )  # fmt: skip
                elif time.monotonic() >= wait_until:
                    final.update(absent)
                    result.absent.extend(absent)
                    # no retry left: the no-show policy decides at the next attempt
                    Match.objects.filter(pk__in=absent, status=MatchStatus.QUEUED).update(
                        no_show_retries=league.no_show_retries, not_before=None
                    )
                    logger.warning(
                        "round %d of %s: bots still absent after %d s; %d matches follow "
                        "the no-show policy",
                        rnd.number, league.name, league.absent_wait_s, len(absent),
                    )  # fmt: skip
                    continue
            if not running:
                time.sleep(_POLL_S)
                continue
            done, _ = wait(list(running), timeout=_POLL_S, return_when=FIRST_COMPLETED)
            for future in done:
                chunk = running.pop(future)
                for bot_id in (b for pk in chunk for b in remote.get(pk, [])):
                    busy[bot_id] -= 1
                try:
                    outcomes = future.result()
                except Exception:  # noqa: BLE001 - e.g. the database went away; next pass
                    logger.exception("matches %s: the attempt failed", chunk)
                    continue
                for match_id, outcome in zip(chunk, outcomes, strict=True):
                    if outcome not in (PlayOutcome.SKIPPED, PlayOutcome.SEAT_WAIT):
                        on_done(match_id, outcome)
    finally:
        # a stop lets the matches under way finish (their bots are mid-game)
        pool.shutdown(wait=True)
        for future, chunk in running.items():
            if future.done() and not future.exception():
                for pk, outcome in zip(chunk, future.result(), strict=True):
                    on_done(pk, outcome)
        relay.close()
    return result
