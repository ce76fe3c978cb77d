"""What the arena itself went through (gateway drains, infrastructure voids), for the
operator's fault report."""

from __future__ import annotations

from django.db import models

from arena.models.matches import Match


class IncidentKind(models.TextChoices):
    #: a gateway began to shut down (SIGTERM): its bots' streams end by the arena's doing
    GATEWAY_DRAIN = "gateway_drain", "gateway draining"
    #: an attempt of a match was voided by an infrastructure fault (relay, database, a
    #: gateway or bot host lost): Redis down shows as many of these at once
    ATTEMPT_VOID = "attempt_void", "attempt voided"
    #: an operator voided a finished match's result and queued it again (``league rerun``);
    #: the detail holds the result that was voided
    MATCH_RERUN = "match_rerun", "match voided and re-run"


class Incident(models.Model):
    """Something the arena went through that is nobody's bot's fault: what the operator's
    fault report (``league faults``, ``arena.services.faultreport``) sets the charged
    faults against."""

    kind = models.CharField(max_length=32, choices=IncidentKind.choices)
    at = models.DateTimeField(db_index=True)
    #: who saw it: a gateway's id, a worker's id
    source = models.CharField(max_length=128, blank=True)
    match = models.ForeignKey(
        Match, null=True, blank=True, on_delete=models.SET_NULL, related_name="incidents"
    )
    detail = models.TextField(blank=True)

    class Meta:
        ordering = ["at"]

    def __str__(self) -> str:
        return f"{self.kind} at {self.at:%Y-%m-%d %H:%M:%S} ({self.source})"
