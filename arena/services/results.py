"""Match attempts' results: each written once, with its rating changes; the results that
are ready together (a chunk of a round's house matches) in **one** transaction of
multi-row statements (``do_finish_matches``), a single result as a batch of one.
See ``arena.adapters.play.matches`` for the whole path, ``arena.services.ratewrite`` for the
rating rows.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models import Field
from django.utils import timezone

from arena.models import (
    BotKind,
    DealMode,
    League,
    Match,
    MatchEndReason,
    MatchReplay,
    MatchStatus,
    Participation,
)
from arena.notify import sources as notify
from arena.ratings import standings
from arena.services import analytics, result_hooks
from arena.services.claims import Claim, PlayOutcome, do_void_attempt
from arena.services.completion import do_complete_round_if_done, do_matches_over
from arena.services.ratewrite import Rated, apply_ratings
from arena.services.rowwrites import insert_rows, update_rows, values_sql
from arena.terms.result import MatchResult

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
        return cls.load_many([match_id])[match_id]

    @classmethod
    def load_many(cls, match_ids: Sequence[int]) -> dict[int, Played]:
        # one statement: the seats joined with their bots, their matches and leagues
        by_match: dict[int, list[Participation]] = {}
        for p in (
            Participation.objects.select_related("bot", "match__league")
            .filter(match_id__in=match_ids)
            .order_by("match_id", "seat")
        ):
            by_match.setdefault(p.match_id, []).append(p)
        out = {}
        for match_id, parts in by_match.items():
            match = parts[0].match
            for p in parts[1:]:
                p.match = match  # one instance, as the result writes it
            out[match_id] = cls(match, parts)
        for match_id in set(match_ids) - out.keys():
            # a match without seats (none is made so): its result is its own
            out[match_id] = cls(Match.objects.select_related("league").get(pk=match_id), [])
        return out

    @property
    def batchable(self) -> bool:
        """Whether its result may share a batch with others. A mirrored-deal league's
        result locks its pair first, and a hosted seat's its versions' rows, each per
        match: those are written as batches of one."""
        return self.match.league.deals != DealMode.MIRRORED and all(
            p.bot.kind != BotKind.HOSTED for p in self.parts
        )


@dataclass(frozen=True)
class Finished:
    """An attempt played to its end, its result not written yet."""

    claim: Claim
    outcome: MatchResult
    played: Played


def do_finish_match(
    claim: Claim, outcome: MatchResult, played: Played | None = None
) -> PlayOutcome:
    """Write one attempt's result: ``do_finish_matches`` of one."""
    if played is None:
        played = Played.load(claim.match_id)
    return do_finish_matches([Finished(claim, outcome, played)])[0]


def do_finish_matches(batch: Sequence[Finished]) -> list[PlayOutcome]:
    """Write the attempts' results (each outcome in the batch's order), the batchable ones
    in one transaction (``_write``), the others one by one. If the batch's transaction
    fails, each of its results is written on its own, so that one bad result does not
    cost the others theirs; a result that fails on its own voids its attempt
    (``do_void_attempt``: the match is played again). Raises only if that fails too (the
    database is gone: the leases lapse and the reaper sends the matches again)."""
    together = [f for f in batch if f.played.batchable]
    groups = [together] if len(together) > 1 else []
    groups += [[f] for f in batch if len(together) <= 1 or not f.played.batchable]
    ends: dict[int, PlayOutcome] = {}
    for group in groups:
        try:
            ends.update(_write(group))
            continue
        except Exception as exc:  # noqa: BLE001 - e.g. the database went away mid-write
            if len(group) == 1:
                ends.update(_void_on_failure(group[0], exc))
                continue
            logger.exception("a batch of %d results failed; writing each on its own", len(group))
        for f in group:
            try:
                ends.update(_write([f]))
            except Exception as exc:  # noqa: BLE001 - as above, for this result alone
                ends.update(_void_on_failure(f, exc))
    return [ends[f.claim.match_id] for f in batch]


def _void_on_failure(f: Finished, exc: Exception) -> dict[int, PlayOutcome]:
    claim = f.claim
    logger.error(
        "match %d attempt %d: could not write the result",
        claim.match_id, claim.attempt, exc_info=exc,
    )  # fmt: skip
    return {claim.match_id: do_void_attempt(claim, f"{type(exc).__name__}: {exc}")}


def _result(f: Finished) -> dict[str, Any]:
    """The match row's new values (and the seats filled in, on their instances)."""
    outcome, final = f.outcome, f.outcome.result
    for p in f.played.parts:
        _fill_seat(p, outcome)
    result: dict[str, Any] = {
        "status": MatchStatus.VOID,
        "end_reason": MatchEndReason.ABORTED,
        "winner_team": None,
        "turns": None,
        "rated": None,
        "finished_at": timezone.now(),
        "duration_ms": round(outcome.duration_s * 1000, 3),
        "decisions": len(outcome.record.decisions),
    }
    if final is not None:
        result.update(
            status=MatchStatus.FINISHED, winner_team=final.winner,
            end_reason=final.reason.value, turns=final.turns, rated=f.played.match.league.rated,
        )  # fmt: skip
    return result


#: the results' columns, in the order of ``_UPDATE_SQL``'s VALUES after id, attempt, worker
_RESULT_FIELDS = [
    "status", "end_reason", "winner_team", "turns", "rated", "finished_at", "duration_ms",
    "decisions",
]  # fmt: skip

#: every match of a batch, each only if still held by its own attempt (the claim's check,
#: ``Claim.mine``), in one statement that also takes the rows' locks; a void result keeps
#: the row's winner, turns and rated (NULL in its VALUES)
_UPDATE_SQL = """
UPDATE {table} SET status = v.column4, end_reason = v.column5,
       winner_team = COALESCE(v.column6, winner_team), turns = COALESCE(v.column7, turns),
       rated = COALESCE(v.column8, rated), finished_at = v.column9,
       duration_ms = v.column10, decisions = v.column11, lease_expires_at = NULL, error = ''
  FROM {values}
 WHERE {table}.id = v.column1 AND status = %s AND attempts = v.column2
   AND worker_id = v.column3
RETURNING id
"""


def _update_matches(batch: Sequence[Finished], results: dict[int, dict[str, Any]]) -> set[int]:
    """The conditional update of every match of the batch; the ids still held (written)."""
    meta = Match._meta
    columns: list[Field[Any, Any]] = []
    for name in ["id", "attempts", "worker_id", *_RESULT_FIELDS]:
        column = meta.get_field(name)
        assert isinstance(column, Field)
        columns.append(column)
    params: list[Any] = []
    for f in sorted(batch, key=lambda f: f.claim.match_id):  # the rows locked in id order
        claim = f.claim
        values = [claim.match_id, claim.attempt, claim.worker]
        values += [results[claim.match_id][name] for name in _RESULT_FIELDS]
        params += [c.get_db_prep_save(v, connection) for c, v in zip(columns, values, strict=True)]
    table = connection.ops.quote_name(meta.db_table)
    sql = _UPDATE_SQL.format(table=table, values=values_sql(columns, len(batch)))
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, MatchStatus.RUNNING.value])
        return {int(row[0]) for row in cursor.fetchall()}


def _write(batch: Sequence[Finished]) -> dict[int, PlayOutcome]:
    """The batch's results, replays, participations and rating changes in one
    transaction, and the rounds that this completes.

    Locks, in this order (every writer of ratings takes them in the same order, so two
    writers never deadlock): the batch's match rows (which guard their participations),
    then the leagues' live rating rows of their bots by id, the bots' analytics rows by
    id, and last the round rows (held only until the commit). Nothing is written for a
    match no longer held by its attempt: the first statement is the matches' conditional
    update, which checks that for each row and takes the rows' locks; a match whose lease
    was lost is dropped from the batch (logged), the others are written."""
    results = {f.claim.match_id: _result(f) for f in batch}
    ends: dict[int, PlayOutcome] = {}
    with transaction.atomic():
        # None unless the deals are mirrored (a batch of one, then)
        partners = {
            f.claim.match_id: standings.lock_pair(f.played.match, f.played.match.league)
            for f in batch
        }
        kept = _update_matches(batch, results)
        lost = [f.claim for f in batch if f.claim.match_id not in kept]
        if lost:
            _log_lost(lost)
            ends.update((c.match_id, PlayOutcome.LOST_LEASE) for c in lost)
        written = [f for f in batch if f.claim.match_id in kept]
        rated: list[Rated] = []
        for f in written:
            match, final = f.played.match, f.outcome.result
            for key, value in results[match.pk].items():
                if value is not None or final is not None:
                    setattr(match, key, value)
            match.lease_expires_at, match.error = None, ""
            partner = partners[match.pk]
            mine, theirs = standings.released(final is not None, partner)
            if final is not None:
                shown = [(p, match.end_reason) for p in f.played.parts] if mine else []
                if theirs:
                    assert partner is not None
                    shown += [(p, partner.end_reason) for p in standings.partner_seats(partner)]
                rated.append(Rated(match, f.played.parts, final.winner, shown))
            elif theirs:
                assert partner is not None
                standings.do_release_partner(match.league, partner)
            ends[match.pk] = PlayOutcome.FINISHED if final is not None else PlayOutcome.VOID
        apply_ratings(rated)  # in the batch's order
        update_rows([p for f in written for p in f.played.parts], PARTICIPATION_RESULT_FIELDS)
        insert_rows(
            [
                MatchReplay(match=f.played.match, record=f.outcome.replay_json(),
                            report=f.outcome.to_json())
                for f in written
            ]
        )  # fmt: skip
        analytics.do_record_matches(
            [
                analytics.Game(f.played.match.league, f.played.parts, f.outcome.record,
                               final.reason.value, final.winner)
                for f in written
                if (final := f.outcome.result) is not None
            ]
        )  # fmt: skip
        # the owners' faults and forfeits, in this transaction (arena.notify's outbox)
        notify.match_faults((f.played.match, f.played.parts, f.claim.attempt) for f in written)
        counted = do_matches_over(Counter(f.played.match.round_id for f in written))
    for f in written:
        logger.info("match %d: %s", f.claim.match_id, f.played.match.end_reason)
    for round_id, done in counted.items():
        if done is None:
            do_complete_round_if_done(round_id)
    # after the commit: the parts registered for results (arena.events), once per league
    seated: dict[int, tuple[League, set[int]]] = {}
    for f in written:
        league = f.played.match.league
        seated.setdefault(league.pk, (league, set()))[1].update(p.bot_id for p in f.played.parts)
    for league, bot_ids in seated.values():
        result_hooks.result_committed(league, bot_ids)
    return ends


def _log_lost(lost: list[Claim]) -> None:
    now = dict(
        (pk, (status, attempts))
        for pk, status, attempts in Match.objects.filter(
            pk__in=[c.match_id for c in lost]
        ).values_list("pk", "status", "attempts")
    )
    for c in lost:
        logger.warning(
            "match %d: attempt %d lost its lease (now %s, attempt %d); result discarded",
            c.match_id, c.attempt, *now.get(c.match_id, ("gone", 0)),
        )  # fmt: skip
