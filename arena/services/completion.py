"""Completing rounds: a round is complete once none of its matches is queued or running.

The hot path does not count the round's matches. The scheduler sets
``Round.pending_matches`` to the number of matches it made (``add_pending_matches``, in the
transaction that makes them), and each match that ends (a result, a void) takes one off
in its own transaction (``do_match_over``): one ``UPDATE ... RETURNING`` on the round row,
which also marks the round complete when it reaches zero. A re-queued attempt changes
nothing (its match is still pending). Since the decrement commits or rolls back with the
result, a crash cannot lose or double it.

The counting check (``do_complete_round_if_done``) stays for what the counter does not
cover: a round made without it (``pending_matches`` NULL: a test's, or a scheduler that does
not keep it) and the reaper's sweep. Locks: the round row, last in a result's
transaction (after the match, rating and analytics rows), so it is held only until the
commit.
"""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from arena.dispatch import enqueue_fit
from arena.models import Match, MatchStatus, Round, RoundStatus

_OVER_SQL = """
UPDATE {table}
   SET pending_matches = pending_matches - 1,
       status = CASE WHEN pending_matches <= 1 THEN %s ELSE status END,
       completed_at = CASE WHEN pending_matches <= 1 THEN %s ELSE completed_at END
 WHERE id = %s AND status = %s
RETURNING pending_matches, status, league_id
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
    """One match of the round is over (finished or void): inside that match's transaction,
    take it off the round's pending count, and complete the round (enqueuing its batch fit
    on commit) if it was the last. True: this call completed the round; False: it has
    matches left (or was complete already); None: the round keeps no count, so the caller
    must check by counting after its commit (``do_complete_round_if_done``)."""
    assert connection.in_atomic_block, "do_match_over runs in the result's transaction"
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(
            _OVER_SQL.format(table=connection.ops.quote_name(Round._meta.db_table)),
            [RoundStatus.COMPLETE.value, now, round_id, RoundStatus.PLAYING.value],
        )
        row = cursor.fetchone()
    if row is None:
        return False
    pending, status, league_id = row
    if pending is None:
        return None
    if status == RoundStatus.COMPLETE:
        enqueue_fit(league_id)
        return True
    return False


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
