"""Sampling full states consistent with an observation (for search bots).

Every card a seat cannot see — other hands, other discards, the draw pile, an opponent's
face-down card, the Black Market deck — is dealt at random from the cards unaccounted for,
respecting every count the observation gives and every card the public log told the seat
of (``referee.bots.knowledge``: a card Spycation, a recall or Mind Control put into a
hand stays there until it is seen to leave; Double Trouble's pair; what an instant card
that could not be carried out says a hand lacked). The sample never uses the true state.
"""

from __future__ import annotations

import random

from referee.bots.knowledge import UNBOUNDED, Knowledge, knowledge
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


#: deals tried within the knowledge's bounds before dealing without the upper bounds (a
#: deal can paint itself into a corner; the lower bounds alone never do)
ATTEMPTS = 20


def determinize(obs: Observation, rng: random.Random) -> State:
    """A full state the observing seat cannot tell apart from the real one: every count
    the observation gives, and every card the public log told it of (``knowledge``)."""
    if obs.seat is None:
        raise ValueError("a spectator's view cannot be determinized")
    know = knowledge(obs)
    dealt = None
    for attempt in range(ATTEMPTS):
        dealt = _deal(obs, know, rng, capped=attempt < ATTEMPTS - 1)
        if dealt is not None:
            break
    if dealt is None:
        raise ValueError("observation is inconsistent: no deal fits what the seat knows")
    hands, discards, offer_down, pool = dealt
    if len(pool) != obs.deck_size:
        raise ValueError(
            f"observation is inconsistent: {len(pool)} unseen cards for a deck of {obs.deck_size}"
        )
    return _state(obs, rng, hands, discards, offer_down, pool)


Dealt = tuple[list[Counts], list[Counts], "Agent | None", list[Agent]]


def _deal(obs: Observation, know: Knowledge, rng: random.Random, capped: bool) -> Dealt | None:
    """Hands, discards, the unseen face-down card and the deck (None: this try failed).
    Known cards are set aside first, for every seat, then the rest is dealt at random."""
    left = [0] * N_AGENTS
    for card in unseen_agents(obs):
        left[card] += 1
    sizes = {info.seat: (info.hand_size, info.discards_used) for info in obs.seats}
    plans: dict[int, tuple[list[int], list[int], list[int]]] = {}
    for seat, b in know.seats.items():
        extra = [max(0, b.held_min[a] - b.hand_min[a]) for a in range(N_AGENTS)]
        for a in range(N_AGENTS):
            left[a] -= b.hand_min[a] + extra[a]
            if left[a] < 0:
                raise ValueError(
                    f"observation is inconsistent: seat {seat} is known to hold more "
                    f"{Agent(a).name} than are unaccounted for"
                )
        plans[seat] = (list(b.hand_min), [0] * N_AGENTS, extra)
    rest = shuffled([Agent(a) for a in range(N_AGENTS) for _ in range(left[a])], rng)
    offer_down: Agent | None = obs.my_face_down
    hands: list[Counts] = []
    discards: list[Counts] = []
    for info in obs.seats:
        seat = info.seat
        if seat == obs.seat:
            assert obs.hand is not None and obs.discards is not None
            hands.append(obs.hand)
            discards.append(obs.discards)
            continue
        hand, disc, extra = plans[seat]
        cap = know.seats[seat].hand_max if capped else [UNBOUNDED] * N_AGENTS
        hand_size, disc_size = sizes[seat]
        pending = seat == know.face_down_seat
        hand_size += pending  # its face-down card is dealt with its hand, then picked
        if not _fill(hand, disc, extra, cap, hand_size, disc_size, rest, rng):
            return None
        if pending:
            card = _face_down(hand, obs.offer_up, rng)
            hand[card] -= 1
            offer_down = card
        hands.append(tuple(hand))
        discards.append(tuple(disc))
    if obs.face_down_offered and offer_down is None:  # not in the log: any unseen card
        offer_down = rest.pop()
    return hands, discards, offer_down, rest


def _fill(
    hand: list[int],
    disc: list[int],
    extra: list[int],
    cap: list[int],
    hand_size: int,
    disc_size: int,
    rest: list[Agent],
    rng: random.Random,
) -> bool:
    """Complete one seat: the cards known in hand-or-discards go to either (at random, as
    room and the hand's caps allow), then unknown cards from ``rest`` fill both."""
    room_hand, room_disc = hand_size - sum(hand), disc_size
    known = [a for a in range(N_AGENTS) for _ in range(extra[a])]
    rng.shuffle(known)
    for a in known:
        to_hand = room_hand > 0 and hand[a] < cap[a]
        if to_hand and room_disc > 0:
            to_hand = rng.random() * (room_hand + room_disc) < room_hand
        if to_hand:
            hand[a] += 1
            room_hand -= 1
        elif room_disc > 0:
            disc[a] += 1
            room_disc -= 1
        else:
            return False
    for _ in range(room_hand):
        # the last card of ``rest`` the hand may hold: rest is shuffled, so any of them
        i = next((i for i in range(len(rest) - 1, -1, -1) if hand[rest[i]] < cap[rest[i]]), -1)
        if i < 0:
            return False
        hand[rest.pop(i)] += 1
    if len(rest) < room_disc or room_hand < 0:
        return False
    for _ in range(room_disc):
        disc[rest.pop()] += 1
    return True


def _face_down(hand: list[int], offer_up: Agent | None, rng: random.Random) -> Agent:
    """Which of the seat's cards it played face down: a card of another id than the
    face-up one, as the rules require unless its whole hand had that id."""
    cards = [Agent(a) for a in range(N_AGENTS) for _ in range(hand[a])]
    other = [c for c in cards if c != offer_up]
    return rng.choice(other or cards)


def _state(
    obs: Observation,
    rng: random.Random,
    hands: list[Counts],
    discards: list[Counts],
    offer_down: Agent | None,
    pool: list[Agent],
) -> State:
    config = obs.config
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
