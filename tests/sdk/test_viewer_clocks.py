"""The viewer's clocks (issue 26 §3): at every step each seat's bank left and its previous
answer, and for the seat deciding there how long it took, as the runner's ``SeatClock``
charged them (time beyond ``decision_ms`` comes out of the bank)."""

from __future__ import annotations

import random
from dataclasses import replace

from avenue_sdk.protocol.timing import TimeControl
from avenue_sdk.viewer.frames import Perspective, clocks, viewer_payload
from referee import GameConfig, apply, legal_actions, new_game
from referee.replay import record_game


def _game(latencies: dict[int, float]) -> object:
    state = new_game(GameConfig.for_seats(2, "simple"), 5)
    rng = random.Random(5)
    actions = []
    while state.decision is not None:
        action = rng.choice(legal_actions(state))
        actions.append(action)
        state = apply(state, action)
    record = record_game(new_game(GameConfig.for_seats(2, "simple"), 5), actions)
    decisions = tuple(
        replace(d, latency_ms=latencies.get(i, 10.0)) for i, d in enumerate(record.decisions)
    )
    return replace(record, decisions=decisions)


def test_the_bank_is_charged_what_goes_past_the_decision_time() -> None:
    record = _game({0: 350.0, 1: 120.0})
    tc = TimeControl(decision_ms=100, bank_ms=1000)
    now = clocks(record, tc)  # type: ignore[arg-type]
    first, second = record.decisions[0], record.decisions[1]  # type: ignore[attr-defined]
    assert len(now) == len(record.decisions) + 2  # type: ignore[attr-defined]
    # at the deal nothing is spent; the first decider took 350 ms there
    assert [c["bank_ms"] for c in now[0]] == [1000, 1000]
    assert now[0][first.seat]["thinking_ms"] == 350.0
    assert now[0][1 - first.seat]["thinking_ms"] is None
    # after it: 250 ms beyond its decision time came out of its bank
    assert now[1][first.seat] == {"bank_ms": 750, "last_ms": 350.0, "thinking_ms": (
        120.0 if second.seat == first.seat else None)}  # fmt: skip
    after_two = now[2][second.seat]["bank_ms"]
    assert after_two == (750 - 20 if second.seat == first.seat else 1000 - 20)


def test_the_payload_carries_them_only_with_a_time_control() -> None:
    record = _game({})
    spectator = Perspective("spectator")
    with_tc = viewer_payload(record, spectator, None, TimeControl(5_000, 60_000))  # type: ignore[arg-type]
    assert with_tc["time_control"] == {"decision_ms": 5_000, "bank_ms": 60_000}
    assert all(len(f["clocks"]) == 2 for f in with_tc["frames"])
    assert all(c["bank_ms"] == 60_000 for f in with_tc["frames"] for c in f["clocks"])
    bare = viewer_payload(record, spectator)  # type: ignore[arg-type]
    assert bare["time_control"] is None and "clocks" not in bare["frames"][0]
