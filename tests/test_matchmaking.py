"""The information format's pairing policy (arena/matchmaking.py): pure, no database."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from arena.matchmaking import (
    FEWEST,
    MOST,
    PROVISIONAL_GAMES,
    SPREAD,
    UNKNOWN_SIGMA,
    Candidate,
    information_pairings,
    pairing_score,
    planned_games,
    sigma_of,
    slots,
)


def _league(n: int, seed: int = 1, games: int = 100) -> list[Candidate]:
    rng = random.Random(seed)
    return [Candidate(i, rng.gauss(1500, 200), rng.uniform(20, 80), games) for i in range(n)]


@pytest.mark.parametrize(("n", "k"), [(2, 1), (7, 3), (50, 10), (1000, 10)])
@pytest.mark.parametrize("even", [False, True])
def test_every_bot_gets_its_games_and_no_pair_meets_twice(n: int, k: int, even: bool) -> None:
    league = _league(n)
    plan = {c.entry: k for c in league} if even else planned_games(league, k)
    pairs = information_pairings(league, k, random.Random(2), even=even)
    per_bot = Counter(e for pair in pairs for e in pair)
    assert all(a != b for a, b in pairs)
    assert len(set(pairs)) == len(pairs)
    assert all(per_bot[i] <= plan[i] for i in range(n))
    # nobody short of games while someone else who could play it still has room
    assert sum(plan[i] - per_bot[i] for i in range(n)) <= (k if n > k else n * k)
    if n > 2 * k:
        assert len(pairs) >= sum(plan.values()) // 2 - k


def test_games_follow_the_rank_interval_within_bounds() -> None:
    k, league = 10, _league(1000, games=100)
    for c in league[:20]:  # bots nobody knows yet
        league[c.entry] = Candidate(c.entry, 1500.0, UNKNOWN_SIGMA, 0)
    plan = planned_games(league, k)
    assert set(plan) == {c.entry for c in league}
    assert abs(sum(plan.values()) / len(plan) - k) < 0.05 * k  # the round costs n x k / 2
    assert min(plan.values()) >= FEWEST * k and max(plan.values()) <= MOST * k
    assert all(plan[e] == MOST * k for e in range(20)), "the unknown get the most"
    # the settled: more in the dense middle than in the tails, and for a wider interval
    settled = league[20:]
    middle = [plan[c.entry] for c in settled if abs(c.rating - 1500) < 100]
    tails = [plan[c.entry] for c in settled if abs(c.rating - 1500) > 400]
    assert sum(middle) / len(middle) > 1.5 * sum(tails) / len(tails)
    near = sorted(settled, key=lambda c: abs(c.rating - 1500))[:40]
    narrow = [plan[c.entry] for c in near if c.sigma < 40]
    wide = [plan[c.entry] for c in near if c.sigma > 60]
    assert sum(wide) / len(wide) > sum(narrow) / len(narrow)
    # equal intervals: even games; a resumed round plans the same games
    same = [Candidate(i, 1500.0 + i * 0.01, 50.0, 100) for i in range(100)]
    assert set(planned_games(same, k).values()) == {k}
    assert planned_games(league, k) == plan
    # a league too small for twice k games: at most everyone else once
    assert max(planned_games(_league(5), 10).values()) <= 4


def test_opponents_are_close_in_rating() -> None:
    league = _league(400)
    by_entry = {c.entry: c for c in league}
    rng = random.Random(4)
    blind = sum(abs(rng.gauss(0, 283)) for _ in range(3200)) / 3200  # two N(., 200) apart
    # the nearest neighbours: very close
    pairs = information_pairings(league, 8, random.Random(3), spread=0)
    gap = [abs(by_entry[a].rating - by_entry[b].rating) for a, b in pairs]
    assert sum(gap) / len(gap) < blind / 4
    # drawn (the default): within the uncertainty of the difference, wider than that only
    # where the range ran out of opponents
    pairs = information_pairings(league, 8, random.Random(3))
    assert pairs != information_pairings(league, 8, random.Random(3), spread=0)
    inside = [
        abs(by_entry[a].rating - by_entry[b].rating)
        <= SPREAD * 2**0.5 * max(by_entry[a].sigma, by_entry[b].sigma)
        for a, b in pairs
    ]
    assert sum(inside) / len(inside) > 0.9
    gap = [abs(by_entry[a].rating - by_entry[b].rating) for a, b in pairs]
    assert sum(gap) / len(gap) < blind / 2


def test_provisional_bots_are_served_first_when_opponents_run_short() -> None:
    settled = [Candidate(i, 1500.0 + i, 30.0, 500) for i in range(4)]
    newcomers = [Candidate(10 + i, 1500.0, UNKNOWN_SIGMA, 0) for i in range(4)]
    pairs = information_pairings([*settled, *newcomers], 3, random.Random(5))
    per_bot = Counter(e for pair in pairs for e in pair)
    assert all(per_bot[c.entry] == 3 for c in newcomers)
    assert all(c.provisional for c in newcomers) and not settled[0].provisional


def test_an_uncertain_pairing_is_worth_more_than_a_settled_one() -> None:
    a, b = Candidate(1, 1500, 30, 500), Candidate(2, 1510, 30, 500)
    new = Candidate(3, 1510, UNKNOWN_SIGMA, 0)
    far = Candidate(4, 1900, 30, 500)
    assert pairing_score(a, new) > pairing_score(a, b) > pairing_score(a, far)


def test_sigma_from_interval_or_games() -> None:
    assert sigma_of(0) == UNKNOWN_SIGMA
    assert sigma_of(PROVISIONAL_GAMES) > sigma_of(10 * PROVISIONAL_GAMES)
    assert sigma_of(5, 1400.0, 1600.0) == pytest.approx(200 / 3.92)


def test_slots_never_give_a_bot_two_matches_at_once() -> None:
    pairs = information_pairings(_league(300), 10, random.Random(6))
    given = slots(pairs)
    seen: set[tuple[int, int]] = set()
    for (a, b), s in zip(pairs, given, strict=True):
        assert (a, s) not in seen and (b, s) not in seen
        seen |= {(a, s), (b, s)}
    most = max(Counter(e for pair in pairs for e in pair).values())
    assert most > 10  # games follow the rank interval: some bots more than the mean
    assert max(given) < 2 * most - 1


def test_a_round_completed_from_the_pairs_it_has_is_never_doubled() -> None:
    league, k = _league(120), 6
    whole = information_pairings(league, k, random.Random(7))
    have = whole[: len(whole) // 3]  # a scheduling run that stopped a third of the way
    rest = information_pairings(league, k, random.Random(8), taken=have)
    pairs = have + rest
    assert len(set(pairs)) == len(pairs)
    per_bot = Counter(e for pair in pairs for e in pair)
    plan = planned_games(league, k)
    assert all(per_bot[c.entry] <= plan[c.entry] for c in league)
    assert sum(plan.values()) - 2 * len(pairs) <= 1  # an odd total leaves one game short
    given = slots(rest, [(a, b, s) for (a, b), s in zip(have, slots(have), strict=True)])
    seen: Counter[tuple[int, int]] = Counter()
    for (a, b), s in zip(pairs, slots(have) + given, strict=True):
        seen.update([(a, s), (b, s)])
    assert max(seen.values()) == 1


def test_swaps_complete_rounds_the_greedy_pass_leaves_short() -> None:
    # six bots, three games each: a 3-regular graph exists, and the greedy pass alone often
    # ends with two bots that already met each other still needing a game
    for seed in range(200):
        rng = random.Random(seed)
        league = [Candidate(i, rng.gauss(1500, 200), 60.0, 100) for i in range(6)]
        pairs = information_pairings(league, 3, random.Random(seed + 1000), even=True)
        assert len(set(pairs)) == len(pairs) == 9, seed
