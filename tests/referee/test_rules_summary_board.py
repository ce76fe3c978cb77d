"""Spec 10.2: the optional ``summary-board`` ruleset: home +3 (one combined move of 6 with
Getaway Car), the home win at End, recall spaces 3 and 10, each at most once per meeple
per turn."""

from __future__ import annotations

import pytest

from referee import Decision, EndReason, EventKind, Play, Retrieve, TakeBlackMarket
from tests.referee.scenario import (
    BM,
    CB,
    DA,
    DD,
    DOWN,
    ENF,
    MOLE,
    SAB,
    SEN,
    SK,
    A,
    B,
    board,
    deal,
    decision,
    events_of,
    hand,
    moves,
    options,
    outcome,
    play,
)

A_HAND = [DD, SEN, SAB, DA]
B_HAND = [CB, ENF, SAB, DA]


def summary(hands=(A_HAND, B_HAND), mode="simple", **kw):  # type: ignore[no-untyped-def]
    if mode == "advanced":
        kw.setdefault("market", [BM.SURVEILLANCE_VAN, BM.SMOKE_SCREEN, BM.OUTPOST])
    return deal(list(hands), draw=[SAB, SAB, ENF, ENF], mode=mode, ruleset="summary-board", **kw)


@pytest.mark.parametrize(("a", "b", "home"), [(12, 5, 0), (5, 12, 7)])
def test_home_plus_three_then_a_compulsory_recall(a: int, b: int, home: int) -> None:
    s = board(summary(), a=a, b=b)
    start = s
    s = play(s, Play(DD, SEN), DOWN)  # A: +2 onto a home, 3 more onto recall space 3 / 10
    assert moves(s, since=start) == [(A, 2, home), (A, 3, home + 3)]
    assert decision(s) == (Decision.RECALL, 0)
    assert options(s) == {Retrieve(DD, False), Retrieve(DD, True)}, "no way to refuse"
    s = play(s, Retrieve(DD, False))  # back to hand, nobody moves
    assert s.in_play[A][DD] == 0 and DD in hand(s, 0)
    assert s.pos == (home + 3, b) and s.gap == 2
    assert decision(s) == (Decision.DISCARD, 1)


def test_the_standard_board_has_no_home_bonus_and_no_recall() -> None:
    s = board(deal([A_HAND, B_HAND]), a=12, b=5)
    s = play(s, Play(DD, SEN), DOWN)
    assert s.pos == (0, 5) and decision(s) == (Decision.DISCARD, 1)
    s = board(deal([[SK, SEN, SAB, DA], B_HAND]), a=6, b=5)
    s = play(s, Play(SK, SEN), DOWN)  # onto space 10
    assert s.pos == (10, 5) and decision(s) == (Decision.DISCARD, 1)


def test_home_bonus_and_getaway_car_are_one_combined_move_of_six() -> None:
    s = summary(mode="advanced")
    s = board(s, a=12, b=7, ongoing_a=[BM.GETAWAY_CAR])
    start = s
    s = play(s, Play(DD, SEN), DOWN)
    assert moves(s, since=start) == [(A, 2, 0), (A, 6, 6)]
    assert s.pos == (6, 7) and s.gap == 1 and decision(s) == (Decision.DISCARD, 1)


def test_home_bonus_at_most_once_per_meeple_per_turn() -> None:
    """The recalled Mole brings A back onto its home: no second +3 this turn."""
    s = board(summary(), a=12, b=5, play_a=[MOLE])
    start = s
    s = play(s, Play(DD, SEN), DOWN)  # 12 -> 0 -> 3 (recall)
    s = play(s, Retrieve(MOLE, True))  # -3 -> 0, and it stays there
    assert moves(s, since=start) == [(A, 2, 0), (A, 3, 3), (A, -3, 0)]
    assert s.pos == (0, 5) and s.gap == 5
    assert decision(s) == (Decision.DISCARD, 1)


def test_recall_at_most_once_per_meeple_per_turn() -> None:
    s = board(summary([[SK, SEN, SAB, DA], B_HAND]), a=6, b=5)
    start = s
    s = play(s, Play(SK, SEN), DOWN)  # +4 onto recall space 10
    assert decision(s) == (Decision.RECALL, 0)
    s = play(s, Retrieve(SK, True))  # +4 onto home 0, +3 onto recall space 3: no 2nd recall
    assert moves(s, since=start) == [(A, 4, 10), (A, 4, 0), (A, 3, 3)]
    assert s.pos == (3, 5) and s.gap == 2
    assert decision(s) == (Decision.DISCARD, 1)
    assert s.in_play[A][SK] == 1


def test_home_win_at_end_goes_to_the_owner_of_the_home() -> None:
    """A reaches B's home, goes on to 10, recalls and replays its Mole back onto 7: the
    home bonus is spent, so A ends the turn on B's home, and B wins ("your opponent on your
    home space at End: you win", as Security System)."""
    s = board(summary(), a=5, b=12, play_a=[MOLE])
    s = play(s, Play(DD, SEN), DOWN)  # 5 -> 7 -> 10
    assert decision(s) == (Decision.RECALL, 0)
    s = play(s, Retrieve(MOLE, True))  # 10 -> 7
    r = outcome(s)
    assert (r.winner, r.reason, r.positions, r.gap) == (B, EndReason.HOME_SPACE, (7, 12), 5)
    assert not r.tiebreak


def test_each_meeple_has_its_own_bonus_and_the_active_team_recalls_first() -> None:
    s = board(summary(), a=12, b=5, play_b=[SEN])
    start = s
    s = play(s, Play(DD, SEN), DOWN)  # A: +2 onto 0; B: 2nd Sentinel +2 onto 7
    assert sorted(moves(s, since=start)) == [(A, 2, 0), (A, 3, 3), (B, 2, 7), (B, 3, 10)]
    assert decision(s) == (Decision.RECALL, 0)
    s = play(s, Retrieve(DD, False))
    assert decision(s) == (Decision.RECALL, 1)
    s = play(s, Retrieve(SEN, False))
    assert s.pos == (3, 10) and s.gap == 7
    assert [e.team for e in events_of(s, EventKind.RETRIEVED)] == [A, B]


def test_a_meeple_that_does_not_move_gets_no_recall() -> None:
    s = board(summary([[CB, SEN, SAB, DA], B_HAND]), a=3, b=10)
    s = play(s, Play(CB, SEN), DOWN)  # both recruits move nothing
    assert s.pos == (3, 10) and decision(s) == (Decision.DISCARD, 1)


def test_passing_a_recall_space_gives_nothing() -> None:
    s = board(summary([[SK, SEN, SAB, DA], B_HAND]), a=1, b=8)
    s = play(s, Play(SK, SEN), DOWN)  # 1 -> 5 over space 3
    assert s.pos == (5, 8) and decision(s) == (Decision.DISCARD, 1)


def test_a_recruit_from_a_recall_can_land_on_a_black_market_space() -> None:
    s = board(summary(mode="advanced"), a=1, b=8)
    s = play(s, Play(DD, SEN), DOWN)  # 1 -> 3: recall
    s = play(s, Retrieve(DD, True))  # 1st Daredevil again: 3 -> 5, a Black Market corner
    assert s.pos == (5, 8) and decision(s) == (Decision.BLACK_MARKET, 0)
    s = play(s, TakeBlackMarket(BM.SURVEILLANCE_VAN, 0))
    assert s.pos == (6, 8) and s.gap == 2 and not s.over


def test_a_move_that_ends_where_it_started_still_stops_on_the_recall_space() -> None:
    """From recall space 3 the Mole goes back onto home 0 and the bonus brings A to 3 again:
    the meeple moved and stopped on 3, so the recall applies."""
    s = board(summary([[MOLE, SEN, SAB, DA], B_HAND]), a=3, b=10)
    start = s
    s = play(s, Play(MOLE, SEN), DOWN)
    assert moves(s, since=start) == [(A, -3, 0), (A, 3, 3)]
    assert decision(s) == (Decision.RECALL, 0)
