"""The match runner: drives the referee for one match between seats, owns the clock and
applies the fault policy. No Celery, no ORM: the leagues' task calls ``run_match`` and
stores what it returns.

A decision with exactly one legal option is taken without asking the seat (rules section
6); the replay records it like any other, without a latency. Every other decision is asked
with the seat's allowance: ``decision_ms`` plus what is left of its bank. A remote answer
is measured by the gateway, from writing the request to the bot's stream to reading the
answer (``arena.adapters.runner.remote``), so the arena's own delays are never the bot's; time
beyond ``decision_ms`` is taken from the bank. The first fault ends the game: by default
the faulty seat forfeits.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from arena.adapters.relay.base import RelayError
from arena.adapters.runner.resume import ArenaFault
from arena.adapters.runner.seats import Answer, Ask, Ending, MatchContext, Seat, TimeControl
from arena.terms.faults import Fault, FaultAction, FaultCause, FaultPolicy
from arena.terms.result import MatchResult, MatchStatus, SeatReport
from avenue_sdk.protocol.timing import SeatClock
from referee import GameConfig, apply, forfeit, legal_actions, new_game, result
from referee.engine import GameResult
from referee.observation import observe
from referee.replay import RecordedDecision, Recorder
from referee.state import State

logger = logging.getLogger(__name__)


def run_match(
    seats: Sequence[Seat],
    config: GameConfig,
    seed: int,
    *,
    match_id: str,
    replay_id: str | None = None,
    time_control: TimeControl | None = None,
    policy: FaultPolicy | None = None,
    connect_grace_s: float = 0.0,
    on_decision: Callable[[RecordedDecision], None] | None = None,
    reconnect_grace_s: float = 0.0,
) -> MatchResult:
    """Play one game. ``seats[s]`` plays seat ``s``; ``match_id`` must be unique per run
    (a re-run of a league match should add its attempt number), ``replay_id`` is what the
    bots are told to look for on the site (default: the match id). ``on_decision`` hears
    every decision as it is recorded (live spectating); what it raises is logged, never
    the match's problem.

    A remote bot whose stream drops may come back within ``reconnect_grace_s`` and play
    on (``arena.adapters.runner.resume``); one that does not is charged ``disconnect``.

    Raises ``arena.adapters.relay.RelayError`` when the relay fails, or ``ArenaFault`` (one) when
    the arena lost a bot for longer than the grace: infrastructure faults that the caller
    should answer by voiding the attempt, not by blaming a bot."""
    if len(seats) != config.seats:
        raise ValueError(f"a {config.seats}-seat game needs {config.seats} seats, not {len(seats)}")
    tc = time_control or TimeControl()
    policy = policy or FaultPolicy()
    state = new_game(config, seed)
    ctx = MatchContext(
        match_id=match_id,
        replay_id=replay_id or match_id,
        config=config,
        first_team=state.active,
        names=tuple(s.name for s in seats),
        time_control=tc,
        connect_grace_s=connect_grace_s,
        reconnect_grace_s=reconnect_grace_s,
    )
    clocks = [SeatClock.start(tc) for _ in seats]
    recorder = Recorder(state)
    faults: list[Fault] = []
    started_at = time.time()
    for seat in seats:
        seat.open(ctx)
    try:
        try:
            for s, seat in enumerate(seats):
                answer = seat.start(ctx, s)  # ArenaFault: a bot the arena lost just before
                if answer is not None and answer.fault is not None:
                    faults.append(Fault(s, seat.name, answer.fault, answer.detail))
            if not faults:
                state = _play(ctx, seats, clocks, recorder, state, faults, _safe(on_decision))
        except ArenaFault as exc:
            _tell_void(ctx, seats, str(exc))
            raise
        aborted, state = _apply_policy(policy, faults, state)
        record = recorder.finish(state)
        final = None if aborted else result(state)
        ending = _ending(final, faults, ctx)
        for s, seat in enumerate(seats):
            seat.end(ctx, s, ending)
    finally:
        for seat in seats:
            seat.close(ctx)
    reports = tuple(
        SeatReport.build(
            seat=s,
            team=config.team_of(s),
            name=seats[s].name,
            kind=seats[s].kind,
            latencies=clocks[s].latencies,
            auto_decisions=clocks[s].auto,
            bank_left_ms=clocks[s].bank_ms,
            fault=next((f for f in faults if f.seat == s), None),
        )
        for s in range(len(seats))
    )
    outcome = MatchResult(
        match_id=match_id,
        replay_id=ctx.replay_id,
        status=MatchStatus.ABORTED if aborted else MatchStatus.FINISHED,
        record=record,
        result=final,
        seats=reports,
        faults=tuple(faults),
        drops=ctx.drops,
        started_at=started_at,
        duration_s=time.time() - started_at,
        resumes=tuple(ctx.reconnects.returns) if ctx.reconnects is not None else (),
    )
    logger.info("match %s: %s", match_id, ending.message)
    return outcome


def _play(
    ctx: MatchContext,
    seats: Sequence[Seat],
    clocks: list[SeatClock],
    recorder: Recorder,
    state: State,
    faults: list[Fault],
    heard: Listener,
) -> State:
    seq = 0
    while state.decision is not None:
        kind = state.decision
        seq += 1
        legal = legal_actions(state)
        actor = state.actor
        clock = clocks[actor]
        if len(legal) == 1:
            clock.auto += 1
            recorder.add(state, legal[0])
            heard(RecordedDecision(actor, kind, legal[0], None))
            state = apply(state, legal[0])
            continue
        ask = Ask(seq, observe(state, actor), legal, clock.decision_ms, int(clock.bank_ms))
        answer = seats[actor].ask(ctx, actor, ask)
        if answer.disconnected_bot is not None:
            faults.extend(_disconnect_faults(ctx, seats, answer, seq))
            return state
        clock.charge(answer.latency_ms)
        fault = answer.fault
        if fault is None and answer.latency_ms > ask.allowance_s * 1000:
            fault = FaultCause.TIMEOUT
            answer = Answer(
                answer.latency_ms,
                detail=f"answered in {answer.latency_ms:.0f} ms, allowed {ask.allowance_s:g} s",
            )
        if fault is not None or answer.action is None:
            faults.append(
                Fault(actor, seats[actor].name, fault or FaultCause.CRASH, answer.detail, seq)
            )
            return state
        recorder.add(state, answer.action, answer.latency_ms)
        heard(RecordedDecision(actor, kind, answer.action, answer.latency_ms))
        state = apply(state, answer.action)
    return state


Listener = Callable[[RecordedDecision], None]


def _safe(listener: Listener | None) -> Listener:
    """The listener, or nothing; a listener's failure (a cache down) is logged once."""
    failed = False

    def heard(decision: RecordedDecision) -> None:
        nonlocal failed
        if listener is None or failed:
            return
        try:
            listener(decision)
        except Exception:  # noqa: BLE001 - spectators must never stop a match
            failed = True
            logger.warning("live decisions: the listener failed; no more this match", exc_info=True)

    return heard


def _tell_void(ctx: MatchContext, seats: Sequence[Seat], why: str) -> None:
    """The bots that can still be reached learn that this attempt counts for nothing."""
    ending = Ending(None, None, None, f"aborted by the arena, to be played again: {why}")
    for s, seat in enumerate(seats):
        try:
            seat.end(ctx, s, ending)
        except RelayError:
            logger.warning("match %s: could not tell seat %d it was voided", ctx.match_id, s)


def _disconnect_faults(
    ctx: MatchContext, seats: Sequence[Seat], answer: Answer, seq: int
) -> list[Fault]:
    detail = answer.detail or "the bot's stream closed during the match"
    return [
        Fault(s, seat.name, FaultCause.DISCONNECT, detail, seq)
        for s, seat in enumerate(seats)
        if seat.bot_id is not None and seat.bot_id == answer.disconnected_bot
    ][:1]


def _apply_policy(policy: FaultPolicy, faults: list[Fault], state: State) -> tuple[bool, State]:
    """(aborted, final state). No-shows on both teams leave nobody to win: abort."""
    if not faults:
        return False, state
    teams = {state.config.team_of(f.seat) for f in faults}
    first = faults[0]
    if len(teams) > 1 or policy.action_for(first.cause) is FaultAction.ABORT:
        return True, state
    return False, forfeit(state, first.seat)


def _ending(final: GameResult | None, faults: list[Fault], ctx: MatchContext) -> Ending:
    fault = faults[0] if faults else None
    if final is None:
        causes = ", ".join(f"seat {f.seat} {f.cause.label}" for f in faults) or "stopped"
        return Ending(
            None,
            fault.cause if fault else None,
            fault.seat if fault else None,
            f"aborted: {causes}",
        )
    team = "AB"[final.winner]
    if fault is not None:
        message = f"team {team} wins: seat {fault.seat} ({fault.bot}) {fault.cause.label}"
        return Ending(final, fault.cause, fault.seat, message)
    message = f"team {team} wins by {final.reason.value} after {final.turns} turns"
    return Ending(final, None, None, message)
