"""The rules of placement by provisional games (pure functions): the division a rating
falls in, the opponents drawn across the divisions, a division grown by a newcomer at the
season's end, and the rule as the pages say it."""

from __future__ import annotations

import random
from collections import Counter
from decimal import Decimal

from arena.matchmaking import Candidate
from arena.seasons.rules import (
    Line,
    describe,
    next_divisions,
    placement_division,
    provisional_opponents,
)


def test_a_rating_falls_in_the_division_of_the_nearest_median() -> None:
    placed = {1: [1700.0, 1650.0, 1600.0], 2: [1550.0, 1500.0, 1450.0], 3: [1300.0, 1200.0]}
    assert placement_division(1900.0, placed, 3) == 1
    assert placement_division(1610.0, placed, 3) == 1  # nearer 1650 than 1500
    assert placement_division(1560.0, placed, 3) == 2
    assert placement_division(1380.0, placed, 3) == 2  # 120 from 1500, 130 from 1250
    assert placement_division(1000.0, placed, 3) == 3
    assert placement_division(1575.0, placed, 3) == 2  # halfway: the lower division
    # medians, not extremes: division 1's weakest (1100) does not pull a 1200 bot up
    assert placement_division(1200.0, {1: [1800.0, 1790.0, 1100.0], 2: [1250.0]}, 2) == 2
    assert placement_division(1500.0, {}, 4) == 4  # nobody placed: the lowest
    assert placement_division(1500.0, {1: [], 2: [1400.0]}, 2) == 2


def _candidates(first: int, ratings: list[float]) -> list[Candidate]:
    return [Candidate(first + i, r, 100.0, 40) for i, r in enumerate(ratings)]


def test_opponents_come_from_every_division_drawn_near_the_newcomers_rating() -> None:
    divisions = {
        1: _candidates(10, [1900.0, 1850.0, 1800.0, 1500.0]),
        2: _candidates(20, [1500.0, 1450.0, 1100.0, 1050.0]),
    }
    newcomer = Candidate(1, 1500.0, 350.0, 0)
    rng = random.Random(7)
    seen: Counter[int] = Counter()
    for _ in range(2000):
        picked = provisional_opponents(newcomer, divisions, 2, rng)
        assert len(picked) == len(set(picked)) == 4
        assert sum(1 for p in picked if p < 20) == 2  # two of each division
        seen.update(picked)
    # drawn in proportion to what the game tells: the close ones most
    assert seen[13] > seen[10] and seen[20] > seen[23]
    assert all(seen[c.entry] for cs in divisions.values() for c in cs)  # nobody never drawn
    # a small division gives what it has; the round's pairs are not made again
    every = provisional_opponents(newcomer, divisions, 9, rng, met={10, 21})
    assert set(every) == {11, 12, 13, 20, 22, 23} and len(every) == 6


def test_a_division_grown_by_a_newcomer_keeps_the_promotion_from_below() -> None:
    # division 1 holds 5 (4 + a newcomer placed mid-season), size 4, promote 1
    lines = [Line(b, b, 1 if b <= 5 else 2, Decimal(2000 - b)) for b in range(1, 10)]
    moved = next_divisions(lines, count=2, size=4, promote=1)
    # the best of division 2 goes up; the two worst of division 1 go down
    assert sorted(b for b, d in moved.items() if d == 1) == [1, 2, 3, 6]
    assert sorted(b for b, d in moved.items() if d == 2) == [4, 5, 7, 8, 9]


def test_the_rule_says_how_a_new_bot_is_placed() -> None:
    lowest = describe("carry", 0.5, 2, 1)
    assert lowest.endswith("a new bot starts in the lowest division.")
    provisional = describe("carry", 0.5, 2, 1, placement_games=12)
    assert "a new bot first plays 12 provisional games against bots of every division" in (
        provisional
    )
    assert "grows by it until the season's end" in provisional
    assert describe("carry", 0.5, 1, 0, placement_games=12) == describe("carry", 0.5, 1, 0)
