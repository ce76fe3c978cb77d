"""The rules of promotion and relegation and of a season's start (pure functions)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from arena.scheduling import division_groups
from arena.seasons.rules import Line, by_division, next_divisions, start_ratings, swap_counts


def _lines(divisions: list[list[int]], ratings: dict[int, int] | None = None) -> list[Line]:
    """Bots numbered by ``divisions`` (top first); rating falls with the bot number unless
    ``ratings`` says otherwise."""
    out = []
    for d, bots in enumerate(divisions, 1):
        for bot in bots:
            r = (ratings or {}).get(bot, 2000 - bot)
            out.append(Line(bot, entry_id=bot, division=d, rating=Decimal(r)))
    return out


def test_the_top_k_go_up_and_the_bottom_k_go_down() -> None:
    lines = _lines([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    moved = next_divisions(lines, count=3, size=4, promote=1)
    assert moved == {1: 1, 2: 1, 3: 1, 5: 1, 4: 2, 6: 2, 7: 2, 9: 2, 8: 3, 10: 3, 11: 3, 12: 3}


def test_ties_are_broken_by_wins_then_fit_then_the_earlier_entry() -> None:
    # all four of the lower division on the same season Elo
    lines = _lines([[1, 2], [3, 4, 5, 6]], {3: 1500, 4: 1500, 5: 1500, 6: 1500})
    lines = [
        Line(x.bot_id, x.entry_id, x.division, x.rating, wins={5: 3, 6: 3}.get(x.bot_id, 1),
             fit_elo={6: 1600.0}.get(x.bot_id))
        for x in lines
    ]  # fmt: skip
    order = [x.bot_id for x in by_division(lines)[2]]
    assert order == [6, 5, 3, 4]  # 6 and 5: 3 wins, 6 fitted higher; 3 before 4: entered first
    moved = next_divisions(lines, count=2, size=2, promote=1)
    # exactly one up (6) and one down (2), however many are tied
    assert [b for b, d in moved.items() if d == 1] == [1, 6]
    assert sum(1 for d in moved.values() if d == 2) == 4


@pytest.mark.parametrize(
    ("sizes", "swaps", "moves"),
    [
        # division size 4, K = 2; moves: (up, down) of each division, top first
        ([4, 4, 4], [2, 2], [(0, 2), (2, 2), (2, 0)]),
        # a lowest division smaller than 2K: of one bot, it swaps that one
        ([4, 4, 1], [2, 1], [(0, 2), (2, 1), (1, 0)]),
        ([4, 4, 3], [2, 2], [(0, 2), (2, 2), (2, 0)]),
        # a middle division of 3 (a bot withdrew): half of it (1) swaps each way, never one
        # bot both ways; it is filled up from below (2 up from the lowest)
        ([4, 3, 4], [1, 1], [(0, 1), (1, 1), (2, 0)]),
        # a middle division of 1: nobody swaps across it; it is filled up from below
        ([4, 1, 4], [0, 0], [(0, 0), (0, 0), (3, 0)]),
    ],
)
def test_promotion_counts_with_divisions_smaller_than_2k(
    sizes: list[int], swaps: list[int], moves: list[tuple[int, int]]
) -> None:
    assert swap_counts(sizes, 2) == swaps
    bots = iter(range(1, sum(sizes) + 1))
    divisions = [[next(bots) for _ in range(n)] for n in sizes]
    moved = next_divisions(_lines(divisions), count=len(sizes), size=4, promote=2)
    got = []
    for d, members in enumerate(divisions, 1):
        ups = [b for b in members if moved[b] < d]
        downs = [b for b in members if moved[b] > d]
        assert not set(ups) & set(downs)
        assert ups == members[: len(ups)]  # the best go up
        assert downs == members[len(members) - len(downs) :]  # the worst go down
        got.append((len(ups), len(downs)))
    assert got == moves
    per_division = [sum(1 for d in moved.values() if d == x) for x in range(1, len(sizes) + 1)]
    assert per_division[:-1] == [4] * (len(sizes) - 1)


def test_sizes_are_kept_by_the_cut_and_a_short_division_is_refilled() -> None:
    # the top division lost a bot (withdrawn): the best of the lower one fills it too
    lines = _lines([[1, 2, 3], [5, 6, 7, 8, 9]])
    moved = next_divisions(lines, count=2, size=4, promote=1)
    assert sorted(b for b, d in moved.items() if d == 1) == [1, 2, 5, 6]


def test_start_ratings_by_rule() -> None:
    last = {1: Decimal("1600"), 2: Decimal("1400")}
    assert start_ratings("reset", 0.5, last, [1, 2, 3]) == dict.fromkeys([1, 2, 3], Decimal("1500"))
    assert start_ratings("carry", 0.5, last, [1, 2, 3]) == {
        1: Decimal("1600"), 2: Decimal("1400"), 3: Decimal("1500.0000"),
    }  # fmt: skip
    soft = start_ratings("soft", 0.25, {1: Decimal("1700"), 2: Decimal("1500")}, [1, 2, 3])
    assert soft == {1: Decimal("1625.0000"), 2: Decimal("1575.0000"), 3: Decimal("1600.0000")}
    with pytest.raises(ValueError, match="unknown start rule"):
        start_ratings("keep", 0.5, last, [1])


def test_division_groups_place_a_newcomer_in_the_lowest_and_leave_out_a_lone_bot() -> None:
    assert division_groups({1: 1, 2: 1, 3: 2, 4: None}) == [[1, 2], [3, 4]]
    assert division_groups({1: None, 2: None, 3: None}) == [[1, 2, 3]]
    assert division_groups({1: 1, 2: 1, 3: 2}) == [[1, 2]]  # 3 alone: sits the round out
    assert division_groups({1: 1, 2: 1, 3: 1, 4: 2, 5: 2}, seats=3) == [[1, 2, 3]]
