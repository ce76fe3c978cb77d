"""Card and board data of Agent Avenue (rules sections 1, 2 and 7).

Agents and Black Market cards are ``IntEnum`` members so that count vectors can be indexed
by them directly; every per-id table below is a tuple indexed by the enum value.
"""

from __future__ import annotations

import enum
from typing import Final


class FastEnum(enum.Enum):
    """Enum members are singletons compared by identity, so identity hashing is exact and
    avoids Enum's Python-level ``__hash__`` in the engine's hot dictionary lookups."""

    __hash__ = object.__hash__


class Agent(enum.IntEnum):
    DOUBLE_AGENT = 0
    ENFORCER = 1
    CODEBREAKER = 2
    SABOTEUR = 3
    DAREDEVIL = 4
    SENTINEL = 5
    SIDEKICK = 6
    MOLE = 7


AGENTS: Final = tuple(Agent)
N_AGENTS: Final = len(AGENTS)

#: copies of each agent in the 38-card deck
COPIES: Final = (6, 6, 6, 6, 6, 6, 1, 1)

#: meeple move for the 1st, 2nd and 3rd+ copy in play (WIN / LOSE icons move nothing)
#: (typed as tuples of any length, which the compiled build indexes without a new tuple)
MOVES: Final[tuple[tuple[int, ...], ...]] = (
    (-1, 6, -1),  # DOUBLE_AGENT
    (1, 2, 3),  # ENFORCER
    (0, 0, 0),  # CODEBREAKER (3rd: WIN icon)
    (-1, -1, -2),  # SABOTEUR
    (2, 3, 0),  # DAREDEVIL (3rd: LOSE icon)
    (0, 2, 6),  # SENTINEL
    (4, 4, 4),  # SIDEKICK (single copy)
    (-3, -3, -3),  # MOLE (single copy)
)

FRENCH_NAMES: Final = (
    "Agent Double",
    "Mercenaire",
    "Cryptologue",
    "Saboteur",
    "Risque-tout",
    "Sentinelle",
    "Acolyte",
    "Taupe",
)

HAND_SIZE: Final = 4
FULL_DECK: Final[tuple[Agent, ...]] = tuple(a for a in AGENTS for _ in range(COPIES[a]))

#: a count vector: how many cards of each agent id (hand, play area, discards)
Counts = tuple[int, ...]
EMPTY: Final[Counts] = (0,) * N_AGENTS


def counts_of(cards: tuple[Agent, ...] | list[Agent]) -> Counts:
    c = [0] * N_AGENTS
    for card in cards:
        a: int = card  # a native index in the compiled build (see work.py)
        c[a] = c[a] + 1
    return tuple(c)


def size(counts: Counts) -> int:
    """The cards a count vector holds: ``sum(counts)``, which the compiled build calls
    through Python's calling convention (a tuple iterator and all), added natively here."""
    total = 0
    for n in counts:
        total += n
    return total


def cards_of(counts: Counts) -> tuple[Agent, ...]:
    """The cards of a count vector in id order."""
    return tuple(a for a in AGENTS for _ in range(counts[a]))


def add(counts: Counts, agent: int, n: int = 1) -> Counts:
    c = list(counts)
    c[agent] = c[agent] + n
    return tuple(c)


def base_move(agent: Agent, copies: int) -> int:
    return MOVES[agent][(copies if copies < 3 else 3) - 1]


# --- Board --------------------------------------------------------------------------------

BOARD_SIZE: Final = 14
HOMES: Final = (0, 7)  # team A, team B
START_GAP: Final = 7
CORNERS: Final = frozenset({2, 5, 9, 12})  # Black Market spaces on the advanced side
RECALL_SPACES: Final = frozenset({3, 10})  # only in the summary-board ruleset


# --- Black Market -------------------------------------------------------------------------


class BlackMarket(enum.IntEnum):
    LEADER_OF_THE_PACK = 0
    MASTERPLAN = 1
    SECURITY_SYSTEM = 2
    GETAWAY_CAR = 3
    LOOKOUT = 4
    SUPERCOMPUTER = 5
    DISTRACTION_DEVICE = 6
    EVIL_TWIN = 7
    SURVEILLANCE_VAN = 8
    SMOKE_SCREEN = 9
    OUTPOST = 10
    SECRET_RECRUIT = 11
    DOUBLE_TROUBLE = 12
    SPYCATION = 13
    MIND_CONTROL = 14


BLACK_MARKET_CARDS: Final = tuple(BlackMarket)
ONGOING: Final = frozenset(BlackMarket(i) for i in range(8))
INSTANT: Final = frozenset(BlackMarket(i) for i in range(8, 15))
MARKET_SIZE: Final = 3
MASTERPLAN_IDS: Final = 7

BM_FRENCH_NAMES: Final = (
    "Cheffe de meute",
    "Plan des opérations",
    "Système de sécurité",
    "Fuite en voiture",
    "Cabane d'observation",
    "Superordinateur",
    "Dispositif de diversion",
    "Jumelle maléfique",
    "Véhicule de surveillance",
    "Écran de fumée",
    "Avant-poste",
    "Recrue secrète",
    "Coup double",
    "Petit repos",
    "Manipulation de l'esprit",
)


def title(member: enum.Enum) -> str:
    """'DOUBLE_AGENT' -> 'Double Agent'."""
    return member.name.replace("_", " ").title()
