"""Head-to-head records as the site shows them: per (league, bot, opponent) the games and
wins of the results that are out (``HeadToHead`` rows), so that the crosstable and a bot
page's results by opponent read a few indexed rows instead of the league's matches.

An opponent is a bot of another team in the same match; a game counts once for each such
pair, as the bot's own seat decided it (``won``). The rows move with the shown standings
and by the same rule (``arena.ratings.standings``): in the result's own transaction,
after the bots' rating rows are locked, with exactly the seats the standings add (a
result that is out, a withheld mirrored game's when its partner ends, nothing for a void
match). One upsert statement per batch of results. ``recompute_standings`` recounts
them from the participations and, with ``fix``, writes the recount
(``league recompute-standings NAME [--fix]``; an operator's re-run does).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import connection

from arena.models import Participation
from arena.ratings.models import HeadToHead

Key = tuple[int, int, int]  # (league, bot, opponent)


def tallies(seats: Iterable[Participation]) -> dict[Key, tuple[int, int]]:
    """(games, wins) per (league, bot, opponent) of these seats (whole matches' seats:
    a match's pairs are made from the seats given for it)."""
    by_match: dict[int, list[Participation]] = defaultdict(list)
    for p in seats:
        by_match[p.match_id].append(p)
    out: dict[Key, list[int]] = defaultdict(lambda: [0, 0])
    for ps in by_match.values():
        for p in ps:
            if p.won is None:
                continue
            for o in ps:
                if o.team != p.team and o.bot_id != p.bot_id:
                    t = out[(p.league_id, p.bot_id, o.bot_id)]
                    t[0] += 1
                    t[1] += int(p.won)
    return {k: (g, w) for k, (g, w) in out.items()}


def do_add(seats: Iterable[Participation]) -> None:
    """Add released results (their matches' seats) to the rows, in the caller's
    transaction, which holds the bots' rating rows locked: one ``INSERT ... ON CONFLICT
    DO UPDATE`` (PostgreSQL and SQLite), the rows in key order."""
    counts = tallies(seats)
    if not counts:
        return
    table = connection.ops.quote_name(HeadToHead._meta.db_table)
    marks = ", ".join(["(%s, %s, %s, %s, %s)"] * len(counts))
    params: list[int] = []
    for key in sorted(counts):
        params += [*key, *counts[key]]
    sql = (
        f"INSERT INTO {table} (league_id, bot_id, opponent_id, games, wins) VALUES {marks}"
        " ON CONFLICT (league_id, bot_id, opponent_id) DO UPDATE"
        f" SET games = {table}.games + excluded.games, wins = {table}.wins + excluded.wins"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def stored(league_id: int) -> dict[Key, tuple[int, int]]:
    return {
        (league_id, bot, opp): (g, w)
        for bot, opp, g, w in HeadToHead.objects.filter(league_id=league_id).values_list(
            "bot_id", "opponent_id", "games", "wins"
        )
    }


def differences(have: dict[Key, tuple[int, int]], want: dict[Key, tuple[int, int]]) -> list[str]:
    """What a recount says differs, one line per pair (no row counts as 0 games)."""
    out = []
    for key in sorted(have.keys() | want.keys()):
        h, w = have.get(key, (0, 0)), want.get(key, (0, 0))
        if h != w:
            out.append(
                f"bot {key[1]} v {key[2]}: head-to-head games/wins {h[0]}/{h[1]},"
                f" recomputed {w[0]}/{w[1]}"
            )
    return out


def replace(league_id: int, want: dict[Key, tuple[int, int]]) -> None:
    """The league's rows become ``want`` (the recount), in the caller's transaction."""
    HeadToHead.objects.filter(league_id=league_id).delete()
    HeadToHead.objects.bulk_create(
        [
            HeadToHead(league_id=lg, bot_id=b, opponent_id=o, games=g, wins=w)
            for (lg, b, o), (g, w) in sorted(want.items())
            if g
        ],
        batch_size=2000,
    )
