"""One local game: the arena runner's loop (``arena.adapters.runner.match``) without a server.

A decision with one legal option is taken without asking (rules section 6) and recorded
without a latency; every other one is asked with the seat's allowance, ``decision_ms`` plus
what is left of its bank, charged on the arena's ``SeatClock``. The first fault ends the
game and the faulty seat forfeits (the arena's default fault policy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from avenue_sdk.local.answers import Ending
from avenue_sdk.local.seats import Match, Seat
from avenue_sdk.protocol.faults import FaultCause
from avenue_sdk.protocol.timing import Ask, SeatClock, TimeControl
from referee import GameConfig, apply, forfeit, legal_actions, new_game, result
from referee.engine import GameResult
from referee.observation import observe
from referee.replay import Record, Recorder


@dataclass(frozen=True)
class LocalFault:
    seat: int
    bot: str
    cause: FaultCause
    detail: str
    seq: int


@dataclass(frozen=True)
class Game:
    match_id: str
    seed: int
    record: Record
    result: GameResult
    fault: LocalFault | None
    #: per seat: the latency of every decision it was asked
    latencies: tuple[tuple[float, ...], ...]


def play(
    seats: Sequence[Seat],
    config: GameConfig,
    seed: int,
    *,
    match_id: str,
    time_control: TimeControl | None = None,
) -> Game:
    """``seats[s]`` plays seat ``s`` (one object may hold several seats)."""
    tc = time_control or TimeControl()
    state = new_game(config, seed)
    match = Match(
        match_id, config, state.active, tuple(s.name for s in seats), tc.decision_ms, tc.bank_ms
    )
    clocks = [SeatClock.start(tc) for _ in seats]
    recorder = Recorder(state)
    for s, seat in enumerate(seats):
        seat.start(match, s)
    fault: LocalFault | None = None
    seq = 0
    while state.decision is not None:
        seq += 1
        legal = legal_actions(state)
        actor = state.actor
        clock = clocks[actor]
        if len(legal) == 1:
            clock.auto += 1
            recorder.add(state, legal[0])
            state = apply(state, legal[0])
            continue
        bank = int(clock.bank_ms)
        answer = seats[actor].ask(
            match, actor, Ask(seq, observe(state, actor), legal, clock.decision_ms, bank)
        )
        clock.charge(answer.latency_ms)
        cause, detail = answer.fault, answer.detail
        allowance_ms = clock.decision_ms + bank
        if cause is None and answer.latency_ms > allowance_ms:
            cause = FaultCause.TIMEOUT
            detail = f"answered in {answer.latency_ms:.0f} ms, allowed {allowance_ms / 1000:g} s"
        if cause is not None or answer.action is None:
            fault = LocalFault(actor, seats[actor].name, cause or FaultCause.CRASH, detail, seq)
            break
        recorder.add(state, answer.action, answer.latency_ms)
        state = apply(state, answer.action)
    if fault is not None:
        state = forfeit(state, fault.seat)
    final = result(state)
    assert final is not None
    record = recorder.finish(state)
    team = "AB"[final.winner]
    if fault is None:
        message = f"team {team} wins by {final.reason.value} after {final.turns} turns"
    else:
        message = f"team {team} wins: seat {fault.seat} ({fault.bot}) {fault.cause.label}"
    ending = Ending(final, None if fault is None else (fault.cause, fault.seat), message)
    for s, seat in enumerate(seats):
        seat.end(match, s, ending)
    return Game(match_id, seed, record, final, fault, tuple(tuple(c.latencies) for c in clocks))
