"""A match attempt's result: written once, in one transaction, with the rating changes.
See ``arena.services.matches`` for the whole path.
"""

from __future__ import annotations

import logging
from decimal import Decimal

from django.db import transaction
from django.db.models import Count, Sum
from django.utils import timezone

from arena.models import (
    League,
    Match,
    MatchEndReason,
    MatchReplay,
    MatchStatus,
    Participation,
)
from arena.ratings import versions
from arena.ratings.ledger import ZeroSumViolation, match_changes
from arena.ratings.models import START_RATING, LiveRating, RatedMatch
from arena.runner import MatchResult
from arena.services import analytics
from arena.services.claims import Claim, PlayOutcome
from arena.services.rounds import do_complete_round_if_done

logger = logging.getLogger(__name__)


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
    "code_version",
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
        if final is not None:
            analytics.do_record_match(
                league, parts, outcome.record, final.reason.value, final.winner
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
    # hosted seats: the version that played is rated, the bot's row carries the current one
    version_rows = versions.lock_for_match(league, by_seat, rows)
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
        before = [versions.rating_before(p, rows, version_rows) for p in by_seat]
        try:
            changes = match_changes(before, [p.team for p in by_seat], winner, league.k_factor)
        except ZeroSumViolation:
            logger.critical("match %d: rating changes are not zero-sum; not rated", match.pk)
            raise
        for p, old, change in zip(by_seat, before, changes, strict=True):
            p.rating_before, p.rating_change, p.rating_after = old, change, old + change
            versions.apply_change(p, rows, version_rows, old + change)
        RatedMatch.objects.create(league=league, match=match, k_factor=league.k_factor)
        match.rated = True
    for row in rows.values():
        row.save(update_fields=["rating", "games", "wins", "losses", "forfeits", "updated_at"])
    versions.save(version_rows)
    if league.rated:
        check_league_total(league)


def check_league_total(league: League) -> None:
    """The league's ratings sum to 1500 per rating row (committed rows plus ours), plus
    what hosted bots' versions brought in (``arena.ratings.versions.total_adjustment``)."""
    agg = LiveRating.objects.filter(league=league).aggregate(total=Sum("rating"), count=Count("id"))
    count = agg["count"]
    expected = START_RATING * count + versions.total_adjustment(league)
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
