"""What a tournament's rounds came to, read from its league's matches: each pairing's
games, and from them the Swiss / round-robin table and the knockout bracket.

Only **finished** matches count: a void match (or one voided by an operator and queued to
be played again, ``arena.services.rerun``) counts for nothing until its new result is
written. So a tie's result is always the one of the games that stand.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from arena.events.models import Bye, Entrant, Tournament, TournamentFormat
from arena.events.pairing import bracket_size, first_round, knockout_rounds, next_ties
from arena.models import MatchEndReason, MatchStatus, Participation


@dataclass
class Game:
    match_id: int
    status: str
    #: bot id of the winner (None: not finished)
    winner: int | None
    forfeit: bool
    #: which pair of the pairing (its two games swap the teams; mirrored: one deal)
    pair_index: int = 0


@dataclass
class PairingResult:
    """One pairing (a knockout tie) of a round: bot ``a`` is the one listed first (the
    better-ranked or better seed)."""

    round_number: int
    a: int
    b: int
    games: list[Game] = field(default_factory=list)

    def wins(self, bot: int) -> int:
        return sum(1 for g in self.games if g.winner == bot)

    def clean_wins(self, bot: int) -> int:
        """Wins over the board (not by the opponent's fault)."""
        return sum(1 for g in self.games if g.winner == bot and not g.forfeit)

    @property
    def over(self) -> bool:
        """No game of it is queued or running."""
        return all(g.status in (MatchStatus.FINISHED, MatchStatus.VOID) for g in self.games)

    def released(self, game: Game) -> bool:
        """Whether a game's result may be shown: its pair is over (a mirrored pair's
        first result would tell the deal of the game still being played, as the league
        standings hold it back: ``arena.ratings.standings``)."""
        return all(
            g.status in (MatchStatus.FINISHED, MatchStatus.VOID)
            for g in self.games
            if g.pair_index == game.pair_index
        )

    def shown_wins(self, bot: int) -> int:
        return sum(1 for g in self.games if g.winner == bot and self.released(g))

    def points(self, bot: int) -> float:
        """Match points: 1 for more games won than the opponent, 1/2 for as many, 0."""
        other = self.b if bot == self.a else self.a
        mine, theirs = self.wins(bot), self.wins(other)
        return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def pairing_results(t: Tournament) -> dict[int, list[PairingResult]]:
    """Round number -> its pairings (in the order they were written)."""
    seats = (
        Participation.objects.filter(league_id=t.league_id)
        .values_list(
            "match_id", "match__round__number", "match__pair_index", "match__mirror",
            "match__status", "match__winner_team", "match__end_reason", "team", "bot_id",
            "match__pairing_key",
        )
        .order_by("match_id", "seat")
    )  # fmt: skip
    by_match: dict[int, dict[str, object]] = {}
    for mid, number, pair_index, _mirror, status, winner_team, reason, team, bot, key in seats:
        m = by_match.setdefault(
            mid,
            {"number": number, "status": status, "winner_team": winner_team,
             "reason": reason, "teams": {}, "key": key, "pair": pair_index},
        )  # fmt: skip
        m["teams"][team] = bot  # type: ignore[index]
    rounds: dict[int, dict[str, PairingResult]] = defaultdict(dict)
    for mid in sorted(by_match):
        m = by_match[mid]
        teams: dict[int, int] = m["teams"]  # type: ignore[assignment]
        number, key = int(m["number"]), str(m["key"])  # type: ignore[call-overload]
        pr = rounds[number].get(key)
        if pr is None:
            # the first game (mirror 0) seats the pairing's first-listed bot as team A
            pr = rounds[number][key] = PairingResult(number, teams[0], teams[1])
        finished = m["status"] == MatchStatus.FINISHED and m["winner_team"] is not None
        pr.games.append(
            Game(
                mid,
                str(m["status"]),
                teams[int(m["winner_team"])] if finished else None,  # type: ignore[call-overload]
                finished and m["reason"] == MatchEndReason.FORFEIT,
                int(m["pair"]),  # type: ignore[call-overload]
            )
        )
    return {n: list(prs.values()) for n, prs in sorted(rounds.items())}


def byes(t: Tournament) -> dict[int, list[int]]:
    """Round number -> bots that had a bye in it."""
    out: dict[int, list[int]] = defaultdict(list)
    for number, bot in Bye.objects.filter(tournament=t).values_list("round_number", "bot_id"):
        out[number].append(bot)
    return dict(out)


def seeds(t: Tournament) -> dict[int, Entrant]:
    """Bot id -> its entrant row (seed, rating at the start)."""
    return {
        e.bot_id: e
        for e in Entrant.objects.filter(tournament=t).select_related("bot").order_by("seed")
    }


# ------------------------------------------------------------------ Swiss / round robin


@dataclass
class Standing:
    bot_id: int
    name: str
    seed: int
    rating: Decimal | None
    score: float = 0.0
    buchholz: float = 0.0
    median_buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    games_won: int = 0
    games: int = 0
    byes: int = 0
    opponents: list[int] = field(default_factory=list)
    rank: int = 0


def table(t: Tournament) -> list[Standing]:
    """The Swiss / round-robin table: score (match points; a Swiss bye is a point), then
    Buchholz (the opponents' scores), median-Buchholz (without the best and worst of
    them), Sonneborn-Berger (the scores of the opponents beaten, half of those tied),
    games won, seed. Pairings still being played count only their finished games' points
    once the pairing is over."""
    entrants = seeds(t)
    rows = {
        bot: Standing(bot, e.bot.name, e.seed or 0, e.seed_rating) for bot, e in entrants.items()
    }
    results = [pr for prs in pairing_results(t).values() for pr in prs]
    for bots in byes(t).values():
        for bot in bots:
            if bot in rows:
                rows[bot].byes += 1
                if t.format == TournamentFormat.SWISS:
                    rows[bot].score += 1.0
    done = [pr for pr in results if pr.over]
    for pr in results:
        for bot in (pr.a, pr.b):
            rows[bot].games_won += pr.shown_wins(bot)
            rows[bot].games += sum(1 for g in pr.games if g.winner and pr.released(g))
    for pr in done:
        for bot, other in ((pr.a, pr.b), (pr.b, pr.a)):
            rows[bot].score += pr.points(bot)
            rows[bot].opponents.append(other)
    for row in rows.values():
        theirs = sorted(rows[o].score for o in row.opponents)
        row.buchholz = sum(theirs)
        row.median_buchholz = sum(theirs[1:-1]) if len(theirs) > 2 else 0.0
    for pr in done:
        for bot, other in ((pr.a, pr.b), (pr.b, pr.a)):
            rows[bot].sonneborn_berger += pr.points(bot) * rows[other].score
    ordered = sorted(
        rows.values(),
        key=lambda r: (
            -r.score, -r.buchholz, -r.median_buchholz, -r.sonneborn_berger, -r.games_won,
            r.seed,
        ),
    )  # fmt: skip
    for i, row in enumerate(ordered, 1):
        row.rank = i
    return ordered


# ------------------------------------------------------------------ knockout


#: the knockout tie-break, as the page states it
KNOCKOUT_TIE_BREAK = (
    "more games won; if level, more games won over the board (not by the opponent's "
    "forfeit); if still level, the better seed goes through"
)


@dataclass
class Tie:
    round_number: int
    a: int | None  # the better seed (None: not known yet)
    b: int | None  # None in round 1: a bye
    result: PairingResult | None = None
    winner: int | None = None
    #: why the winner won: "bye", "games", "over the board", "seed"
    decided_by: str = ""


def tie_winner(pr: PairingResult, seed: dict[int, int]) -> tuple[int, str] | None:
    """The winner of a tie whose games are over, by ``KNOCKOUT_TIE_BREAK``."""
    if not pr.over:
        return None
    a, b = pr.a, pr.b
    if pr.wins(a) != pr.wins(b):
        return (a if pr.wins(a) > pr.wins(b) else b), "games"
    if pr.clean_wins(a) != pr.clean_wins(b):
        return (a if pr.clean_wins(a) > pr.clean_wins(b) else b), "over the board"
    return (a if seed[a] < seed[b] else b), "seed"


def bracket(t: Tournament) -> list[list[Tie]]:
    """Every round of the knockout, ties in bracket order, filled in as far as played."""
    entrants = seeds(t)
    seeded = [bot for bot, _ in sorted(entrants.items(), key=lambda kv: kv[1].seed or 0)]
    seed = {bot: e.seed or 0 for bot, e in entrants.items()}
    if len(seeded) < 2:
        return []
    played = pairing_results(t)
    found = {number: {frozenset((pr.a, pr.b)): pr for pr in prs} for number, prs in played.items()}
    out: list[list[Tie]] = []
    sides: list[tuple[int | None, int | None]] = list(first_round(seeded))
    for number in range(1, knockout_rounds(len(seeded)) + 1):
        ties = []
        for a, b in sides:
            tie = Tie(number, a, b)
            if a is not None and b is None and number == 1:
                tie.winner, tie.decided_by = a, "bye"
            elif a is not None and b is not None:
                pr = found.get(number, {}).get(frozenset((a, b)))
                tie.result = pr
                won = None if pr is None else tie_winner(pr, seed)
                if won is not None:
                    tie.winner, tie.decided_by = won
            ties.append(tie)
        out.append(ties)
        if len(ties) == 1:
            break  # the final
        winners = [tie.winner for tie in ties]
        sides = [
            (_better(x, y, seed), _worse(x, y, seed))
            for x, y in zip(winners[0::2], winners[1::2], strict=True)
        ]
    return out


def _better(x: int | None, y: int | None, seed: dict[int, int]) -> int | None:
    if x is None or y is None:
        return x if y is None else y if x is None else None
    return x if seed[x] < seed[y] else y


def _worse(x: int | None, y: int | None, seed: dict[int, int]) -> int | None:
    if x is None or y is None:
        return None
    return y if seed[x] < seed[y] else x


__all__ = [
    "KNOCKOUT_TIE_BREAK", "Game", "PairingResult", "Standing", "Tie", "bracket",
    "bracket_size", "byes", "next_ties", "pairing_results", "seeds", "table", "tie_winner",
]  # fmt: skip
