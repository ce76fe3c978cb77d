"""Sampling full states consistent with an observation (for search bots).

Every card a seat cannot see — other hands, other discards, the draw pile, an opponent's
face-down card, the Black Market deck — is dealt at random from the cards unaccounted for,
respecting every count the observation gives. The sample never uses the true state.
"""

from __future__ import annotations

import random

from referee.cards import BLACK_MARKET_CARDS, COPIES, N_AGENTS, Agent, BlackMarket, Counts
from referee.effects import compile_phases
from referee.engine import shuffled
from referee.observation import Observation
from referee.state import State


def unseen_agents(obs: Observation) -> list[Agent]:
    """The agent cards whose place this seat does not know."""
    left = list(COPIES)
    known: list[Counts] = [obs.in_play[0], obs.in_play[1]]
    if obs.hand is not None:
        known.append(obs.hand)
    if obs.discards is not None:
        known.append(obs.discards)
    for counts in known:
        for a in range(N_AGENTS):
            left[a] -= counts[a]
    for card in (obs.offer_up, obs.my_face_down):
        if card is not None:
            left[card] -= 1
    return [Agent(a) for a in range(N_AGENTS) for _ in range(left[a])]


def determinize(obs: Observation, rng: random.Random) -> State:
    """A full state the observing seat cannot tell apart from the real one."""
    if obs.seat is None:
        raise ValueError("a spectator's view cannot be determinized")
    config = obs.config
    pool = shuffled(unseen_agents(obs), rng)
    hands: list[Counts] = []
    discards: list[Counts] = []

    def take(n: int) -> Counts:
        counts = [0] * N_AGENTS
        for _ in range(n):
            counts[pool.pop()] += 1
        return tuple(counts)

    for info in obs.seats:
        if info.seat == obs.seat:
            assert obs.hand is not None and obs.discards is not None
            hands.append(obs.hand)
            discards.append(obs.discards)
        else:
            hands.append(take(info.hand_size))
            discards.append(take(info.discards_used))
    offer_down = obs.my_face_down
    if obs.face_down_offered and offer_down is None:
        offer_down = Agent(pool.pop())
    if len(pool) != obs.deck_size:
        raise ValueError(
            f"observation is inconsistent: {len(pool)} unseen cards for a deck of {obs.deck_size}"
        )
    seen_bm = set(obs.market) | set(obs.bm_discard) | obs.ongoing[0] | obs.ongoing[1]
    bm_deck: tuple[BlackMarket, ...] = ()
    if obs.bm_deck_size:
        bm_deck = tuple(shuffled([c for c in BLACK_MARKET_CARDS if c not in seen_bm], rng))
    return State(
        config=config,
        deck=tuple(pool),
        hands=tuple(hands),
        discards=tuple(discards),
        in_play=obs.in_play,
        pos=obs.positions,
        gap=obs.gap,
        active=obs.active,
        turn=obs.turn,
        turns_done=_turns_done(obs),
        decision=obs.decision,
        actor=obs.actor,
        face_up_seat=obs.face_up_seat,
        offer_up=obs.offer_up,
        offer_down=offer_down,
        market=obs.market,
        bm_deck=bm_deck,
        ongoing=obs.ongoing,
        bm_discard=obs.bm_discard,
        tasks=obs.pending_landings,
        effects_used=obs.effects_used,
        log=None,  # playouts need no history
        outcome=obs.outcome,
        deck_order=(),
        bm_order=(),
        seed=None,
        phases=compile_phases(config.mode, config.ruleset),
    )


def _turns_done(obs: Observation) -> tuple[int, int]:
    """Only the parity matters to the engine (the captain rule); recover it from captains."""
    out = []
    for team in (0, 1):
        members = obs.config.teams[team]
        out.append(members.index(obs.captains[team]) if len(members) == 2 else 0)
    return (out[0], out[1])
