"""Rounds: scheduling them (idempotent), finding the due ones, reaping lost matches.

Every function that writes says what it locks. Work is handed over through the dispatch
port (``arena.dispatch``), on commit.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from arena.deals import new_seed
from arena.dispatch import dispatcher, enqueue_match, enqueue_round
from arena.matchmaking import slots
from arena.models import (
    DealMode,
    Entry,
    League,
    LeagueFormat,
    Match,
    MatchStatus,
    Participation,
    Round,
    RoundStatus,
)
from arena.scheduling import (
    Pairing,
    ScheduledGame,
    division_groups,
    division_pairings,
    meetings,
    pair_games,
)
from arena.services.completion import do_complete_round_if_done
from arena.services.leagues import LeagueError, check_can_schedule, house_only
from arena.services.matchmade import OnBatch, do_write_round, outside_pairs

logger = logging.getLogger(__name__)


# ------------------------------------------------------------------ scheduling

#: checks that may refuse a league's next round (raising ``LeagueError``), run with the
#: league row locked; apps add theirs when Django starts (``arena.seasons``: a season
#: whose rounds are all made waits for its end before the next one)
round_guards: list[Callable[[League], None]] = []

#: work before a league's round is scheduled, outside its transaction; apps add theirs when
#: Django starts (``arena.seasons``: newcomers that have their provisional games are
#: placed in a division, so the round pairs them there)
before_round: list[Callable[[League], None]] = []


def _history(league: League) -> dict[frozenset[int], int]:
    """How often two entries met in the league (team leagues balance partners with it)."""
    teams: dict[int, tuple[list[int], list[int]]] = {}
    rows = Participation.objects.filter(
        match__league=league, match__mirror=0, match__pair_index=0
    ).values_list("match_id", "team", "entry_id")
    for match_id, team, entry_id in rows:
        teams.setdefault(match_id, ([], []))[team].append(entry_id)
    pairings = [Pairing(0, i, tuple(a), tuple(b)) for i, (a, b) in enumerate(teams.values())]
    return meetings(pairings)


def _teams(seats: int, size_a: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seats of team A and B. Seats alternate (A0 B1 A2 B3); when team A is the solo
    player of a 3-seat game (the mirror of a pair's game), it takes seat 0 and the pair
    seats 1 and 2, so the solo player is dealt a hand the pair held in the other game."""
    a, b = tuple(range(0, seats, 2)), tuple(range(1, seats, 2))
    if len(a) == size_a:
        return a, b
    return tuple(range(size_a)), tuple(range(size_a, seats))


@dataclass
class Scheduled:
    round: Round
    created: bool
    matches: list[int] = field(default_factory=list)
    #: transactions the scheduling took, and the rows (matches, participations) of the
    #: largest: one for round robin, bounded batches for the information format
    transactions: int = 1
    largest_transaction_rows: int = 0


def do_schedule_round(
    league: League,
    *,
    enqueue: bool = True,
    when_previous_incomplete: bool = False,
    on_batch: OnBatch | None = None,
) -> Scheduled | None:
    """Start the league's next round: its matches (queued) and their participations.

    Locks the league row, so concurrent schedulers of one league run one after the other;
    the second finds the round the first made still playing and does nothing (None). The
    unique constraints (league, number) and (round, pairing, pair, mirror) make even a
    scheduler that bypassed the lock harmless. ``when_previous_incomplete`` starts a new
    round although the last one is still playing.

    Round robin writes the round in one transaction. The information format writes it in
    batches (``arena.services.matchmade``; ``on_batch`` hears of each): a round left in
    status ``scheduling`` by a run that stopped midway is finished by the next call, and
    None means another scheduler is finishing it."""
    for hook in before_round:
        hook(league)
    with transaction.atomic():
        league = League.objects.select_for_update().get(pk=league.pk)
        last = league.rounds.order_by("-number").first()
        resume = last is not None and last.status == RoundStatus.SCHEDULING
        if not resume and last is not None and last.status == RoundStatus.PLAYING:
            if not when_previous_incomplete:
                return None
        entries = check_can_schedule(league)
        if not resume:
            for guard in round_guards:
                guard(league)
        if resume:
            assert last is not None
            rnd = last  # a run that stopped midway: finish this round, start no other
        elif league.format != LeagueFormat.INFORMATION:
            return _schedule_round_robin(league, last, entries, enqueue=enqueue)
        else:
            number = 1 if last is None else last.number + 1
            rnd = Round.objects.create(league=league, number=number, status=RoundStatus.SCHEDULING)
    written = do_write_round(league, rnd, entries, enqueue=enqueue, on_batch=on_batch)
    if written is None:
        return None
    logger.info(
        "league %s: round %d scheduled, %d matches (%d written now) in %d transactions",
        league.name, rnd.number, len(written.matches), written.new, written.transactions,
    )  # fmt: skip
    rnd.refresh_from_db()
    # + 1: the transaction that made the round (the league row locked)
    return Scheduled(
        rnd, True, written.matches, written.transactions + 1, written.largest_transaction_rows
    )


def _schedule_round_robin(
    league: League, last: Round | None, entries: list[Entry], *, enqueue: bool
) -> Scheduled:
    """Every pairing, in the caller's transaction (the league row locked)."""
    number = 1 if last is None else last.number + 1
    rnd, created = Round.objects.get_or_create(league=league, number=number)
    if not created and rnd.matches.exists():
        return Scheduled(rnd, False)
    by_id: dict[int, Entry] = {e.pk: e for e in entries}
    # (two-seat games) outside the divisions: a newcomer's provisional games
    left_out, extra = outside_pairs(league, entries, random.Random(new_seed()))
    groups = division_groups(
        {e.pk: e.division for e in entries if e.pk not in left_out}, league.seats
    )
    if not groups and not extra:
        raise LeagueError(f"no division of league {league.name} has enough entries to play")
    # within each division only (one group when the league is not split)
    pairings = division_pairings(
        groups,
        league.seats,
        number,
        # the groupings of team leagues: public once scheduled, unforeseeable before
        new_seed(),
        _history(league) if league.seats > 2 else None,
    )
    # in slots of their own beside the divisions': no entry plays twice in one slot
    busy = [(p.team_a[0], p.team_b[0], p.slot) for p in pairings if len(p.team_a) == 1]
    for (a, b), slot in zip(extra, slots(extra, busy), strict=True):
        pairings.append(Pairing(slot, len(pairings), (a,), (b,)))
    mirrored = league.deals == DealMode.MIRRORED
    games = []
    for pairing in pairings:
        for pair_index in range(league.pairs_per_pairing):
            games.extend(pair_games(pairing, mirrored=mirrored, pair_index=pair_index))
    # Queue order = id order: slot by slot, so that matches next to each other in the
    # queue share no bot. Workers then rarely wait on each other's rating-row locks, and
    # a remote bot is not asked to play both games of a pair at once.
    games.sort(key=lambda g: (g.pairing.slot, g.pair_index, g.mirror, g.pairing.index))
    matches, rows = write_games(league, rnd, games, by_id, enqueue=enqueue)
    if enqueue:
        enqueue_round([m.pk for m in matches], house_only=house_only(entries))
    logger.info("league %s: round %d scheduled, %d matches", league.name, number, len(matches))
    return Scheduled(rnd, True, [m.pk for m in matches], 1, rows)


def write_games(
    league: League,
    rnd: Round,
    games: Sequence[ScheduledGame],
    by_id: Mapping[int, Entry],
    *,
    enqueue: bool,
) -> tuple[list[Match], int]:
    """A round's games as its matches (in the games' order) and seats, in the caller's
    transaction, and the round's counts of them (every match pending: the count completion
    keeps); ``by_id``: the games' entries by id. Returns the matches and the rows written.
    Used by every round that is a league's: round robin here, a tournament's
    (``arena.events``)."""
    now = timezone.now() if enqueue else None
    matches = Match.objects.bulk_create(
        [
            Match(
                league=league,
                round=rnd,
                pairing_key=g.pairing.key,
                slot=g.pairing.slot,
                pair_index=g.pair_index,
                mirror=g.mirror,
                deck_seed=g.seed,
                first_team=g.first_team,
                enqueued_at=now,
            )
            for g in games
        ]
    )
    participations = []
    for match, g in zip(matches, games, strict=True):
        seats_a, seats_b = _teams(league.seats, len(g.team_a))
        for team, (seats, members) in enumerate(((seats_a, g.team_a), (seats_b, g.team_b))):
            for seat, entry_id in zip(seats, members, strict=True):
                entry = by_id[entry_id]
                participations.append(
                    Participation(
                        match=match,
                        league=league,
                        entry=entry,
                        bot_id=entry.bot_id,
                        seat=seat,
                        team=team,
                    )
                )
    Participation.objects.bulk_create(participations)
    Round.objects.filter(pk=rnd.pk).update(
        scheduled_matches=len(matches), pending_matches=len(matches)
    )
    rnd.scheduled_matches = rnd.pending_matches = len(matches)
    return matches, len(matches) + len(participations)


# ------------------------------------------------------------------ the periodic job


@dataclass
class DueReport:
    reaped: list[int] = field(default_factory=list)
    requeued: list[int] = field(default_factory=list)
    completed_rounds: list[int] = field(default_factory=list)
    scheduled: Scheduled | None = None
    refused: str = ""
    #: the broker restarted without its data since the reaper last looked
    broker_lost_data: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "reaped": self.reaped,
            "requeued": self.requeued,
            "completed_rounds": self.completed_rounds,
            "scheduled_round": None if self.scheduled is None else self.scheduled.round.number,
            "scheduled_matches": [] if self.scheduled is None else self.scheduled.matches,
            "refused": self.refused,
            "broker_lost_data": self.broker_lost_data,
        }


def _send_again(
    found: dict[int, datetime | None], sent: list[int], now: datetime, **still: object
) -> None:
    """Send each match again, once: ``enqueued_at`` moves with a conditional update (on
    ``still`` too), so a second reaper that read the same row, or a claim since, wins."""
    for match_id, enqueued in found.items():
        with transaction.atomic():
            fresh = Match.objects.filter(pk=match_id, enqueued_at=enqueued, **still)
            if fresh.update(enqueued_at=now):
                enqueue_match(match_id)
                sent.append(match_id)


def do_reap() -> DueReport:
    """Re-enqueue what a dead worker or a lost message left behind:

    * running matches whose lease expired (the claim takes them over, attempts + 1);
    * queued, due matches whose message is lost. When the dispatcher can see the broker
      (``broker_view``), lost means: not held by the broker (neither waiting in the queue
      nor delivered to a live worker) at this look and at an earlier one at least
      ``ARENA_LOST_CONFIRM_SECONDS`` before (a message a worker is taking is in neither
      place for a moment: ``Dispatcher.missing_before``), and sent more than
      ``ARENA_LOST_AFTER_SECONDS`` ago -- or at all, when the broker restarted empty (its
      epoch key is gone), then at the first look. A match that waits its turn in a long
      queue is never sent twice. When it cannot (embedded mode, broker unreachable), lost
      means sent more than ``ARENA_REQUEUE_AFTER_SECONDS`` ago;
    * rounds whose matches are all done but that were not marked complete (a worker died
      between a match's commit and the round's update).

    Each match is re-sent at most once per look: ``enqueued_at`` is moved with a
    conditional update, so two reapers do not both send it."""
    report = DueReport()
    view = dispatcher().broker_view()
    now = timezone.now()
    stale = now - timedelta(seconds=settings.ARENA_REQUEUE_AFTER_SECONDS)
    not_sent_lately = Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=stale)
    expired = Match.objects.filter(
        Q(status=MatchStatus.RUNNING, lease_expires_at__lt=now),
        not_sent_lately | Q(enqueued_at__lt=F("lease_expires_at")),
    )
    held: frozenset[int] = frozenset() if view is None else view.held
    if view is None:
        sent_long_ago = not_sent_lately
    elif view.lost_data:
        report.broker_lost_data = True
        sent_long_ago = Q()
    else:
        recent = now - timedelta(seconds=settings.ARENA_LOST_AFTER_SECONDS)
        sent_long_ago = Q(enqueued_at__isnull=True) | Q(enqueued_at__lt=recent)
    lost = Match.objects.filter(
        Q(status=MatchStatus.QUEUED),
        Q(not_before__isnull=True) | Q(not_before__lte=now),
        sent_long_ago,
    ).exclude(round__status=RoundStatus.SCHEDULING)  # sent once the round is written
    candidates = dict(lost.values_list("id", "enqueued_at")[:10_000])
    missing = frozenset(candidates) - held
    if view is not None and not view.lost_data:
        # seen missing twice, or not at all: a message on its way to a worker is not lost
        missing = dispatcher().missing_before(missing, settings.ARENA_LOST_CONFIRM_SECONDS)
    _send_again(dict(expired.values_list("id", "enqueued_at")[:10_000]), report.reaped, now)
    again = {m: candidates[m] for m in sorted(missing)}
    _send_again(again, report.requeued, now, status=MatchStatus.QUEUED)
    if report.broker_lost_data and report.requeued:
        logger.warning(
            "reaper: the broker lost its data (restarted empty): re-sending %d queued matches",
            len(report.requeued),
        )
    if report.reaped or report.requeued:
        logger.warning(
            "reaper: re-sent %d matches with expired leases %s and %d lost ones %s",
            len(report.reaped),
            report.reaped[:20],
            len(report.requeued),
            report.requeued[:20],
        )
    for round_id in (
        Round.objects.filter(status=RoundStatus.PLAYING)
        .exclude(matches__status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING])
        .values_list("id", flat=True)
    ):
        if do_complete_round_if_done(round_id):
            report.completed_rounds.append(round_id)
    return report


def do_schedule_due_rounds(
    league_id: int | None = None, *, on_batch: OnBatch | None = None
) -> DueReport:
    """The periodic job: reap, then (for a league whose beat entry fired) start its next
    round unless the last one is still playing (or finish one left half scheduled)."""
    report = do_reap()
    if league_id is None:
        return report
    league = League.objects.filter(pk=league_id).first()
    if league is None:
        report.refused = f"no league with id {league_id}"
        return report
    try:
        report.scheduled = do_schedule_round(league, on_batch=on_batch)
    except LeagueError as exc:
        report.refused = str(exc)
        logger.warning("league %s: no round scheduled: %s", league.name, exc)
        return report
    if report.scheduled is None:
        report.refused = "the last round is still playing (or being scheduled elsewhere)"
        logger.info("league %s: the last round is still playing; no new round", league.name)
    return report
