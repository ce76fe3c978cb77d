"""Rating services: recompute live ratings from history, fit batch ratings, standings.

Live ratings are written by ``arena.services.results`` (with the result, in
one transaction); this module reads the ledger back.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db import connection, transaction
from django.utils import timezone

from arena.models import League, Match, MatchEndReason, MatchStatus, Participation
from arena.ratings.batch import Game, fit
from arena.ratings.ledger import match_changes
from arena.ratings.models import (
    START_RATING,
    BatchRating,
    LiveRating,
    RatedMatch,
    VersionFit,
    VersionRating,
)
from arena.ratings.reports import CheckReport

logger = logging.getLogger(__name__)


@dataclass
class _Tally:
    rating: Decimal = START_RATING
    games: int = 0
    wins: int = 0
    losses: int = 0
    forfeits: int = 0

    def as_tuple(self) -> tuple[Decimal, int, int, int, int]:
        return (self.rating, self.games, self.wins, self.losses, self.forfeits)


@dataclass
class RecomputeReport(CheckReport):
    matches: int = 0
    rated: int = 0

    def counts(self) -> dict[str, object]:
        return {"matches": self.matches, "rated": self.rated}


def _no_idle_limit() -> None:
    """Lift ``DATABASE_IDLE_TRANSACTION_SECONDS`` for the transaction open now: the
    recompute replays a league's whole ledger in Python while it holds the rating rows."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("SET LOCAL idle_in_transaction_session_timeout = 0")


def recompute_ratings(
    league_id: int, *, fix: bool = False, expected: bool = False
) -> RecomputeReport:
    """Replay every rated match of the league in the order it was rated (the ledger's
    ids) from 1500 (a hosted bot's version from the rating it started at), and compare
    with the stored participations, live ratings and version ratings; they must be equal to
    the last digit. ``fix`` writes the recomputed values where they differ
    (holding every rating row of the league locked)."""
    league = League.objects.get(pk=league_id)
    report = RecomputeReport(league.name)
    with transaction.atomic():
        _no_idle_limit()
        stored_rows = {
            r.bot_id: r
            for r in LiveRating.objects.select_for_update().filter(league=league).order_by("id")
        }
        tallies: dict[int, _Tally] = defaultdict(_Tally)
        for bot_id in stored_rows:
            tallies[bot_id] = _Tally()
        # hosted bots' versions are players of their own, from the rating they started at
        version_rows = {
            r.version_id: r
            for r in VersionRating.objects.select_for_update().filter(league=league).order_by("id")
        }
        player_rating: dict[tuple[str, int], Decimal] = {
            ("v", v): r.start for v, r in version_rows.items()
        }

        def player(p: Participation) -> tuple[str, int]:
            if p.code_version_id is not None and p.code_version_id in version_rows:
                return ("v", p.code_version_id)
            return ("b", p.bot_id)

        finished = (
            Match.objects.filter(league=league, status=MatchStatus.FINISHED)
            .order_by("id")
            .values_list("id", "end_reason")
        )
        parts_by_match: dict[int, list[Participation]] = defaultdict(list)
        for p in Participation.objects.filter(
            league=league, match__status=MatchStatus.FINISHED
        ).order_by("match_id", "seat"):
            parts_by_match[p.match_id].append(p)
        for match_id, reason in finished:
            report.matches += 1
            for p in parts_by_match[match_id]:
                t = tallies[p.bot_id]
                t.games += 1
                if p.won:
                    t.wins += 1
                else:
                    t.losses += 1
                    if p.fault_cause and reason == MatchEndReason.FORFEIT:
                        t.forfeits += 1
        winners: dict[int, int] = {
            m: w
            for m, w in Match.objects.filter(league=league, rated=True).values_list(
                "id", "winner_team"
            )
            if w is not None
        }
        fixes: list[Participation] = []
        for rated in RatedMatch.objects.filter(league=league).order_by("id"):
            report.rated += 1
            parts = parts_by_match[rated.match_id]
            before = [player_rating.get(player(p), START_RATING) for p in parts]
            changes = match_changes(
                before, [p.team for p in parts], winners[rated.match_id], rated.k_factor
            )
            for p, old, change in zip(parts, before, changes, strict=True):
                new = old + change
                player_rating[player(p)] = new
                stored = (p.rating_before, p.rating_change, p.rating_after)
                if stored != (old, change, new):
                    report.mismatches.append(
                        f"match {p.match_id} seat {p.seat}: stored before/change/after "
                        f"{'/'.join(map(str, stored))}, recomputed {old}/{change}/{new}"
                    )
                    p.rating_before, p.rating_change, p.rating_after = old, change, new
                    fixes.append(p)
        carried = {r.bot_id: ("v", v) for v, r in version_rows.items() if r.current}
        for bot_id, t in tallies.items():
            t.rating = player_rating.get(carried.get(bot_id, ("b", bot_id)), START_RATING)
        version_fixes = []
        for v, vrow in version_rows.items():
            recomputed = player_rating[("v", v)]
            if vrow.rating != recomputed:
                report.mismatches.append(
                    f"version {v}: stored rating {vrow.rating}, recomputed {recomputed}"
                )
                vrow.rating = recomputed
                version_fixes.append(vrow)
        row_fixes = []
        for bot_id, row in stored_rows.items():
            t = tallies[bot_id]
            kept = (row.rating, row.games, row.wins, row.losses, row.forfeits)
            if kept != t.as_tuple():
                report.mismatches.append(
                    f"bot {bot_id}: stored rating/games/wins/losses/forfeits "
                    f"{'/'.join(map(str, kept))}, recomputed {'/'.join(map(str, t.as_tuple()))}"
                )
                row.rating, row.games, row.wins, row.losses, row.forfeits = t.as_tuple()
                row_fixes.append(row)
        if fix and report.mismatches:
            Participation.objects.bulk_update(
                fixes, ["rating_before", "rating_change", "rating_after"]
            )
            LiveRating.objects.bulk_update(
                row_fixes, ["rating", "games", "wins", "losses", "forfeits"]
            )
            VersionRating.objects.bulk_update(version_fixes, ["rating"])
            report.fixed = True
    if report.mismatches:
        # expected: the caller changed the history on purpose (an operator's re-run)
        (logger.info if expected else logger.error)(
            "league %s: %d stored ratings differ from a recompute%s",
            league.name,
            len(report.mismatches),
            " (fixed)" if fix else "",
        )
    return report


#: a player of the batch fit: ("b", bot id), or ("v", version id) for a hosted bot's version
Player = tuple[str, int]


@dataclass
class FitReport:
    league: str
    bots: int
    matches: int
    bootstrap: int

    def to_json(self) -> dict[str, object]:
        return {
            "league": self.league,
            "bots": self.bots,
            "matches": self.matches,
            "bootstrap": self.bootstrap,
        }


def fit_batch_ratings(league_id: int, *, bootstrap: int = 200, seed: int = 0) -> FitReport:
    """Batch Elo over every finished match of the league (``arena.ratings.batch.fit``: the
    posterior mode under the league's estimated spread), with 95% rating and rank
    intervals whose units are a pairing's pair of games; ``bootstrap`` is recorded, the
    intervals need no replicates. Replaces the league's stored fit
    in one transaction. Each version of a hosted bot is a player of its own
    (``VersionFit``); the bot's ``BatchRating`` is its current version's, and ranks are
    among the bots' rows."""
    league = League.objects.get(pk=league_id)
    players: list[Player] = []
    index: dict[Player, int] = {}
    bot_of: dict[Player, int] = {}

    def player(key: Player, bot_id: int) -> int:
        if key not in index:
            index[key] = len(players)
            players.append(key)
            bot_of[key] = bot_id
        return index[key]

    teams: dict[int, tuple[list[int], list[int]]] = {}
    units: dict[int, str] = {}
    winner: dict[int, int | None] = {}
    for match_id, win, round_id, key, pair in Match.objects.filter(
        league=league, status=MatchStatus.FINISHED
    ).values_list("id", "winner_team", "round_id", "pairing_key", "pair_index"):
        winner[match_id] = win
        units[match_id] = f"{round_id}:{key}:{pair}"
        teams[match_id] = ([], [])
    for match_id, team, bot_id, version_id in Participation.objects.filter(
        league=league, match__status=MatchStatus.FINISHED
    ).values_list("match_id", "team", "bot_id", "code_version_id"):
        who: Player = ("b", bot_id) if version_id is None else ("v", version_id)
        teams[match_id][team].append(player(who, bot_id))
    carried = dict(
        VersionRating.objects.filter(league=league, current=True).values_list(
            "bot_id", "version_id"
        )
    )
    bots = list(
        LiveRating.objects.filter(league=league).order_by("bot_id").values_list("bot_id", flat=True)
    )
    players_of: dict[int, list[Player]] = defaultdict(list)
    for known in players:
        players_of[bot_of[known]].append(known)
    for bot_id in sorted(set(bots) - players_of.keys()):
        players_of[bot_id].append(("b", bot_id))
        player(("b", bot_id), bot_id)
    # the bot's row: its current version, else its own player, else its newest version
    row_of: dict[int, int] = {}
    for bot_id, keys in sorted(players_of.items()):
        current: Player = ("v", carried.get(bot_id, -1))
        own: Player = ("b", bot_id)
        row_of[bot_id] = index.get(current, index.get(own, index[max(keys)]))
    unit_ids = {u: i for i, u in enumerate(sorted(set(units.values())))}
    games = [
        Game(tuple(a), tuple(b), winner[m] == 0, unit_ids[units[m]])
        for m, (a, b) in sorted(teams.items())
    ]
    result = fit(
        len(players),
        games,
        bootstrap=bootstrap if games else 0,
        seed=seed,
        ranked=sorted(row_of.values()),
    )
    now = timezone.now()
    with transaction.atomic():
        # one fit's rows at a time: two fits replacing them at once would collide on the
        # unique (league, bot) (the second's delete misses the first's new rows)
        League.objects.select_for_update().get(pk=league_id)
        BatchRating.objects.filter(league=league).delete()
        BatchRating.objects.bulk_create(
            BatchRating(
                league=league,
                bot_id=bot_id,
                elo=float(result.ratings[i]),
                low=float(result.low[i]),
                high=float(result.high[i]),
                rank=int(result.rank[i]),
                rank_low=int(result.rank_low[i]),
                rank_high=int(result.rank_high[i]),
                games=int(result.games[i]),
                bootstrap=result.bootstrap,
                matches=len(games),
                computed_at=now,
            )
            for bot_id, i in sorted(row_of.items())
        )
        VersionFit.objects.filter(league=league).delete()
        VersionFit.objects.bulk_create(
            VersionFit(
                league=league,
                bot_id=bot_of[key],
                version_id=key[1],
                elo=float(result.ratings[i]),
                low=float(result.low[i]),
                high=float(result.high[i]),
                games=int(result.games[i]),
                computed_at=now,
            )
            for key, i in index.items()
            if key[0] == "v"
        )
    logger.info("league %s: batch fit over %d matches", league.name, len(games))
    return FitReport(league.name, len(row_of), len(games), result.bootstrap)


@dataclass(frozen=True)
class Standing:
    bot_id: int
    bot: str
    rating: Decimal
    games: int
    wins: int
    losses: int
    forfeits: int
    batch: BatchRating | None


def standings(league: League) -> list[Standing]:
    """The league's bots by live rating, with their batch fit when there is one: the
    standings as shown (``arena.ratings.standings``)."""
    batch = {b.bot_id: b for b in BatchRating.objects.filter(league=league)}
    return [
        Standing(
            r.bot_id,
            r.bot.name,
            r.shown_rating,
            r.shown_games,
            r.shown_wins,
            r.shown_losses,
            r.shown_forfeits,
            batch.get(r.bot_id),
        )
        for r in LiveRating.objects.filter(league=league)
        .select_related("bot")
        .order_by("-shown_rating", "bot__name")
    ]
