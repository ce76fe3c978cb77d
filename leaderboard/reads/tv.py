"""TV (issue 26 §5): which match being played is the one to show, for the whole arena or
for one bot ("follow this bot").

The rule (``RULE``, stated on the pages and in the API's answer), over the matches being
played now (status ``running``: a queued match has not started):

1. a **watchable** match first: one whose moves a spectator can follow. A game of a
   mirrored pair whose other game (same deck) is not over shows only its deal until that
   one ends (``leaderboard.replays.live_payload``), so it comes after every watchable one;
2. then the **highest mean rating** of its bots: each bot's Elo in the match's league as
   the standings show it (``LiveRating.shown_rating``; 1500 before its first rated game);
3. then the **closest** game: the smallest gap between the two teams' mean ratings;
4. then the **most recently started** (then the highest id).

Only public facts go in: the shown ratings and whether a match's pair partner is over
(the match lists show both), never anything about a game's cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from arena.models import Bot, Match, MatchStatus, Participation
from arena.ratings.models import START_RATING, LiveRating
from arena.services import gamedb
from leaderboard.reads.matches import seats_prefetch
from leaderboard.replays import withhold

RULE = (
    "TV shows a match being played now: one whose moves can be watched first (a game of "
    "a mirrored pair shows only its deal while the other game of the pair, which uses the "
    "same deck, is not over), then the highest mean rating of its bots (their Elo in the "
    "match's league as the standings show it), then the closest ratings (the smallest gap "
    "between the teams), then the most recently started."
)
#: at most this many running matches are considered (the newest): far more than the
#: workers play at once
CONSIDERED = 200
#: the API lists the first this many candidates, in the rule's order
LISTED = 20


@dataclass(frozen=True)
class Candidate:
    match_id: int
    league: str
    #: bot names by seat, and their teams (0 = A)
    bots: tuple[str, ...]
    teams: tuple[int, ...]
    ratings: tuple[float, ...]
    watchable: bool
    mean_rating: float
    gap: float
    started_at: datetime | None

    def key(self) -> tuple[bool, float, float, float, int]:
        """Sorts the most interesting first."""
        started = self.started_at.timestamp() if self.started_at else 0.0
        return (not self.watchable, -self.mean_rating, self.gap, -started, -self.match_id)

    def reason(self) -> str:
        """Why this one, in words."""
        names = " vs ".join(
            " & ".join(f"{b} ({r:.0f})" for b, t, r in zip(self.bots, self.teams, self.ratings,
                                                           strict=True) if t == team)
            for team in (0, 1)
        )  # fmt: skip
        watch = (
            "its moves can be watched"
            if self.watchable
            else "only its deal can be shown until the other game of its mirrored pair is "
            "over (no match being played can be watched now)"
        )
        return (
            f"{names} in {self.league}: mean rating {self.mean_rating:.0f}, "
            f"{self.gap:.0f} between the teams; {watch}"
        )


def candidates(bot: Bot | None = None) -> list[Candidate]:
    """The matches being played (``bot``'s only, if given), most interesting first."""
    rows = Match.objects.filter(status=MatchStatus.RUNNING)
    if bot is not None:
        rows = rows.filter(pk__in=Participation.objects.filter(bot=bot).values("match_id"))
    matches = list(
        rows.annotate(busy=gamedb.partner_busy(via=""))
        .select_related("league")
        .prefetch_related(seats_prefetch())
        .order_by("-started_at", "-id")[:CONSIDERED]
    )
    seats = [(m, p) for m in matches for p in m.participations.all()]
    shown: dict[tuple[int, int], Decimal] = {
        (league, b): rating
        for league, b, rating in LiveRating.objects.filter(
            league_id__in={m.league_id for m in matches},
            bot_id__in={p.bot_id for _, p in seats},
        ).values_list("league_id", "bot_id", "shown_rating")
    }
    out = []
    for m in matches:
        parts = list(m.participations.all())
        if not parts:
            continue
        ratings = tuple(float(shown.get((m.league_id, p.bot_id), START_RATING)) for p in parts)
        teams = tuple(p.team for p in parts)
        means = [
            sum(r for r, t in zip(ratings, teams, strict=True) if t == team)
            / max(1, teams.count(team))
            for team in (0, 1)
        ]
        out.append(
            Candidate(
                match_id=m.pk,
                league=m.league.name,
                bots=tuple(p.bot.name for p in parts),
                teams=teams,
                ratings=ratings,
                watchable=not m.busy,  # type: ignore[attr-defined]
                mean_rating=sum(ratings) / len(ratings),
                gap=abs(means[0] - means[1]),
                started_at=m.started_at,
            )
        )
    return sorted(out, key=Candidate.key)


def choose(bot: Bot | None = None) -> Candidate | None:
    """The match TV shows now (``bot``'s, following it), or None: nothing is being played."""
    found = candidates(bot)
    return found[0] if found else None


def recent_finished(bot: Bot | None = None, limit: int = 10) -> list[Match]:
    """The latest finished matches (``bot``'s), for the page with nothing live; with their
    seats, results withheld where a mirrored partner is still being played."""
    rows = Match.objects.filter(status=MatchStatus.FINISHED)
    if bot is not None:
        rows = rows.filter(pk__in=Participation.objects.filter(bot=bot).values("match_id"))
    found = list(
        rows.select_related("league", "round")
        .prefetch_related(seats_prefetch())
        .order_by("-finished_at", "-id")[:limit]
    )
    withhold(found)
    return found
