"""The scheduling policy (pure functions: no database)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.deals import SEED_BITS, first_team_of
from arena.scheduling import circle_slots, meetings, pair_games, round_pairings


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 11, 16])
def test_two_seat_round_meets_every_pairing_once_one_game_per_slot(n: int) -> None:
    entries = list(range(100, 100 + n))
    pairings = round_pairings(entries, 2, round_number=1, seed=7)
    met = Counter(frozenset((*p.team_a, *p.team_b)) for p in pairings)
    assert set(met) == {frozenset(c) for c in itertools.combinations(entries, 2)}
    assert set(met.values()) == {1}
    for slot in {p.slot for p in pairings}:
        playing = [e for p in pairings if p.slot == slot for e in (*p.team_a, *p.team_b)]
        assert len(playing) == len(set(playing)), "an entry plays twice in one slot"
    assert len({p.slot for p in pairings}) == (n - 1 if n % 2 == 0 else n)


def test_circle_slots_with_a_bye() -> None:
    slots = circle_slots([1, 2, 3])
    assert len(slots) == 3 and all(len(s) == 1 for s in slots)


def test_a_pair_swaps_teams_and_deals_each_game_from_its_own_secret_seed() -> None:
    p = round_pairings([1, 2, 3, 4], 2, round_number=3, seed=9)[0]
    games = [g for _ in range(50) for g in pair_games(p)]
    g0, g1 = games[:2]
    assert (g0.team_a, g0.team_b) == (g1.team_b, g1.team_a)
    assert (g0.mirror, g1.mirror) == (0, 1)
    seeds = [g.seed for g in games]
    assert len(set(seeds)) == len(seeds), "every game its own deal"
    assert all(0 <= s < 2**SEED_BITS for s in seeds) and max(seeds) >= 2 ** (SEED_BITS - 8)
    assert all(g.first_team == first_team_of(g.seed) for g in games)
    assert {g.first_team for g in games} == {0, 1}
    # the same pairing scheduled again (same round, same entries) is dealt anew: nothing
    # public decides a deal
    again = round_pairings([4, 3, 2, 1], 2, round_number=3, seed=9)[0]
    assert again.key == p.key and pair_games(again)[0].seed not in seeds


def test_a_mirrored_pair_shares_one_secret_deck() -> None:
    p = round_pairings([1, 2], 2, round_number=1, seed=1)[0]
    g0, g1 = pair_games(p, mirrored=True, pair_index=1)
    assert g0.seed == g1.seed and g0.first_team == g1.first_team
    assert (g0.team_a, g0.team_b) == (g1.team_b, g1.team_a) and g0.pair_index == 1
    assert pair_games(p, mirrored=True)[0].seed != g0.seed


@pytest.mark.parametrize(("seats", "n"), [(4, 4), (4, 8), (4, 6), (3, 3), (3, 7)])
def test_team_rounds_split_every_group_every_way(seats: int, n: int) -> None:
    entries = list(range(n))
    pairings = round_pairings(entries, seats, round_number=1, seed=1)
    for p in pairings:
        members = (*p.team_a, *p.team_b)
        assert len(members) == seats == len(set(members))
        assert len(p.team_a) == 2 and len(p.team_b) == (2 if seats == 4 else 1)
    assert {e for p in pairings for e in (*p.team_a, *p.team_b)} == set(entries)
    assert len({p.key for p in pairings}) == len(pairings)


def test_team_rotation_is_fair_over_rounds() -> None:
    entries = list(range(8))
    total: Counter[frozenset[int]] = Counter()
    partners: Counter[frozenset[int]] = Counter()
    for r in range(60):
        pairings = round_pairings(entries, 4, round_number=r, seed=5, history=total)
        total.update(meetings(pairings))
        for p in pairings:
            partners[frozenset(p.team_a)] += 1
            partners[frozenset(p.team_b)] += 1
    pairs = [frozenset(c) for c in itertools.combinations(entries, 2)]
    assert all(total[x] > 0 for x in pairs), "everyone meets everyone over the rounds"
    counts = [partners[x] for x in pairs]
    assert max(counts) <= 1.25 * min(counts), counts
    met = [total[x] for x in pairs]
    assert max(met) <= 1.1 * min(met), met


def test_refuses_too_few_entries() -> None:
    with pytest.raises(ValueError, match="needs at least 4 entries, has 3"):
        round_pairings([1, 2, 3], 4, 1, 1)
    with pytest.raises(ValueError, match="needs at least 2 entries"):
        round_pairings([1], 2, 1, 1)
