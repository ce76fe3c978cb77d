"""Starting a tournament and moving it on: each round is written when every round before
it is over, by whoever sees that first.

Exactly once: ``do_advance`` locks the tournament row, then looks; a second caller (two
workers whose results completed rounds at once, the beat task, a re-delivered message)
waits on the lock and then finds the new round playing, and does nothing. The unique
constraints of the league machinery (a round's number, a match's place in it) back that
up. Three callers: the hook after every committed result (``after_result``: in the
worker that wrote the result that completed the round), the beat entry
``ADVANCE_TASK_NAME`` every ``ADVANCE_EVERY_S`` (a worker that died between a result's
commit and its hook), and, in one process (embedded mode, ``tournament play``), the loop
that plays the event.

A round's matches are the league machinery's own (queued, claimed, leased, their result
written once, rated if the event is); each pairing plays ``games_per_pairing`` games,
teams swapped every other game, each two on one deal when the deals are mirrored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from arena.beat import ensure_interval_entry
from arena.dispatch import dispatcher, enqueue_round
from arena.events import results
from arena.events.models import Bye, Entrant, Tournament, TournamentFormat, TournamentStatus
from arena.events.pairing import (
    PairingError,
    SwissPlayer,
    first_round,
    round_robin_bye,
    round_robin_rounds,
    swiss_round,
)
from arena.events.services import EventError, check_draft, planned_rounds
from arena.models import (
    DealMode,
    Entry,
    League,
    LeagueStatus,
    Match,
    Round,
    RoundStatus,
)
from arena.ratings.models import START_RATING, LiveRating
from arena.scheduling import Pairing, ScheduledGame, pair_games
from arena.services import leagues as league_services
from arena.services.errors import LeagueError
from arena.services.result_hooks import ResultCommitted
from arena.services.rounds import write_games

logger = logging.getLogger(__name__)

ADVANCE_TASK = "arena.advance_tournaments"
ADVANCE_TASK_NAME = "arena: advance tournaments"
ADVANCE_EVERY_S = 10


@dataclass(frozen=True)
class Advanced:
    """What a call did: ``round`` written (its number), or the event ``finished``, or
    nothing (``waiting``: a round is still being played; the reason)."""

    round: int | None = None
    matches: tuple[int, ...] = ()
    finished: bool = False
    waiting: str = ""


# ------------------------------------------------------------------ start


def do_start(t: Tournament, *, enqueue: bool = True) -> Advanced:
    """Seed the entrants, enter them in the event's league, write round 1. Locks the
    tournament row (a second start finds it running and is refused)."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().select_related("league").get(pk=t.pk)
        check_draft(t)
        entrants = list(Entrant.objects.filter(tournament=t).select_related("bot"))
        if len(entrants) < 2:
            raise EventError(f"tournament {t.name} has {len(entrants)} entrants; it needs 2")
        rating = {}
        if t.seed_league_id is not None:
            rating = dict(
                LiveRating.objects.filter(league_id=t.seed_league_id).values_list(
                    "bot_id", "rating"
                )
            )
        if t.seed_league_id is not None:
            entrants.sort(key=lambda e: (-rating.get(e.bot_id, START_RATING), e.listed))
        else:
            entrants.sort(key=lambda e: e.listed)
        for i, e in enumerate(entrants, 1):
            e.seed = i
            e.seed_rating = rating.get(e.bot_id, START_RATING) if t.seed_league_id else None
        Entrant.objects.bulk_update(entrants, ["seed", "seed_rating"])
        league = t.league
        # open for the entrants alone, inside this transaction: nobody else sees it open
        league.open_for_entries = True
        try:
            for e in entrants:
                league_services.do_enter(league, e.bot)
        except LeagueError as exc:
            raise EventError(f"tournament {t.name} cannot start: {exc}") from None
        league.open_for_entries = False
        Tournament.objects.filter(pk=t.pk).update(
            status=TournamentStatus.RUNNING, started_at=timezone.now()
        )
        t.status = TournamentStatus.RUNNING
        ensure_beat()
        return _next_round(t, 1, enqueue=enqueue)


def ensure_beat() -> PeriodicTask:
    """The beat entry that moves running events on when a hook was missed (idempotent)."""
    return ensure_interval_entry(ADVANCE_TASK_NAME, ADVANCE_TASK, ADVANCE_EVERY_S)


# ------------------------------------------------------------------ advance


def do_advance(tournament_id: int, *, enqueue: bool = True) -> Advanced:
    """Write the next round if every round so far is over, or finish the event after its
    last. Locks the tournament row first (see the module doc)."""
    with transaction.atomic():
        t = Tournament.objects.select_for_update().select_related("league").get(pk=tournament_id)
        if t.status != TournamentStatus.RUNNING:
            return Advanced(waiting=f"tournament {t.name} is {t.status}")
        open_rounds = Round.objects.filter(league=t.league).exclude(status=RoundStatus.COMPLETE)
        if open_rounds.exists():
            return Advanced(waiting="a round is still being played")
        played = Round.objects.filter(league=t.league).aggregate(n=Max("number"))["n"] or 0
        if played >= planned_rounds(t, Entrant.objects.filter(tournament=t).count()):
            return _finish(t)
        return _next_round(t, played + 1, enqueue=enqueue)


def do_advance_all(*, enqueue: bool = True) -> dict[str, str]:
    """Every running event moved on where it can (the beat task)."""
    out = {}
    for pk, slug in Tournament.objects.filter(status=TournamentStatus.RUNNING).values_list(
        "pk", "slug"
    ):
        done = do_advance(pk, enqueue=enqueue)
        out[slug] = (
            "finished" if done.finished
            else f"round {done.round}" if done.round else done.waiting
        )  # fmt: skip
    return out


def after_result(event: ResultCommitted) -> None:
    """The result hook: a result of an event's league may have completed its round.
    In one process (embedded mode) the loop that plays the event advances it instead: a
    round written here would be played inside this hook, and the next inside that."""
    if getattr(dispatcher(), "in_process", False):
        return
    pk = (
        Tournament.objects.filter(league_id=event.league.pk, status=TournamentStatus.RUNNING)
        .values_list("pk", flat=True)
        .first()
    )
    if pk is not None:
        do_advance(pk)


def rerun_refusal(league: League, match: Match) -> str | None:
    """The re-run guard: an event that is over keeps its result; a knockout tie whose
    winner has moved on to the next round is not played again."""
    t = Tournament.objects.filter(league=league).first()
    if t is None:
        return None
    if t.status == TournamentStatus.FINISHED:
        return f"match {match.pk} is of tournament {t.name}, which is over: its results stand"
    if t.format == TournamentFormat.KNOCKOUT:
        number = Round.objects.values_list("number", flat=True).get(pk=match.round_id)
        if Round.objects.filter(league=league, number__gt=number).exists():
            return (
                f"match {match.pk} is of round {number} of knockout {t.name}, whose bracket "
                f"has moved on to round {number + 1} with this tie's winner: it cannot be "
                "played again"
            )
    return None


# ------------------------------------------------------------------ rounds


def _finish(t: Tournament) -> Advanced:
    if t.format == TournamentFormat.KNOCKOUT:
        final = results.bracket(t)[-1][0]
        winner = final.winner
    else:
        winner = results.table(t)[0].bot_id
    Tournament.objects.filter(pk=t.pk).update(
        status=TournamentStatus.FINISHED, finished_at=timezone.now(), winner_id=winner
    )
    League.objects.filter(pk=t.league_id).update(status=LeagueStatus.FINISHED)
    logger.info("tournament %s: finished", t.name)
    return Advanced(finished=True)


def _next_round(t: Tournament, number: int, *, enqueue: bool) -> Advanced:
    """Round ``number``'s pairings by the event's format, written (caller: the row locked)."""
    entrants = list(Entrant.objects.filter(tournament=t).order_by("seed"))
    seeded = [e.bot_id for e in entrants]
    byes: list[int] = []
    if t.format == TournamentFormat.KNOCKOUT:
        if number == 1:
            ties = first_round(seeded)
            pairs = [(a, b) for a, b in ties if b is not None]
            byes = [a for a, b in ties if b is None]
        else:
            previous = results.bracket(t)[number - 1]
            pairs = [(tie.a, tie.b) for tie in previous if tie.a and tie.b]  # type: ignore[misc]
    elif t.format == TournamentFormat.ROUND_ROBIN:
        pairs = round_robin_rounds(seeded)[number - 1]
        bye = round_robin_bye(seeded, pairs)
        byes = [] if bye is None else [bye]
    else:
        table = {row.bot_id: row for row in results.table(t)}
        had = {b for bots in results.byes(t).values() for b in bots}
        played = {
            frozenset((pr.a, pr.b)) for prs in results.pairing_results(t).values() for pr in prs
        }
        rating = {e.bot_id: float(e.seed_rating or 0) - e.seed / 1000 for e in entrants}  # type: ignore[operator]
        try:
            drawn = swiss_round(
                [SwissPlayer(b, table[b].score, rating[b], b in had) for b in seeded], played
            )
        except PairingError as exc:
            raise EventError(f"tournament {t.name}, round {number}: {exc}") from None
        pairs, byes = drawn.pairs, [] if drawn.bye is None else [drawn.bye]
    ids = _write_round(t, number, pairs, enqueue=enqueue)
    Bye.objects.bulk_create([Bye(tournament=t, round_number=number, bot_id=b) for b in byes])
    logger.info("tournament %s: round %d, %d pairings, byes %s", t.name, number, len(pairs), byes)
    return Advanced(round=number, matches=tuple(ids))


def _write_round(
    t: Tournament, number: int, pairs: list[tuple[int, int]], *, enqueue: bool
) -> list[int]:
    """The round's matches and seats, written as a league's (``rounds.write_games``)."""
    league = t.league
    entries = {e.bot_id: e for e in Entry.objects.filter(league=league).select_related("bot")}
    rnd = Round.objects.create(league=league, number=number)
    mirrored = league.deals == DealMode.MIRRORED
    g = t.games_per_pairing
    games: list[ScheduledGame] = []
    for index, (a, b) in enumerate(pairs):
        pairing = Pairing(0, index, (entries[a].pk,), (entries[b].pk,))
        mine = [
            game
            for k in range((g + 1) // 2)
            for game in pair_games(pairing, mirrored=mirrored, pair_index=k)
        ]
        games.extend(mine[:g])
    # as a league's round: the first games of every pairing, then the second ones, so a
    # bot is not asked for two games of its pairing at once
    games.sort(key=lambda x: (x.pair_index, x.mirror, x.pairing.index))
    by_entry = {e.pk: e for e in entries.values()}
    matches, _ = write_games(league, rnd, games, by_entry, enqueue=enqueue)
    ids = [m.pk for m in matches]
    if enqueue:
        enqueue_round(ids, house_only=league_services.house_only(entries.values()))
    return ids
