"""Head to head: two bots' games against each other in one league, and the record."""

from __future__ import annotations

from dataclasses import dataclass

from arena.models import Bot, League, Match, MatchStatus, Participation
from leaderboard.reads.matches import seats_prefetch

#: games listed on the page (the record counts all of them)
MAX_GAMES = 200


@dataclass(frozen=True)
class HeadToHead:
    league: League
    bot: Bot
    opponent: Bot
    wins: int
    losses: int
    matches: list[Match]

    @property
    def games(self) -> int:
        return self.wins + self.losses


def head_to_head(league: League, bot: Bot, opponent: Bot) -> HeadToHead:
    """The finished games where ``bot`` and ``opponent`` sat on opposite teams: the same
    pairs the crosstable counts (a winner's seat and a loser's seat of one match)."""
    mine = Participation.objects.filter(
        league=league, bot=bot, match__status=MatchStatus.FINISHED,
        match__participations__bot=opponent,
    )  # fmt: skip
    results: dict[int, bool | None] = {}
    for match_id, team, won, other_team in mine.values_list(
        "match_id", "team", "won", "match__participations__team"
    ):
        if other_team != team:
            results[match_id] = won
    wins = sum(1 for w in results.values() if w is True)
    losses = sum(1 for w in results.values() if w is False)
    matches = list(
        Match.objects.filter(pk__in=sorted(results, reverse=True)[:MAX_GAMES])
        .select_related("league", "round")
        .prefetch_related(seats_prefetch())
        .order_by("-id")
    )
    return HeadToHead(league, bot, opponent, wins, losses, matches)
