"""The operator's fault report: the faults charged to bots, by cause and time, set against
the arena's own incidents (``manage.py league faults NAME``).

Incidents (``arena.models.Incident``) are written where the arena sees itself fail:

* a gateway that begins to shut down (``arena.adapters.gateway.server.Gateway.shutdown``);
* an attempt voided by an infrastructure fault (``arena.services.claims.do_void_attempt``):
  the relay or Redis failing, a gateway or bot host lost, the database. A Redis outage
  shows as a burst of these.

A charged fault whose match ran within ``window`` seconds of an incident is *suspect*: it
may be the arena's doing charged to a bot (what ``no_show`` was when a match started
during a gateway's drain). The report lists the suspects first; ``league rerun NAME
--suspects`` (``arena.services.rerun``) voids them, recomputes the ratings and plays them
again. An operator's re-run is an incident too (``MATCH_RERUN``), but not one a fault is
set against.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from arena.models import Incident, IncidentKind, League, MatchStatus, Participation

logger = logging.getLogger(__name__)


def record_incident(
    kind: IncidentKind, source: str = "", detail: str = "", match_id: int | None = None
) -> None:
    """Write one incident; never raises (an incident that cannot be written is logged)."""
    try:
        Incident.objects.create(
            kind=kind, at=timezone.now(), source=source[:128], detail=detail[:2000],
            match_id=match_id,
        )  # fmt: skip
    except Exception:  # noqa: BLE001 - the record must not break what it records
        logger.warning("could not record incident %s (%s)", kind, detail[:200], exc_info=True)


@dataclass(frozen=True)
class ChargedFault:
    match_id: int
    at: datetime
    bot: str
    cause: str
    detail: str
    rating_change: float | None
    #: the incidents near it (kind, time, source), nearest first
    near: tuple[tuple[str, datetime, str], ...] = ()

    @property
    def suspect(self) -> bool:
        return bool(self.near)


@dataclass
class FaultReport:
    league: str
    since: datetime | None
    window_s: float
    faults: list[ChargedFault] = field(default_factory=list)
    incidents: Counter[str] = field(default_factory=Counter)

    @property
    def by_cause(self) -> Counter[str]:
        return Counter(f.cause for f in self.faults)

    @property
    def suspects(self) -> list[ChargedFault]:
        return [f for f in self.faults if f.suspect]

    def to_json(self) -> dict[str, object]:
        return {
            "league": self.league,
            "since": self.since.isoformat() if self.since else None,
            "window_s": self.window_s,
            "by_cause": dict(self.by_cause),
            "incidents": dict(self.incidents),
            "faults": [
                {
                    "match": f.match_id, "at": f.at.isoformat(), "bot": f.bot, "cause": f.cause,
                    "detail": f.detail, "rating_change": f.rating_change, "suspect": f.suspect,
                    "near": [[k, t.isoformat(), s] for k, t, s in f.near],
                }
                for f in self.faults
            ],
        }  # fmt: skip


def fault_report(
    league: League, *, since: datetime | None = None, window_s: float | None = None
) -> FaultReport:
    """The charged faults of the league's finished matches (since ``since``), each with the
    incidents within ``window_s`` seconds of its match (default: the league's reconnect
    grace plus its connect grace plus 10 s)."""
    if window_s is None:
        window_s = (league.reconnect_grace_ms + league.connect_grace_ms) / 1000 + 10
    window = timedelta(seconds=window_s)
    parts = Participation.objects.filter(league=league, match__status=MatchStatus.FINISHED).exclude(
        fault_cause=""
    )
    if since is not None:
        parts = parts.filter(match__finished_at__gte=since)
    rows = list(
        parts.select_related("bot", "match").order_by("match__started_at", "match_id", "seat")
    )
    report = FaultReport(league.name, since, window_s)
    if not rows:
        return report
    starts = [r.match.started_at or r.match.created_at for r in rows]
    ends = [r.match.finished_at or s for r, s in zip(rows, starts, strict=True)]
    incidents = list(
        Incident.objects.filter(at__gte=min(starts) - window, at__lte=max(ends) + window)
        .filter(Q(match__isnull=True) | Q(match__league=league))
        .exclude(kind=IncidentKind.MATCH_RERUN)
        .values_list("kind", "at", "source")
    )
    report.incidents = Counter(k for k, _, _ in incidents)
    for row, start, end in zip(rows, starts, ends, strict=True):
        near = sorted(
            ((k, t, s) for k, t, s in incidents if start - window <= t <= end + window),
            key=lambda i: abs((i[1] - start).total_seconds()),
        )
        report.faults.append(
            ChargedFault(
                row.match_id, start, row.bot.name, row.fault_cause, row.fault_detail,
                None if row.rating_change is None else float(row.rating_change), tuple(near[:5]),
            )
        )  # fmt: skip
    return report


def print_report(report: FaultReport, write: Callable[[str], object]) -> None:
    """The report as text, for ``league faults``."""
    scope = f" since {report.since:%Y-%m-%d %H:%M}" if report.since else ""
    write(f"faults charged in {report.league}{scope}: {len(report.faults)}")
    for cause, n in report.by_cause.most_common():
        write(f"  {cause:<20} {n}")
    incidents = ", ".join(f"{k} {n}" for k, n in report.incidents.items()) or "none"
    write(f"arena incidents around them: {incidents}")
    suspects = report.suspects
    write(
        f"suspect (within {report.window_s:g} s of an incident): {len(suspects)}"
        + (f", matches {matches_of(report)}" if suspects else "")
    )
    for f in sorted(report.faults, key=lambda f: (not f.suspect, f.at)):
        change = "" if f.rating_change is None else f" {f.rating_change:+.1f} Elo"
        mark = "SUSPECT " if f.suspect else ""
        write(f"  {mark}{f.at:%Y-%m-%d %H:%M:%S} match {f.match_id} {f.bot}: {f.cause}{change}")
        if f.detail:
            write(f"      {f.detail[:200]}")
        for kind, at, source in f.near[:3]:
            write(f"      near {kind} at {at:%H:%M:%S} ({source or 'unknown'})")


def matches_of(report: FaultReport) -> list[int]:
    """The suspects' matches, for an operator who decides to act on them."""
    return sorted({f.match_id for f in report.suspects})


__all__ = [
    "ChargedFault", "FaultReport", "fault_report", "matches_of", "print_report", "record_incident",
]  # fmt: skip
