"""The public pages. Each view reads through ``leaderboard.reads`` / ``leaderboard.replays``
and renders; errors become error pages with a message (never a 500)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from arena import public_facts
from arena.models import Bot, BotKind, League, Match, MatchStatus
from arena.services import gamedb, owned_bots
from leaderboard import league_marks, replays
from leaderboard import sections as page_sections
from leaderboard.embedding import snippet as embed_snippet
from leaderboard.reads import bots as bot_reads
from leaderboard.reads import h2h as h2h_reads
from leaderboard.reads import index as index_reads
from leaderboard.reads import leagues as league_reads
from leaderboard.reads import matches as match_reads
from leaderboard.reads import owner as owner_reads
from leaderboard.reads import seasons as season_reads
from leaderboard.rules_page import rules_page


def error_page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(
        request,
        "leaderboard/error.html",
        {"title": title, "message": message, "status": status},
        status=status,
    )


def not_found(request: HttpRequest, message: str) -> HttpResponse:
    return error_page(request, 404, "Not found", message)


def page_league_or_error(request: HttpRequest, slug: str) -> League | HttpResponse:
    """The league whose page this is, or the 404 that says why not: no such league, or a
    challenge league, which has no page (``leaderboard.league_marks``). Every page under
    ``/leagues/<slug>/`` asks it first."""
    why = league_marks.no_page(slug)
    if why is not None:
        return not_found(request, why)
    found = League.objects.with_pages().filter(slug=slug).first()
    if found is None:
        return not_found(request, f"There is no league {slug!r}.")
    return found


def owned_bot_or_error(request: HttpRequest, name: str) -> Bot | HttpResponse:
    """The signed-in user's bot of this name, or the page that says why not (404 for no
    such bot, 403 for another's): the owner's pages' first step."""
    try:
        return owned_bots.owned_bot(request.user, name)
    except owned_bots.NotFound as exc:
        return not_found(request, str(exc))
    except owned_bots.NotOwner as exc:
        return error_page(request, 403, "Not yours", str(exc))


def _live_matches(limit: int = 10) -> list[Match]:
    return list(
        Match.objects.filter(status=MatchStatus.RUNNING)
        .select_related("league", "round")
        .prefetch_related(match_reads.seats_prefetch())
        .order_by("-started_at")[:limit]
    )


def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "leaderboard/home.html",
        {
            "summaries": league_reads.league_summaries(),
            "live": _live_matches(),
            "embedded": settings.ARENA_EMBEDDED,
            "gateway_address": public_facts.gateway_address(),
        },
    )


def rules(request: HttpRequest) -> HttpResponse:
    page = rules_page()
    context = {"rules": page.html, "sections": page.sections}
    return render(request, "leaderboard/rules.html", context)


def league(request: HttpRequest, slug: str) -> HttpResponse:
    sort = request.GET.get("sort") or None
    try:
        league_reads.parse_sort(sort)
    except league_reads.BadSort as exc:
        return error_page(request, 400, "Bad request", str(exc))
    why = league_marks.no_page(slug)
    if why is not None:
        return not_found(request, why)
    # The sections are cached under the versions of what they show (one statement): their
    # rows are read only when a version moved on, from the rows each result keeps.
    found = league_reads.league_with_version(slug)
    if found is None:
        return not_found(request, f"There is no league {slug!r}.")
    obj, versions = found
    round_param = request.GET.get("round") or ""
    chosen = None
    if round_param:
        if not round_param.isdigit() or len(round_param) > 9:
            return error_page(request, 400, "Bad request", "round must be a round number")
        chosen = obj.rounds.filter(number=int(round_param)).first()
        if chosen is None:
            return not_found(request, f"League {obj.name} has no round {round_param}.")
    sections = page_sections.league_sections(obj, versions, sort, chosen)
    next_round, schedule_note = league_reads.next_round_at(obj)
    return render(
        request,
        "leaderboard/league.html",
        {
            "league": obj,
            "standings_section": sections["standings"],
            "crosstable_section": sections["crosstable"],
            "rounds_section": sections["rounds"],
            "next_round": next_round,
            "schedule_note": schedule_note,
            "archives": gamedb.archives(obj),
            "season_panel": season_reads.league_panel(obj, versions.standings),
        },
    )


def bot(request: HttpRequest, name: str) -> HttpResponse:
    found = bot_reads.bot_with_version(name)
    if found is None:
        return not_found(request, f"There is no bot named {name!r}.")
    obj, versions = found
    league_slug = request.GET.get("league") or None
    # a NUL, say, is no text PostgreSQL takes: the query would fail, the page answer 500
    if league_slug and not match_reads.SLUG.fullmatch(league_slug):
        return error_page(request, 400, "Bad request", "league must be a league's slug")
    if league_slug and not obj.live_ratings.filter(league__slug=league_slug[:80]).exists():
        return not_found(request, f"{obj.name} has not played in a league {league_slug!r}.")

    return render(
        request,
        "leaderboard/bot.html",
        {
            "bot": obj,
            # cached whole under the page's version
            "body": page_sections.bot_body(obj, versions, league_slug),
            "connected": None
            if obj.kind == BotKind.HOUSE
            else bot_reads.connected_now([obj.pk])[obj.pk],
            "is_owner": request.user.is_authenticated and obj.owner_id == request.user.pk,
            # read only for a bot with a season's row (the version's statement says)
            "past_seasons": season_reads.bot_seasons(obj) if versions.seasons else [],
        },
    )


def matches(request: HttpRequest) -> HttpResponse:
    try:
        f = match_reads.parse_filter(request.GET)
        page = match_reads.match_page(f)
    except match_reads.BadFilter as exc:
        return error_page(request, 400, "Bad request", str(exc))
    next_url = None
    if page.next_before is not None:
        from urllib.parse import urlencode

        next_url = (
            reverse("leaderboard:matches")
            + "?"
            + urlencode({**f.query(), "before": page.next_before})
        )
    return render(
        request,
        "leaderboard/matches.html",
        {
            "page": page,
            "filter": f,
            "next_url": next_url,
            "statuses": MatchStatus.values,
            "leagues": League.objects.listed().order_by("name").values_list("slug", "name"),
        },
    )


def match(request: HttpRequest, pk: int) -> HttpResponse:
    obj = match_reads.match_detail(pk)
    if obj is None:
        return not_found(request, f"There is no match {pk}.")
    state = replays.replay_state(obj)
    partner = replays.pair_partner_playing(obj) if state == "withheld" else None
    dropped, resumes = match_reads.runner_notes(obj.pk)
    if partner is not None:
        replays.withhold([obj])
    seats = list(obj.participations.all())
    teams = [[p for p in seats if p.team == t] for t in (0, 1)]
    ending = None
    if state == "available":
        # whose condition won, in words (the viewer's last frame; its frames are cached)
        try:
            ending = replays.viewer_json(obj, "spectator")["frames"][-1].get("ending")
        except replays.ReplayUnavailable:
            ending = None
    return render(
        request,
        "leaderboard/match.html",
        {
            "match": obj,
            "league_mark": league_marks.mark_of(obj.league.slug),
            "seats": seats,
            "teams": teams,
            "replay_state": state,
            "partner": partner,
            "frames_url": reverse("api:match-frames", args=[obj.pk]),
            "replay_url": reverse("api:match-replay", args=[obj.pk]),
            "live": state == "live",
            "dropped": dropped,
            "resumes": resumes,
            "embed_snippet": embed_snippet(request, obj.pk),
            "oembed_url": request.build_absolute_uri(reverse("leaderboard:oembed"))
            + "?"
            + urlencode({"url": request.build_absolute_uri(), "format": "json"}),
            "owner_faults": owner_reads.owner_faults(obj, seats, request.user)
            if state == "available"
            else [],
            "ending": ending,
        },
    )


def bots(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q") or ""
    raw_page = request.GET.get("page") or "1"
    if not raw_page.isdigit() or not 1 <= int(raw_page) <= 10**6:
        return error_page(request, 400, "Bad request", "page must be a page number")
    index = index_reads.bot_index(query, int(raw_page))
    return render(request, "leaderboard/bots.html", {"index": index})


def leagues(request: HttpRequest) -> HttpResponse:
    return render(
        request, "leaderboard/leagues.html", {"summaries": league_reads.league_summaries()}
    )


def head_to_head(request: HttpRequest, slug: str, name: str, opponent: str) -> HttpResponse:
    found = page_league_or_error(request, slug)
    if isinstance(found, HttpResponse):
        return found
    bots = {b.name: b for b in Bot.objects.filter(name__in=[name, opponent])}
    for n in (name, opponent):
        if n not in bots:
            return not_found(request, f"There is no bot named {n!r}.")
    if name == opponent:
        return error_page(request, 400, "Bad request", "A bot does not play itself.")
    record = h2h_reads.head_to_head(found, bots[name], bots[opponent])
    return render(request, "leaderboard/h2h.html", {"h2h": record})
