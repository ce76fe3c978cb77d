"""A match attempt's result: written once, in one transaction, with the rating changes.
See ``arena.services.matches`` for the whole path.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from arena.models import (
    League,
    Match,
    MatchEndReason,
    MatchReplay,
    MatchStatus,
    Participation,
)
from arena.ratings import standings, versions
from arena.ratings.ledger import ZeroSumViolation, match_changes
from arena.ratings.models import LiveRating, RatedMatch
from arena.runner import MatchResult
from arena.services import analytics, result_hooks
from arena.services.claims import Claim, PlayOutcome
from arena.services.completion import do_complete_round_if_done, do_match_over
from arena.services.rowwrites import update_rows

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


@dataclass(frozen=True)
class Played:
    """What ``play_match`` read for the game and the result needs again: the match with
    its league, and its participations. A participation is written only by its match's
    result, under the match row's lock, so the rows read after the claim are still the
    stored ones when the result is written."""

    match: Match
    parts: list[Participation]

    @classmethod
    def load(cls, match_id: int) -> Played:
        # one statement: the seats joined with their bots, their match and its league
        parts = list(
            Participation.objects.select_related("bot", "match__league")
            .filter(match_id=match_id)
            .order_by("seat")
        )
        if not parts:  # a match without seats (none is made so): its result is its own
            return cls(Match.objects.select_related("league").get(pk=match_id), [])
        match = parts[0].match
        for p in parts[1:]:
            p.match = match  # one instance, as the result writes it
        return cls(match, parts)


def do_finish_match(
    claim: Claim, outcome: MatchResult, played: Played | None = None
) -> PlayOutcome:
    """Write the attempt's result, replay, participations and rating changes in one
    transaction, and complete the round if this was its last match.

    Locks, in this order (every writer of ratings takes them in the same order, so two
    finishing matches never deadlock): the match row (which guards its participations),
    then the league's live rating rows of its bots by id, the bots' analytics rows by id,
    and last the round row (held only until the commit). Nothing is written unless the
    match is still held by this attempt: the first statement is the match's conditional
    update, which both checks that and takes the row's lock."""
    if played is None:
        played = Played.load(claim.match_id)
    match, parts, league = played.match, played.parts, played.match.league
    final = outcome.result
    for p in parts:
        _fill_seat(p, outcome)
    result: dict[str, object] = {
        "finished_at": timezone.now(),
        "duration_ms": round(outcome.duration_s * 1000, 3),
        "decisions": len(outcome.record.decisions),
        "lease_expires_at": None,
        "error": "",
    }
    if final is None:
        result.update(status=MatchStatus.VOID, end_reason=MatchEndReason.ABORTED)
    else:
        result.update(
            status=MatchStatus.FINISHED, winner_team=final.winner,
            end_reason=final.reason.value, turns=final.turns, rated=league.rated,
        )  # fmt: skip
    with transaction.atomic():
        partner = standings.lock_pair(match, league)  # None unless the deals are mirrored
        if not Match.objects.filter(claim.mine()).update(**result):
            now = Match.objects.values_list("status", "attempts").get(pk=claim.match_id)
            logger.warning(
                "match %d: attempt %d lost its lease (now %s, attempt %d); result discarded",
                claim.match_id, claim.attempt, *now,
            )  # fmt: skip
            return PlayOutcome.LOST_LEASE
        for key, value in result.items():
            setattr(match, key, value)
        mine, theirs = standings.released(final is not None, partner)
        if final is not None:
            shown = [(p, match.end_reason) for p in parts] if mine else []
            if theirs:
                assert partner is not None
                shown += [(p, partner.end_reason) for p in standings.partner_seats(partner)]
            _apply_ratings(match, league, parts, final.winner, shown)
        elif theirs:
            assert partner is not None
            standings.do_release_partner(league, partner)
        update_rows(parts, PARTICIPATION_RESULT_FIELDS)
        MatchReplay.objects.create(
            match=match, record=outcome.replay_json(), report=outcome.to_json()
        )
        if final is not None:
            analytics.do_record_match(
                league, parts, outcome.record, final.reason.value, final.winner
            )
        counted = do_match_over(match.round_id)
    logger.info("match %d: %s", match.pk, match.end_reason)
    if counted is None:
        do_complete_round_if_done(match.round_id)
    # after the commit: the site's hook refreshes the watched pages this result changed
    result_hooks.result_committed(league, [p.bot_id for p in parts])
    return PlayOutcome.FINISHED if final is not None else PlayOutcome.VOID


def _apply_ratings(
    match: Match,
    league: League,
    parts: list[Participation],
    winner: int,
    shown: list[tuple[Participation, str]],
) -> None:
    """Inside ``do_finish_match``'s transaction: lock the bots' rating rows, apply the
    match's changes, write the ledger, and add the ``shown`` seats (with their match's
    end reason: released results, ``arena.ratings.standings``) to the standings. Raises
    (rolling everything back) on a zero-sum violation. The changes of one match sum to
    zero exactly (``match_changes`` checks), so the league's total stays 1500 per row
    without summing the league here; the recompute (``league recompute-ratings``)
    checks every row against the ledger."""
    bots = {p.bot_id for p in parts} | {p.bot_id for p, _ in shown}
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
    now = timezone.now()
    for p in by_seat:
        row = rows[p.bot_id]
        row.updated_at = now
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
    for p, end_reason in shown:
        standings.add_shown(rows[p.bot_id], p, end_reason)
    update_rows(
        sorted(rows.values(), key=lambda r: r.pk),
        ["rating", "games", "wins", "losses", "forfeits", "updated_at", *standings.SHOWN_FIELDS],
    )
    versions.save(version_rows)
