"""The cached sections of the standings page and the body of a bot page, built when a
visitor's request finds them stale (``leaderboard.views``). Nothing builds them after a
result: what they show is read from rows the result's own transaction keeps (the shown
standings, the head-to-head records, the rounds' counts), so a cold build is cheap.

A section is cached whole under a key made of the versions of what it shows
(``league_with_version`` / ``bot_with_version``, read before anything the section shows:
a section is never older than its key), and built from rows that are themselves cached by
what they show (``leaderboard.fragments``), so after a result only the rows it changed
render.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from django.template.loader import render_to_string
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import SafeString, mark_safe

from arena.models import Bot, League, Match, Round
from leaderboard import fragments, match_rows
from leaderboard.crosstable_rows import crosstable_rows
from leaderboard.reads import analytics as analytics_reads
from leaderboard.reads import bots as bot_reads
from leaderboard.reads import leagues as league_reads
from leaderboard.standing_rows import standing_rows

COLUMNS = [
    ("rank", "#"), ("bot", "Bot"), ("owner", "Owner"), ("rating", "Live Elo"),
    ("batch", "Batch Elo (95%)"), ("rank_range", "Rank (95%)"), ("games", "Games"),
    ("wins", "W"), ("losses", "L"), ("forfeits", "Forfeits"),
]  # fmt: skip


def _sort_columns(key: str, descending: bool) -> list[dict[str, str]]:
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


@dataclass(frozen=True)
class _RoundRow:
    r: league_reads.RoundSummary
    selected: bool


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


def league_sections(
    obj: League,
    versions: league_reads.LeagueVersions,
    sort: str | None = None,
    chosen: Round | None = None,
) -> dict[str, SafeString]:
    """The standings page's three sections (standings, crosstable, rounds), each cached
    under the versions of what it shows and built only when stale. ``sort``: as the
    page's parameter (valid: the view checked it); ``chosen``: the round asked for (else
    the latest)."""
    key, descending = league_reads.parse_sort(sort)
    version = versions.standings
    standings = cast(
        league_reads.Standings,
        SimpleLazyObject(lambda: league_reads.league_standings(obj, sort, version)),
    )
    # read only when the rounds section is stale
    rounds = SimpleLazyObject(lambda: league_reads.recent_rounds(obj))

    def shown_round() -> Round | None:
        return chosen or (rounds[0].round if rounds else None)

    def round_matches() -> SafeString:
        """The shown round's table body, its rows joined here (not in a template loop)."""
        shown = shown_round()
        rows = [] if shown is None else match_rows.round_rows(shown.pk, match_rows.ROUND_MATCHES)
        if not rows:
            return mark_safe('<tr><td colspan="8" class="muted">No matches.</td></tr>')
        return mark_safe("\n".join(html for _, html in rows))  # noqa: S308 - our rows

    grouped = key == "rank" and not descending

    def standings_html() -> str:
        return render_to_string(
            "leaderboard/_league_standings.html",
            {
                "standings": standings,
                "columns": _sort_columns(key, descending),
                "provisional_games": league_reads.PROVISIONAL_GAMES,
                # written in Python (the section is cached whole)
                "standing_rows": standing_rows(
                    obj, standings.rows, league_reads.PROVISIONAL_GAMES, grouped
                ),
            },
        )

    def crosstable_html() -> str:
        """Built when the standings' version moved: cached again under what it shows (the
        top bots and their wins against each other), which most results do not change
        (a result of a bot outside the top ``CROSSTABLE_MAX``), so most such builds are
        one statement and one cache read."""
        found = league_reads.crosstable_wins(obj, standings)

        def build() -> str:
            table = league_reads.league_crosstable(found)
            context = {"crosstable": table, "crosstable_rows": crosstable_rows(obj, table)}
            return render_to_string(
                "leaderboard/_league_crosstable.html", {"league": obj, **context}
            )

        key = f"{obj.pk}:{found.key}"
        return fragments.cached_sections({"crosstable-shown": (key, build)})["crosstable-shown"]

    def shown_total(shown: Round | None) -> int:
        """How many matches the shown round has (a summary's count, else one count)."""
        if shown is None:
            return 0
        found = next((r.matches for r in rounds if r.round.pk == shown.pk), None)
        return found if found is not None else Match.objects.filter(round=shown).count()

    def rounds_html() -> str:
        shown = shown_round()
        return render_to_string(
            "leaderboard/_league_rounds.html",
            {
                "league": obj,
                "rounds": rounds,
                "shown_round": shown,
                "shown_limit": match_rows.ROUND_MATCHES,
                "shown_total": shown_total(shown),
                # both tables' rows cached one by one (a result changes its round's
                # counts and its match's row only)
                "round_table": _round_table(rounds, shown) if rounds else "",
                "round_matches": round_matches() if shown is not None else "",
            },
        )

    round_param = "" if chosen is None else str(chosen.number)
    built: dict[str, tuple[str, Callable[[], str]]] = {
        "standings": (f"{obj.pk}:{version}:{key}:{descending}", standings_html),
        "crosstable": (f"{obj.pk}:{versions.crosstable}", crosstable_html),
        "rounds": (f"{obj.pk}:{versions.rounds}:{round_param}", rounds_html),
    }
    # served as last built while one request rebuilds them (a result moves the version for
    # every visitor at once)
    latest = {
        "standings": f"{obj.pk}:{key}:{descending}",
        "rounds": f"{obj.pk}:{round_param}",
    }
    return fragments.cached_sections(built, latest)


def bot_body(
    obj: Bot,
    versions: bot_reads.BotVersions,
    league_slug: str | None = None,
) -> SafeString:
    """A bot page's body below its heading (ratings, the selected league's statistics
    and analytics, recent matches, reported versions), cached whole under the page's
    version and the league asked for (``league_slug``, checked by the view: a league the
    bot played in; None: where it played most). Its parts are cached by what each shows
    (``_bot_body.html``), so a body rebuilt after a result renders only the parts the
    result changed."""
    profile = cast(
        bot_reads.BotProfile, SimpleLazyObject(lambda: bot_reads.bot_profile(obj, league_slug))
    )

    def build() -> str:
        context = {
            "bot": obj,
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
            # read only when the analytics part is stale
            "analytics": SimpleLazyObject(
                lambda: (
                    analytics_reads.shown_bot_analytics(obj, profile.selected.league)
                    if profile.selected
                    else None
                )
            ),
        }
        return render_to_string("leaderboard/_bot_body.html", context)

    key = f"{obj.pk}:{versions.page}:{league_slug or ''}"
    # served as last built while one request rebuilds it (each result of the bot moves the
    # page's version for every visitor at once)
    latest = {"bot": f"{obj.pk}:{league_slug or ''}"}
    return fragments.cached_sections({"bot": (key, build)}, latest)["bot"]
