"""The standings table's body written here, not by a template: the template cost ~1 ms a
row (a ``{% url %}``, filters and localisation per row), 50 ms for a league of 50 each
time a result moved the standings' version; this costs well under a millisecond for all
of them, so the rows are not cached one by one either (the section they are part of is
cached whole: ``leaderboard.sections``). Every value is escaped; the markup is what the
row template's was."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from arena.models import League
from leaderboard.crosstable_rows import path_part
from leaderboard.reads.ranking import StandingRow

_A = "botnamea"  # a stand-in reversed once, replaced by each name
_DASH = "—"
_UNRANKED = '<span class="muted" title="provisional: not ranked yet">—</span>'
_EMPTY = '<tr><td colspan="10" class="muted">No bot is rated in this league yet.</td></tr>'


_ONE = Decimal(1)


def _f0(value: Decimal | float) -> str:
    """``{{ value|floatformat:0 }}`` (half up, no separators, no "-0") at a tenth of the
    filter's cost, which looks the locale up on every call; the filter itself for what
    is not a finite number."""
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    if not d.is_finite():
        return str(floatformat(value, 0))
    return str(int(d.quantize(_ONE, ROUND_HALF_UP)))


def _row(r: StandingRow, link: str, slug: str, provisional: int) -> str:
    css = ("" if r.entered else "withdrawn") + (" provisional" if r.provisional else "")
    title = "" if r.entered else ' title="no longer entered"'
    href = escape(link.replace(_A, path_part(r.bot)))
    name = f'<a href="{href}?league={slug}">{escape(r.bot)}</a>'
    if r.provisional:
        name += (
            f' <span class="prov" title="provisional: {r.games} of {provisional} games">P</span>'
        )
    if r.kind == "house":
        name += ' <span class="tag">house</span>'
    b = r.batch
    if b is None:
        fit = ranks = _DASH
    else:
        fit = f'{_f0(b.elo)} <span class="interval">[{_f0(b.low)}, {_f0(b.high)}]</span>'
        ranks = str(r.rank_low) if r.rank_low == r.rank_high else f"{r.rank_low}–{r.rank_high}"
    cells = [
        f'<td class="num">{r.rank if r.rank else _UNRANKED}</td>',
        f"<td>{name}</td>",
        f"<td>{escape(r.owner) if r.owner else _DASH}</td>",
        f'<td class="num">{_f0(r.rating)}</td>',
        f'<td class="num">{fit}</td>',
        f'<td class="num">{ranks}</td>',
        *(f'<td class="num">{n}</td>' for n in (r.games, r.wins, r.losses, r.forfeits)),
    ]
    body = "".join(f"\n      {c}" for c in cells)
    return f'<tr class="{css}"{title}>{body}\n    </tr>\n'


def standing_rows(
    league: League, rows: list[StandingRow], provisional: int, grouped: bool
) -> SafeString:
    """The table's body: each row, with the provisional bots' heading before the first of
    them when ``grouped`` (the default order), or the empty table's line."""
    if not rows:
        return mark_safe(_EMPTY)
    link = reverse("leaderboard:bot", args=[_A])
    slug = escape(league.slug)
    parts: list[str] = []
    heading = False
    for r in rows:
        if grouped and r.provisional and not heading:
            heading = True
            parts.append(
                f'<tr class="group"><th colspan="10">Provisional: fewer than {provisional}'
                " games, not ranked yet</th></tr>"
            )
        parts.append(_row(r, link, slug, provisional))
    return mark_safe("\n".join(parts))  # noqa: S308 - every value escaped
