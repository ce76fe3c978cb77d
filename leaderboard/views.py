"""The public pages. Each view reads through ``leaderboard.reads`` / ``leaderboard.replays``
and renders; errors become error pages with a message (never a 500)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import SafeString, mark_safe

from arena import public_facts
from arena.models import Bot, BotKind, League, Match, MatchStatus, Round
from leaderboard import fragments, match_rows, replays
from leaderboard.reads import analytics as analytics_reads
from leaderboard.reads import bots as bot_reads
from leaderboard.reads import h2h as h2h_reads
from leaderboard.reads import index as index_reads
from leaderboard.reads import leagues as league_reads
from leaderboard.reads import matches as match_reads


def error_page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(
        request, "leaderboard/error.html",
        {"title": title, "message": message, "status": status}, status=status,
    )


def not_found(request: HttpRequest, message: str) -> HttpResponse:
    return error_page(request, 404, "Not found", message)


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


COLUMNS = [
    ("rank", "#"), ("bot", "Bot"), ("owner", "Owner"), ("rating", "Live Elo"),
    ("batch", "Batch Elo (95%)"), ("rank_range", "Rank (95%)"), ("games", "Games"),
    ("wins", "W"), ("losses", "L"), ("forfeits", "Forfeits"),
]  # fmt: skip


def _sort_columns(key: str, descending: bool, current: str | None) -> list[dict[str, str]]:
    """Header links: a column's first click sorts it the natural way (numbers high-first,
    names A-Z, the ranking best-first); clicking the sorted column reverses it."""
    out = []
    for col, label in COLUMNS:
        sort_col = "batch" if col == "rank_range" else col
        first = f"-{sort_col}" if sort_col in league_reads.HIGH_FIRST else sort_col
        href, state = f"?sort={first}", ""
        if sort_col == key and col != "rank_range":
            state = "descending" if descending else "ascending"
            href = f"?sort={sort_col}" if descending else f"?sort=-{sort_col}"
        out.append({"key": col, "label": label, "href": href, "state": state})
    return out


def _standing_rows(obj: League, standings: league_reads.Standings, grouped: bool) -> SafeString:
    """The standings table's body: each row cached by what it shows, joined here (a
    template loop over 50 rows costs more than the rows' one ``get_many``), with the
    provisional bots' heading in the default order."""
    provisional = league_reads.PROVISIONAL_GAMES
    rows = fragments.cached_rows(
        standings.rows,
        lambda r: f"{obj.slug}:{provisional}:{r.fragment}",
        "leaderboard/_standing_row.html",
        {"league": obj, "provisional_games": provisional},
    )
    if not rows:
        return mark_safe(
            '<tr><td colspan="10" class="muted">No bot is rated in this league yet.</td></tr>'
        )
    parts: list[str] = []
    heading = False
    for r, html in rows:
        if grouped and r.provisional and not heading:
            heading = True
            parts.append(
                f'<tr class="group"><th colspan="10">Provisional: fewer than {provisional}'
                " games, not ranked yet</th></tr>"
            )
        parts.append(html)
    return mark_safe("\n".join(parts))  # noqa: S308 - our templates' own output


def _round_table(rounds: Any, shown: Round | None) -> SafeString:
    """The rounds table's body, each row cached by what it shows."""
    items = [_RoundRow(r, shown is not None and r.round.pk == shown.pk) for r in rounds]
    rows = fragments.cached_rows(
        items,
        lambda row: (
            f"{row.r.version}:{row.r.finished}:{row.r.round.number}"
            f":{row.r.round.created_at}:{row.r.round.completed_at}:{row.selected}"
        ),
        "leaderboard/_round_row.html",
        {},
        name="row",
    )
    return mark_safe("\n".join(html for _, html in rows))  # noqa: S308 - our rows


@dataclass(frozen=True)
class _RoundRow:
    r: league_reads.RoundSummary
    selected: bool


def league(request: HttpRequest, slug: str) -> HttpResponse:
    sort = request.GET.get("sort") or None
    try:
        key, descending = league_reads.parse_sort(sort)
    except league_reads.BadSort as exc:
        return error_page(request, 400, "Bad request", str(exc))
    # The standings and crosstable are cached fragments keyed by this version: their rows
    # are read only when the version moved on.
    found = league_reads.league_with_version(slug)
    if found is None:
        return not_found(request, f"There is no league {slug!r}.")
    obj, versions = found
    version = versions.standings
    standings = cast(
        league_reads.Standings,
        SimpleLazyObject(lambda: league_reads.league_standings(obj, sort, version)),
    )
    round_param = request.GET.get("round") or ""
    chosen = None
    if round_param:
        if not round_param.isdigit() or len(round_param) > 9:
            return error_page(request, 400, "Bad request", "round must be a round number")
        chosen = obj.rounds.filter(number=int(round_param)).first()
        if chosen is None:
            return not_found(request, f"League {obj.name} has no round {round_param}.")
    # read only when the rounds fragment is stale
    rounds = SimpleLazyObject(lambda: league_reads.recent_rounds(obj))

    def shown_round() -> Round | None:
        return chosen or (rounds[0].round if rounds else None)

    def round_matches() -> SafeString:
        """The shown round's table body, its rows joined here (not in a template loop)."""
        shown = shown_round()
        rows = [] if shown is None else match_rows.round_rows(shown.pk)
        if not rows:
            return mark_safe('<tr><td colspan="8" class="muted">No matches.</td></tr>')
        return mark_safe("\n".join(html for _, html in rows))  # noqa: S308 - our rows

    grouped = key == "rank" and not descending

    def standings_html() -> str:
        return render_to_string(
            "leaderboard/_league_standings.html",
            {
                "standings": standings,
                "columns": _sort_columns(key, descending, sort),
                "provisional_games": league_reads.PROVISIONAL_GAMES,
                # rows cached one by one
                "standing_rows": _standing_rows(obj, standings, grouped),
            },
        )

    def crosstable_html() -> str:
        table = league_reads.league_crosstable(obj, standings, versions.crosstable)
        return render_to_string(
            "leaderboard/_league_crosstable.html", {"league": obj, "crosstable": table}
        )

    def rounds_html() -> str:
        shown = shown_round()
        return render_to_string(
            "leaderboard/_league_rounds.html",
            {
                "rounds": rounds,
                "shown_round": shown,
                # both tables' rows cached one by one (a result changes its round's
                # counts and its match's row only)
                "round_table": _round_table(rounds, shown) if rounds else "",
                "round_matches": round_matches() if shown is not None else "",
            },
        )

    # Each section is cached whole under what it shows (one get_many for the three) and
    # rendered on its own only when stale; the page template joins three strings.
    sections = fragments.cached_sections(
        {
            "standings": (f"{obj.pk}:{version}:{key}:{descending}", standings_html),
            "crosstable": (f"{obj.pk}:{versions.crosstable}", crosstable_html),
            "rounds": (f"{obj.pk}:{versions.rounds}:{round_param}", rounds_html),
        }
    )
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

    profile = cast(
        bot_reads.BotProfile, SimpleLazyObject(lambda: bot_reads.bot_profile(obj, league_slug))
    )

    return render(
        request,
        "leaderboard/bot.html",
        {
            "bot": obj,
            # the body is a cached fragment keyed by the version: these are read only when
            # it is stale
            "version": versions.page,
            "versions": versions,
            "league_slug": league_slug or "",
            "profile": profile,
            # rows cached one by one (a result changes one opponent's record)
            "opponent_rows": SimpleLazyObject(
                lambda: fragments.joined(
                    fragments.cached_rows(
                        profile.stats.opponents if profile.stats else [],
                        lambda o: f"{o.bot}:{o.games}:{o.wins}",
                        "leaderboard/_opponent_row.html",
                        {},
                        name="o",
                    ),
                    '<tr><td colspan="5" class="muted">No finished game yet.</td></tr>',
                )
            ),
            # rows cached one by one
            "recent": SimpleLazyObject(
                lambda: fragments.joined(
                    match_rows.recent_rows(obj.pk, bot_reads.RECENT_MATCHES),
                    '<tr><td colspan="8" class="muted">No matches yet.</td></tr>',
                )
            ),
            "connected": None
            if obj.kind == BotKind.HOUSE
            else bot_reads.connected_now([obj.pk])[obj.pk],
            "is_owner": request.user.is_authenticated and obj.owner_id == request.user.pk,
            # read only when the page's cached fragment is stale
            "analytics": SimpleLazyObject(
                lambda: analytics_reads.shown_bot_analytics(obj, profile.selected.league)
                if profile.selected
                else None
            ),
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
            "leagues": League.objects.order_by("name").values_list("slug", "name"),
        },
    )


def match(request: HttpRequest, pk: int) -> HttpResponse:
    obj = match_reads.match_detail(pk)
    if obj is None:
        return not_found(request, f"There is no match {pk}.")
    state = replays.replay_state(obj)
    partner = replays.pair_partner_playing(obj) if state == "withheld" else None
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
            "seats": seats,
            "teams": teams,
            "replay_state": state,
            "partner": partner,
            "frames_url": reverse("api:match-frames", args=[obj.pk]),
            "replay_url": reverse("api:match-replay", args=[obj.pk]),
            "live": state == "live",
            "dropped": match_reads.dropped_answers(obj.pk),
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
    found = League.objects.filter(slug=slug).first()
    if found is None:
        return not_found(request, f"There is no league {slug!r}.")
    bots = {b.name: b for b in Bot.objects.filter(name__in=[name, opponent])}
    for n in (name, opponent):
        if n not in bots:
            return not_found(request, f"There is no bot named {n!r}.")
    if name == opponent:
        return error_page(request, 400, "Bad request", "A bot does not play itself.")
    record = h2h_reads.head_to_head(found, bots[name], bots[opponent])
    return render(request, "leaderboard/h2h.html", {"h2h": record})
