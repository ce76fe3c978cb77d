"""The crosstable's body (30 x 30 cells) written here, not by a template loop: the loop
cost ~1 s of a core per cold standings page (900 cells, each with a ``{% url %}``, filters
and localisation); this costs a few milliseconds. The markup is the template's was. Each
row is cached by what it shows (``fragments.rows_by_key``: the league, the row's bot, the
columns' bots in order and the row's records), so after a result only the rows of its
two bots are written again."""

from __future__ import annotations

from urllib.parse import quote

from django.urls import reverse
from django.utils.html import escape
from django.utils.http import RFC3986_SUBDELIMS
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator

from arena.models import League
from leaderboard.crosstable import Cell
from leaderboard.fragments import rows_by_key
from leaderboard.reads.leagues import Crosstable

_A, _B = "botnamea", "botnameb"  # stand-ins reversed once, replaced by each name


def path_part(name: str) -> str:
    """A bot's name as ``reverse`` puts it in a path."""
    return quote(name, safe=RFC3986_SUBDELIMS + "/~:@")


def _key(slug: str, me: str, columns: str, row: list[tuple[Cell | None, str]]) -> str:
    cells = ",".join("-" if c is None else f"{c.wins}/{c.games}" for c, _ in row)
    return f"{slug}:{me}:{columns}:{cells}"


def crosstable_rows(league: League, table: Crosstable) -> SafeString:
    names = [name for _, name in table.players]
    paths = {name: path_part(name) for name in names}
    bot_url = reverse("leaderboard:bot", args=[_A])
    h2h_url = reverse("leaderboard:h2h", args=[league.slug, _A, _B])
    lines = table.lines
    columns = "/".join(names)

    def render(wanted: list[int]) -> dict[int, str]:
        return {i: _row(lines[i][0][1], lines[i][1]) for i in wanted}

    def _row(me: str, row: list[tuple[Cell | None, str]]) -> str:
        me_html = escape(me)
        href = escape(bot_url.replace(_A, paths[me]))
        parts = [
            f'    <tr><th class="rowhead"><a href="{href}">'
            f"{escape(Truncator(me).chars(18))}</a></th>\n    "
        ]
        for cell, other in row:
            if cell is None:
                parts.append('<td class="self"></td>')
            elif cell.games:
                link = escape(h2h_url.replace(_A, paths[me]).replace(_B, paths[other]))
                parts.append(
                    f'<td class="{cell.shade}" title="{me_html} against {escape(other)}:'
                    f" {cell.wins} won, {cell.losses} lost of {cell.games},"
                    f' p={cell.p_value:.3f}"><a href="{link}">{cell.wins}–{cell.losses}'
                    f' <span class="n">({cell.games})</span></a></td>'
                )
            else:
                parts.append('<td class="none"></td>')
        parts.append("</tr>")
        return "".join(parts)

    keyed = [(i, _key(league.slug, me, columns, row)) for i, ((_, me), row) in enumerate(lines)]
    rows = rows_by_key("crosstable-row", keyed, render)
    return mark_safe("\n".join(html for _, html in rows))  # noqa: S308 - every value escaped
