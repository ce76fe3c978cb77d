"""Rounds of the information format (``arena.matchmaking``), written in bounded transactions.

A round robin writes its round in one transaction: n(n-1)/2 pairings, fine for the small
leagues it is for. The information format is for large leagues: each bot plays
``League.games_per_bot`` single games a round on average (between half and twice that, by
the width of its rank interval: ``planned_games``), against opponents picked from the
league's ratings as they are now, so a round costs about n x games_per_bot / 2 matches, and
its writes are cut into transactions of ``ARENA_SCHEDULE_BATCH`` matches:

1. ``rounds.do_schedule_round`` makes the round in status ``scheduling`` (the league row
   locked, as for round robin);
2. ``do_write_round`` picks the pairs (pure, ``information_pairings``) and writes them in
   batches, each one transaction: the matches, their participations, and a compare-and-set
   of ``Round.scheduled_matches`` (the matches written so far), so two schedulers of one
   round never both write: the one whose count is stale stops;
3. the last transaction turns the round ``playing`` (the same compare-and-set) and sends
   its matches on commit.

Until step 3 nothing of the round is sent: the reaper passes its queued matches by and no
completion check can complete it (they complete ``playing`` rounds only). A run that stops
midway (a crash, a lost connection, a killed worker) leaves a round that says it is being
scheduled; the league's next ``do_schedule_round`` finishes it: the pairs it has already
count against each bot's games and are not made again, so it is finished, never doubled.

Memory and work are bounded by the round itself (the entries, their ratings, the round's
own pairs): nothing holds all pairings of the league.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from arena.deals import first_team_of, new_seed
from arena.dispatch import enqueue_round
from arena.matchmaking import Candidate, information_pairings, sigma_of, slots
from arena.models import Entry, League, Match, Participation, Round, RoundStatus
from arena.ratings.models import START_RATING, BatchRating, LiveRating
from arena.scheduling import Pairing, division_groups
from arena.services.leagues import house_only

#: called after each batch with (matches written so far, matches the round will have)
OnBatch = Callable[[int, int], None]

#: who a round pairs outside the divisions' own pairings, as apps say when Django starts
#: (``arena.seasons``: a newcomer's provisional games against bots of every division).
#: Each is given the league, the round's entries, a seeded generator and the pairs the
#: round has already (a run that stopped midway), and returns the entries it pairs (left
#: out of the divisions) and their pairs (entry ids; two-seat games)
Outside = Callable[
    [League, Sequence[Entry], random.Random, Collection[tuple[int, int]]],
    tuple[set[int], list[tuple[int, int]]],
]
outside_divisions: list[Outside] = []


def outside_pairs(
    league: League,
    entries: Sequence[Entry],
    rng: random.Random,
    taken: Collection[tuple[int, int]] = (),
) -> tuple[set[int], list[tuple[int, int]]]:
    """Every ``outside_divisions`` hook's entries and pairs for this round."""
    left_out: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for hook in outside_divisions:
        entries_of, pairs_of = hook(league, entries, rng, taken)
        left_out |= entries_of
        pairs += pairs_of
    return left_out, pairs


@dataclass
class Written:
    """What one scheduling run did to a round of the information format."""

    #: every match of the round, in id order (also those an earlier run wrote)
    matches: list[int]
    #: matches this run wrote
    new: int
    transactions: int
    #: rows (matches and participations) of the largest transaction
    largest_transaction_rows: int


def candidates_of(league: League, entries: Sequence[Entry]) -> list[Candidate]:
    """The entries as the matchmaking sees them: live rating and games (provisional below
    ``PROVISIONAL_GAMES``), the uncertainty from the batch fit's 95% interval when the bot
    has one, else from its games. Two queries, a row per bot."""
    live = {
        bot: (float(rating), games)
        for bot, rating, games in LiveRating.objects.filter(league=league).values_list(
            "bot_id", "rating", "games"
        )
    }
    fitted = {
        bot: (low, high)
        for bot, low, high in BatchRating.objects.filter(league=league).values_list(
            "bot_id", "low", "high"
        )
    }
    out = []
    for e in entries:
        rating, games = live.get(e.bot_id, (float(START_RATING), 0))
        low, high = fitted.get(e.bot_id, (None, None))
        out.append(Candidate(e.pk, rating, sigma_of(games, low, high), games))
    return out


def round_pairs(rnd: Round) -> list[tuple[int, int, int]]:
    """(entry, entry, slot) of every match the round has (two seats a match)."""
    out: list[tuple[int, int, int]] = []
    seats: list[int] = []
    current = None
    rows = (
        Participation.objects.filter(match__round=rnd)
        .order_by("match_id", "seat")
        .values_list("match_id", "entry_id", "match__slot")
    )
    for match_id, entry_id, slot in rows.iterator(chunk_size=5000):
        if match_id != current:
            current, seats = match_id, []
        seats.append(entry_id)
        if len(seats) == 2:
            out.append((seats[0], seats[1], slot))
    return out


def do_write_round(
    league: League,
    rnd: Round,
    entries: Sequence[Entry],
    *,
    enqueue: bool,
    on_batch: OnBatch | None = None,
    batch_size: int | None = None,
) -> Written | None:
    """Write (the rest of) a ``scheduling`` round in batches, then start it (see the module
    doc). None when another scheduler finished the round or took it over midway (its
    compare-and-set won): that one finishes it. Locks the round row in each transaction."""
    size = batch_size or settings.ARENA_SCHEDULE_BATCH
    with transaction.atomic():
        # the round row locked: no batch commits while the round's pairs are read, so the
        # count and the pairs agree
        state = Round.objects.select_for_update().get(pk=rnd.pk)
        if state.status != RoundStatus.SCHEDULING:
            return None
        written = state.scheduled_matches
        taken = round_pairs(rnd)
    transactions = 1
    # unforeseeable before the round is written: who meets whom among equals, who is team A
    rng = random.Random(new_seed())
    # within each division only (one group when the league is not split)
    left_out, pairs = outside_pairs(league, entries, rng, [(a, b) for a, b, _ in taken])
    for group in division_groups({e.pk: e.division for e in entries if e.pk not in left_out}):
        members = set(group)
        pairs += information_pairings(
            candidates_of(league, [e for e in entries if e.pk in members]),
            league.games_per_bot,
            rng,
            taken=[(a, b) for a, b, _ in taken if a in members and b in members],
        )
    given = slots(pairs, taken)
    # queue order = id order: slot by slot, so that matches next to each other in the queue
    # share no bot (as round robin's circle method does)
    order = sorted(range(len(pairs)), key=lambda i: given[i])
    bot_of = {e.pk: e.bot_id for e in entries}
    total = written + len(pairs)
    largest = 0
    for start in range(0, len(order), size):
        chunk = order[start : start + size]
        with transaction.atomic():
            moved = Round.objects.filter(
                pk=rnd.pk, status=RoundStatus.SCHEDULING, scheduled_matches=written
            ).update(scheduled_matches=written + len(chunk))
            if not moved:
                return None  # another run took the round over; it finishes it
            rows = _write_batch(league, rnd, [pairs[i] for i in chunk], [given[i] for i in chunk],
                                written, bot_of, rng, enqueue)  # fmt: skip
        transactions += 1
        written += len(chunk)
        largest = max(largest, rows)
        if on_batch is not None:
            on_batch(written, total)
    with transaction.atomic():
        started = Round.objects.filter(
            pk=rnd.pk, status=RoundStatus.SCHEDULING, scheduled_matches=written
        ).update(status=RoundStatus.PLAYING, pending_matches=written)
        # (every match of the round is queued until now: the count completion keeps,
        # arena.services.completion)
        if not started:
            return None
        ids = list(Match.objects.filter(round=rnd).order_by("id").values_list("id", flat=True))
        if enqueue:
            enqueue_round(ids, house_only=house_only(entries))
    transactions += 1
    return Written(ids, len(pairs), transactions, largest)


def _write_batch(
    league: League,
    rnd: Round,
    pairs: Sequence[tuple[int, int]],
    given: Sequence[int],
    index: int,
    bot_of: dict[int, int],
    rng: random.Random,
    enqueue: bool,
) -> int:
    """One batch's matches and participations (in the caller's transaction); rows written."""
    now = timezone.now() if enqueue else None
    teams = []
    matches = []
    for i, ((a, b), slot) in enumerate(zip(pairs, given, strict=True)):
        if rng.random() < 0.5:
            a, b = b, a  # team A (seat 0) either way, as often
        seed = new_seed()
        pairing = Pairing(slot, index + i, (a,), (b,))
        teams.append((a, b))
        matches.append(
            Match(
                league=league,
                round=rnd,
                pairing_key=pairing.key,
                slot=slot,
                deck_seed=seed,
                first_team=first_team_of(seed),
                enqueued_at=now,
            )
        )
    made = Match.objects.bulk_create(matches)
    participations = [
        Participation(
            match=match, league=league, entry_id=entry, bot_id=bot_of[entry], seat=seat, team=seat
        )
        for match, (a, b) in zip(made, teams, strict=True)
        for seat, entry in enumerate((a, b))
    ]
    Participation.objects.bulk_create(participations)
    return len(made) + len(participations)
