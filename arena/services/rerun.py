"""An operator voids matches the arena played badly and plays them again
(``manage.py league rerun NAME MATCH...``, the admin's *Void and re-run* action).

For a match charged a fault while the arena itself was failing (``league faults`` lists
them as suspects): its result counts for nothing, its ratings are recomputed as if it
had never been played, and it is queued to be played again from scratch.

In one transaction, locks taken in the order every result's writer takes them (match
rows, the league's rating rows, analytics rows, round rows):

* the match (and, in a league of mirrored pairs, the other game of its pair: a pair is
  the unit of its deal and of the standings) must be finished or void, and no game of
  its pair still queued or running;
* the result it replaces is written to an incident (``MATCH_RERUN``), for the record;
* its replay, its rating ledger row (``RatedMatch``) and its analytics counts go; its
  seats are reset; the match is queued with a fresh attempt budget (``attempt_base``)
  and attempt numbers that keep growing, so that no late attempt of the voided run can
  write a result over the new one;
* the league's live, version and shown ratings are recomputed from the ledger that is
  left (``recompute_ratings`` / ``recompute_standings`` with ``fix``);
* its round, complete, is reopened with the match pending again.

After the commit the match is sent to the workers and the batch fit is run again. A match
queued or running is refused, with the reason; so is a match of another league.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from arena.dispatch import enqueue_fit, enqueue_match
from arena.models import (
    DealMode,
    IncidentKind,
    League,
    Match,
    MatchReplay,
    MatchStatus,
    Participation,
    Round,
    RoundStatus,
)
from arena.ratings.models import LiveRating, RatedMatch
from arena.ratings.services import recompute_ratings
from arena.ratings.standings import recompute_standings
from arena.services import analytics
from arena.services.completion import add_pending_matches
from arena.services.faultreport import record_incident
from referee.replay import ReplayError, from_json

#: a seat's result columns, back to what a match that has not been played holds
_SEAT_RESET = {
    "won": None, "rating_before": None, "rating_after": None, "rating_change": None,
    "decisions": 0, "auto_decisions": 0, "latency_mean_ms": None, "latency_p50_ms": None,
    "latency_p90_ms": None, "latency_max_ms": None, "bank_left_ms": None,
    "fault_cause": "", "fault_detail": "", "code_version": None,
}  # fmt: skip


#: other parts' reasons to refuse a re-run (``register_guard``): a guard gets the league and
#: the match (its row locked) and answers why not, or None
Guard = Callable[[League, Match], str | None]
_guards: list[Guard] = []


def register_guard(guard: Guard) -> None:
    """Ask ``guard`` before any match is voided and re-run (once, however often
    registered): e.g. a knockout refuses a tie whose winner has moved on."""
    if guard not in _guards:
        _guards.append(guard)


@dataclass
class RerunReport:
    league: str
    #: the matches queued again (with their pair's other game, in mirrored leagues)
    rerun: list[int] = field(default_factory=list)
    #: match id -> why it was not
    refused: dict[int, str] = field(default_factory=dict)
    #: bot name -> its live rating before and after the recompute
    ratings: dict[str, tuple[Decimal, Decimal]] = field(default_factory=dict)
    #: stored values the recompute changed (ratings, then shown standings)
    fixed: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "league": self.league,
            "rerun": self.rerun,
            "refused": {str(k): v for k, v in self.refused.items()},
            "ratings": {b: [str(a), str(z)] for b, (a, z) in self.ratings.items()},
            "fixed": self.fixed,
        }


def void_and_rerun(
    league: League, match_ids: Sequence[int], *, reason: str, by: str = "operator"
) -> RerunReport:
    """Void the matches' results and queue them again (see the module doc)."""
    report = RerunReport(league.name)
    asked = sorted(set(match_ids))
    with transaction.atomic():
        found = {
            m.pk: m
            for m in Match.objects.select_for_update()
            .filter(pk__in=asked, league=league)
            .order_by("id")
        }
        units = _units(league, [found[m] for m in asked if m in found])
        for match_id in asked:
            if match_id not in found:
                report.refused[match_id] = f"no match {match_id} in league {league.name}"
        chosen: list[Match] = []
        for match_id in asked:
            if match_id not in found:
                continue
            unit = units[match_id]
            refusal = next(filter(None, (g(league, found[match_id]) for g in _guards)), None)
            if refusal:
                report.refused[match_id] = refusal
                continue
            busy = [g for g in unit if g.status in (MatchStatus.QUEUED, MatchStatus.RUNNING)]
            if busy:
                report.refused[match_id] = (
                    f"match {busy[0].pk} is {busy[0].status}: only a match that is over "
                    "(finished or void) can be voided and played again"
                    + ("; it is this match's mirrored partner" if busy[0].pk != match_id else "")
                )
                continue
            chosen += [g for g in unit if g.pk not in {c.pk for c in chosen}]
        if not chosen:
            return report
        chosen.sort(key=lambda m: m.pk)
        parts = list(
            Participation.objects.filter(match__in=chosen).select_related("bot").order_by("id")
        )
        before = dict(LiveRating.objects.filter(league=league).values_list("bot__name", "rating"))
        for m in chosen:
            seats = [p for p in parts if p.match_id == m.pk]
            record_incident(IncidentKind.MATCH_RERUN, by, _summary(m, seats, reason), match_id=m.pk)
        games = _analytics_games(league, chosen, parts)  # read before the replays go
        MatchReplay.objects.filter(match__in=chosen).delete()
        RatedMatch.objects.filter(match__in=chosen).delete()
        Participation.objects.filter(pk__in=[p.pk for p in parts]).update(**_SEAT_RESET)
        now = timezone.now()
        Match.objects.filter(pk__in=[m.pk for m in chosen]).update(
            status=MatchStatus.QUEUED, rated=False, winner_team=None, end_reason="",
            turns=None, decisions=None, duration_ms=None, started_at=None, finished_at=None,
            lease_expires_at=None, worker_id="", not_before=None, enqueued_at=now,
            no_show_retries=0, attempt_base=F("attempts"), reruns=F("reruns") + 1,
            error=f"re-run by {by}: {reason}"[:4000],
        )  # fmt: skip
        report.fixed += len(recompute_ratings(league.pk, fix=True, expected=True).mismatches)
        report.fixed += len(recompute_standings(league.pk, fix=True, expected=True).mismatches)
        analytics.do_unrecord_matches(games)  # after the rating rows, as a result's writer
        for round_id, n in sorted(Counter(m.round_id for m in chosen).items()):
            Round.objects.filter(pk=round_id, status=RoundStatus.COMPLETE).update(
                status=RoundStatus.PLAYING, completed_at=None
            )
            add_pending_matches(round_id, n)
        for m in chosen:
            enqueue_match(m.pk)
        enqueue_fit(league.pk)
        after = dict(LiveRating.objects.filter(league=league).values_list("bot__name", "rating"))
        report.rerun = [m.pk for m in chosen]
        report.ratings = {
            name: (before[name], after[name])
            for name in sorted(before)
            if name in after and before[name] != after[name]
        }
    return report


def _units(league: League, matches: list[Match]) -> dict[int, list[Match]]:
    """Each match with the games that share its deal (itself alone unless mirrored), the
    partners locked too."""
    if league.deals != DealMode.MIRRORED:
        return {m.pk: [m] for m in matches}
    units: dict[int, list[Match]] = {}
    for m in matches:
        units[m.pk] = list(m.same_deal().select_for_update().order_by("id"))
    return units


def _analytics_games(
    league: League, chosen: list[Match], parts: list[Participation]
) -> list[analytics.Game]:
    """What the finished matches added to their bots' analytics rows (to take off)."""
    replays = dict(MatchReplay.objects.filter(match__in=chosen).values_list("match_id", "record"))
    games = []
    for m in chosen:
        if m.status != MatchStatus.FINISHED or m.winner_team is None or m.pk not in replays:
            continue
        try:
            record = from_json(replays[m.pk])
        except ReplayError:
            continue  # analytics never counted an unreadable replay either
        seats = [p for p in parts if p.match_id == m.pk]
        games.append(analytics.Game(league, seats, record, m.end_reason, m.winner_team))
    return games


def _summary(match: Match, seats: list[Participation], reason: str) -> str:
    """The result being voided, as the incident's detail (JSON)."""
    return json.dumps(
        {
            "reason": reason,
            "status": match.status,
            "attempts": match.attempts,
            "winner_team": match.winner_team,
            "end_reason": match.end_reason,
            "turns": match.turns,
            "rated": match.rated,
            "finished_at": match.finished_at.isoformat() if match.finished_at else None,
            "seats": [
                {
                    "seat": p.seat,
                    "bot": p.bot.name,
                    "won": p.won,
                    "rating_change": None if p.rating_change is None else str(p.rating_change),
                    "fault_cause": p.fault_cause,
                    "fault_detail": p.fault_detail[:500],
                }
                for p in seats
            ],
        },  # fmt: skip
        sort_keys=True,
    )


__all__ = ["RerunReport", "register_guard", "void_and_rerun"]
