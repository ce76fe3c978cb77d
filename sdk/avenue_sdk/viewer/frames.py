"""Replay viewer frames: a stored replay re-simulated through the referee, one frame per
decision, as a chosen perspective may see it.

Perspectives: ``seat:N`` (what seat N knew), ``spectator`` (public information only) and
``omniscient`` (everything, including the deck order). Frames come from ``referee.replay``
and ``referee.observation.observe``, so the viewer can never disagree with the rules or
show a seat more than it knew. Pure: no ORM, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from avenue_sdk.protocol.timing import SeatClock, TimeControl
from avenue_sdk.viewer.story import TurnSummary, ending, private_lines
from referee.cards import (
    COPIES,
    MOVES,
    ONGOING,
    START_GAP,
    Agent,
    BlackMarket,
    Counts,
    cards_of,
    title,
)
from referee.narrate import describe
from referee.observation import Observation, observe
from referee.replay import Record, replay
from referee.state import EventKind, State

Json = dict[str, Any]  # JSON-ready data for the viewer

SPECTATOR = "spectator"
OMNISCIENT = "omniscient"


class PerspectiveError(ValueError):
    """A perspective name that does not exist for this match."""


@dataclass(frozen=True)
class Perspective:
    kind: str  # "seat", SPECTATOR or OMNISCIENT
    seat: int | None = None

    @property
    def name(self) -> str:
        return f"seat:{self.seat}" if self.kind == "seat" else self.kind


def perspectives(record: Record) -> list[Perspective]:
    seats = [Perspective("seat", s) for s in range(record.config.seats)]
    return [*seats, Perspective(SPECTATOR), Perspective(OMNISCIENT)]


def parse_perspective(name: str, record: Record) -> Perspective:
    for p in perspectives(record):
        if p.name == name:
            return p
    known = ", ".join(p.name for p in perspectives(record))
    raise PerspectiveError(f"unknown perspective {name!r}: this match has {known}")


#: what each Black Market card does (rules section 7), shown on hover or tap
_EFFECTS = {
    "LEADER_OF_THE_PACK": "at the End, 3+ Daredevils in play make you win instead of lose",
    "MASTERPLAN": "at the End, 7 different agents in play: you win",
    "SECURITY_SYSTEM": "at the End, the opponent's meeple on your home space: you win",
    "GETAWAY_CAR": "whenever your meeple stops exactly on a home space, move 3 more",
    "LOOKOUT": "recruiting an Enforcer moves 2 more (+3/+4/+5)",
    "SUPERCOMPUTER": "recruiting a Codebreaker moves 3",
    "DISTRACTION_DEVICE": "Saboteurs move you forward instead of back (+1/+1/+2)",
    "EVIL_TWIN": "Double Agents move twice as far (-2/+12/-2)",
    "SURVEILLANCE_VAN": "move 1",
    "SMOKE_SCREEN": "recruit the top card of the agent deck",
    "OUTPOST": "recruit a Sentinel from your hand",
    "SECRET_RECRUIT": "recruit a hand card whose agent you do not have in play",
    "DOUBLE_TROUBLE": "show 2 identical hand cards; recruit one, keep the other",
    "SPYCATION": "take an agent of yours from play into your hand; you may recruit it at once",
    "MIND_CONTROL": "take an agent from the opponents' play area into your hand",
}
BM_EFFECTS: dict[BlackMarket, str] = {
    c: f"{'ongoing' if c in ONGOING else 'instant'}: {_EFFECTS[c.name]}" for c in BlackMarket
}


def _cards(counts: Counts) -> list[str]:
    return [c.name for c in cards_of(counts)]


def _grouped(counts: Counts) -> dict[str, int]:
    return {Agent(a).name: n for a, n in enumerate(counts) if n}


def _frame(state: State, obs: Observation, omniscient: bool, events: list[str], step: int) -> Json:
    seats = []
    for info in obs.seats:
        mine = obs.seat == info.seat
        show_hand = omniscient or mine
        seats.append(
            {
                "seat": info.seat,
                "team": info.team,
                "hand_size": info.hand_size,
                "hand": _cards(state.hands[info.seat]) if show_hand else None,
                "discards_used": info.discards_used,
                "discards": _cards(state.discards[info.seat]) if show_hand else None,
            }
        )
    face_down: str | None = None
    if obs.face_down_offered:
        if omniscient and state.offer_down is not None:
            face_down = state.offer_down.name
        elif obs.my_face_down is not None:
            face_down = obs.my_face_down.name
    out: Json = {
        "step": step,
        "turn": obs.turn,
        "active_team": obs.active,
        "decision": obs.decision.value if obs.decision else None,
        "actor": obs.actor,
        "positions": list(obs.positions),
        "gap": obs.gap,
        "in_play": [_grouped(c) for c in obs.in_play],
        "seats": seats,
        "deck_size": obs.deck_size,
        "offer": {
            # DOUBLE_AGENT is 0: test for None, never for truth
            "face_up": obs.offer_up.name if obs.offer_up is not None else None,
            "face_down_offered": obs.face_down_offered,
            "face_down": face_down,
        },
        "market": [c.name for c in obs.market],
        "ongoing": [sorted(c.name for c in team) for team in obs.ongoing],
        "bm_deck_size": obs.bm_deck_size,
        "bm_discard": [c.name for c in obs.bm_discard],
        "events": events,
        "outcome": None
        if obs.outcome is None
        else {"winner": obs.outcome.winner, "reason": obs.outcome.reason.value},
        "captains": list(obs.captains),
    }
    if omniscient:
        out["deck"] = [c.name for c in state.deck]
        out["bm_deck"] = [c.name for c in state.bm_deck]
    return out


def _visible(perspective: Perspective, seats: int) -> set[int]:
    """The seats whose private cards this perspective knows."""
    if perspective.kind == OMNISCIENT:
        return set(range(seats))
    return {perspective.seat} if perspective.seat is not None else set()


#: what a frame shows on the table and the board (not the log, the deck count or whose
#: decision it is): a step that changes none of it is "quiet" (a spectator's view of a
#: discard, say) and the viewer can skip it
_TABLE = ("positions", "in_play", "offer", "market", "ongoing", "bm_discard", "outcome")


def _table(frame: Json) -> Json:
    out = {k: frame[k] for k in _TABLE}
    out["hands"] = [(s["hand"], s["discards"]) for s in frame["seats"]]
    return out


def frames(record: Record, perspective: Perspective, names: list[str] | None = None) -> list[Json]:
    """One frame per state of the game (the deal, then after each decision), with the event
    lines as this perspective knows them, the turn's summary so far, the decision that led
    here (seat, kind, latency) and navigation flags (``changed``: anything on
    the table or the board changed, see ``_TABLE``; ``market_event``: a Black Market card was
    taken or revealed)."""
    config = record.config
    names = names or [f"seat {s}" for s in range(config.seats)]
    visible = _visible(perspective, config.seats)
    omniscient = perspective.kind == OMNISCIENT
    summary = TurnSummary(config.teams, names)
    out: list[Json] = []
    seen = 0
    before: State | None = None
    for step, state in enumerate(replay(record)):
        obs = observe(state, perspective.seat if perspective.kind == "seat" else None)
        new = obs.history[seen:]
        seen = len(obs.history)
        for e in new:
            summary.add(e)
        lines = (
            private_lines(before, state, new, visible, names)
            if before is not None
            else [describe(e) for e in new]
        )
        frame = _frame(state, obs, omniscient, lines, step)
        frame["summary"] = summary.now()
        if 0 < step <= len(record.decisions):
            d = record.decisions[step - 1]
            frame["last"] = {"seat": d.seat, "kind": d.kind.value, "latency_ms": d.latency_ms}
        else:
            # the deal, or a forfeit's end: a state no decision led to (``replay`` yields
            # it after the last decision when a fault ended the game)
            frame["last"] = None
        frame["changed"] = not out or _table(frame) != _table(out[-1])
        frame["market_event"] = any(
            e.kind in (EventKind.MARKET_TAKEN, EventKind.MARKET_REVEALED) for e in new
        )
        frame["ending"] = ending(state, names)
        out.append(frame)
        before = state
    return out


def _ahead(team: int, gap: int) -> bool:
    """Whether ``team`` is closer to catching than the other on the board's gap (rules
    section 2): team A when the gap is below 7, team B when it is above."""
    return gap < START_GAP if team == 0 else gap > START_GAP


def decided(shown: list[Json]) -> Json | None:
    """The moment the game was decided, as a watcher of the board reads it: the first step
    from which the eventual winner stayed ahead on the gap (``_ahead``) to the last step,
    i.e. the step where it took the lead for good. A winner that did not finish ahead on
    the gap (3 Codebreakers, 3 Daredevils, a Black Market card, a forfeit, a tie at 7 when
    the cards ran out) was decided at the last step. None while the game is not over (a
    live match). ``by_gap``: the winner led the race from that step on."""
    if not shown or shown[-1]["outcome"] is None:
        return None
    winner = shown[-1]["outcome"]["winner"]
    step = len(shown) - 1
    while step >= 0 and _ahead(winner, shown[step]["gap"]):
        step -= 1
    by_gap = step < len(shown) - 1
    at = step + 1 if by_gap else len(shown) - 1
    return {"step": at, "turn": shown[at]["turn"], "winner": winner, "by_gap": by_gap}


def _agent_info() -> Json:
    return {
        a.name: {"title": title(a), "moves": list(MOVES[a]), "copies": COPIES[a]} for a in Agent
    }


def _market_info() -> Json:
    return {
        c.name: {"title": title(c), "effect": BM_EFFECTS[c], "ongoing": c in ONGOING}
        for c in BlackMarket
    }


def clocks(record: Record, tc: TimeControl) -> list[list[Json]]:
    """Per frame (the deal, then after each decision), each seat's clock as the runner kept
    it (``SeatClock``: time beyond ``decision_ms`` comes out of the bank): ``bank_ms`` left,
    ``last_ms`` its previous answer's latency, and for the seat deciding at that frame,
    ``thinking_ms``: how long it took over the decision asked there (None while unknown:
    a live match's pending decision, or one taken without asking)."""
    seats = record.config.seats
    running = [SeatClock.start(tc) for _ in range(seats)]
    last: list[float | None] = [None] * seats
    out: list[list[Json]] = []
    decisions = record.decisions
    for step in range(len(decisions) + 2):  # the deal, each decision, a forfeit's end
        pending = decisions[step] if step < len(decisions) else None
        took = None if pending is None else pending.latency_ms
        out.append([
            {
                "bank_ms": round(running[s].bank_ms),
                "last_ms": _ms(last[s]),
                "thinking_ms": _ms(took) if pending is not None and pending.seat == s else None,
            }
            for s in range(seats)
        ])  # fmt: skip
        if pending is not None and pending.latency_ms is not None:
            running[pending.seat].charge(pending.latency_ms)
            last[pending.seat] = pending.latency_ms
    return out


def _ms(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def viewer_payload(
    record: Record,
    perspective: Perspective,
    names: list[str] | None = None,
    time_control: TimeControl | None = None,
) -> Json:
    """Everything the viewer needs for one perspective, as JSON-ready data; with the
    match's ``time_control``, every frame carries the seats' ``clocks``."""
    config = record.config
    names = names or [f"seat {s}" for s in range(config.seats)]
    shown = frames(record, perspective, names)
    if time_control is not None:
        for frame, now in zip(shown, clocks(record, time_control), strict=False):
            frame["clocks"] = now
    return {
        "perspective": perspective.name,
        "perspectives": [p.name for p in perspectives(record)],
        "mode": config.mode.value,
        "ruleset": config.ruleset,
        "teams": [list(t) for t in config.teams],
        "seat_names": names,
        "agents": {a.name: title(a) for a in Agent},
        "agent_info": _agent_info(),
        "black_market": _market_info(),
        "frames": shown,
        "decided": decided(shown),
        "time_control": None
        if time_control is None
        else {"decision_ms": time_control.decision_ms, "bank_ms": time_control.bank_ms},
    }
