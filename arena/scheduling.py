"""The scheduling policy: who meets whom in a league round (pure functions, no ORM).

Two-seat leagues: the circle method splits a round robin into slots in which every entry
plays at most once (so a remote bot is never asked to play two matches of one slot at
once), and every pairing meets exactly once per round. Team leagues (3 or 4 seats): the
entries are dealt into groups of 3 or 4 by a seeded shuffle that changes every round, and
each group plays every way of splitting it into teams, so each entry partners and opposes
each group-mate equally within the round; the grouping that repeats past meetings least is
chosen, so partners and opponents even out over the rounds.

Every pairing is played as a **pair** of games with the teams swapped, so each side is
team A once. ``pair_games`` names the two games; their ``key`` is stable, so a unique
constraint on it makes scheduling the same round twice harmless. By default each game is
dealt from a secret seed of its own (**independent deals**); a league of house bots only
may play **mirrored pairs** (both games on one deck, rules section 9): ``arena.deals`` says
why. Seeds come from ``new_seed`` (``arena.deals.new_seed`` unless a test passes its own).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from arena.deals import first_team_of, new_seed


@dataclass(frozen=True)
class Pairing:
    """One meeting of two teams within a round, played as a pair of games (teams swapped)."""

    slot: int  # pairings of one slot share no entry
    index: int  # position within the round, stable for a given entry list
    team_a: tuple[int, ...]  # entry ids
    team_b: tuple[int, ...]

    @property
    def key(self) -> str:
        """Stable identity within a round: the sorted teams."""
        a, b = sorted((tuple(sorted(self.team_a)), tuple(sorted(self.team_b))))
        return "-".join(map(str, a)) + "_v_" + "-".join(map(str, b))


@dataclass(frozen=True)
class ScheduledGame:
    pairing: Pairing
    mirror: int  # 0: pairing.team_a plays team A; 1: the teams are swapped
    team_a: tuple[int, ...]
    team_b: tuple[int, ...]
    seed: int  # the deal's secret seed (shared by both games of a mirrored pair only)
    pair_index: int = 0  # which pair of the pairing (leagues may play several)

    @property
    def first_team(self) -> int:
        """Drawn from the seed: a mirrored pair's games share it, and as the teams swap,
        each side starts once."""
        return first_team_of(self.seed)


def circle_slots(entries: Sequence[int]) -> list[list[tuple[int, int]]]:
    """The circle method: n-1 slots (n even; a bye is added for odd n) of n/2 pairings."""
    players: list[int | None] = [*sorted(entries)]
    if len(players) % 2:
        players.append(None)  # bye
    n = len(players)
    slots = []
    fixed, rest = players[0], players[1:]
    for r in range(n - 1):
        rotated = rest[-r:] + rest[:-r] if r else rest
        circle = [fixed, *rotated]
        pairs = []
        for i in range(n // 2):
            a, b = circle[i], circle[n - 1 - i]
            if a is not None and b is not None:
                # alternate who is listed first so team A of mirror 0 is balanced
                pairs.append((a, b) if (r + i) % 2 == 0 else (b, a))
        slots.append(pairs)
    return slots


def team_splits(group: Sequence[int], seats: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every split of a group into the teams of a 3- or 4-seat game, each once."""
    g = tuple(group)
    if seats == 4:
        first, others = g[0], g[1:]
        return [((first, mate), tuple(p for p in others if p != mate)) for mate in others]
    if seats == 3:
        return [(tuple(p for p in g if p != solo), (solo,)) for solo in g]
    raise ValueError(f"team splits are for 3 or 4 seats, not {seats}")


def round_pairings(
    entries: Sequence[int],
    seats: int,
    round_number: int,
    seed: int,
    history: Mapping[frozenset[int], int] | None = None,
) -> list[Pairing]:
    """The pairings of one round of a league.

    For team leagues, ``history`` counts how often two entries met in earlier rounds
    (``meetings``); of ``CANDIDATE_GROUPINGS`` seeded shuffles the grouping whose pairs met
    least so far is taken, which evens out partners and opponents over the rounds.
    """
    entries = sorted(set(entries))
    if len(entries) < 2 or (seats > 2 and len(entries) < seats):
        raise ValueError(
            f"a {seats}-seat league needs at least {max(2, seats)} entries, has {len(entries)}"
        )
    out: list[Pairing] = []
    if seats == 2:
        for slot, pairs in enumerate(circle_slots(entries)):
            for a, b in pairs:
                out.append(Pairing(slot, len(out), (a,), (b,)))
        return out
    rng = random.Random(f"{seed}:{round_number}")
    past = history or {}

    def cost(groups: list[list[int]]) -> int:
        return sum(
            past.get(frozenset(pair), 0) ** 2
            for group in groups
            for pair in itertools.combinations(group, 2)
        )

    best = min((_grouping(entries, seats, rng) for _ in range(CANDIDATE_GROUPINGS)), key=cost)
    for slot, group in enumerate(best):
        for team_a, team_b in team_splits(group, seats):
            out.append(Pairing(slot, len(out), team_a, team_b))
    return out


CANDIDATE_GROUPINGS = 64


def _grouping(entries: Sequence[int], seats: int, rng: random.Random) -> list[list[int]]:
    order = list(entries)
    rng.shuffle(order)
    groups = [order[i : i + seats] for i in range(0, len(order), seats)]
    if len(groups[-1]) < seats:
        # the last group is filled with entries from the start of this round's order,
        # which then play one group more in this round than the others
        short = groups[-1]
        groups[-1] = short + [p for p in order if p not in short][: seats - len(short)]
    return groups


def division_groups(divisions: Mapping[int, int | None], seats: int = 2) -> list[list[int]]:
    """Entries (``{entry: division}``) grouped by division, top first, for rounds that pair
    within a division only (``arena.seasons``). An entry not placed yet (None) plays in
    the lowest division; a league with no division at all is one group. A group too small
    to play (fewer than ``max(2, seats)``) is left out: its entries sit this round out."""
    known = [d for d in divisions.values() if d is not None]
    lowest = max(known) if known else 0
    groups: dict[int, list[int]] = {}
    for entry, d in sorted(divisions.items()):
        groups.setdefault(d if d is not None else lowest, []).append(entry)
    return [g for _, g in sorted(groups.items()) if len(g) >= max(2, seats)]


def division_pairings(
    groups: Sequence[Sequence[int]],
    seats: int,
    round_number: int,
    seed: int,
    history: Mapping[frozenset[int], int] | None = None,
) -> list[Pairing]:
    """``round_pairings`` of each group (division), one after the other; slots of
    different groups share no entry, so they keep their numbers and play side by side."""
    out: list[Pairing] = []
    for group in groups:
        for p in round_pairings(group, seats, round_number, seed, history):
            out.append(Pairing(p.slot, len(out), p.team_a, p.team_b))
    return out


def pair_games(
    pairing: Pairing,
    *,
    mirrored: bool = False,
    pair_index: int = 0,
    new_seed: Callable[[], int] = new_seed,
) -> list[ScheduledGame]:
    """The two games of a pair, the teams swapped: each dealt from a fresh secret seed, or
    (``mirrored``) both from one."""
    first = new_seed()
    second = first if mirrored else new_seed()
    return [
        ScheduledGame(pairing, 0, pairing.team_a, pairing.team_b, first, pair_index),
        ScheduledGame(pairing, 1, pairing.team_b, pairing.team_a, second, pair_index),
    ]


def meetings(pairings: Sequence[Pairing]) -> dict[frozenset[int], int]:
    """How often each two entries meet (as partners or opponents) in these pairings."""
    count: dict[frozenset[int], int] = {}
    for p in pairings:
        for x, y in itertools.combinations((*p.team_a, *p.team_b), 2):
            key = frozenset((x, y))
            count[key] = count.get(key, 0) + 1
    return count
