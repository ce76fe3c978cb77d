"""Completing rounds: a round is complete once none of its matches is queued or running.

The hot path does not count the round's matches. The scheduler sets
``Round.pending_matches`` to the number of matches it made (``add_pending_matches``, in the
transaction that makes them), and each match that ends (a result, a void) takes one off
in its own transaction (``do_matches_over``: one ``UPDATE ... RETURNING`` on the round
rows of a batch of results, each taken off by its matches in the batch), which also marks
a round complete when it reaches zero. A re-queued attempt changes
nothing (its match is still pending). Since the decrement commits or rolls back with the
result, a crash cannot lose or double it.

The counting check (``do_complete_round_if_done``) stays for what the counter does not
cover: a round made without it (``pending_matches`` NULL: a test's, or a scheduler that does
not keep it) and the reaper's sweep. Locks: the round row, last in a result's
transaction (after the match, rating and analytics rows), so it is held only until the
commit.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import connection, transaction
from django.db.models import F, Field
from django.utils import timezone

from arena.dispatch import enqueue_fit
from arena.models import Match, MatchStatus, Round, RoundStatus
from arena.services.rowwrites import values_sql

_OVER_SQL = """
UPDATE {table}
   SET pending_matches = pending_matches - v.column2,
       status = CASE WHEN pending_matches <= v.column2 THEN %s ELSE status END,
       completed_at = CASE WHEN pending_matches <= v.column2 THEN %s ELSE completed_at END
  FROM {values}
 WHERE {table}.id = v.column1 AND status = %s
RETURNING id, pending_matches, status, league_id
"""


def add_pending_matches(round_id: int, n: int) -> None:
    """Count ``n`` new matches of the round as pending. Call it after creating them, in
    the same transaction (a scheduler may create a round's matches in several batches).
    A round that kept no count yet starts from its matches themselves (these included)."""
    counted = Round.objects.filter(pk=round_id, pending_matches__isnull=False).update(
        pending_matches=F("pending_matches") + n
    )
    if not counted:
        pending = Match.objects.filter(
            round_id=round_id, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
        )
        Round.objects.filter(pk=round_id).update(pending_matches=pending.count())


def do_match_over(round_id: int) -> bool | None:
    """One match of the round is over (finished or void): ``do_matches_over`` for one."""
    return do_matches_over({round_id: 1})[round_id]


def do_matches_over(over: Mapping[int, int]) -> dict[int, bool | None]:
    """Matches are over (finished or void; ``over``: how many of each round): inside
    their transaction, take them off their rounds' pending counts in one statement, and
    complete (enqueuing its batch fit on commit) each round that reached zero. Per round,
    True: this call completed it; False: it has matches left (or was complete already);
    None: it keeps no count, so the caller must check by counting after its commit
    (``do_complete_round_if_done``). The round rows are the last locks of a result's
    transaction, held only until the commit."""
    assert connection.in_atomic_block, "do_matches_over runs in the result's transaction"
    rounds = sorted(over)
    if not rounds:
        return {}
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    pk, count = Round._meta.pk, Round._meta.get_field("pending_matches")
    assert pk is not None and isinstance(count, Field)
    table = connection.ops.quote_name(Round._meta.db_table)
    sql = _OVER_SQL.format(table=table, values=values_sql([pk, count], len(rounds)))
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            [
                RoundStatus.COMPLETE.value,
                now,
                *(x for r in rounds for x in (r, over[r])),
                RoundStatus.PLAYING.value,
            ],
        )
        found = cursor.fetchall()
    answers: dict[int, bool | None] = dict.fromkeys(rounds, False)
    for round_id, pending, status, league_id in found:
        if pending is None:
            answers[round_id] = None
        elif status == RoundStatus.COMPLETE:
            enqueue_fit(league_id)
            answers[round_id] = True
    return answers


def do_complete_round_if_done(round_id: int) -> bool:
    """Mark the round complete once no match of it is queued or running (counting them),
    and enqueue the batch fit. For rounds without a pending count, and for the reaper
    (a round whose count went wrong is completed here all the same). When the last two
    matches of a round finish at once both may see the round done: the conditional update
    lets exactly one of them complete it."""
    pending = Match.objects.filter(
        round_id=round_id, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
    ).exists()
    if pending:
        return False
    with transaction.atomic():
        done = Round.objects.filter(pk=round_id, status=RoundStatus.PLAYING).update(
            status=RoundStatus.COMPLETE, completed_at=timezone.now(), pending_matches=0
        )
        if done:
            league_id = Round.objects.values_list("league_id", flat=True).get(pk=round_id)
            enqueue_fit(league_id)
    return bool(done)
