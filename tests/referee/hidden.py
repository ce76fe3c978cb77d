"""Checking that observations leak nothing: change what a seat must not know, and its
observation must stay equal (STYLE.md #2). Shared by the referee tests and the audits."""

from __future__ import annotations

import random
from collections.abc import Callable

from referee.cards import N_AGENTS, Agent, Counts, cards_of
from referee.engine import shuffled
from referee.observation import Observation, observe
from referee.state import State


def perturb(state: State, seat: int | None, rng: random.Random) -> State:
    """Redeal every card ``seat`` cannot see (all hidden cards for a spectator), keeping
    every count it can see: hand sizes, discard counts, deck size, BM deck size."""
    own_face_down = seat is not None and state.face_down_seat() == seat
    pool: list[Agent] = list(state.deck)
    others = [s for s in range(state.config.seats) if s != seat]
    for s in others:
        pool += cards_of(state.hands[s]) + cards_of(state.discards[s])
    hidden_down = state.offer_down is not None and not own_face_down
    if hidden_down:
        assert state.offer_down is not None
        pool.append(state.offer_down)
    pool = shuffled(pool, rng)

    def take(n: int) -> Counts:
        c = [0] * N_AGENTS
        for _ in range(n):
            c[pool.pop()] += 1
        return tuple(c)

    hands, discards = list(state.hands), list(state.discards)
    for s in others:
        hands[s] = take(sum(state.hands[s]))
        discards[s] = take(sum(state.discards[s]))
    offer_down = Agent(pool.pop()) if hidden_down else state.offer_down
    return state._replace(
        deck=tuple(pool),
        hands=tuple(hands),
        discards=tuple(discards),
        offer_down=offer_down,
        bm_deck=tuple(shuffled(list(state.bm_deck), rng)),
    )


Observer = Callable[[State, "int | None"], Observation]


def leaks(
    state: State, rng: random.Random, observer: Observer = observe, tries: int = 2
) -> list[str]:
    """The seats (and 'spectator') whose observation changed when hidden cards changed."""
    found = []
    for seat in [*range(state.config.seats), None]:
        seen = observer(state, seat)
        for _ in range(tries):
            if observer(perturb(state, seat, rng), seat) != seen:
                found.append("spectator" if seat is None else f"seat {seat}")
                break
    return found
