"""Playing a league match: claim it, run it, write its result once (``play_match``).

Modules: ``arena.services.claims`` (the claim, the lease, no-show retries and voided
attempts), this one (the seats and the game), ``arena.services.results`` (the result).

The path of one attempt (``play_match``, what the ``arena.run_match`` task calls; and
``play_matches``, the ``arena.run_matches`` task's, for a chunk of a round of house bots:
the same steps for all of them at once, the games one after the other):

1. ``do_claim_matches``: one conditional UPDATE, ``queued -> running`` (or an expired lease
   ``running -> running``), attempts + 1, a lease of ``ARENA_LEASE_SECONDS`` that the
   process's lease keeper extends until the attempt's end is written. Only one worker can
   hold an attempt.
2. The game, through ``arena.adapters.runner.run_match``: house bots in-process, remote bots
   through the relay. Bot faults follow the league's fault policy; a remote bot missing
   at the start is retried under the no-show policy, then forfeits as ``no_show``.
3. ``do_finish_matches``: results, replays, participations and rating changes in **one
   transaction** (a chunk's results together, in multi-row statements), each match row
   locked and checked to still be its attempt's, so a worker that lost a lease writes
   nothing for that match and a match is rated at most once (``ratings.RatedMatch`` is
   unique per match besides).

Infrastructure faults (the relay or the database failing, a referee exception, the task's
time limit) void the attempt (``do_void_attempt``): the match goes back to the queue and is
played again from scratch, ratings untouched; after ``ARENA_MAX_ATTEMPTS`` it is void.
A worker killed outright leaves its lease to expire; the reaper re-sends the match.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack, nullcontext

from django.conf import settings
from django.db import connection

from arena.adapters.play.seatcaps import check_seats
from arena.adapters.relay import RunnerRelay, runner_relay
from arena.adapters.runner import (
    FaultAction,
    FaultCause,
    HouseSeat,
    RemoteSeat,
    Seat,
    TimeControl,
    run_match,
)
from arena.adapters.runner import MatchStatus as RunStatus
from arena.adapters.runner.slots import RunnerSlots, SlottedRelay, process_slots
from arena.deals import house_bot_seed
from arena.models import (
    League,
    Match,
    Participation,
)
from arena.services import live
from arena.services.claims import (
    Claim,
    LeaseHeartbeat,
    PlayOutcome,
    do_claim_match,  # noqa: F401 - re-exported: callers claim one match through this module
    do_claim_matches,
    do_retry_no_show,
    do_void_attempt,
    worker_id,
)
from arena.services.leagues import check_fault_policy
from arena.services.results import Finished, Played
from arena.services.resultwriter import write_results
from referee import GameConfig, Mode
from referee.config import RULESETS

logger = logging.getLogger(__name__)


#: a game of house bots only publishes its live decisions at most this often (seconds)
HOUSE_LIVE_EVERY_S = 0.25

#: makes the relay for a match's remote seats (the settings' relay unless a caller says)
RelayFactory = Callable[[], RunnerRelay]


def _seats(
    match: Match, parts: list[Participation], relay_factory: RelayFactory
) -> tuple[list[Seat], RunnerRelay | None]:
    seats: list[Seat] = []
    relay: RunnerRelay | None = None
    for p in parts:
        bot = p.bot
        if bot.kind == "house":
            # a seed per seat and match, one-way from the deal's (it reveals nothing of
            # the deck); a re-run from scratch replays the same game
            seed = house_bot_seed(match.deck_seed, p.seat)
            seats.append(HouseSeat(bot.spec, seed, name=bot.name))
        else:
            if relay is None:
                relay = relay_factory()
            seats.append(RemoteSeat(str(bot.pk), bot.name, relay))
    return seats, relay


def _slotted(factory: RelayFactory, slots: RunnerSlots) -> RelayFactory:
    return lambda: SlottedRelay(factory(), slots)


def game_config(league: League, match: Match, parts: list[Participation]) -> GameConfig:
    team_a = tuple(sorted(p.seat for p in parts if p.team == 0))
    team_b = tuple(sorted(p.seat for p in parts if p.team == 1))
    return GameConfig(Mode(league.mode), (team_a, team_b), match.first_team, league.ruleset)


def play_match(
    match_id: int, *, worker: str | None = None, relay_factory: RelayFactory | None = None
) -> PlayOutcome:
    """One attempt at the match (see the module doc). Safe to call for any match at any
    time: it plays only what it can claim."""
    return play_matches([match_id], worker=worker, relay_factory=relay_factory)[0]


def play_matches(
    match_ids: Sequence[int],
    *,
    worker: str | None = None,
    relay_factory: RelayFactory | None = None,
) -> list[PlayOutcome]:
    """An attempt at each of the matches (the ``arena.run_matches`` task: a chunk of a
    round of house bots), one after the other, their results written together: claimed in
    one statement, their seats read in one, each game played, then the results written as
    one batch (``do_finish_matches``; in a threads pool with the other threads' results
    that are ready at the same time, ``arena.services.resultwriter``). Each match keeps its
    own claim, lease and end: a game that fails voids its own attempt only. The outcomes
    in ``match_ids``' order."""
    claims = do_claim_matches(match_ids, worker or worker_id())
    ends = dict.fromkeys(match_ids, PlayOutcome.SKIPPED)
    if not claims:
        return list(ends.values())
    # The leases are kept until the attempts' ends are written, not only while the games
    # run: on a worker playing hundreds of matches, a result may wait its turn for the
    # database pool (or for the rest of its chunk), and must not look like a dead
    # worker's meanwhile.
    with ExitStack() as held:
        for claim in claims:
            held.enter_context(LeaseHeartbeat(claim))
        played = Played.load_many([c.match_id for c in claims])
        # a fresh attempt starts a fresh list of live decisions: an earlier one's dropped
        live.forget_many(c.match_id for c in claims)
        ready: list[Finished] = []
        try:
            for claim in claims:
                end = _play_claimed(claim, played[claim.match_id], relay_factory)
                if isinstance(end, Finished):
                    ready.append(end)
                else:
                    ends[claim.match_id] = end
            for f, end in zip(ready, write_results(ready), strict=True):
                ends[f.claim.match_id] = end
        finally:
            # the replays (or nothing, if void) serve them from now on
            live.forget_many(f.claim.match_id for f in ready)
    return [ends[m] for m in match_ids]


def _play_claimed(
    claim: Claim, played: Played, relay_factory: RelayFactory | None
) -> Finished | PlayOutcome:
    """The attempt's game: a result to write, or the attempt's end if it has none (void
    after an infrastructure fault, a no-show retry)."""
    match_id = claim.match_id
    match, parts = played.match, played.parts
    league = match.league
    retries_left = match.no_show_retries < league.no_show_retries
    relay = None
    # The game needs no database and may last minutes: give the connection back until the
    # result is written, so that a worker playing many matches at once (a threads pool, a
    # round's pool) holds one only while it claims and writes (PostgreSQL's
    # max_connections). Except a game of house bots only in a process playing one match at
    # a time (Celery's solo and prefork pools run tasks in the main thread): it is over in
    # milliseconds of CPU and keeps its connection (a new one costs about 5 ms).
    house_only = all(p.bot.kind == "house" for p in parts)
    alone = threading.current_thread() is threading.main_thread()
    if not (house_only and alone) and not connection.in_atomic_block:
        connection.close()
    try:
        if RULESETS[league.ruleset].version != league.ruleset_version:
            raise RuntimeError(
                f"ruleset {league.ruleset} is version {RULESETS[league.ruleset].version} "
                f"here, the league plays version {league.ruleset_version}"
            )
        config = game_config(league, match, parts)
        policy = check_fault_policy(
            {**league.fault_policy, **({FaultCause.NO_SHOW: "abort"} if retries_left else {})}
        )
        slots = process_slots(settings.ARENA_RUNNER_SLOTS)
        factory = relay_factory or runner_relay
        if slots is not None:
            factory = _slotted(factory, slots)
        seats, relay = _seats(match, parts, factory)
        with slots.held() if slots is not None else nullcontext():
            # in the slot: a slotted relay gives it back around its own waits
            if relay is not None:
                if check_seats(claim, parts, relay) is not None:
                    return PlayOutcome.SEAT_WAIT  # nothing sent to any bot; the claim undone
                if not connection.in_atomic_block:
                    connection.close()  # the check's: a game that waits on bots holds none
            outcome = run_match(
                seats,
                config,
                match.deck_seed,
                match_id=f"{match.pk}.{claim.attempt}",
                replay_id=str(match.pk),
                time_control=TimeControl(league.decision_ms, league.bank_ms),
                policy=policy,
                connect_grace_s=league.connect_grace_ms / 1000,
                on_decision=live.publisher(
                    match.pk, HOUSE_LIVE_EVERY_S if house_only else 0.0, clear=False
                ),
                reconnect_grace_s=league.reconnect_grace_ms / 1000,
            )
    except Exception as exc:  # noqa: BLE001 - whatever failed, it was not a bot's fault
        logger.exception("match %d attempt %d: infrastructure failure", match_id, claim.attempt)
        return do_void_attempt(claim, f"{type(exc).__name__}: {exc}")
    finally:
        if relay is not None:
            relay.close()
    no_shows = [f for f in outcome.faults if f.cause is FaultCause.NO_SHOW]
    if (
        outcome.status is RunStatus.ABORTED
        and no_shows
        and retries_left
        and policy.action_for(FaultCause.NO_SHOW) is FaultAction.ABORT
    ):
        absent = [p.bot_id for p in parts if p.seat in {f.seat for f in no_shows}]
        return do_retry_no_show(claim, league, ", ".join(f.bot for f in no_shows), absent)
    return Finished(claim, outcome, played)
