"""The write side of bot analytics: a finished match's counts, added to its bots' rows in
the results' transaction (``do_record_matches``, called by ``do_finish_matches``: the
matches of a batch together).

Rows are made with ON CONFLICT DO NOTHING, then locked in id order and added to, so two
results for the same bot at once wait for each other instead of failing. A failure here
is logged and rolled back to a savepoint: analytics never cost a match its result.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.analytics.measure import GameFacts, measure
from arena.analytics.models import LATENCY_BUCKETS_MS, BotAnalytics
from arena.models import League, Participation
from arena.services.rowwrites import update_rows
from referee.cards import Agent
from referee.replay import Record

logger = logging.getLogger(__name__)

#: (league, bot, opponent or None for the overall row)
Key = tuple[int, int, int | None]


@dataclass(frozen=True)
class Game:
    """What one finished match adds to its bots' analytics rows."""

    league: League
    parts: list[Participation]
    record: Record
    reason: str
    winner: int


def do_record_match(
    league: League, parts: list[Participation], record: Record, reason: str, winner: int
) -> None:
    do_record_matches([Game(league, parts, record, reason, winner)])


def do_record_matches(games: Sequence[Game]) -> None:
    """Add the finished matches' counts to their bots' rows (a batch of results: the rows
    of all of them locked, made and written in one statement each), in a savepoint."""
    if not games:
        return
    try:
        with transaction.atomic():
            _record(games)
    except Exception:  # noqa: BLE001 - the results must be written whatever happens here
        logger.exception(
            "analytics of %d matches in leagues %s not recorded",
            len(games), sorted({g.league.pk for g in games}),
        )  # fmt: skip


def _rows(keys: Iterable[Key]) -> dict[Key, BotAnalytics]:
    """The rows of ``keys``, locked; made first if missing. Bots meet again round after
    round, so the rows are there but at a pairing's first games: lock, and only if some
    are missing, make them and lock again (one statement, not two, in the usual case).
    No deadlock between the two steps: a key names its bot, and two results for the same
    bot already wait for each other at the bots' rating rows, locked earlier in the same
    transaction."""
    keys = sorted(set(keys), key=lambda k: (k[0], k[1], k[2] or 0))
    rows = _locked(keys)
    missing = [k for k in keys if k not in rows]
    if missing:
        BotAnalytics.objects.bulk_create(
            [BotAnalytics(league_id=lg, bot_id=b, opponent_id=o) for lg, b, o in missing],
            ignore_conflicts=True,
        )
        rows = _locked(keys)
    return rows


def _locked(keys: list[Key]) -> dict[Key, BotAnalytics]:
    leagues = {lg for lg, _, _ in keys}
    bots = {b for _, b, _ in keys}
    # only the rows of these matches (a bot has a row per opponent it ever met)
    found = (
        BotAnalytics.objects.select_for_update()
        .filter(league_id__in=leagues, bot_id__in=bots)
        .filter(Q(opponent__isnull=True) | Q(opponent_id__in=bots))
        .order_by("id")
    )
    wanted = set(keys)
    return {key: r for r in found if (key := (r.league_id, r.bot_id, r.opponent_id)) in wanted}


def _keys(game: Game) -> list[Key]:
    lg, parts = game.league.pk, game.parts
    keys: list[Key] = []
    for p in parts:
        keys.append((lg, p.bot_id, None))
        keys += [(lg, p.bot_id, q.bot_id) for q in parts if q.team != p.team]
    return keys


def do_unrecord_matches(games: Sequence[Game]) -> None:
    """Take the matches' counts off their bots' rows (an operator voided their results:
    ``arena.services.rerun``), in the caller's transaction; what ``do_record_matches``
    added for them, subtracted, so the rows read as if they had never been played."""
    if games:
        _record(games, sign=-1)


def _record(games: Sequence[Game], sign: int = 1) -> None:
    rows = _rows(k for g in games for k in _keys(g))
    for game in games:
        _add(game, rows, sign)
    now = timezone.now()
    for row in rows.values():
        row.updated_at = now
    update_rows(sorted(rows.values(), key=lambda r: r.pk), _FIELDS)


def _add(game: Game, rows: dict[Key, BotAnalytics], sign: int = 1) -> None:
    """Add the game's counts to its rows (``sign`` -1: take them off)."""
    lg, parts, winner, reason = game.league.pk, game.parts, game.winner, game.reason
    facts: GameFacts = measure(game.record)
    bot_of = {p.seat: p.bot_id for p in parts}
    team_of = {p.seat: p.team for p in parts}
    opponents = {p.seat: sorted({q.bot_id for q in parts if q.team != p.team}) for p in parts}
    empty = [0] * (len(LATENCY_BUCKETS_MS) + 1)
    for p in parts:
        won = team_of[p.seat] == winner
        for opponent in (None, *opponents[p.seat]):
            row = rows[(lg, p.bot_id, opponent)]
            row.games += sign
            ends = row.end_for if won else row.end_against
            ends[reason] = ends.get(reason, 0) + sign
            if not ends[reason]:
                del ends[reason]
            latency = facts.latency.get(p.seat, empty)
            row.latency = [a + sign * b for a, b in zip(row.latency or empty, latency, strict=True)]
            row.decisions += sign * sum(latency)
    for offer in facts.offers:
        mine = bot_of[offer.offerer]
        for opponent in (None, bot_of[offer.chooser]):
            row = rows[(lg, mine, opponent)]
            row.offers += sign
            row.face_down_taken += sign * int(offer.face_down_taken)
            row.gain_total += sign * offer.gain
            row.handed_third_daredevil += sign * int(offer.handed_third is Agent.DAREDEVIL)
            row.handed_third_codebreaker += sign * int(offer.handed_third is Agent.CODEBREAKER)


#: what a match adds to (everything but the row's keys)
_FIELDS = [
    "games", "offers", "face_down_taken", "gain_total", "handed_third_daredevil",
    "handed_third_codebreaker", "end_for", "end_against", "decisions", "latency", "updated_at",
]  # fmt: skip
