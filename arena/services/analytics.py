"""The write side of bot analytics: a finished match's counts, added to its bots' rows in
the match result's transaction (``do_record_match``, called by ``do_finish_match``).

Rows are made with ON CONFLICT DO NOTHING, then locked in id order and added to, so two
results for the same bot at once wait for each other instead of failing. A failure here
is logged and rolled back to a savepoint: analytics never cost a match its result.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

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

Key = tuple[int, int | None]  # (bot, opponent or None for the overall row)


def do_record_match(
    league: League, parts: list[Participation], record: Record, reason: str, winner: int
) -> None:
    try:
        with transaction.atomic():
            _record(league, parts, record, reason, winner)
    except Exception:  # noqa: BLE001 - the result must be written whatever happens here
        logger.exception("analytics of a match in league %s not recorded", league.pk)


def _rows(league: League, keys: Iterable[Key]) -> dict[Key, BotAnalytics]:
    """The rows of ``keys``, locked; made first if missing. Bots meet again round after
    round, so the rows are there but at a pairing's first games: lock, and only if some
    are missing, make them and lock again (one statement, not two, in the usual case).
    No deadlock between the two steps: a key names its bot, and two results for the same
    bot already wait for each other at the bots' rating rows, locked earlier in the same
    transaction."""
    keys = sorted(set(keys), key=lambda k: (k[0], k[1] or 0))
    rows = _locked(league, keys)
    missing = [k for k in keys if k not in rows]
    if missing:
        BotAnalytics.objects.bulk_create(
            [BotAnalytics(league=league, bot_id=b, opponent_id=o) for b, o in missing],
            ignore_conflicts=True,
        )
        rows = _locked(league, keys)
    return rows


def _locked(league: League, keys: list[Key]) -> dict[Key, BotAnalytics]:
    bots = {b for b, _ in keys}
    # only the rows of this match (a bot has a row per opponent it ever met)
    found = (
        BotAnalytics.objects.select_for_update()
        .filter(league=league, bot_id__in=bots)
        .filter(Q(opponent__isnull=True) | Q(opponent_id__in=bots))
        .order_by("id")
    )
    wanted = set(keys)
    return {(r.bot_id, r.opponent_id): r for r in found if (r.bot_id, r.opponent_id) in wanted}


def _record(
    league: League, parts: list[Participation], record: Record, reason: str, winner: int
) -> None:
    facts: GameFacts = measure(record)
    bot_of = {p.seat: p.bot_id for p in parts}
    team_of = {p.seat: p.team for p in parts}
    opponents = {p.seat: sorted({q.bot_id for q in parts if q.team != p.team}) for p in parts}
    keys: list[Key] = []
    for p in parts:
        keys += [(p.bot_id, None), *((p.bot_id, o) for o in opponents[p.seat])]
    rows = _rows(league, keys)
    empty = [0] * (len(LATENCY_BUCKETS_MS) + 1)
    for p in parts:
        won = team_of[p.seat] == winner
        for opponent in (None, *opponents[p.seat]):
            row = rows[(p.bot_id, opponent)]
            row.games += 1
            ends = row.end_for if won else row.end_against
            ends[reason] = ends.get(reason, 0) + 1
            latency = facts.latency.get(p.seat, empty)
            row.latency = [a + b for a, b in zip(row.latency or empty, latency, strict=True)]
            row.decisions += sum(latency)
    for offer in facts.offers:
        mine = bot_of[offer.offerer]
        for opponent in (None, bot_of[offer.chooser]):
            row = rows[(mine, opponent)]
            row.offers += 1
            row.face_down_taken += int(offer.face_down_taken)
            row.gain_total += offer.gain
            row.handed_third_daredevil += int(offer.handed_third is Agent.DAREDEVIL)
            row.handed_third_codebreaker += int(offer.handed_third is Agent.CODEBREAKER)
    now = timezone.now()
    for row in rows.values():
        row.updated_at = now
    update_rows(sorted(rows.values(), key=lambda r: r.pk), _FIELDS)


#: what a match adds to (everything but the row's keys)
_FIELDS = [
    "games", "offers", "face_down_taken", "gain_total", "handed_third_daredevil",
    "handed_third_codebreaker", "end_for", "end_against", "decisions", "latency", "updated_at",
]  # fmt: skip
