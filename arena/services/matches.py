"""Playing a league match: claim it, run it, write its result once.

The path of one attempt (``play_match``, what the ``arena.run_match`` task calls):

1. ``do_claim_match``: one conditional UPDATE, ``queued -> running`` (or an expired lease
   ``running -> running``), attempts + 1, a lease of ``ARENA_LEASE_SECONDS`` that a
   heartbeat thread extends while the game runs. Only one worker can hold an attempt.
2. The game, through ``arena.runner.run_match``: house bots in-process, remote bots
   through the relay. Bot faults follow the league's fault policy; a remote bot missing
   at the start is retried under the no-show policy, then forfeits as ``no_show``.
3. ``do_finish_match``: result, replay, participations and rating changes in **one
   transaction**, with the match row locked and checked to still be this attempt's, so a
   worker that lost its lease writes nothing and a match is rated at most once
   (``leaderboard.RatedMatch`` is unique per match besides).

Infrastructure faults (the relay or the database failing, a referee exception, the task's
time limit) void the attempt (``do_void_attempt``): the match goes back to the queue and is
played again from scratch, ratings untouched; after ``ARENA_MAX_ATTEMPTS`` it is void.
A worker killed outright leaves its lease to expire; the reaper re-sends the match.
"""

from __future__ import annotations

import enum
import logging
import os
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, Q, Sum
from django.utils import timezone

from arena.models import (
    League,
    Match,
    MatchEndReason,
    MatchReplay,
    MatchStatus,
    Participation,
)
from arena.relay import RunnerRelay, runner_relay
from arena.runner import (
    FaultAction,
    FaultCause,
    HouseSeat,
    MatchResult,
    RemoteSeat,
    Seat,
    TimeControl,
    run_match,
)
from arena.runner import MatchStatus as RunStatus
from arena.services.leagues import check_fault_policy
from arena.services.rounds import do_complete_round_if_done, enqueue_match
from leaderboard.ledger import ZeroSumViolation, match_changes
from leaderboard.models import START_RATING, LiveRating, RatedMatch
from referee import GameConfig, Mode
from referee.config import RULESETS

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
 WHERE id = %s
   AND ((status = %s AND (not_before IS NULL OR not_before <= %s))
        OR (status = %s AND lease_expires_at < %s))
RETURNING attempts
"""


def do_claim_match(match_id: int, worker: str) -> Claim | None:
    """Take the match for one attempt, or None if it is not ours to play.

    One conditional ``UPDATE ... RETURNING`` (queued and due, or running with an expired
    lease): PostgreSQL re-checks the WHERE clause of the second of two racing claims after
    the first commits, so exactly one succeeds; SQLite runs them one after the other."""
    now = timezone.now()
    at = connection.ops.adapt_datetimefield_value
    with connection.cursor() as cursor:
        cursor.execute(
            _CLAIM_SQL.format(table=connection.ops.quote_name(Match._meta.db_table)),
            [
                MatchStatus.RUNNING.value, worker, at(now + _lease()), at(now), match_id,
                MatchStatus.QUEUED.value, at(now), MatchStatus.RUNNING.value, at(now),
            ],
        )  # fmt: skip
        row = cursor.fetchone()
    if row is None:
        return None
    attempt = int(row[0])
    if attempt > 1:
        logger.warning(
            "match %d: attempt %d (taken over or retried) by %s", match_id, attempt, worker
        )
    return Claim(match_id, attempt, worker)


class _Heartbeat:
    """Extends the lease every third of its length while a game runs (a long game must
    not look like a dead worker). Uses its own database connection and closes it."""

    def __init__(self, claim: Claim) -> None:
        self.claim = claim
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="lease-heartbeat")
        self.lost = False

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        period = settings.ARENA_LEASE_SECONDS / 3
        try:
            while not self._stop.wait(period):
                kept = Match.objects.filter(self.claim.mine()).update(
                    lease_expires_at=timezone.now() + _lease()
                )
                if not kept:
                    self.lost = True
                    logger.error(
                        "match %d: lease of attempt %d lost",
                        self.claim.match_id,
                        self.claim.attempt,
                    )
                    return
        except Exception:  # noqa: BLE001 - the finish's own check decides; just log
            logger.exception("match %d: lease heartbeat failed", self.claim.match_id)
        finally:
            connection.close()


# ------------------------------------------------------------------ playing


#: makes the relay for a match's remote seats (the settings' relay unless a caller says)
RelayFactory = Callable[[], RunnerRelay]


def _seats(
    match: Match, parts: list[Participation], relay_factory: RelayFactory
) -> tuple[list[Seat], RunnerRelay | None]:
    seats: list[Seat] = []
    relay: RunnerRelay | None = None
    for p in parts:
        bot = p.bot
        if bot.kind == "house":
            # a seed per seat and match: a re-run from scratch replays the same game
            seats.append(HouseSeat(bot.spec, match.deck_seed * 8 + p.seat, name=bot.name))
        else:
            if relay is None:
                relay = relay_factory()
            seats.append(RemoteSeat(str(bot.pk), bot.name, relay))
    return seats, relay


def game_config(league: League, match: Match, parts: list[Participation]) -> GameConfig:
    team_a = tuple(sorted(p.seat for p in parts if p.team == 0))
    team_b = tuple(sorted(p.seat for p in parts if p.team == 1))
    return GameConfig(Mode(league.mode), (team_a, team_b), match.first_team, league.ruleset)


def play_match(
    match_id: int, *, worker: str | None = None, relay_factory: RelayFactory | None = None
) -> PlayOutcome:
    """One attempt at the match (see the module doc). Safe to call for any match at any
    time: it plays only what it can claim."""
    claim = do_claim_match(match_id, worker or worker_id())
    if claim is None:
        return PlayOutcome.SKIPPED
    match = Match.objects.select_related("league").get(pk=match_id)
    league = match.league
    parts = list(match.participations.select_related("bot").order_by("seat"))
    retries_left = match.no_show_retries < league.no_show_retries
    relay = None
    try:
        with _Heartbeat(claim):
            if RULESETS[league.ruleset].version != league.ruleset_version:
                raise RuntimeError(
                    f"ruleset {league.ruleset} is version {RULESETS[league.ruleset].version} "
                    f"here, the league plays version {league.ruleset_version}"
                )
            config = game_config(league, match, parts)
            policy = check_fault_policy(
                {**league.fault_policy, **({FaultCause.NO_SHOW: "abort"} if retries_left else {})}
            )
            seats, relay = _seats(match, parts, relay_factory or runner_relay)
            outcome = run_match(
                seats,
                config,
                match.deck_seed,
                match_id=f"{match.pk}.{claim.attempt}",
                replay_id=str(match.pk),
                time_control=TimeControl(league.decision_ms, league.bank_ms),
                policy=policy,
                connect_grace_s=league.connect_grace_ms / 1000,
            )
    except Exception as exc:  # noqa: BLE001 - whatever failed, it was not a bot's fault
        logger.exception("match %d attempt %d: infrastructure failure", match_id, claim.attempt)
        return do_void_attempt(claim, f"{type(exc).__name__}: {exc}")
    finally:
        if relay is not None:
            relay.close()
    no_shows = [f for f in outcome.faults if f.cause is FaultCause.NO_SHOW]
    if (
        outcome.status is RunStatus.ABORTED
        and no_shows
        and retries_left
        and policy.action_for(FaultCause.NO_SHOW) is FaultAction.ABORT
    ):
        return do_retry_no_show(claim, league, ", ".join(f.bot for f in no_shows))
    try:
        return do_finish_match(claim, outcome)
    except Exception as exc:  # noqa: BLE001 - e.g. the database went away mid-write
        logger.exception("match %d attempt %d: could not write the result", match_id, claim.attempt)
        return do_void_attempt(claim, f"{type(exc).__name__}: {exc}")


def do_retry_no_show(claim: Claim, league: League, who: str) -> PlayOutcome:
    """Back to the queue until the next try of the no-show window."""
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
    logger.info("match %d: %s not connected; retry in %.0f s", claim.match_id, who, delay)
    return PlayOutcome.NO_SHOW_RETRY


def do_void_attempt(claim: Claim, error: str) -> PlayOutcome:
    """An infrastructure fault: this attempt counts for nothing. The match is queued again
    (and re-sent after a short backoff), or void after ``ARENA_MAX_ATTEMPTS``. Ratings are
    never touched here. Raises if the database itself is unreachable: then the lease
    expires and the reaper re-sends the match."""
    final = claim.attempt >= settings.ARENA_MAX_ATTEMPTS
    now = timezone.now()
    with transaction.atomic():
        if final:
            kept = Match.objects.filter(claim.mine()).update(
                status=MatchStatus.VOID,
                end_reason=MatchEndReason.INFRASTRUCTURE,
                finished_at=now,
                lease_expires_at=None,
                error=error[:4000],
            )
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
    if final:
        logger.error(
            "match %d: void after %d failed attempts: %s", claim.match_id, claim.attempt, error
        )
        _complete_round(claim.match_id)
        return PlayOutcome.VOID
    return PlayOutcome.REQUEUED


def _complete_round(match_id: int) -> None:
    round_id = Match.objects.values_list("round_id", flat=True).get(pk=match_id)
    do_complete_round_if_done(round_id)


# ------------------------------------------------------------------ the result


def _fill_seat(p: Participation, outcome: MatchResult) -> None:
    report = outcome.seats[p.seat]
    p.decisions = report.decisions
    p.auto_decisions = report.auto_decisions
    lat = report.latency
    if lat.count:
        p.latency_mean_ms, p.latency_p50_ms = lat.mean, lat.p50
        p.latency_p90_ms, p.latency_max_ms = lat.p90, lat.max
    p.bank_left_ms = round(report.bank_left_ms)
    if report.fault is not None:
        p.fault_cause = report.fault.cause.value
        p.fault_detail = report.fault.detail[:4000]
    if outcome.result is not None:
        p.won = p.team == outcome.result.winner


PARTICIPATION_RESULT_FIELDS = [
    "won",
    "rating_before",
    "rating_after",
    "rating_change",
    "decisions",
    "auto_decisions",
    "latency_mean_ms",
    "latency_p50_ms",
    "latency_p90_ms",
    "latency_max_ms",
    "bank_left_ms",
    "fault_cause",
    "fault_detail",
]


def do_finish_match(claim: Claim, outcome: MatchResult) -> PlayOutcome:
    """Write the attempt's result, replay, participations and rating changes in one
    transaction.

    Locks, in this order (every writer of ratings takes them in the same order, so two
    finishing matches never deadlock): the match row (which guards its participations),
    then the league's live rating rows of its bots by id. Nothing is written unless the match is
    still held by this attempt."""
    now = timezone.now()
    with transaction.atomic():
        match = Match.objects.select_for_update().select_related("league").get(pk=claim.match_id)
        if not (
            match.status == MatchStatus.RUNNING
            and match.attempts == claim.attempt
            and match.worker_id == claim.worker
        ):
            logger.warning(
                "match %d: attempt %d lost its lease (now %s, attempt %d); result discarded",
                match.pk,
                claim.attempt,
                match.status,
                match.attempts,
            )
            return PlayOutcome.LOST_LEASE
        league = match.league
        parts = list(Participation.objects.select_for_update().filter(match=match).order_by("id"))
        for p in parts:
            _fill_seat(p, outcome)
        match.finished_at = now
        match.duration_ms = round(outcome.duration_s * 1000, 3)
        match.decisions = len(outcome.record.decisions)
        match.lease_expires_at = None
        match.error = ""
        final = outcome.result
        if final is None:
            match.status = MatchStatus.VOID
            match.end_reason = MatchEndReason.ABORTED
        else:
            match.status = MatchStatus.FINISHED
            match.winner_team = final.winner
            match.end_reason = final.reason.value
            match.turns = final.turns
            _apply_ratings(match, league, parts, final.winner)
        # one plain UPDATE per row: a match has 2 to 4 of them, and bulk_update's CASE
        # expressions cost more to build than the round trips they save
        for p in parts:
            p.save(update_fields=PARTICIPATION_RESULT_FIELDS)
        MatchReplay.objects.create(
            match=match, record=outcome.replay_json(), report=outcome.to_json()
        )
        match.save()
    logger.info("match %d: %s", match.pk, match.end_reason)
    do_complete_round_if_done(match.round_id)
    return PlayOutcome.FINISHED if final is not None else PlayOutcome.VOID


def _apply_ratings(match: Match, league: League, parts: list[Participation], winner: int) -> None:
    """Inside ``do_finish_match``'s transaction: lock the bots' rating rows, apply the
    match's changes, write the ledger. Raises (rolling everything back) on a zero-sum
    violation."""
    bots = {p.bot_id for p in parts}
    rows = {
        r.bot_id: r
        for r in LiveRating.objects.select_for_update()
        .filter(league=league, bot_id__in=bots)
        .order_by("id")
    }
    for bot_id in sorted(bots - rows.keys()):
        # an entry made before ratings existed; 1500 keeps the league's total 1500 x rows
        rows[bot_id] = LiveRating.objects.create(league=league, bot_id=bot_id)
    by_seat = sorted(parts, key=lambda p: p.seat)
    for p in by_seat:
        row = rows[p.bot_id]
        row.updated_at = timezone.now()
        row.games += 1
        if p.won:
            row.wins += 1
        else:
            row.losses += 1
            if p.fault_cause and match.end_reason == MatchEndReason.FORFEIT:
                row.forfeits += 1
    if league.rated:
        before = [rows[p.bot_id].rating for p in by_seat]
        try:
            changes = match_changes(before, [p.team for p in by_seat], winner, league.k_factor)
        except ZeroSumViolation:
            logger.critical("match %d: rating changes are not zero-sum; not rated", match.pk)
            raise
        for p, old, change in zip(by_seat, before, changes, strict=True):
            p.rating_before, p.rating_change, p.rating_after = old, change, old + change
            rows[p.bot_id].rating = old + change
        RatedMatch.objects.create(league=league, match=match, k_factor=league.k_factor)
        match.rated = True
    for row in rows.values():
        row.save(update_fields=["rating", "games", "wins", "losses", "forfeits", "updated_at"])
    if league.rated:
        check_league_total(league)


def check_league_total(league: League) -> None:
    """The league's ratings sum to 1500 per rating row (committed rows plus ours)."""
    agg = LiveRating.objects.filter(league=league).aggregate(total=Sum("rating"), count=Count("id"))
    count = agg["count"]
    expected = START_RATING * count
    total = agg["total"] if agg["total"] is not None else Decimal(0)
    if Decimal(total).quantize(Decimal("0.0001")) != expected:
        logger.critical(
            "league %s: ratings sum to %s, not %s (%d rows): zero-sum violated",
            league.name,
            total,
            expected,
            count,
        )
        raise ZeroSumViolation(f"league {league.name}: ratings sum to {total}, not {expected}")
