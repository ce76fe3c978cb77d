"""The rules of seasons and divisions (pure functions, no ORM).

* **Places**: within a division, by the season's Elo, then the season's wins, then the
  league's batch fit, then the earlier entry: a total order, so ties never leave a place
  undecided and exactly the stated number of bots moves.
* **Promotion and relegation**: at each boundary between two divisions the bottom ``s`` of
  the upper one and the top ``s`` of the lower one swap, ``s = min(K, cap(upper),
  cap(lower))``, where ``cap`` is a division's size when it has one neighbour (the top or
  the lowest) and half its size (rounded down) when it has two, so that no bot is both
  promoted and relegated in a division smaller than 2K.
* **Sizes**: a division is filled up to ``size`` from the top of the one below (more
  than the ``s`` promoted when bots left it), and the lowest takes the rest; the bots
  relegated from a division are never the ones that fill it again.
* **Placement** (a league's ``placement`` setting): a new bot plays in the lowest
  division until the season's end, or it first plays ``N`` provisional games against bots
  of every division (``provisional_opponents``: drawn in each division as information
  matchmaking draws, in proportion to what the game tells) and is then placed, mid-season,
  into the division whose median batch-fit rating is nearest its own
  (``placement_division``). That division grows by it until the season's end cuts the
  divisions to ``size`` again (the overflow is relegated besides the ``s`` swapping: no
  bot of the division below loses its promotion to it).
* **Start of a season**: reset (1500), carry-over (the last season's Elo) or a soft
  reset toward the mean (``mean + factor x (last - mean)``, the mean over the bots that
  have a last rating, so the league's sum is kept up to the rounding).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from arena.matchmaking import Candidate, pairing_score

START = Decimal("1500.0000")
PLACES = Decimal("0.0001")


@dataclass(frozen=True)
class Line:
    """A bot in a season's table, before its place is known."""

    bot_id: int
    entry_id: int
    division: int  # 1 = the top (all 1 when the league is not split)
    rating: Decimal  # the season's Elo
    wins: int = 0
    fit_elo: float | None = None


def rank_key(line: Line) -> tuple[Decimal, int, float, int]:
    fit = line.fit_elo if line.fit_elo is not None else float("-inf")
    return (-line.rating, -line.wins, -fit, line.entry_id)


def by_division(lines: Sequence[Line]) -> dict[int, list[Line]]:
    """Each division's lines in place order (1st first)."""
    out: dict[int, list[Line]] = {}
    for line in sorted(lines, key=lambda x: (x.division, rank_key(x))):
        out.setdefault(line.division, []).append(line)
    return out


def swap_counts(sizes: Sequence[int], promote: int) -> list[int]:
    """How many swap at each boundary of the (non-empty) divisions of these sizes, top
    first: ``len(sizes) - 1`` numbers."""
    last = len(sizes) - 1

    def cap(i: int) -> int:
        return sizes[i] if i in (0, last) else sizes[i] // 2

    return [min(promote, cap(i), cap(i + 1)) for i in range(last)]


def zones(sizes: Sequence[int], promote: int) -> list[tuple[int, int]]:
    """For each division (top first): (how many of its top move up, how many of its
    bottom move down) if the season ended now."""
    swaps = swap_counts(sizes, promote)
    return [
        (swaps[i - 1] if i > 0 else 0, swaps[i] if i < len(swaps) else 0) for i in range(len(sizes))
    ]


def cut(order: Sequence[int], count: int, size: int) -> dict[int, int]:
    """Bots in league order cut into ``count`` divisions of ``size`` (the lowest takes
    the rest): {bot: division}."""
    if count < 1 or size < 1:
        raise ValueError("a league has at least one division of at least one bot")
    return {bot: min(i // size + 1, count) for i, bot in enumerate(order)}


def next_divisions(lines: Sequence[Line], count: int, size: int, promote: int) -> dict[int, int]:
    """Every bot's division next season: at each boundary, top first, the division keeps
    its best (all but the bottom ``s`` swapping, and no more than ``size``), the rest go
    down, and it is filled up to ``size`` from the top of the division below (the ``s``
    swapping, and more when bots left it). A lowest division larger than ``size`` spills
    into a new one when the league has room for more divisions."""
    if count < 1 or size < 1:
        raise ValueError("a league has at least one division of at least one bot")
    divisions = by_division(lines)
    columns = [[line.bot_id for line in divisions[d]] for d in sorted(divisions)]
    swaps = swap_counts([len(c) for c in columns], promote)
    if len(columns) > count:  # fewer divisions than last season: the lowest ones merge
        columns[count - 1 :] = [[b for c in columns[count - 1 :] for b in c]]
    while len(columns) < count and len(columns[-1]) > size:
        columns[-1:] = [columns[-1][:size], columns[-1][size:]]
    for i in range(len(columns) - 1):
        s = swaps[i] if i < len(swaps) else 0
        upper, lower = columns[i], columns[i + 1]
        # a division over ``size`` (a newcomer placed into it) sends its overflow down
        # besides the ``s`` swapping: the top ``s`` below still go up
        keep = upper[: min(len(upper), size) - s]
        need = size - len(keep)
        columns[i] = keep + lower[:need]
        columns[i + 1] = upper[len(keep) :] + lower[need:]
    return {bot: d for d, column in enumerate(columns, 1) for bot in column}


def start_ratings(
    rule: str, factor: float, last: Mapping[int, Decimal], bots: Sequence[int]
) -> dict[int, Decimal]:
    """Each bot's season Elo at the start of a season, by ``rule`` (``StartRule``)."""
    if rule == "reset":
        return dict.fromkeys(bots, START)
    if rule == "carry":
        return {b: last.get(b, START) for b in bots}
    if rule == "soft":
        if not 0.0 <= factor <= 1.0:
            raise ValueError(f"a soft reset keeps 0 to 1 of the distance, not {factor}")
        known = [last[b] for b in bots if b in last]
        mean = sum(known, Decimal(0)) / len(known) if known else START
        f = Decimal(repr(factor))
        return {
            b: (mean + f * (last[b] - mean)).quantize(PLACES, ROUND_HALF_EVEN)
            if b in last
            else mean.quantize(PLACES, ROUND_HALF_EVEN)
            for b in bots
        }
    raise ValueError(f"unknown start rule {rule!r}: reset, carry or soft")


def placement_division(rating: float, placed: Mapping[int, Sequence[float]], lowest: int) -> int:
    """The division a newcomer rated ``rating`` (the batch fit) falls in: the one whose
    median rating (``placed``: {division: its bots' ratings}) is nearest; on a tie the
    lower one. Divisions overlap in rating once a season has been played (promotion goes
    by the season's Elo), so a median says where a division is better than its extremes.
    No bot placed anywhere: ``lowest``."""
    best: tuple[float, int] | None = None
    for division in sorted(placed, reverse=True):  # the lowest first: it wins a tie
        ratings = sorted(placed[division])
        if not ratings:
            continue
        n = len(ratings)
        median = ratings[n // 2] if n % 2 else (ratings[n // 2 - 1] + ratings[n // 2]) / 2
        distance = abs(rating - median)
        if best is None or distance < best[0]:
            best = (distance, division)
    return lowest if best is None else best[1]


def provisional_opponents(
    newcomer: Candidate,
    divisions: Mapping[int, Sequence[Candidate]],
    per_division: int,
    rng: random.Random,
    met: Collection[int] = (),
) -> list[int]:
    """A newcomer's opponents this round: ``per_division`` of each division (all of it
    when it is smaller), each drawn in proportion to ``pairing_score`` (close to the
    newcomer's rating as it stands, the uncertain first), as information matchmaking
    draws; never one of ``met`` (the round's pairs it has already) nor twice. Every
    division, so that the one fit over all games ties the newcomer to each of them."""
    out: list[int] = []
    for division in sorted(divisions):
        pool = [c for c in divisions[division] if c.entry not in met]
        for _ in range(min(per_division, len(pool))):
            weights = [pairing_score(newcomer, c) for c in pool]
            r = rng.random() * sum(weights)
            pick = len(pool) - 1
            for i, w in enumerate(weights):
                r -= w
                if r <= 0:
                    pick = i
                    break
            out.append(pool.pop(pick).entry)
    return out


def describe(
    rule: str, factor: float, divisions: int, promote: int, placement_games: int = 0
) -> str:
    """The rule in a sentence, as the pages show it."""
    start = {
        "reset": "every bot's season Elo starts at 1500",
        "carry": "every bot's season Elo carries over from the last season",
        "soft": f"every bot's season Elo starts at the mean plus {factor:g} times its "
        "distance from the mean at the last season's end",
    }.get(rule, rule)
    if divisions <= 1:
        return f"Each season {start}."
    return (
        f"Each season {start}. {divisions} divisions: the top {promote} of each move up and "
        f"the bottom {promote} move down at the season's end (fewer in a division of fewer "
        f"than {2 * promote} bots); places by season Elo, then wins, then the batch fit; "
        f"{placement_rule(placement_games)}."
    )


def placement_rule(games: int) -> str:
    """The placement rule in a clause (``describe``)."""
    if games <= 0:
        return "a new bot starts in the lowest division"
    return (
        f"a new bot first plays {games} provisional games against bots of every division, "
        "then joins the division whose median batch-fit rating is nearest its own (that "
        "division grows by it until the season's end)"
    )
