"""Reading challenges: their state and score from their round's matches, a user's sent and
received ones, the challenge a match belongs to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.db.models import Q

from arena.challenges.models import Challenge, ChallengeKind, ChallengeLeague
from arena.models import Match, MatchStatus, Participation

if TYPE_CHECKING:
    from arena.services.owned_bots import User

RELATED = ("bot", "opponent", "requester", "league", "code_version")


@dataclass
class GameRow:
    match_id: int
    status: str
    #: True: the requester's bot won; None: not over (or void)
    bot_won: bool | None


@dataclass
class ChallengeState:
    challenge: Challenge
    games: list[GameRow] = field(default_factory=list)

    @property
    def bot_wins(self) -> int:
        return sum(g.bot_won is True for g in self.games)

    @property
    def opponent_wins(self) -> int:
        return sum(g.bot_won is False for g in self.games)

    @property
    def over(self) -> bool:
        return all(g.status in (MatchStatus.FINISHED, MatchStatus.VOID) for g in self.games)

    @property
    def live(self) -> GameRow | None:
        """The game being played, else the next one to play (the one to watch)."""
        for status in (MatchStatus.RUNNING, MatchStatus.QUEUED):
            for g in self.games:
                if g.status == status:
                    return g
        return None

    @property
    def status(self) -> str:
        if self.over:
            return "finished"
        return "playing" if any(g.status == MatchStatus.RUNNING for g in self.games) else "queued"

    @property
    def winner(self) -> str | None:
        """The bot that took the best-of-N (more games won), once it is over."""
        if not self.over or self.bot_wins == self.opponent_wins:
            return None
        c = self.challenge
        return c.bot.name if self.bot_wins > self.opponent_wins else c.opponent.name


def states(challenges: Sequence[Challenge]) -> list[ChallengeState]:
    """Each challenge with its games (two statements for all of them)."""
    by_round = {c.round_id: ChallengeState(c) for c in challenges}
    if not by_round:
        return []
    bots = {c.round_id: c.bot_id for c in challenges}
    matches = list(
        Match.objects.filter(round_id__in=list(by_round))
        .order_by("id")
        .values_list("id", "round_id", "status")
    )
    round_of = {m[0]: m[1] for m in matches}
    seats: dict[int, bool | None] = {}
    for match_id, bot_id, won in Participation.objects.filter(
        match_id__in=list(round_of)
    ).values_list("match_id", "bot_id", "won"):
        if bot_id == bots[round_of[match_id]]:
            seats[match_id] = won
    for match_id, round_id, status in matches:
        by_round[round_id].games.append(GameRow(match_id, status, seats.get(match_id)))
    return [by_round[c.round_id] for c in challenges]


def state(challenge: Challenge) -> ChallengeState:
    return states([challenge])[0]


def sent_and_received(user: User, limit: int = 50) -> list[Challenge]:
    """The user's challenges, sent (theirs) and received (against their bots), newest first."""
    return list(
        Challenge.objects.select_related(*RELATED)
        .filter(
            Q(requester_id=user.pk) | Q(opponent__owner_id=user.pk), kind=ChallengeKind.CHALLENGE
        )
        .order_by("-created_at", "-id")[:limit]
    )


def sparring_of(bot_id: int, limit: int = 30) -> list[Challenge]:
    return list(
        Challenge.objects.select_related(*RELATED)
        .filter(bot_id=bot_id, kind=ChallengeKind.SPARRING)
        .order_by("-created_at", "-id")[:limit]
    )


def of_match(match_id: int) -> Challenge | None:
    return Challenge.objects.select_related(*RELATED).filter(round__matches__id=match_id).first()


#: league id or slug -> whether it is a challenge league: a league is made one in the
#: transaction that creates it and never stops being one, so each is asked once per process
_hidden: dict[int | str, bool] = {}


def is_challenge_league(key: int | str) -> bool:
    """Whether the league of this id (or slug) is a challenge league (asked of the
    database once per league and process: match rows ask it for every row they render)."""
    found = _hidden.get(key)
    if found is None:
        field = "league_id" if isinstance(key, int) else "league__slug"
        found = ChallengeLeague.objects.filter(**{field: key}).exists()
        _hidden[key] = found
    return found


def payload(challenge: Challenge, st: ChallengeState | None = None) -> dict[str, object]:
    """A challenge as the API (and the notification) shows it."""
    st = st or state(challenge)
    live = st.live
    return {
        "id": challenge.pk,
        "kind": challenge.kind,
        "requester": challenge.requester.get_username(),
        "bot": challenge.bot.name,
        "opponent": challenge.opponent.name,
        "games": challenge.games,
        "mode": challenge.league.mode,
        "rated": False,
        "status": st.status,
        "score": [st.bot_wins, st.opponent_wins],
        "winner": st.winner,
        "matches": [{"id": g.match_id, "status": g.status, "bot_won": g.bot_won} for g in st.games],
        "watch": None if live is None else f"/matches/{live.match_id}/",
        "version": challenge.code_version.number if challenge.code_version else None,
        "created_at": challenge.created_at.isoformat(),
    }
