"""The rating rows of a batch of results (``apply_ratings``), inside the results'
transaction (``arena.services.results``): the live rating rows of every bot of the batch
locked in one statement, in id order; each match's Elo applied in the batch's order (a bot
in two matches of a batch gets both changes, one after the other: the ratings that writing
the results one by one gives); the ledger rows, the rating rows and the released results'
head-to-head rows (``arena.ratings.headtohead``) then written in one statement each.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone

from arena.models import League, Match, MatchEndReason, Participation
from arena.ratings import headtohead, standings, versions
from arena.ratings.ledger import ZeroSumViolation, match_changes
from arena.ratings.models import LiveRating, RatedMatch
from arena.services.rowwrites import insert_rows, update_rows

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rated:
    """A finished match of the batch: its seats (filled in), the winning team, and the
    seats it adds to the standings (with their match's end reason: the released results,
    ``arena.ratings.standings``)."""

    match: Match
    parts: list[Participation]
    winner: int
    shown: list[tuple[Participation, str]]


def apply_ratings(batch: Sequence[Rated]) -> None:
    """Lock the batch's bots' rating rows, apply each match's changes in order, write the
    ledger, and add the shown seats to the standings. Raises (rolling everything back) on
    a zero-sum violation. The changes of one match sum to zero exactly (``match_changes``
    checks), so a league's total stays 1500 per row without summing the league here; the
    recompute (``league recompute-ratings``) checks every row against the ledger."""
    if not batch:
        return
    wanted = {
        (r.match.league_id, p.bot_id) for r in batch for p in (*r.parts, *(s for s, _ in r.shown))
    }
    rows: dict[tuple[int, int], LiveRating] = {
        (row.league_id, row.bot_id): row
        for row in LiveRating.objects.select_for_update()
        .filter(
            league_id__in={lg for lg, _ in wanted},
            bot_id__in={b for _, b in wanted},
        )
        .order_by("id")
        if (row.league_id, row.bot_id) in wanted
    }
    for league_id, bot_id in sorted(wanted - rows.keys()):
        # an entry made before ratings existed; 1500 keeps the league's total 1500 x rows
        rows[(league_id, bot_id)] = LiveRating.objects.create(league_id=league_id, bot_id=bot_id)
    by_league: dict[int, dict[int, LiveRating]] = {}
    for (league_id, bot_id), row in rows.items():
        by_league.setdefault(league_id, {})[bot_id] = row
    ledger: list[RatedMatch] = []
    for r in batch:
        league = r.match.league
        if _apply(r, league, by_league[league.pk]):
            ledger.append(RatedMatch(league=league, match=r.match, k_factor=league.k_factor))
    insert_rows(ledger)
    update_rows(
        sorted(rows.values(), key=lambda row: row.pk),
        ["rating", "games", "wins", "losses", "forfeits", "updated_at", *standings.SHOWN_FIELDS],
    )
    # the crosstable's and the bot pages' records, from the same released seats
    headtohead.do_add(p for r in batch for p, _ in r.shown)


def _apply(r: Rated, league: League, rows: dict[int, LiveRating]) -> bool:
    """One match's changes on the (locked) rows of its league's bots; True if rated."""
    match = r.match
    by_seat = sorted(r.parts, key=lambda p: p.seat)
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
            changes = match_changes(before, [p.team for p in by_seat], r.winner, league.k_factor)
        except ZeroSumViolation:
            logger.critical("match %d: rating changes are not zero-sum; not rated", match.pk)
            raise
        for p, old, change in zip(by_seat, before, changes, strict=True):
            p.rating_before, p.rating_change, p.rating_after = old, change, old + change
            versions.apply_change(p, rows, version_rows, old + change)
    for p, end_reason in r.shown:
        standings.add_shown(rows[p.bot_id], p, end_reason)
    versions.save(version_rows)
    return bool(league.rated)
