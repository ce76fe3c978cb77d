"""The events pages: ``/events/`` (every tournament) and ``/events/<slug>/`` (a knockout's
bracket, a Swiss or round robin's table, and every round's pairings with links to their
matches). A running event's page fills in by itself: ``leaderboard/static/leaderboard/
events.js`` asks ``?part=body`` every ``POLL_S`` seconds and puts the new body in place
(no inline script: the site's CSP)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from arena.events.models import Tournament, TournamentStatus
from leaderboard import event_reads
from leaderboard.views import not_found

#: how often a running event's page asks for its body again (seconds)
POLL_S = 10


def events(request: HttpRequest) -> HttpResponse:
    return render(request, "leaderboard/events.html", {"events": event_reads.summaries()})


def event(request: HttpRequest, slug: str) -> HttpResponse:
    t = Tournament.objects.select_related("league", "winner").filter(slug=slug).first()
    if t is None:
        return not_found(request, f"There is no tournament {slug!r}.")
    context = {
        "t": event_reads.detail(t),
        "live": t.status == TournamentStatus.RUNNING,
        "poll_s": POLL_S,
    }
    if request.GET.get("part") == "body":
        response = render(request, "leaderboard/_event_body.html", context)
    else:
        response = render(request, "leaderboard/event.html", context)
    response["Cache-Control"] = "no-store"
    return response
