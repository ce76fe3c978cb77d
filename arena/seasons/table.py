"""A season's table from its games: the season's Elo replayed from its start ratings in
the ledger's order, and its games, wins, losses and forfeits (reads only).

The league's own live Elo and its ledger are never changed by a season: the season's Elo
is the same Elo (``arena.ratings.ledger.match_changes``, each match with the K it was
rated with) started from the season's start rule, over the season's rated matches.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field
from decimal import Decimal

from arena.models import Entry, League, MatchEndReason, MatchStatus, Participation
from arena.ratings.ledger import match_changes
from arena.ratings.models import BatchRating, LiveRating, RatedMatch
from arena.seasons.models import Season
from arena.seasons.rules import START, Line


@dataclass
class Row:
    bot_id: int
    entry_id: int
    division: int | None
    start: Decimal
    rating: Decimal
    games: int = 0
    wins: int = 0
    losses: int = 0
    forfeits: int = 0
    live: Decimal = START
    fit: BatchRating | None = None

    def line(self, lowest: int) -> Line:
        return Line(
            self.bot_id,
            self.entry_id,
            self.division if self.division is not None else lowest,
            self.rating,
            self.wins,
            None if self.fit is None else self.fit.elo,
        )


@dataclass
class Table:
    rows: dict[int, Row]
    #: (bot, bot): [wins of the first, games]
    cells: dict[tuple[int, int], list[int]] = field(default_factory=dict)

    def lines(self) -> list[Line]:
        known = [r.division for r in self.rows.values() if r.division is not None]
        lowest = max(known) if known else 1
        return [r.line(lowest) for r in self.rows.values()]


def _start_of(season: Season, bot_id: int) -> Decimal:
    given = season.start_ratings.get(str(bot_id))
    if given is not None:
        return Decimal(given)
    if season.start_rule == "soft" and season.start_ratings:
        values = [Decimal(v) for v in season.start_ratings.values()]
        return (sum(values, Decimal(0)) / len(values)).quantize(Decimal("0.0001"))
    return START


def season_table(
    league: League, season: Season, *, last_round: int | None = None,
    hidden: Collection[int] = (),
) -> Table:  # fmt: skip
    """The table of the season's rounds (from ``season.first_round`` to ``last_round``,
    or on): a row per active entry and per bot that played in it. ``hidden``: finished
    matches left out (a mirrored game whose partner is still playing)."""
    rounds = {"match__round__number__gte": season.first_round}
    if last_round is not None:
        rounds["match__round__number__lte"] = last_round
    seats = defaultdict(list)
    reasons: dict[int, str] = {}
    winners: dict[int, int | None] = {}
    for p in (
        Participation.objects.filter(league=league, match__status=MatchStatus.FINISHED, **rounds)
        .select_related("match")
        .order_by("match_id", "seat")
    ):
        if p.match_id in hidden:
            continue
        seats[p.match_id].append(p)
        reasons[p.match_id] = p.match.end_reason
        winners[p.match_id] = p.match.winner_team
    entries = {e.bot_id: e for e in Entry.objects.filter(league=league).order_by("id")}
    live = dict(LiveRating.objects.filter(league=league).values_list("bot_id", "shown_rating"))
    fits = {b.bot_id: b for b in BatchRating.objects.filter(league=league)}
    rows: dict[int, Row] = {}

    def row(bot_id: int) -> Row:
        if bot_id not in rows:
            e = entries[bot_id]
            start = _start_of(season, bot_id)
            rows[bot_id] = Row(bot_id, e.pk, e.division, start, start,
                               live=live.get(bot_id, START), fit=fits.get(bot_id))  # fmt: skip
        return rows[bot_id]

    for e in entries.values():
        if e.active:
            row(e.bot_id)
    table = Table(rows)
    for match_id, parts in seats.items():
        for p in parts:
            r = row(p.bot_id)
            r.games += 1
            if p.won:
                r.wins += 1
            else:
                r.losses += 1
                if p.fault_cause and reasons[match_id] == MatchEndReason.FORFEIT:
                    r.forfeits += 1
        if len(parts) == 2 and parts[0].team != parts[1].team:
            a, b = parts[0].bot_id, parts[1].bot_id
            for x, y, won in ((a, b, parts[0].won), (b, a, parts[1].won)):
                cell = table.cells.setdefault((x, y), [0, 0])
                cell[0] += int(bool(won))
                cell[1] += 1
    # the season's Elo: its rated matches in the ledger's order
    for match_id, k in (
        RatedMatch.objects.filter(league=league, match_id__in=list(seats))
        .order_by("id")
        .values_list("match_id", "k_factor")
    ):
        parts = seats[match_id]
        winner = winners[match_id]
        if winner is None:
            continue
        before = [rows[p.bot_id].rating for p in parts]
        changes = match_changes(before, [p.team for p in parts], winner, k)
        for p, change in zip(parts, changes, strict=True):
            rows[p.bot_id].rating += change
    return table
