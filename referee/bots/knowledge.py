"""What a seat knows of the other seats' cards, read from the public log.

The public events put cards into hands and take them out in the open: Spycation and the
summary board's recall (``RETRIEVED``, unless the card is recruited at once), Mind Control
(``STOLEN``) put a known agent into a hand; Double Trouble shows a pair (``SHOWN_PAIR``);
a card played face up, a face-down card once turned over (``CHOSE``) and a card recruited
from a hand (Secret Recruit, Double Trouble, Outpost) leave it; an instant card that
could not be carried out (``EFFECT_IGNORED``) says what the taker's hand did *not* hold
(Outpost: no Sentinel; Double Trouble: no pair; Secret Recruit: no id its team lacked in
play, which the log's ``RECRUITED`` counts tell). Discarding and drawing are hidden: a
discard may be any hand card, a draw any card.

``knowledge(obs)`` folds the log into bounds per other seat, each one a fact about the
real game: at least ``hand_min`` in the hand, at least ``held_min`` in the hand and
discards together, at most ``hand_max`` in the hand. While a face-down card a seat
played is not turned over yet, that card counts as part of its hand (``face_down_seat``):
it left the hand unseen. ``referee.bots.determinize`` deals only worlds within these
bounds; ``satisfies`` checks a state against them (the tests check the real state, and
every sample).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from referee.cards import N_AGENTS, Agent, BlackMarket
from referee.events import Event, EventKind
from referee.observation import Observation
from referee.state import State

#: "no upper bound": more than all the copies of any agent
UNBOUNDED = 1_000


@dataclass
class Bounds:
    """What is known of one seat's cards (per agent id)."""

    #: at least this many in the hand (the pending face-down card counts as in the hand)
    hand_min: list[int] = field(default_factory=lambda: [0] * N_AGENTS)
    #: at least this many in the hand and the discards together
    held_min: list[int] = field(default_factory=lambda: [0] * N_AGENTS)
    #: at most this many in the hand
    hand_max: list[int] = field(default_factory=lambda: [UNBOUNDED] * N_AGENTS)

    @property
    def trivial(self) -> bool:
        return not any(self.hand_min) and not any(self.held_min) and min(self.hand_max) >= 99

    def gained(self, agent: int) -> None:
        """A known card went into the hand."""
        self.hand_min[agent] += 1
        self.held_min[agent] += 1
        self.hand_max[agent] += 1

    def lost(self, agent: int) -> None:
        """A known card left the hand (it was there: the bounds say at least one)."""
        self.hand_min[agent] = max(self.hand_min[agent], 1) - 1
        self.held_min[agent] = max(self.held_min[agent], 1) - 1
        self.hand_max[agent] -= 1

    def discarded(self) -> None:
        """An unknown hand card went to the discards."""
        self.hand_min = [max(0, n - 1) for n in self.hand_min]

    def drew(self, amount: int) -> None:
        self.hand_max = [min(UNBOUNDED, n + amount) for n in self.hand_max]

    def at_most(self, agent: int, n: int) -> None:
        self.hand_max[agent] = min(self.hand_max[agent], n)

    def at_least(self, agent: int, n: int) -> None:
        self.hand_min[agent] = max(self.hand_min[agent], n)
        self.held_min[agent] = max(self.held_min[agent], self.hand_min[agent])


@dataclass
class Knowledge:
    #: seat -> what the observer knows of its cards (every seat but the observer's)
    seats: dict[int, Bounds]
    #: the seat whose face-down card is on offer and not turned over yet (None: none)
    face_down_seat: int | None

    @property
    def trivial(self) -> bool:
        return all(b.trivial for b in self.seats.values())


def knowledge(obs: Observation) -> Knowledge:
    """Fold the observation's public log into what its seat knows of the others' cards."""
    me = obs.seat
    seats = {s.seat: Bounds() for s in obs.seats if s.seat != me}
    reader = _Reader(seats)
    for event in obs.history:
        reader.read(event)
    reader.flush()
    face_down = reader.face_down if obs.face_down_offered else None
    if face_down == me:
        face_down = None
    return Knowledge(seats, face_down)


class _Reader:
    """The log, one event at a time. A few events mean something only with the next one:
    a ``RETRIEVED`` card recruited at once never reaches the hand; a ``RECRUITED`` card
    came from the taker's hand after Secret Recruit, Double Trouble or Outpost, from the
    offer after ``CHOSE``, from the deck after Smoke Screen."""

    def __init__(self, seats: dict[int, Bounds]) -> None:
        self.seats = seats
        #: (seat, agent) of a RETRIEVED card not yet known to be kept or recruited
        self.retrieved: tuple[int, int] | None = None
        #: the seat whose hand the next RECRUITED card comes from (None: not a hand)
        self.from_hand: int | None = None
        #: the taker of the last Black Market card, and which card
        self.taker: tuple[int, BlackMarket] | None = None
        #: the seat that played the face-down card on offer
        self.face_down: int | None = None
        #: each team's agents in play, as the log tells them (for Secret Recruit)
        self.in_play = [[0] * N_AGENTS, [0] * N_AGENTS]

    def _bounds(self, seat: int) -> Bounds | None:
        return self.seats.get(seat)

    def flush(self) -> None:
        """The retrieved card was not recruited at once: it is in the hand."""
        if self.retrieved is not None:
            seat, agent = self.retrieved
            self.retrieved = None
            b = self._bounds(seat)
            if b is not None:
                b.gained(agent)

    def read(self, e: Event) -> None:
        k = e.kind
        if self.retrieved is not None:
            if k is EventKind.RECRUITED and e.agent is not None and e.agent == self.retrieved[1]:
                self.retrieved = None  # recruited at once: it never reached the hand
                self.in_play[e.team][e.agent] = e.amount
                return
            self.flush()
        b = self._bounds(e.seat) if e.seat >= 0 else None
        agent = None if e.agent is None else int(e.agent)
        if k is EventKind.DISCARDED:
            if b is not None:
                b.discarded()
        elif k is EventKind.DREW:
            if b is not None:
                b.drew(e.amount)
        elif k is EventKind.PLAYED_FACE_UP:
            if b is not None and agent is not None:
                b.lost(agent)
        elif k is EventKind.PLAYED_FACE_DOWN:
            self.face_down = e.seat  # it stays in the hand's bounds until turned over
        elif k is EventKind.CHOSE:
            fd = self._bounds(self.face_down) if self.face_down is not None else None
            if fd is not None and agent is not None:
                fd.lost(agent)
            self.face_down = None
            self.from_hand = None  # the two RECRUITED that follow come from the offer
        elif k is EventKind.MARKET_TAKEN:
            self.taker = (e.seat, e.bm) if e.bm is not None else None
            hand_cards = (BlackMarket.SECRET_RECRUIT, BlackMarket.OUTPOST)
            self.from_hand = e.seat if e.bm in hand_cards else None
        elif k is EventKind.EFFECT_IGNORED:
            self._ignored(e)
            self.from_hand = None
        elif k is EventKind.SHOWN_PAIR:
            if b is not None and agent is not None:
                b.at_least(agent, 2)
            self.from_hand = e.seat
        elif k is EventKind.RETRIEVED:
            if agent is not None:
                self.retrieved = (e.seat, agent)
                self.in_play[e.team][agent] -= 1
        elif k is EventKind.STOLEN:
            if agent is not None:
                self.in_play[1 - e.team][agent] -= 1
            if b is not None and agent is not None:
                b.gained(agent)
        elif k is EventKind.RECRUITED:
            if agent is not None:
                self.in_play[e.team][agent] = e.amount
            if self.from_hand is not None and agent is not None:
                src = self._bounds(self.from_hand)
                if src is not None:
                    src.lost(agent)
                self.from_hand = None
        elif k is EventKind.TURN_STARTED:
            self.from_hand = None

    def _ignored(self, e: Event) -> None:
        """An instant card that could not be carried out: what the taker's hand lacked."""
        if self.taker is None or e.bm != self.taker[1]:
            return
        b = self._bounds(self.taker[0])
        if b is None:
            return
        if e.bm is BlackMarket.OUTPOST:
            b.at_most(Agent.SENTINEL, 0)
        elif e.bm is BlackMarket.DOUBLE_TROUBLE:
            for a in range(N_AGENTS):
                b.at_most(a, 1)
        elif e.bm is BlackMarket.SECRET_RECRUIT:  # every id in hand was in play already
            for a in range(N_AGENTS):
                if not self.in_play[e.team][a]:
                    b.at_most(a, 0)


def satisfies(state: State, seat: int, bounds: Bounds, face_down: bool) -> str | None:
    """Why ``state``'s cards for ``seat`` break ``bounds`` (None: they do not). With
    ``face_down``, the face-down card on offer counts as in its hand."""
    hand = list(state.hands[seat])
    if face_down:
        assert state.offer_down is not None
        hand[state.offer_down] += 1
    held = [h + d for h, d in zip(hand, state.discards[seat], strict=True)]
    for a in range(N_AGENTS):
        name = Agent(a).name
        if hand[a] < bounds.hand_min[a]:
            return f"seat {seat} holds {hand[a]} {name}, known to hold {bounds.hand_min[a]}+"
        if held[a] < bounds.held_min[a]:
            known = bounds.held_min[a]
            return f"seat {seat} has {held[a]} {name} in hand and discards, known {known}+"
        if hand[a] > bounds.hand_max[a]:
            return f"seat {seat} holds {hand[a]} {name}, known to hold at most {bounds.hand_max[a]}"
    return None
