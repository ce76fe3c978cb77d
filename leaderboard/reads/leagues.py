"""Leagues: the list, standings with uncertainty, the crosstable, rounds.

Why one file of this length: a league page's reads share their SQL and their cache keys."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Count, Q
from django.db.models.expressions import Col
from django.utils import timezone

from arena import public_facts
from arena.models import (
    Entry,
    League,
    LeagueStatus,
    Match,
    MatchStatus,
    Round,
    listed_q,
)
from arena.ratings.models import BatchRating, HeadToHead, LiveRating
from leaderboard.crosstable import Cell, crosstable_of_wins
from leaderboard.reads.ranking import StandingRow, rank_rows, tied_intervals

#: a bot is marked provisional in a league until it has played this many games there
PROVISIONAL_GAMES = 20
#: the crosstable shows at most this many bots (the top of the standings)
CROSSTABLE_MAX = 30
#: rounds listed on the standings page
RECENT_ROUNDS = 8


@dataclass(frozen=True)
class LeagueSummary:
    league: League
    entries: int
    played: int
    live: int
    next_round: datetime | None
    #: "by hand", "paused", "finished" or "" when ``next_round`` says it
    schedule_note: str


def next_round_at(league: League, now: datetime | None = None) -> tuple[datetime | None, str]:
    if league.status == LeagueStatus.FINISHED:
        return None, "finished"
    if league.status == LeagueStatus.PAUSED:
        return None, "paused"
    task = league.schedule
    if task is None:
        # a process playing the rounds itself (manage.py demo) says when
        announced = public_facts.announced_next_round(league.pk)
        if announced is not None:
            return max(announced, now or timezone.now()), ""
        return None, "by hand"
    if not task.enabled:
        return None, "paused"
    now = now or timezone.now()
    try:
        remaining = task.schedule.remaining_estimate(task.last_run_at or now)
    except Exception:  # noqa: BLE001 - a schedule celery cannot read: say so, do not fail
        return None, "unknown"
    return max(now, now + remaining), ""


def league_summaries(*, hidden: bool = False) -> list[LeagueSummary]:
    """Every league with its counts: 3 grouped queries (not one per league). ``hidden``:
    with the leagues that lists leave out (``arena.models.leagues``: the challenges'
    unrated leagues and each tournament's own league)."""
    found = League.objects.select_related("schedule__interval", "schedule__crontab")
    if not hidden:
        found = found.filter(listed_q())
    leagues = list(found.order_by("status", "name"))
    entries = dict(
        Entry.objects.filter(active=True)
        .values("league_id")
        .annotate(n=Count("id"))
        .values_list("league_id", "n")
    )
    played: dict[int, int] = {}
    live: dict[int, int] = {}
    for league_id, status, n in (
        Match.objects.filter(status__in=[MatchStatus.FINISHED, MatchStatus.RUNNING])
        .values("league_id", "status")
        .annotate(n=Count("id"))
        .values_list("league_id", "status", "n")
    ):
        (played if status == MatchStatus.FINISHED else live)[league_id] = n
    now = timezone.now()
    out = []
    for league in leagues:
        when, note = next_round_at(league, now)
        out.append(
            LeagueSummary(
                league, entries.get(league.pk, 0), played.get(league.pk, 0),
                live.get(league.pk, 0), when, note,
            )
        )  # fmt: skip
    return out


# ------------------------------------------------------------------ standings


SORT_KEYS = {
    "rank": lambda r: r.order,
    "bot": lambda r: r.bot.lower(),
    "owner": lambda r: r.owner.lower(),
    "rating": lambda r: r.rating,
    "batch": lambda r: r.batch.elo if r.batch else float("-inf"),
    "games": lambda r: r.games,
    "wins": lambda r: r.wins,
    "losses": lambda r: r.losses,
    "forfeits": lambda r: r.forfeits,
}
#: the columns whose first click sorts high-first (the page's header links)
HIGH_FIRST = {"rating", "batch", "games", "wins", "losses", "forfeits"}


class BadSort(ValueError):
    pass


def parse_sort(text: str | None) -> tuple[str, bool]:
    """``rating`` -> ascending, ``-rating`` -> descending (the API's one convention);
    nothing: the ranking, best first."""
    if not text:
        return "rank", False
    descending = text.startswith("-")
    key = text[1:] if descending else text
    if key not in SORT_KEYS:
        choices = ", ".join(SORT_KEYS)
        raise BadSort(f"cannot sort by {text!r}: use one of {choices}, '-' first for descending")
    return key, descending


@dataclass(frozen=True)
class Standings:
    rows: list[StandingRow]
    #: changes whenever anything shown in the standings or the crosstable changes (a rated
    #: game, a batch fit, an entry or withdrawal): the key of their cached fragments
    version: str
    batch_at: datetime | None


def _version_sql() -> str:
    live, batch, entry, rnd, match = (
        m._meta.db_table for m in (LiveRating, BatchRating, Entry, Round, Match)
    )
    return (
        f"(SELECT COUNT(*) FROM {live} WHERE league_id = l.id) AS v_ratings,"
        f" (SELECT MAX(updated_at) FROM {live} WHERE league_id = l.id) AS v_rated,"
        # every shown game adds one here, whatever order results commit in: two results for
        # other bots do not wait for each other, so the one stamped first can commit last
        # and leave MAX(updated_at) where the other put it
        f" (SELECT SUM(shown_games) FROM {live} WHERE league_id = l.id) AS v_shown,"
        f" (SELECT MAX(computed_at) FROM {batch} WHERE league_id = l.id) AS v_fit,"
        f" (SELECT COUNT(*) FROM {entry} WHERE league_id = l.id AND active = %s) AS v_entries,"
        f" (SELECT SUM(bot_id) FROM {entry} WHERE league_id = l.id AND active = %s) AS v_sum,"
        # rounds and matches: a new round, a match starting or ending (index-only counts)
        f" (SELECT MAX(id) FROM {rnd} WHERE league_id = l.id) AS a_round,"
        f" (SELECT COUNT(*) FROM {match} WHERE league_id = l.id AND status = %s) AS a_live,"
        f" (SELECT MAX(finished_at) FROM {match} WHERE league_id = l.id) AS a_done,"
        # ... and every match that ends, whatever order results commit in: its round's
        # pending count drops in its own transaction (one ending early-stamped but
        # committed last, while another match started, moves neither the maximum nor the
        # running count); the rounds the section shows, by the (league, number) index
        f" (SELECT SUM(p) FROM (SELECT pending_matches AS p FROM {rnd}"
        f"   WHERE league_id = l.id ORDER BY number DESC LIMIT {RECENT_ROUNDS}) AS shown_rounds)"
        " AS a_pending"
    )


@dataclass(frozen=True)
class LeagueVersions:
    #: changes whenever the standings or the crosstable would
    standings: str
    #: changes whenever the rounds section would (a new round, a match starting or ending)
    rounds: str
    #: changes whenever the crosstable would: the standings' version (it counts the same
    #: results, and is ordered by the same ranking)
    crosstable: str


def league_with_version(slug: str) -> tuple[League, LeagueVersions] | None:
    """The league and the versions of its page's parts, in one plain SQL statement (the
    ORM's compilation of these subqueries costs more than the database's answer). Every
    rated game moves a rating row's ``updated_at``, a fit moves ``computed_at``, entering
    or withdrawing changes the entries' count and sum; the shown games' sum moves with
    every released result, even one that commits after a later-stamped one. The versions
    are opaque: they key the page's cached fragments."""
    sql = f"SELECT l.*, {_version_sql()} FROM {League._meta.db_table} l WHERE l.slug = %s"
    params = [True, True, MatchStatus.RUNNING, slug]
    found = list(League.objects.raw(sql, params))
    if not found:
        return None
    league = found[0]

    def join(*names: str) -> str:
        return ":".join(str(getattr(league, n)) for n in names)

    standings = join("v_ratings", "v_rated", "v_shown", "v_fit", "v_entries", "v_sum")
    return league, LeagueVersions(
        standings, join("a_round", "a_live", "a_done", "a_pending"), standings
    )


def standings_version(league: League) -> str:
    found = league_with_version(league.slug)
    assert found is not None
    return found[1].standings


#: the fit's fields in the order ``_standings_sql`` reads them
_FIT_FIELDS = [f.attname for f in BatchRating._meta.concrete_fields]


def _fit_converters() -> list[tuple[int, Col, list[Any]]]:
    """The backend's converters of a fit's columns, those that have any (SQLite gives a
    datetime as naive text, a boolean as 0 or 1; PostgreSQL needs none): looked up once
    per statement, not per row."""
    out = []
    for i, f in enumerate(BatchRating._meta.concrete_fields):
        col = Col(BatchRating._meta.db_table, f)
        found = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if found:
            out.append((i, col, found))
    return out


def _fit_values(row: tuple[Any, ...], converters: list[tuple[int, Col, list[Any]]]) -> list[Any]:
    """A fit's columns of a plain statement's row as the ORM would give them."""
    values = list(row)
    for i, col, found in converters:
        for convert in found:
            values[i] = convert(values[i], col, connection)
    return values


def _standings_sql() -> str:
    """Every standings row of a league as shown, with its bot, owner, whether it is
    entered and its batch fit, in one plain statement (the ORM's compilation of the three
    queries this was cost more than their answers)."""
    from django.contrib.auth import get_user_model

    from arena.models import Bot

    fit = [f.column for f in BatchRating._meta.concrete_fields]
    tables = {m.__name__: m._meta.db_table for m in (LiveRating, BatchRating, Entry, Bot)}
    sql = (
        "SELECT lr.bot_id, b.name, u.username, b.kind, lr.shown_rating, lr.shown_games,"
        " lr.shown_wins, lr.shown_losses, lr.shown_forfeits,"
        f" EXISTS (SELECT 1 FROM {tables['Entry']} e WHERE e.league_id = lr.league_id"
        "   AND e.bot_id = lr.bot_id AND e.active),"
        + ", ".join(f"br.{c}" for c in fit)
        + f" FROM {tables['LiveRating']} lr JOIN {tables['Bot']} b ON b.id = lr.bot_id"
        f" LEFT JOIN {get_user_model()._meta.db_table} u ON u.id = b.owner_id"
        f" LEFT JOIN {tables['BatchRating']} br"
        "   ON br.league_id = lr.league_id AND br.bot_id = lr.bot_id"
        " WHERE lr.league_id = %s ORDER BY lr.shown_rating DESC, b.name"
    )
    return sql


def league_standings(
    league: League, sort: str | None = None, version: str | None = None
) -> Standings:
    """The standings rows as shown (results out: not a mirrored pair's game while the
    other is played), kept by each result's transaction, never summed from history: one
    statement (plus 1 for the version unless the caller has it). A batch fit is shown
    for a bot with a standings row (every bot in a fit has one: it played)."""
    key, descending = parse_sort(sort)
    text = version or standings_version(league)
    sql = _standings_sql()
    with connection.cursor() as cursor:
        cursor.execute(sql, [league.pk])
        found = cursor.fetchall()
    batch: dict[int, BatchRating] = {}
    converters = _fit_converters()
    for row in found:
        if row[10] is not None:  # the fit's id
            values = _fit_values(row[10:], converters)
            batch[row[0]] = BatchRating.from_db(DEFAULT_DB_ALIAS, _FIT_FIELDS, values)
    batch_at = max((b.computed_at for b in batch.values()), default=None)
    intervals = tied_intervals(batch)
    rows = [
        StandingRow(
            rank=None,
            bot_id=bot_id,
            bot=name,
            owner=owner or "",
            kind=kind,
            rating=rating,
            games=games,
            wins=wins,
            losses=losses,
            forfeits=forfeits,
            batch=batch.get(bot_id),
            provisional=games < PROVISIONAL_GAMES,
            entered=bool(entered),  # SQLite answers EXISTS with 0 or 1
            rank_low=intervals[bot_id][0] if bot_id in intervals else None,
            rank_high=intervals[bot_id][1] if bot_id in intervals else None,
        )
        for bot_id, name, owner, kind, rating, games, wins, losses, forfeits, entered, *_ in found
    ]
    rows = rank_rows(rows)
    if key != "rank" or descending:
        rows.sort(key=SORT_KEYS[key], reverse=descending)
    return Standings(rows, text, batch_at)


# ------------------------------------------------------------------ crosstable


@dataclass(frozen=True)
class Crosstable:
    players: list[tuple[int, str]]
    #: rows[i][j]: players[i]'s record against players[j] (None on the diagonal)
    rows: list[list[Cell | None]]
    truncated_from: int

    @property
    def lines(self) -> list[tuple[tuple[int, str], list[tuple[Cell | None, str]]]]:
        """Each row's player and its cells, each beside the column player's name."""
        names = [name for _, name in self.players]
        return [
            (player, list(zip(row, names, strict=True)))
            for player, row in zip(self.players, self.rows, strict=True)
        ]


@dataclass(frozen=True)
class CrosstableWins:
    """What the crosstable shows, before its cells are worked out: the top
    ``CROSSTABLE_MAX`` bots in order, their wins against each other and how many bots
    the league ranks. ``key`` covers all of it: the crosstable section is cached under
    it, so a result outside the top bots' games moves the standings but not the table."""

    players: list[tuple[int, str]]
    #: wins per (winner, loser) among ``players``, only where there are any
    wins: dict[tuple[int, int], int]
    truncated_from: int

    @property
    def key(self) -> str:
        won = ",".join(f"{a}-{b}:{n}" for (a, b), n in sorted(self.wins.items()))
        return f"{self.players}:{self.truncated_from}:{won}"


def crosstable_wins(league: League, standings: Standings) -> CrosstableWins:
    """The top ``CROSSTABLE_MAX`` bots of the standings' order and their wins against
    each other over the results that are out: the league's head-to-head rows among them
    (``arena.ratings.headtohead``, kept by each result's transaction), one indexed
    statement."""
    ranked = sorted(standings.rows, key=lambda r: r.order)
    top = [(r.bot_id, r.bot) for r in ranked[:CROSSTABLE_MAX]]
    ids = [b for b, _ in top]
    marks = ", ".join(["%s"] * len(ids))
    sql = (
        f"SELECT bot_id, opponent_id, wins FROM {HeadToHead._meta.db_table}"
        f" WHERE league_id = %s AND bot_id IN ({marks}) AND opponent_id IN ({marks})"
        " AND wins > 0"
    )
    wins: dict[tuple[int, int], int] = {}
    if ids:
        with connection.cursor() as cursor:
            cursor.execute(sql, [league.pk, *ids, *ids])
            wins = {(bot, opponent): n for bot, opponent, n in cursor.fetchall()}
    return CrosstableWins(top, wins, len(ranked))


def league_crosstable(found: CrosstableWins) -> Crosstable:
    """Head-to-head records of the top bots (``crosstable_wins``), each cell shaded by a
    two-sided binomial test. Not cached itself: the crosstable section that shows it is
    cached under ``found.key``."""
    ids = [b for b, _ in found.players]
    cells = crosstable_of_wins(ids, found.wins)
    rows = [[None if a == b else cells[(a, b)] for b in ids] for a in ids]
    return Crosstable(found.players, rows, found.truncated_from)


# ------------------------------------------------------------------ rounds


@dataclass(frozen=True)
class RoundSummary:
    round: Round
    matches: int
    finished: int
    live: int
    over: int = 0

    @property
    def version(self) -> str:
        """Changes whenever a match of the round starts or ends (keys its cached table)."""
        return f"{self.round.pk}:{self.round.status}:{self.matches}:{self.live}:{self.over}"


def recent_rounds(league: League, limit: int = RECENT_ROUNDS) -> list[RoundSummary]:
    """The latest rounds with their match counts, in one statement: the rounds shown are
    taken first (walking the unique index (league, number) backwards) and only their
    matches counted (grouped on ``round_id``), where a join over the league would count
    every round of it. Plain SQL both PostgreSQL and SQLite (the embedded mode) run."""
    match, rounds = Match._meta.db_table, Round._meta.db_table
    shown = f"SELECT id FROM {rounds} WHERE league_id = %s ORDER BY number DESC LIMIT %s"
    sql = (
        "SELECT r.*, COALESCE(c.c_n, 0) AS c_n, COALESCE(c.c_finished, 0) AS c_finished,"
        " COALESCE(c.c_live, 0) AS c_live, COALESCE(c.c_over, 0) AS c_over"
        f" FROM {rounds} r LEFT JOIN (SELECT m.round_id, COUNT(*) AS c_n,"
        "   SUM(CASE WHEN m.status = %s THEN 1 ELSE 0 END) AS c_finished,"
        "   SUM(CASE WHEN m.status = %s THEN 1 ELSE 0 END) AS c_live,"
        "   SUM(CASE WHEN m.status IN (%s, %s) THEN 1 ELSE 0 END) AS c_over"
        f"   FROM {match} m WHERE m.round_id IN ({shown}) GROUP BY m.round_id) c"
        " ON c.round_id = r.id"
        f" WHERE r.id IN ({shown})"
        " ORDER BY r.number DESC"
    )
    params = [
        MatchStatus.FINISHED, MatchStatus.RUNNING, MatchStatus.FINISHED, MatchStatus.VOID,
        league.pk, limit, league.pk, limit,
    ]  # fmt: skip
    return [
        RoundSummary(r, *(int(getattr(r, f"c_{k}")) for k in ("n", "finished", "live", "over")))
        for r in Round.objects.raw(sql, params)
    ]


def _counts(via: str = "") -> dict[str, Count]:
    """Match counts of a round, over matches (``via=""``) or from the round (``matches__``)."""
    over = [MatchStatus.FINISHED, MatchStatus.VOID]
    return {
        "n": Count(f"{via}id"),
        "finished": Count(f"{via}id", filter=Q(**{f"{via}status": MatchStatus.FINISHED})),
        "live": Count(f"{via}id", filter=Q(**{f"{via}status": MatchStatus.RUNNING})),
        "over": Count(f"{via}id", filter=Q(**{f"{via}status__in": over})),
    }


def _summary(r: Round, c: dict[str, int] | None) -> RoundSummary:
    if c is None:
        return RoundSummary(r, 0, 0, 0, 0)
    return RoundSummary(r, c["n"], c["finished"], c["live"], c["over"])


def round_summary(r: Round) -> RoundSummary:
    return _summary(r, Match.objects.filter(round=r).aggregate(**_counts()))
