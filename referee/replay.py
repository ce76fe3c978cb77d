"""Self-contained game records and their re-simulation.

A record holds everything needed to play the game again through the referee: the
configuration with its ruleset id and version, the seed, both shuffled deck orders, every
decision (seat, kind, action, and the answer's latency when a runner measured it), and the
result. ``replay`` re-simulates it and yields every state; a record that does not
re-simulate to the same result is refused with the index of the first bad decision.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from referee.actions import Action, Decision, IllegalAction, action_from_json
from referee.cards import Agent, BlackMarket, cards_of
from referee.config import ConfigError, GameConfig
from referee.engine import GameResult, apply, forfeit, new_game, result
from referee.state import EndReason, State

SCHEMA_VERSION = 1


class ReplayError(ValueError):
    """A record that is malformed or does not re-simulate to what it claims."""


@dataclass(frozen=True)
class RecordedDecision:
    seat: int
    kind: Decision
    action: Action
    latency_ms: float | None = None

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "seat": self.seat,
            "kind": self.kind.value,
            "action": self.action.to_json(),
        }
        if self.latency_ms is not None:
            out["latency_ms"] = round(self.latency_ms, 3)
        return out


@dataclass(frozen=True)
class Record:
    config: GameConfig
    seed: int
    deck: tuple[Agent, ...]
    bm_deck: tuple[BlackMarket, ...]
    decisions: tuple[RecordedDecision, ...]
    result: GameResult | None

    def initial_state(self) -> State:
        return new_game(self.config, self.seed, deck=self.deck, bm_deck=self.bm_deck)

    def to_json(self) -> dict[str, object]:
        return {
            "schema_version": SCHEMA_VERSION,
            "config": self.config.to_json(),
            "seed": self.seed,
            "deck": [c.name for c in self.deck],
            "black_market_deck": [c.name for c in self.bm_deck],
            "decisions": [d.to_json() for d in self.decisions],
            "result": None if self.result is None else self.result.to_json(),
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))


class Recorder:
    """Builds a ``Record`` while a game is played: ``add`` before each ``apply``."""

    def __init__(self, initial: State) -> None:
        if initial.seed is None:
            raise ReplayError("a recorded game needs its seed")
        if initial.turn != 1 or initial.log is None or initial.log[1] is not None:
            raise ReplayError("recording starts from the state new_game returned")
        self._initial = initial
        self._decisions: list[RecordedDecision] = []

    def add(self, state: State, action: Action, latency_ms: float | None = None) -> None:
        assert state.decision is not None
        self._decisions.append(RecordedDecision(state.actor, state.decision, action, latency_ms))

    def finish(self, final: State) -> Record:
        s = self._initial
        assert s.seed is not None
        return Record(
            config=dataclasses.replace(s.config, first_team=s.active),
            seed=s.seed,
            deck=s.deck_order,
            bm_deck=s.bm_order,
            decisions=tuple(self._decisions),
            result=result(final),
        )


def record_game(initial: State, actions: Sequence[Action]) -> Record:
    """The record of playing ``actions`` from ``initial`` (raises ``IllegalAction``)."""
    rec = Recorder(initial)
    state = initial
    for action in actions:
        rec.add(state, action)
        state = apply(state, action)
    return rec.finish(state)


def replay(record: Record) -> Iterator[State]:
    """Yield the initial state and the state after every decision; checks the result."""
    try:
        state = record.initial_state()
    except ConfigError as exc:
        raise ReplayError(f"the record's setup is invalid: {exc}") from None
    yield state
    for i, d in enumerate(record.decisions):
        if state.decision is None:
            raise ReplayError(f"decision {i}: the game was already over")
        if (d.seat, d.kind) != (state.actor, state.decision):
            raise ReplayError(
                f"decision {i}: recorded seat {d.seat} deciding {d.kind.value}, but the "
                f"referee asks seat {state.actor} to decide {state.decision.value}"
            )
        try:
            state = apply(state, d.action)
        except IllegalAction as exc:
            raise ReplayError(f"decision {i}: {exc}") from None
        yield state
    claimed = record.result
    if claimed is not None and claimed.reason is EndReason.FORFEIT and not state.over:
        if claimed.forfeit_seat is None:
            raise ReplayError("a forfeit result must name the forfeiting seat")
        state = forfeit(state, claimed.forfeit_seat)
        yield state
    actual = result(state)
    if actual != claimed:
        raise ReplayError(
            f"the record claims {_describe(claimed)}, the referee's re-simulation gives "
            f"{_describe(actual)}"
        )


def validate(record: Record) -> State:
    """Re-simulate the whole record; the final state, or ``ReplayError``."""
    states = replay(record)
    final = next(states)
    for final in states:  # noqa: B007 - only the last state is wanted
        pass
    return final


def _describe(r: GameResult | None) -> str:
    if r is None:
        return "an unfinished game"
    team = "AB"[r.winner]
    return f"team {team} winning by {r.reason.value} after {r.turns} turns"


# --- JSON ----------------------------------------------------------------------------------------


def from_json(data: object) -> Record:
    if not isinstance(data, dict):
        raise ReplayError("a replay is a JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ReplayError(
            f"replay schema version {version!r} is not supported (this referee reads "
            f"version {SCHEMA_VERSION})"
        )
    try:
        config = GameConfig.from_json(data["config"])
        deck = tuple(Agent[name] for name in data["deck"])
        bm_deck = tuple(BlackMarket[name] for name in data["black_market_deck"])
        seed = data["seed"]
        if not isinstance(seed, int):
            raise ReplayError("the seed must be an integer")
        decisions = tuple(
            RecordedDecision(
                seat=int(d["seat"]),
                kind=Decision(d["kind"]),
                action=action_from_json(d["action"]),
                latency_ms=d.get("latency_ms"),
            )
            for d in data["decisions"]
        )
        res = data.get("result")
        game_result = None if res is None else _result_from_json(res)
    except ConfigError as exc:
        raise ReplayError(str(exc)) from None
    except IllegalAction as exc:
        raise ReplayError(f"a recorded action is malformed: {exc}") from None
    except (KeyError, ValueError, TypeError) as exc:
        raise ReplayError(f"malformed replay: {type(exc).__name__}: {exc}") from None
    return Record(config, seed, deck, bm_deck, decisions, game_result)


def _result_from_json(data: dict[str, object]) -> GameResult:
    positions = data["positions"]
    assert isinstance(positions, list)
    fs = data.get("forfeit_seat")
    return GameResult(
        winner=int(str(data["winner"])),
        reason=EndReason(data["reason"]),
        tiebreak=bool(data["tiebreak"]),
        forfeit_seat=None if fs is None else int(str(fs)),
        positions=(int(positions[0]), int(positions[1])),
        gap=int(str(data["gap"])),
        turns=int(str(data["turns"])),
    )


def loads(text: str) -> Record:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"not JSON: {exc}") from None
    return from_json(data)


def omniscient_json(state: State) -> dict[str, object]:
    """The whole state for a finished game's viewer: every hand, discard and deck card."""
    return {
        "hands": [[c.name for c in cards_of(h)] for h in state.hands],
        "discards": [[c.name for c in cards_of(d)] for d in state.discards],
        "deck": [c.name for c in state.deck],
        "bm_deck": [c.name for c in state.bm_deck],
        "offer_down": state.offer_down.name if state.offer_down is not None else None,
    }
