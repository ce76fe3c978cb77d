"""The standings as the site shows them: per (league, bot), the games, wins, losses,
forfeits and live rating of the results that are out, kept on the ``LiveRating`` row
(``shown_*``) in each result's own transaction, never recomputed from history on a page.

A result is out when its match is finished and, if it is a game of a mirrored pair (the
other game dealt from the same seed), that other game is over too: until then the site
withholds it (``leaderboard.replays``), and a standings row that moved would tell who
won. So a result updates the shown columns

* with its own seats, unless its mirrored partner is still queued or running;
* and, when its mirrored partner finished earlier (withheld until now), with the
  partner's seats too: also when this match ends void.

The pair's rows are locked in id order before either game's result is written
(``lock_pair``), so of two games of a pair finishing at once the second waits for the
first and sees it over: exactly one of them releases the first's result.

The head-to-head records the crosstable and the bot pages show (``HeadToHead``,
``arena.ratings.headtohead``) move with the shown columns, from the same seats, in the
same transaction. ``recompute_standings`` rebuilds both from the participations by the
same rule (``league recompute-standings NAME [--fix]``).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from arena.models import DealMode, League, Match, MatchEndReason, MatchStatus, Participation
from arena.ratings import headtohead
from arena.ratings.models import START_RATING, LiveRating
from arena.ratings.reports import CheckReport

logger = logging.getLogger(__name__)

OVER = (MatchStatus.FINISHED, MatchStatus.VOID)
LIVE = (MatchStatus.QUEUED, MatchStatus.RUNNING)
SHOWN_FIELDS = ["shown_rating", "shown_games", "shown_wins", "shown_losses", "shown_forfeits"]


@dataclass
class Tally:
    rating: Decimal = START_RATING
    games: int = 0
    wins: int = 0
    losses: int = 0
    forfeits: int = 0

    def add(self, p: Participation, end_reason: str) -> None:
        self.rating += p.rating_change or Decimal(0)
        self.games += 1
        if p.won:
            self.wins += 1
        else:
            self.losses += 1
            if p.fault_cause and end_reason == MatchEndReason.FORFEIT:
                self.forfeits += 1

    def as_tuple(self) -> tuple[Decimal, int, int, int, int]:
        return (self.rating, self.games, self.wins, self.losses, self.forfeits)


def add_shown(row: LiveRating, p: Participation, end_reason: str) -> None:
    """Add one released seat to its bot's row (locked by the caller)."""
    t = Tally(row.shown_rating, row.shown_games, row.shown_wins, row.shown_losses,
              row.shown_forfeits)  # fmt: skip
    t.add(p, end_reason)
    (row.shown_rating, row.shown_games, row.shown_wins, row.shown_losses,
     row.shown_forfeits) = t.as_tuple()  # fmt: skip


def lock_pair(match: Match, league: League) -> Match | None:
    """In a result's transaction, before the match's own row is written: lock the match
    and its mirrored partner in id order, and return the partner (its status as now
    committed), or None when the league deals independently (no game shares a deal)."""
    if league.deals != DealMode.MIRRORED:
        return None
    pair = list(
        match.same_deal().select_for_update().order_by("id").only("id", "status", "end_reason")
    )
    return next((m for m in pair if m.pk != match.pk), None)


def released(final: bool, partner: Match | None) -> tuple[bool, bool]:
    """(whether this match's result is out now, whether its partner's is), for a match
    ending now (``final``: with a result, else void)."""
    mine = final and (partner is None or partner.status in OVER)
    theirs = partner is not None and partner.status == MatchStatus.FINISHED
    return mine, theirs


def partner_seats(partner: Match) -> list[Participation]:
    return list(Participation.objects.filter(match_id=partner.pk).order_by("seat"))


def do_release_partner(league: League, partner: Match) -> None:
    """For a match ending void (no rating rows of its own to write): release its finished
    partner's result. Locks the bots' rating rows by id, in the caller's transaction.
    Their ``updated_at`` moves too (``bulk_update`` does not apply ``auto_now``): the
    pages' versions read it, and a standings page cached while the game was withheld
    must not stay as it was."""
    seats = partner_seats(partner)
    rows = {
        r.bot_id: r
        for r in LiveRating.objects.select_for_update()
        .filter(league=league, bot_id__in={p.bot_id for p in seats})
        .order_by("id")
    }
    now = timezone.now()
    for p in seats:
        if p.bot_id in rows:
            add_shown(rows[p.bot_id], p, partner.end_reason)
            rows[p.bot_id].updated_at = now
    LiveRating.objects.bulk_update(list(rows.values()), [*SHOWN_FIELDS, "updated_at"])
    headtohead.do_add(seats)


# ------------------------------------------------------------------ the recompute


@dataclass
class StandingsReport(CheckReport):
    released: int = 0
    withheld: int = 0

    def counts(self) -> dict[str, object]:
        return {"released": self.released, "withheld": self.withheld}


def withheld_matches(league: League) -> set[int]:
    """The league's finished matches whose mirrored partner is not over."""
    games = Match.objects.filter(league=league).values_list(
        "id", "status", "round_id", "pairing_key", "pair_index", "deck_seed"
    )
    by_deal: dict[tuple[object, ...], list[tuple[int, str]]] = defaultdict(list)
    for pk, status, *deal in games:
        by_deal[tuple(deal)].append((pk, status))
    out = set()
    for members in by_deal.values():
        for pk, status in members:
            if status == MatchStatus.FINISHED and any(
                s in LIVE for other, s in members if other != pk
            ):
                out.add(pk)
    return out


def recompute_standings(
    league_id: int, *, fix: bool = False, expected: bool = False
) -> StandingsReport:
    """Every released result of the league from the participations, compared with the
    shown columns and the head-to-head rows (holding the league's rating rows locked);
    ``fix`` writes the recomputed values where they differ."""
    league = League.objects.get(pk=league_id)
    report = StandingsReport(league.name)
    with transaction.atomic():
        rows = {
            r.bot_id: r
            for r in LiveRating.objects.select_for_update().filter(league=league).order_by("id")
        }
        hidden = withheld_matches(league)
        tallies: dict[int, Tally] = defaultdict(Tally)
        reasons = dict(
            Match.objects.filter(league=league, status=MatchStatus.FINISHED).values_list(
                "id", "end_reason"
            )
        )
        report.withheld = len(hidden)
        report.released = len(reasons) - len(hidden & reasons.keys())
        seats: Iterable[Participation] = Participation.objects.filter(
            league=league, match__status=MatchStatus.FINISHED
        ).order_by("match_id", "seat")
        out: list[Participation] = []
        for p in seats:
            if p.match_id not in hidden:
                tallies[p.bot_id].add(p, reasons[p.match_id])
                out.append(p)
        changed = []
        for bot_id, row in rows.items():
            want = tallies[bot_id].as_tuple()
            have = tuple(getattr(row, f) for f in SHOWN_FIELDS)
            if have != want:
                report.mismatches.append(
                    f"bot {bot_id}: shown rating/games/wins/losses/forfeits "
                    f"{'/'.join(map(str, have))}, recomputed {'/'.join(map(str, want))}"
                )
                for f, v in zip(SHOWN_FIELDS, want, strict=True):
                    setattr(row, f, v)
                changed.append(row)
        pairs = headtohead.tallies(out)
        pair_diff = headtohead.differences(headtohead.stored(league.pk), pairs)
        report.mismatches += pair_diff
        if fix and changed:
            LiveRating.objects.bulk_update(changed, SHOWN_FIELDS)
            report.fixed = True
        if fix and pair_diff:
            headtohead.replace(league.pk, pairs)
            report.fixed = True
    if report.mismatches:
        # expected: the caller changed the history on purpose (an operator's re-run)
        (logger.info if expected else logger.error)(
            "league %s: %d standings rows differ from a recompute%s",
            league.name, len(report.mismatches), " (fixed)" if fix else "",
        )  # fmt: skip
    return report
