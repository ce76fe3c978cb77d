"""Match-table rows, cached one by one (``leaderboard.fragments``) under what they show:
the match's id, status, finished time and whether its result is withheld (a finished
match's row never changes after that), so after a result only the rows whose match
started or ended (or was released from a pair's embargo) render.

``round_rows`` is the standings page's table of the shown round (at most
``ROUND_MATCHES`` of its matches: the match list has all of them): one statement reads
their keys and seats (with the embargo as an ``EXISTS``), and only the matches whose row
is not cached are rendered.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from django.db import connection
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from arena.models import Bot, League, Match, MatchEndReason, MatchStatus, Participation, Round
from leaderboard.fragments import rows_by_key
from leaderboard.replays import EMBARGO_PARAMS, WITHHELD_SQL

TEMPLATE = "leaderboard/_match_row.html"


def row_key(
    pk: int, status: str, withheld: bool, show_league: bool, done: datetime | str | None
) -> str:
    """What a match row shows (``done``: its finished time, as a datetime or as text)."""
    return f"{pk}:{status}:{withheld}:{show_league}:{done}"


def _render(matches: Iterable[Match | RowMatch], show_league: bool) -> dict[int, str]:
    context = {"show_league": show_league}
    return {m.pk: render_to_string(TEMPLATE, {**context, "m": m}) for m in matches}


def match_rows(matches: Iterable[Match], show_league: bool) -> list[tuple[Match, SafeString]]:
    """The rows of matches already loaded (with their seats; ``m.withheld`` set by
    ``replays.withhold``)."""
    rows = {m.pk: m for m in matches}
    keyed = [
        (m.pk, row_key(m.pk, m.status, getattr(m, "withheld", False), show_league,
                       m.finished_at))
        for m in rows.values()
    ]  # fmt: skip
    found = rows_by_key(TEMPLATE, keyed, lambda ids: _render((rows[i] for i in ids), show_league))
    return [(rows[pk], html) for pk, html in found]


@dataclass(frozen=True)
class _Named:
    name: str


@dataclass(frozen=True)
class _Seat:
    team: int
    won: bool | None
    bot: _Named
    fault_cause: str


@dataclass(frozen=True)
class _Seats:
    seats: list[_Seat]

    def all(self) -> list[_Seat]:
        return self.seats


@dataclass(frozen=True)
class _Number:
    number: int


@dataclass(frozen=True)
class RowMatch:
    """What ``_match_row.html`` reads of a match in a league's table (no league column),
    read without the ORM: its seats are ``participations.all()`` as on a model."""

    pk: int
    status: str
    winner_team: int | None
    end_reason: str
    finished_at: datetime | None
    round: _Number
    participations: _Seats

    def get_end_reason_display(self) -> str:
        return str(MatchEndReason(self.end_reason).label) if self.end_reason else ""


#: the standings page shows at most this many matches of a round (a round robin of 50 bots
#: has 2,450): those being played, then the latest to end, then the next to start
ROUND_MATCHES = 50


def _round_matches(round_id: int, limit: int) -> dict[int, list[tuple[Any, ...]]]:
    """``limit`` of the round's matches (see ``ROUND_MATCHES``) with their seats and
    whether each is withheld, in one statement: each match's rows (one per seat), by id.
    The matches are picked on the index (round, ...) and sorted by the database: a
    round's size costs the page a sort, not a row each."""
    t = {m.__name__: m._meta.db_table for m in (Match, Round, Participation, Bot)}
    # finished_at as text: it keys every row, but only a row rendered shows it (and the
    # driver's timestamp parsing, in Python, costs more per row than the statement)
    sql = (
        "SELECT m.id, m.status, CAST(m.finished_at AS TEXT), "
        f" {WITHHELD_SQL}, m.winner_team, m.end_reason, r.number, p.team, p.won, b.name,"
        " p.fault_cause"
        f" FROM {t['Match']} m JOIN {t['Round']} r ON r.id = m.round_id"
        f" LEFT JOIN {t['Participation']} p ON p.match_id = m.id"
        f" LEFT JOIN {t['Bot']} b ON b.id = p.bot_id"
        f" WHERE m.id IN (SELECT x.id FROM {t['Match']} x WHERE x.round_id = %s"
        "   ORDER BY CASE WHEN x.status = %s THEN 0 WHEN x.finished_at IS NULL THEN 2 ELSE 1 END,"
        "   x.finished_at DESC, x.id LIMIT %s)"
        " ORDER BY m.id, p.seat"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*EMBARGO_PARAMS, round_id, MatchStatus.RUNNING, limit])
        found = cursor.fetchall()
    out: dict[int, list[tuple[Any, ...]]] = {}
    for row in found:
        out.setdefault(row[0], []).append(row)
    return out


def _when(text: str) -> datetime:
    """A timestamp read as text: PostgreSQL's carries its offset, SQLite's (Django stores
    UTC there, without one) does not."""
    when = datetime.fromisoformat(text)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _row_match(rows: list[tuple[Any, ...]]) -> RowMatch:
    """A match of ``_round_matches``, withheld or not: a withheld match's result is
    blanked as ``replays.withhold`` does (no winner, no seat's outcome or fault)."""
    pk, status, done, hidden, winner, reason, number = rows[0][:7]
    seats = [
        _Seat(team, None if hidden else won, _Named(name), "" if hidden else fault)
        for *_, team, won, name, fault in rows
        if team is not None
    ]
    finished = _when(done) if done else None
    return RowMatch(
        pk, status, None if hidden else winner, "" if hidden else reason, finished,
        _Number(number), _Seats(seats),
    )  # fmt: skip


def round_rows(round_id: int, limit: int = ROUND_MATCHES) -> list[tuple[int, SafeString]]:
    """The rows of ``limit`` of a round's matches (``ROUND_MATCHES``), by id: one
    statement, one ``get_many``, and only the rows not cached rendered."""
    matches = _round_matches(round_id, limit)
    keyed = [
        (pk, row_key(pk, rows[0][1], bool(rows[0][3]), False, rows[0][2]))
        for pk, rows in matches.items()
    ]
    return rows_by_key(
        TEMPLATE, keyed, lambda ids: _render((_row_match(matches[i]) for i in ids), False)
    )


RECENT_TEMPLATE = "leaderboard/_recent_row.html"


@dataclass(frozen=True)
class _League:
    slug: str
    name: str


@dataclass(frozen=True)
class _RecentMatch:
    pk: int
    status: str
    finished_at: datetime | None
    league: _League


@dataclass(frozen=True)
class _RecentSeat:
    """What ``_recent_row.html`` reads of the bot's seat (``row.p``), read without the
    ORM; a withheld match's seat blanked as ``replays.withhold_seats`` blanks it."""

    team: int
    won: bool | None
    rating_change: Decimal | None
    latency_p50_ms: float | None
    fault_cause: str
    match: _RecentMatch


@dataclass(frozen=True)
class _Other:
    team: int
    bot: _Named


def _recent_seats(ids: list[int]) -> dict[int, dict[str, Any]]:
    """These participations as their recent rows show them, with the other seats of each
    match (its opponents and team-mates, by seat), in one statement: ``{id: row}``."""
    t = {m.__name__: m._meta.db_table for m in (Match, Participation, Bot, League)}
    marks = ", ".join(["%s"] * len(ids))
    sql = (
        "SELECT p.id, p.team, p.won, p.rating_change, p.latency_p50_ms, p.fault_cause,"
        f" m.id, m.status, CAST(m.finished_at AS TEXT), {WITHHELD_SQL}, l.slug, l.name,"
        " o.team, ob.name"
        f" FROM {t['Participation']} p JOIN {t['Match']} m ON m.id = p.match_id"
        f" JOIN {t['League']} l ON l.id = m.league_id"
        f" LEFT JOIN {t['Participation']} o ON o.match_id = p.match_id AND o.seat <> p.seat"
        f" LEFT JOIN {t['Bot']} ob ON ob.id = o.bot_id"
        f" WHERE p.id IN ({marks}) ORDER BY p.id, o.seat"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*EMBARGO_PARAMS, *ids])
        found = cursor.fetchall()
    out: dict[int, dict[str, Any]] = {}
    for pk, team, won, change, p50, fault, m_pk, status, done, hidden, slug, name, *other in found:
        if pk not in out:
            if change is not None and not isinstance(change, Decimal):
                change = Decimal(str(change))  # SQLite answers a float
            match = _RecentMatch(m_pk, status, _when(done) if done else None, _League(slug, name))
            seat = (
                _RecentSeat(team, None, None, None, "", match)
                if hidden
                else _RecentSeat(team, won, change, p50, fault, match)
            )
            out[pk] = {"p": seat, "opponents": []}
        if other[0] is not None:
            out[pk]["opponents"].append(_Other(other[0], _Named(other[1])))
    return out


def recent_rows(bot_id: int, limit: int) -> list[tuple[int, SafeString]]:
    """A bot page's latest matches (its seat in each, by participation id), cached by what
    a row shows: one statement for the keys (index ``participation_bot_recent``), one
    ``get_many``, and one statement more for the rows not cached (``_recent_seats``)."""
    t = {m.__name__: m._meta.db_table for m in (Match, Participation)}
    sql = (
        f"SELECT p.id, m.status, m.finished_at, {WITHHELD_SQL}"
        f" FROM {t['Participation']} p JOIN {t['Match']} m ON m.id = p.match_id"
        " WHERE p.bot_id = %s ORDER BY p.match_id DESC LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*EMBARGO_PARAMS, bot_id, limit])
        keys = cursor.fetchall()

    def render(ids: list[int]) -> dict[int, str]:
        return {
            pk: render_to_string(RECENT_TEMPLATE, {"row": row})
            for pk, row in _recent_seats(ids).items()
        }

    keyed = [(pk, f"{pk}:{status}:{bool(wh)}:{done}") for pk, status, done, wh in keys]
    return rows_by_key(RECENT_TEMPLATE, keyed, render)
