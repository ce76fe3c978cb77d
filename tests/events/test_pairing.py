"""The pairing policies as pure functions: Swiss rounds over many random score states
(never a repeat, a bye for the lowest-ranked bot without one), the knockout's seeding."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.events.pairing import (
    PairingError,
    SwissPlayer,
    bracket_order,
    first_round,
    knockout_rounds,
    max_swiss_rounds,
    next_ties,
    ranked,
    round_robin_rounds,
    swiss_round,
)


def _has_perfect_matching(ids: list[int], met: set[frozenset[int]]) -> bool:
    """Brute force (small sets only): can ``ids`` be paired with no pair in ``met``?"""
    if not ids:
        return True
    first, rest = ids[0], ids[1:]
    return any(
        frozenset((first, o)) not in met and _has_perfect_matching([x for x in rest if x != o], met)
        for o in rest
    )


def _check_round(players: list[SwissPlayer], met: set[frozenset[int]]) -> tuple[list, int | None]:
    drawn = swiss_round(players, met)
    seen = [x for pair in drawn.pairs for x in pair] + ([drawn.bye] if drawn.bye else [])
    assert sorted(seen) == sorted(p.id for p in players), "everyone once"
    assert (drawn.bye is not None) == (len(players) % 2 == 1)
    for a, b in drawn.pairs:
        assert frozenset((a, b)) not in met, f"{a} and {b} met before"
    if drawn.bye is not None:
        order = ranked(players)
        fresh = [p for p in order if not p.had_bye]
        if fresh:
            assert drawn.bye in {p.id for p in fresh}, "a bot that had a bye got another"
            # the lowest-ranked without a bye, unless the others could then not be paired
            below = fresh[[p.id for p in fresh].index(drawn.bye) + 1 :]
            if len(players) <= 13:
                for p in below:
                    rest = [q.id for q in order if q.id != p.id]
                    assert not _has_perfect_matching(rest, met), f"{p.id} should have had it"
            else:
                assert not below or len(met) > 0
    return drawn.pairs, drawn.bye


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(min_value=3, max_value=40),
    seed=st.integers(min_value=0, max_value=2**32),
    data=st.data(),
)
def test_swiss_never_repeats_and_gives_byes_fairly(n: int, seed: int, data: st.DataObject) -> None:
    """A whole Swiss of random results: each round checked as it is paired."""
    rng = random.Random(seed)
    rounds = data.draw(st.integers(min_value=1, max_value=max_swiss_rounds(n)))
    ids = rng.sample(range(1, 10_000), n)
    rating = {i: rng.choice([1500.0, rng.uniform(1200, 1800)]) for i in ids}
    score = dict.fromkeys(ids, 0.0)
    had_bye: set[int] = set()
    met: set[frozenset[int]] = set()
    for _ in range(rounds):
        players = [SwissPlayer(i, score[i], rating[i], i in had_bye) for i in ids]
        pairs, bye = _check_round(players, met)
        for a, b in pairs:
            met.add(frozenset((a, b)))
            r = rng.choice((1.0, 0.5, 0.0))
            score[a] += r
            score[b] += 1.0 - r
        if bye is not None:
            had_bye.add(bye)
            score[bye] += 1.0
    if n % 2 and rounds <= n:
        assert len(had_bye) == rounds, "a different bot's bye each round"


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=3, max_value=11),
    seed=st.integers(min_value=0, max_value=2**32),
)
def test_swiss_finds_a_round_whenever_one_exists(n: int, seed: int) -> None:
    """Arbitrary histories (not only Swiss ones): the search pairs without a repeat
    exactly when some pairing does, and says so clearly when none does."""
    rng = random.Random(seed)
    ids = list(range(1, n + 1))
    met = {frozenset(p) for p in itertools.combinations(ids, 2) if rng.random() < 0.45}
    players = [
        SwissPlayer(i, rng.choice([0.0, 1.0, 2.0]), rng.uniform(1400, 1600), rng.random() < 0.3)
        for i in ids
    ]
    if n % 2:
        fresh = [p.id for p in players if not p.had_bye] or ids
        possible = any(_has_perfect_matching([i for i in ids if i != b], met) for b in fresh)
    else:
        possible = _has_perfect_matching(ids, met)
    if possible:
        _check_round(players, met)
    else:
        with pytest.raises(PairingError, match="without meeting again"):
            swiss_round(players, met)


def test_swiss_round_one_is_top_half_against_bottom_half() -> None:
    players = [SwissPlayer(i, 0.0, 2000.0 - i) for i in range(1, 9)]
    assert swiss_round(players, set()).pairs == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_swiss_pairs_within_score_groups_and_floats_down() -> None:
    # 1, 2, 3 on 1 point; 4, 5, 6 on 0: 1 v 2, 3 floats down to 4, 5 v 6
    players = [SwissPlayer(i, 1.0 if i <= 3 else 0.0, 2000.0 - i) for i in range(1, 7)]
    met = {frozenset((1, 4)), frozenset((2, 5)), frozenset((3, 6))}
    assert swiss_round(players, met).pairs == [(1, 2), (3, 4), (5, 6)]


def test_swiss_bye_goes_to_the_lowest_without_one() -> None:
    players = [SwissPlayer(i, 0.0, 2000.0 - i, had_bye=(i == 5)) for i in range(1, 6)]
    assert swiss_round(players, set()).bye == 4


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_bracket_order_is_standard(size: int) -> None:
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    # neighbours add up to size + 1 (1 v N, 2 v N-1, ...)
    assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))
    # seeds 1 and 2 in opposite halves; 1-4 in different quarters
    half = size // 2
    assert (order.index(1) < half) != (order.index(2) < half)
    if size >= 4:
        quarters = {order.index(s) // (size // 4) for s in (1, 2, 3, 4)}
        assert quarters == {0, 1, 2, 3}


def test_bracket_of_eight() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]


@pytest.mark.parametrize("n", range(2, 34))
def test_first_round_gives_the_byes_to_the_top_seeds(n: int) -> None:
    seeded = [100 + s for s in range(1, n + 1)]  # id of seed s
    ties = first_round(seeded)
    byes = [a for a, b in ties if b is None]
    size = len(ties) * 2
    assert size >= n > size // 2
    assert set(byes) == set(seeded[: size - n])
    played = [x for a, b in ties for x in (a, b) if x is not None]
    assert sorted(played) == sorted(seeded)
    assert knockout_rounds(n) == (size - 1).bit_length()


def test_winners_meet_their_neighbours() -> None:
    assert next_ties([1, 4, 2, 3]) == [(1, 4), (2, 3)]


@pytest.mark.parametrize("n", range(2, 12))
def test_round_robin_every_pair_once(n: int) -> None:
    ids = list(range(1, n + 1))
    rounds = round_robin_rounds(ids)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = sorted(tuple(sorted(p)) for r in rounds for p in r)
    assert pairs == sorted(itertools.combinations(ids, 2))
    for r in rounds:
        busy = [x for p in r for x in p]
        assert len(busy) == len(set(busy))
