"""One attempt at a league match: the claim (a conditional update with a lease), the
lease's heartbeat, and the attempt's ends other than a result: a no-show retry, or a void
attempt after an infrastructure fault. See ``arena.adapters.play.matches`` for the whole path.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections, transaction
from django.db.models import F, Q
from django.utils import timezone

from arena.dispatch import enqueue_match
from arena.models import (
    IncidentKind,
    League,
    Match,
    MatchEndReason,
    MatchStatus,
)
from arena.notify import sources as notify
from arena.ratings import standings
from arena.services.completion import do_complete_round_if_done, do_match_over
from arena.services.faultreport import record_incident

logger = logging.getLogger(__name__)


class PlayOutcome(enum.Enum):
    #: another worker holds the match, or it is done already
    SKIPPED = "skipped"
    FINISHED = "finished"
    #: over without a result (policy abort, or out of attempts)
    VOID = "void"
    #: a remote bot was missing; the match waits for the next no-show retry
    NO_SHOW_RETRY = "no_show_retry"
    #: infrastructure failed; the match is queued again
    REQUEUED = "requeued"
    #: the lease was taken over meanwhile; this attempt's result was discarded
    LOST_LEASE = "lost_lease"
    #: a bot of the match already plays as many matches as it asked for: the claim was
    #: undone and the match waits in the queue (``arena.adapters.play.seatcaps``)
    SEAT_WAIT = "seat_wait"


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{threading.get_ident()}"


@dataclass(frozen=True)
class Claim:
    match_id: int
    attempt: int
    worker: str

    def mine(self) -> Q:
        """Rows still held by this attempt."""
        return Q(
            pk=self.match_id,
            status=MatchStatus.RUNNING,
            attempts=self.attempt,
            worker_id=self.worker,
        )


def _lease() -> timedelta:
    return timedelta(seconds=settings.ARENA_LEASE_SECONDS)


_CLAIM_SQL = """
UPDATE {table} SET status = %s, attempts = attempts + 1, worker_id = %s,
       lease_expires_at = %s, started_at = %s
 WHERE id IN ({ids})
   AND ((status = %s AND (not_before IS NULL OR not_before <= %s))
        OR (status = %s AND lease_expires_at < %s))
RETURNING id, attempts
"""


#: in front of the claim on PostgreSQL, in the same query string (one round trip, one
#: implicit transaction): its commit does not wait for the WAL to reach the disk
_ASYNC_COMMIT = "SET LOCAL synchronous_commit TO OFF;"


def do_claim_match(match_id: int, worker: str) -> Claim | None:
    """Take the match for one attempt, or None if it is not ours to play
    (``do_claim_matches`` of one)."""
    claims = do_claim_matches([match_id], worker)
    return claims[0] if claims else None


def do_claim_matches(match_ids: Sequence[int], worker: str) -> list[Claim]:
    """Take for one attempt each the matches that are ours to play (in ``match_ids``'
    order); the others are skipped.

    One conditional ``UPDATE ... RETURNING`` for all of them (queued and due, or running
    with an expired lease): PostgreSQL re-checks the WHERE clause of a row claimed by two
    racing claims after the first commits, so exactly one succeeds; SQLite runs them one
    after the other.

    On PostgreSQL, outside a transaction, the claim commits without waiting for its WAL
    to be flushed (``synchronous_commit`` off for this transaction only): it is visible to
    every other worker at once, as any commit, and the flush (~4 ms here, the largest
    single cost of a short match) is left to the WAL writer. A claim is only a lease: if
    the database crashes before the flush and loses it, the matches are back to their
    state before the claim (queued, or the older attempt's lapsed lease), so this
    attempt's results, checked against the claim, are discarded and the reaper sends the
    matches again: nothing is counted twice or lost. Results keep synchronous commits."""
    if not match_ids:
        return []
    now = timezone.now()
    at = connection.ops.adapt_datetimefield_value
    sql = _CLAIM_SQL.format(
        table=connection.ops.quote_name(Match._meta.db_table),
        ids=", ".join(["%s"] * len(match_ids)),
    )
    # several statements in one execute: Django's psycopg cursors bind on the client
    fast = (
        connection.vendor == "postgresql"
        and not connection.in_atomic_block
        and connection.get_autocommit()  # else SET LOCAL would cover the caller's transaction
    )
    with connection.cursor() as cursor:
        cursor.execute(
            _ASYNC_COMMIT + sql if fast else sql,
            [
                MatchStatus.RUNNING.value, worker, at(now + _lease()), at(now), *match_ids,
                MatchStatus.QUEUED.value, at(now), MatchStatus.RUNNING.value, at(now),
            ],
        )  # fmt: skip
        if fast:
            cursor.nextset()  # past the SET's (empty) result to the UPDATE's
        attempts = {int(pk): int(n) for pk, n in cursor.fetchall()}
    claims = []
    for match_id in dict.fromkeys(match_ids):
        if match_id not in attempts:
            continue
        attempt = attempts[match_id]
        if attempt > 1:
            logger.warning(
                "match %d: attempt %d (taken over or retried) by %s", match_id, attempt, worker
            )
        claims.append(Claim(match_id, attempt, worker))
    return claims


class LeaseHeartbeat:
    """Keeps the claim's lease extended for the duration of the ``with`` block (the game
    and the writing of its end: a long game, or a result waiting for the database, must not
    look like a dead worker) by registering it with the process's ``LeaseKeeper``.
    ``lost`` turns True if a beat found the match taken over by a newer attempt."""

    def __init__(self, claim: Claim) -> None:
        self.claim = claim
        self.lost = False
        #: set when the attempt ran past the match time limit and its lease was let go
        self.overdue = False
        self.started = time.monotonic()

    def __enter__(self) -> LeaseHeartbeat:
        _keeper.add(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _keeper.remove(self)


#: ``arena.run_match``'s hard time limit is its soft one (``ARENA_MATCH_TIME_LIMIT_SECONDS``)
#: plus this; the lease keeper lets go of an attempt older than that in any pool
HARD_LIMIT_MARGIN_S = 60

#: claims extended per UPDATE statement (a WHERE of that many ORs)
_BEAT_CHUNK = 200


class LeaseKeeper:
    """One thread per process extends every lease the process holds, in one UPDATE per
    chunk of claims, every third of the lease: a worker playing a thousand matches at once
    (``--pool threads``) runs one beat, not a thousand threads each queueing for the
    database pool every few seconds. With a pool (``DATABASE_POOL_SIZE``) it has a
    connection of its own; without, it closes its connection after each beat."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        #: claim -> (its heartbeat, monotonic time its next beat is due)
        self._held: dict[Claim, tuple[LeaseHeartbeat, float]] = {}
        self._thread: threading.Thread | None = None

    def add(self, beat: LeaseHeartbeat) -> None:
        with self._cond:
            self._held[beat.claim] = (beat, time.monotonic() + settings.ARENA_LEASE_SECONDS / 3)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, daemon=True, name="lease-keeper")
                self._thread.start()
            self._cond.notify()  # its first beat may be due before the keeper's next wake

    def remove(self, beat: LeaseHeartbeat) -> None:
        with self._cond:
            self._held.pop(beat.claim, None)

    def _run(self) -> None:
        own = _own_connection()
        while True:
            with self._cond:
                now = time.monotonic()
                due = min((at for _, at in self._held.values()), default=now + 3600)
                if due > now:
                    self._cond.wait(due - now)
                    continue
                beats = [b for b, _ in self._held.values()]
                beats = [b for b in beats if not self._overdue(b, now)]
                period = settings.ARENA_LEASE_SECONDS / 3
                if now - due > period / 2:
                    logger.warning(
                        "lease keeper: beat %.1f s late (%d leases)", now - due, len(beats)
                    )
                next_due = now + period
                self._held = {c: (b, next_due) for c, (b, _) in self._held.items()}
            try:
                self._beat(beats)
            except Exception:  # noqa: BLE001 - the finish's own check decides; just log
                logger.exception("lease keeper: beat failed for %d matches", len(beats))
                connection.close()  # the next beat connects afresh
            finally:
                if not own:
                    connection.close()  # back to the process's other threads

    def _overdue(self, beat: LeaseHeartbeat, now: float) -> bool:
        """Past the match time limit (Celery's hard limit for ``arena.run_match``, which a
        ``--pool threads`` worker does not enforce): its lease is no longer extended, so
        the reaper hands the match to another attempt and this one's result, should it
        ever come, is discarded by the attempt check. Called with ``_cond`` held."""
        limit = settings.ARENA_MATCH_TIME_LIMIT_SECONDS + HARD_LIMIT_MARGIN_S
        if now - beat.started <= limit:
            return False
        beat.overdue = True
        self._held.pop(beat.claim, None)
        logger.error(
            "match %d: attempt %d has run %.0f s, past the match time limit (%d s): its "
            "lease is no longer extended and the match will be played again",
            beat.claim.match_id,
            beat.claim.attempt,
            now - beat.started,
            limit,
        )
        return True

    def _beat(self, beats: list[LeaseHeartbeat]) -> None:
        for i in range(0, len(beats), _BEAT_CHUNK):
            chunk = beats[i : i + _BEAT_CHUNK]
            claims = {b.claim.match_id: b.claim for b in chunk}
            with transaction.atomic():
                # SKIP LOCKED: a row locked now is being finished (or voided) by its own
                # attempt; waiting for those transactions would make every other lease late.
                # The rows still ours are picked here, not in SQL: a chunk as an OR of 200
                # claims' conditions took 214 ms, most of it the ORM building it, against
                # 19 ms so (a worker holding 1,400 matches spent 15% of its interpreter time
                # on its beats)
                rows = (
                    Match.objects.filter(pk__in=claims, status=MatchStatus.RUNNING)
                    .select_for_update(skip_locked=True)
                    .values_list("pk", "attempts", "worker_id")
                )
                free = [
                    pk
                    for pk, attempts, worker in rows
                    if (attempts, worker) == (claims[pk].attempt, claims[pk].worker)
                ]
                Match.objects.filter(pk__in=free).update(lease_expires_at=timezone.now() + _lease())
            if len(free) == len(chunk):
                continue
            kept = set(free)
            others = {b.claim.match_id: b for b in chunk if b.claim.match_id not in kept}
            for pk, attempts in Match.objects.filter(pk__in=others).values_list("pk", "attempts"):
                b = others[pk]
                if attempts != b.claim.attempt:  # a newer attempt took the match over
                    b.lost = True
                    self.remove(b)
                    logger.error(
                        "match %d: lease of attempt %d lost", b.claim.match_id, b.claim.attempt
                    )


_keeper = LeaseKeeper()


def _own_connection() -> bool:
    """With a database pool (``DATABASE_POOL_SIZE``), give the calling thread a connection
    of its own, outside the pool, for good; True if it did. The keeper must not queue for
    the pool behind a thousand claims and results: a beat late by a lease's length is a
    match taken over from a live worker. So a worker's bound is the pool's size plus one."""
    if "pool" not in connection.settings_dict.get("OPTIONS", {}):
        return False
    own = connections.create_connection(DEFAULT_DB_ALIAS)
    options = {k: v for k, v in own.settings_dict["OPTIONS"].items() if k != "pool"}
    own.settings_dict = {**own.settings_dict, "OPTIONS": options}
    connections[DEFAULT_DB_ALIAS] = own  # this thread's (connections are thread-local)
    return True


def do_retry_no_show(
    claim: Claim, league: League, who: str, absent: Sequence[int] = ()
) -> PlayOutcome:
    """Back to the queue until the next try of the no-show window; the owners of the
    ``absent`` bots are told their matches wait (``arena.notify``)."""
    delay = league.no_show_window_s / max(1, league.no_show_retries)
    now = timezone.now()
    with transaction.atomic():
        kept = Match.objects.filter(claim.mine()).update(
            status=MatchStatus.QUEUED,
            lease_expires_at=None,
            no_show_retries=F("no_show_retries") + 1,
            not_before=now + timedelta(seconds=delay),
            enqueued_at=now + timedelta(seconds=delay),
            error=f"no-show: {who}",
        )
        if not kept:
            return PlayOutcome.LOST_LEASE
        enqueue_match(claim.match_id, countdown=delay)
        notify.offline_waiting(absent, league)
    logger.info("match %d: %s not connected; retry in %.0f s", claim.match_id, who, delay)
    return PlayOutcome.NO_SHOW_RETRY


def do_void_attempt(claim: Claim, error: str) -> PlayOutcome:
    """An infrastructure fault: this attempt counts for nothing. The match is queued again
    (and re-sent after a short backoff), or void after ``ARENA_MAX_ATTEMPTS``. Ratings are
    never touched here. Raises if the database itself is unreachable: then the lease
    expires and the reaper re-sends the match."""
    base = Match.objects.filter(pk=claim.match_id).values_list("attempt_base", flat=True)
    # the budget of this run: an operator's re-run (``arena.services.rerun``) starts anew
    final = claim.attempt - (base.first() or 0) >= settings.ARENA_MAX_ATTEMPTS
    now = timezone.now()
    round_id = 0  # of a match this attempt makes void
    counted: bool | None = False  # do_match_over's answer for it
    with transaction.atomic():
        if final:
            match = Match.objects.select_related("league").get(pk=claim.match_id)
            partner = standings.lock_pair(match, match.league)
            kept = Match.objects.filter(claim.mine()).update(
                status=MatchStatus.VOID,
                end_reason=MatchEndReason.INFRASTRUCTURE,
                finished_at=now,
                lease_expires_at=None,
                error=error[:4000],
            )
            if kept:
                # the match is over: its finished partner's result is out, and it is off
                # its round's pending count, in this transaction
                if standings.released(False, partner)[1]:
                    assert partner is not None
                    standings.do_release_partner(match.league, partner)
                round_id = match.round_id
                counted = do_match_over(round_id)
        else:
            backoff = min(60.0, 2.0**claim.attempt)
            kept = Match.objects.filter(claim.mine()).update(
                status=MatchStatus.QUEUED,
                lease_expires_at=None,
                enqueued_at=now,
                error=error[:4000],
            )
            if kept:
                enqueue_match(claim.match_id, countdown=backoff)
    if not kept:
        return PlayOutcome.LOST_LEASE
    record_incident(IncidentKind.ATTEMPT_VOID, claim.worker, error, claim.match_id)
    if final:
        logger.error(
            "match %d: void after %d failed attempts: %s", claim.match_id, claim.attempt, error
        )
        if counted is None:
            do_complete_round_if_done(round_id)
        return PlayOutcome.VOID
    return PlayOutcome.REQUEUED
