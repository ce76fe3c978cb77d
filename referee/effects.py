"""The rules that variants switch on and off: named phases, compiled per (mode, ruleset).

Every function here is one rule of the spec, named as the ruleset data names it
(config.py). ``compile_phases`` turns those names into the lists the engine runs, so the
engine itself never asks which mode or ruleset it is playing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from referee.actions import Decision
from referee.cards import (
    CORNERS,
    HOMES,
    MASTERPLAN_IDS,
    MOVES,
    N_AGENTS,
    RECALL_SPACES,
    Agent,
    BlackMarket,
    Counts,
)
from referee.config import ADVANCED_PHASES, BASE_PHASES, RULESETS, Mode
from referee.events import EndReason, Event, EventKind, Task
from referee.phases import Phases
from referee.work import Work

Modifier = Callable[[Work, int, Agent, int], int]
Trigger = Callable[[Work, int], int]
Landing = Callable[[Work, Task], bool]
#: end checks return tuples, not any iterable: the compiled build walks a tuple by index
Ends = tuple[tuple[int, EndReason], ...]
EndCheck = Callable[[Work], Ends]
Instant = Callable[[Work, int, int], bool]

# Final aliases (see engine.py): C statics in the compiled build, not dict look-ups
_TASK: Final = Task
_BLACK_MARKET: Final = Decision.BLACK_MARKET
_RECALL: Final = Decision.RECALL
#: agents as int indexes, native in the compiled build (see work.py)
_CODEBREAKER: Final[int] = Agent.CODEBREAKER
_DAREDEVIL: Final[int] = Agent.DAREDEVIL


# --- recruiting and moving ----------------------------------------------------------------


def recruit(w: Work, team: int, agent: Agent) -> int:
    """Put an agent in play; returns the move its icon (and ongoing cards) gives."""
    copies = w.change_play(team, agent, 1)
    w.note_recruited(team, agent, copies)
    a: int = agent  # a native index in the compiled build (see work.py)
    delta = MOVES[a][copies - 1 if copies < 3 else 2]
    for modify in w.phases.recruit_modifiers:
        delta = modify(w, team, agent, delta)
    return delta


def after_move(w: Work, team: int) -> None:
    """Triggers on the space a meeple stopped on; together they make one combined move."""
    extra = 0
    for trigger in w.phases.after_move:
        extra += trigger(w, team)
    if extra:
        w.move(team, extra)


def note_landing(w: Work, team: int) -> None:
    if w.pos[team] in w.phases.landing_spaces:
        w.push(_TASK(team, w.pos[team]))


def move_and_land(w: Work, team: int, delta: int) -> None:
    """A move outside the main recruit: move, after-move triggers, then maybe a landing."""
    if delta:
        w.move(team, delta)
        after_move(w, team)
        note_landing(w, team)


# --- recruit modifiers (ongoing Black Market cards) -----------------------------------------


def lookout(w: Work, team: int, agent: Agent, delta: int) -> int:
    if agent is Agent.ENFORCER and BlackMarket.LOOKOUT in w.ongoing[team]:
        return delta + 2
    return delta


def supercomputer(w: Work, team: int, agent: Agent, delta: int) -> int:
    if agent is Agent.CODEBREAKER and BlackMarket.SUPERCOMPUTER in w.ongoing[team]:
        return delta + 3
    return delta


def distraction_device(w: Work, team: int, agent: Agent, delta: int) -> int:
    if agent is Agent.SABOTEUR and BlackMarket.DISTRACTION_DEVICE in w.ongoing[team]:
        return -delta
    return delta


def evil_twin(w: Work, team: int, agent: Agent, delta: int) -> int:
    if agent is Agent.DOUBLE_AGENT and BlackMarket.EVIL_TWIN in w.ongoing[team]:
        return 2 * delta
    return delta


# --- after-move triggers ---------------------------------------------------------------------


def getaway_car(w: Work, team: int) -> int:
    if w.pos[team] in HOMES and BlackMarket.GETAWAY_CAR in w.ongoing[team]:
        return 3
    return 0


def home_bonus(w: Work, team: int) -> int:
    """summary-board: home +3, at most once per meeple per turn (spec 10.2)."""
    if w.pos[team] in HOMES and w.use_effect(team, "home_bonus"):
        return 3
    return 0


# --- landings ---------------------------------------------------------------------------------


def black_market(w: Work, task: Task) -> bool:
    if task.space not in CORNERS or not w.market:
        return False  # an empty market gives nothing
    w.ask(_BLACK_MARKET, w.captain(task.team))
    return True


def recall(w: Work, task: Task) -> bool:
    """summary-board: a recall space works like Spycation, once per meeple per turn."""
    if task.space not in RECALL_SPACES or not w.use_effect(task.team, "recall"):
        return False
    if not any(w.in_play[task.team]):
        return False
    w.ask(_RECALL, w.captain(task.team))
    return True


# --- instant Black Market cards ---------------------------------------------------------------


def ids_in(counts: Counts, at_least: int = 1) -> tuple[Agent, ...]:
    return tuple(Agent(a) for a in range(N_AGENTS) if counts[a] >= at_least)


def secret_recruit_options(hand: Counts, play: Counts) -> tuple[Agent, ...]:
    return tuple(a for a in ids_in(hand) if not play[a])


def _ignored(w: Work, team: int, card: BlackMarket) -> bool:
    w.emit(Event(EventKind.EFFECT_IGNORED, team=team, bm=card))
    return False


def surveillance_van(w: Work, team: int, taker: int) -> bool:
    move_and_land(w, team, 1)
    return False


def smoke_screen(w: Work, team: int, taker: int) -> bool:
    if not w.deck:
        return _ignored(w, team, BlackMarket.SMOKE_SCREEN)
    card = w.deck[0]
    w.deck = w.deck[1:]
    move_and_land(w, team, recruit(w, team, card))
    return False


def outpost(w: Work, team: int, taker: int) -> bool:
    if not w.hands[taker][Agent.SENTINEL]:
        return _ignored(w, team, BlackMarket.OUTPOST)
    w.change_hand(taker, Agent.SENTINEL, -1)
    move_and_land(w, team, recruit(w, team, Agent.SENTINEL))
    return False


def _ask_if(
    w: Work, team: int, taker: int, card: BlackMarket, decision: Decision, ok: bool
) -> bool:
    if not ok:
        return _ignored(w, team, card)
    w.ask(decision, taker)
    return True


def secret_recruit(w: Work, team: int, taker: int) -> bool:
    ok = bool(secret_recruit_options(w.hands[taker], w.in_play[team]))
    return _ask_if(w, team, taker, BlackMarket.SECRET_RECRUIT, Decision.SECRET_RECRUIT, ok)


def double_trouble(w: Work, team: int, taker: int) -> bool:
    ok = bool(ids_in(w.hands[taker], 2))
    return _ask_if(w, team, taker, BlackMarket.DOUBLE_TROUBLE, Decision.DOUBLE_TROUBLE, ok)


def spycation(w: Work, team: int, taker: int) -> bool:
    ok = any(w.in_play[team])
    return _ask_if(w, team, taker, BlackMarket.SPYCATION, Decision.SPYCATION, ok)


def mind_control(w: Work, team: int, taker: int) -> bool:
    ok = any(w.in_play[1 - team])
    return _ask_if(w, team, taker, BlackMarket.MIND_CONTROL, Decision.MIND_CONTROL, ok)


INSTANTS: dict[BlackMarket, Instant] = {
    BlackMarket.SURVEILLANCE_VAN: surveillance_van,
    BlackMarket.SMOKE_SCREEN: smoke_screen,
    BlackMarket.OUTPOST: outpost,
    BlackMarket.SECRET_RECRUIT: secret_recruit,
    BlackMarket.DOUBLE_TROUBLE: double_trouble,
    BlackMarket.SPYCATION: spycation,
    BlackMarket.MIND_CONTROL: mind_control,
}


# --- End-step conditions: (team, reason) for the team each one makes a candidate ----------------


_CATCH_A: Final = ((0, EndReason.CATCH),)
_CATCH_B: Final = ((1, EndReason.CATCH),)


def catch(w: Work) -> Ends:
    if w.gap <= 0:
        return _CATCH_A
    if w.gap >= 14:
        return _CATCH_B
    return ()


def three_codebreakers(w: Work) -> Ends:
    areas = w.in_play
    if areas[0][_CODEBREAKER] < 3 and areas[1][_CODEBREAKER] < 3:
        return ()  # the usual case, kept cheap
    return tuple(
        (t, EndReason.CODEBREAKERS) for t in (0, 1) if w.in_play[t][Agent.CODEBREAKER] >= 3
    )


def three_daredevils(w: Work) -> Ends:
    """3 Daredevils lose, unless Leader of the Pack turns the loss into a win.

    Leader of the Pack's wins come before the Daredevils' losses, so that a team that is a
    candidate for both (each team on 3 Daredevils, one holding the card) is reported the
    same whichever team index it has (ruling R14)."""
    areas = w.in_play
    if areas[0][_DAREDEVIL] < 3 and areas[1][_DAREDEVIL] < 3:
        return ()
    three = [t for t in (0, 1) if w.in_play[t][Agent.DAREDEVIL] >= 3]
    led = [t for t in three if BlackMarket.LEADER_OF_THE_PACK in w.ongoing[t]]
    return tuple((t, EndReason.LEADER_OF_THE_PACK) for t in led) + tuple(
        (1 - t, EndReason.DAREDEVILS) for t in three if t not in led
    )


def masterplan(w: Work) -> Ends:
    return tuple(
        (t, EndReason.MASTERPLAN)
        for t in (0, 1)
        if BlackMarket.MASTERPLAN in w.ongoing[t]
        and sum(1 for n in w.in_play[t] if n) >= MASTERPLAN_IDS
    )


def security_system(w: Work) -> Ends:
    return tuple(
        (t, EndReason.SECURITY_SYSTEM)
        for t in (0, 1)
        if BlackMarket.SECURITY_SYSTEM in w.ongoing[t] and w.pos[1 - t] == HOMES[t]
    )


def home_space(w: Work) -> Ends:
    """summary-board: the opponent's meeple on your home at End is a win."""
    return tuple((t, EndReason.HOME_SPACE) for t in (0, 1) if w.pos[1 - t] == HOMES[t])


_NAMED: dict[str, object] = {
    f.__name__: f
    for f in (
        lookout,
        supercomputer,
        distraction_device,
        evil_twin,
        getaway_car,
        home_bonus,
        black_market,
        recall,
        catch,
        three_codebreakers,
        three_daredevils,
        masterplan,
        security_system,
        home_space,
    )
}
_SPACES = {"black_market": CORNERS, "recall": RECALL_SPACES}


@functools.cache
def compile_phases(mode: Mode, ruleset: str) -> Phases[Work]:
    parts = [BASE_PHASES, *([ADVANCED_PHASES] if mode is Mode.ADVANCED else []), RULESETS[ruleset]]

    def named(attr: str) -> tuple[str, ...]:
        return tuple(name for part in parts for name in getattr(part, attr))

    def fns(attr: str) -> tuple[object, ...]:
        return tuple(_NAMED[name] for name in named(attr))

    return Phases(
        name=f"{mode.value}/{ruleset}",
        recruit_modifiers=fns("recruit_modifiers"),  # type: ignore[arg-type]
        after_move=fns("after_move"),  # type: ignore[arg-type]
        landings=fns("landings"),  # type: ignore[arg-type]
        landing_spaces=frozenset().union(*(_SPACES[n] for n in named("landings"))),
        end_checks=fns("end_checks"),  # type: ignore[arg-type]
    )
