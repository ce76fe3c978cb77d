"""Who meets whom in a tournament round: pure functions over ids, scores and ratings (no
ORM), so that they can be tested over many random states.

* **Knockout**: the standard bracket (``bracket_order``): seed 1 meets the last seed, and
  seeds 1 and 2 can only meet in the final; when the count is not a power of two, the top
  seeds get byes in round 1.
* **Swiss** (``swiss_round``): Dutch-style. Players are ranked by score, then rating; in
  each score group the top half meets the bottom half (1st v (g/2+1)th, ...), the odd one
  floats down to the next group; a pairing that would repeat an earlier one is never
  made: the search backtracks (and remembers the sets of players it could not pair) until
  it finds a round without repeats. An odd count gives a bye to the lowest-ranked player
  who has not had one (the next one up if the rest could then not be paired).
* **Round robin** (``round_robin_rounds``): the circle method of ``arena.scheduling``, a
  round per slot, every pair once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.scheduling import circle_slots


class PairingError(Exception):
    """No round can be paired under the rules (said for a person)."""


# ------------------------------------------------------------------ knockout


def bracket_size(n: int) -> int:
    """The power of two a bracket of ``n`` entrants is drawn in."""
    size = 1
    while size < n:
        size *= 2
    return size


def bracket_order(size: int) -> list[int]:
    """Seeds (1-based) in bracket order for a power-of-two ``size``: neighbours meet in
    round 1 (1 v size, ...), and the top seeds stay apart until the last rounds."""
    if size < 2 or size & (size - 1):
        raise ValueError(f"a bracket's size is a power of two, not {size}")
    order = [1, 2]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


def knockout_rounds(n: int) -> int:
    """Rounds of a knockout of ``n`` entrants."""
    return max(1, (bracket_size(n) - 1).bit_length())


def first_round(seeded: Sequence[int]) -> list[tuple[int, int | None]]:
    """Round 1's ties, in bracket order: ``seeded`` lists ids best seed first; None is a
    bye (the other side goes through)."""
    size = bracket_size(len(seeded))
    slots = [seeded[s - 1] if s <= len(seeded) else None for s in bracket_order(size)]
    out: list[tuple[int, int | None]] = []
    for i in range(0, size, 2):
        a, b = slots[i], slots[i + 1]
        assert a is not None  # the better seed of a tie is always an entrant (n > size/2)
        out.append((a, b))
    return out


def next_ties(winners: Sequence[int]) -> list[tuple[int, int]]:
    """A later round: the winners of neighbouring ties (in bracket order) meet."""
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners) - 1, 2)]


# ------------------------------------------------------------------ Swiss


@dataclass(frozen=True)
class SwissPlayer:
    id: int
    score: float
    rating: float
    had_bye: bool = False


@dataclass(frozen=True)
class SwissRound:
    pairs: list[tuple[int, int]]  # higher-ranked first
    bye: int | None


def ranked(players: Iterable[SwissPlayer]) -> list[SwissPlayer]:
    """Score, then rating, then id (a stable order for equal ratings)."""
    return sorted(players, key=lambda p: (-p.score, -p.rating, p.id))


def swiss_round(players: Sequence[SwissPlayer], played: Iterable[frozenset[int]]) -> SwissRound:
    """The next Swiss round: no pair in ``played`` meets again (see the module doc)."""
    order = ranked(players)
    if len({p.id for p in order}) != len(order):
        raise ValueError("a player is listed twice")
    met = {frozenset(p) for p in played}
    score = {p.id: p.score for p in order}
    if len(order) % 2 == 0:
        pairs = _pair_all([p.id for p in order], score, met)
        if pairs is None:
            raise PairingError(_no_pairing(len(order)))
        return SwissRound(pairs, None)
    # the bye: the lowest-ranked player without one (all had one: the lowest-ranked)
    fresh = [p for p in reversed(order) if not p.had_bye]
    for candidate in fresh or list(reversed(order)):
        rest = [p.id for p in order if p.id != candidate.id]
        pairs = _pair_all(rest, score, met)
        if pairs is not None:
            return SwissRound(pairs, candidate.id)
    raise PairingError(_no_pairing(len(order)))


def _no_pairing(n: int) -> str:
    return (
        f"no pairing of these {n} bots avoids a repeat: the event has more rounds than its "
        "bots can play without meeting again"
    )


def _preferences(remaining: Sequence[int], score: dict[int, float]) -> list[int]:
    """The top player's opponents, best first: the first of its score group's bottom
    half, down that half, then up the top half, then lower groups in rank order."""
    top = remaining[0]
    group = [p for p in remaining if score[p] == score[top]]
    lower = [p for p in remaining if score[p] != score[top]]
    half = len(group) // 2
    if half == 0:
        return lower  # alone in its group: floats down
    return group[half:] + group[half - 1 : 0 : -1] + lower


#: the pairing search's budget (a round of 64 bots within the allowed rounds takes
#: hundreds of steps, ``bench/swiss_pairing.py``)
SEARCH_STEPS = 200_000


def _pair_all(
    order: Sequence[int], score: dict[int, float], met: set[frozenset[int]]
) -> list[tuple[int, int]] | None:
    """Pairs of all of ``order`` (rank order) with no pair in ``met``, or None."""
    failed: set[frozenset[int]] = set()
    steps = 0

    def solve(remaining: tuple[int, ...]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not remaining:
            return []
        key = frozenset(remaining)
        if key in failed:
            return None
        steps += 1
        if steps > SEARCH_STEPS:
            # never hold a tournament's lock for minutes: say so instead
            raise PairingError(
                f"the Swiss pairing search gave up after {SEARCH_STEPS} steps "
                f"({len(order)} bots): too many rounds for this many bots"
            )
        top = remaining[0]
        for opponent in _preferences(remaining, score):
            if frozenset((top, opponent)) in met:
                continue
            rest = solve(tuple(p for p in remaining[1:] if p != opponent))
            if rest is not None:
                return [(top, opponent), *rest]
        failed.add(key)
        return None

    return solve(tuple(order))


def max_swiss_rounds(n: int) -> int:
    """The most rounds a Swiss of ``n`` may have: no more than can always be paired
    without a repeat (after k rounds each player has n-1-k possible opponents left, and a
    perfect matching is certain while that is at least half of them: Dirac), and no more
    than 2 log2(n) + 2, past which the search's backtracking grows fast on large events
    (bench/swiss_pairing.py: 64 bots took 0.5 ms a round up to round 14, seconds from
    round 26 on). A Swiss is meant to be short; a longer event is a round robin."""
    return max(1, min((n + 1) // 2, 2 * (n - 1).bit_length() + 2))


# ------------------------------------------------------------------ round robin


def round_robin_rounds(ids: Sequence[int]) -> list[list[tuple[int, int]]]:
    """Every pair once: a round per circle-method slot (n-1 rounds, n when odd: one sits
    out each round)."""
    return circle_slots(ids)


def round_robin_bye(ids: Sequence[int], pairs: Sequence[tuple[int, int]]) -> int | None:
    """Who sits a round robin's round out (odd counts)."""
    busy = {x for p in pairs for x in p}
    idle = [i for i in ids if i not in busy]
    return idle[0] if idle else None
