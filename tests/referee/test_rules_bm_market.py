"""Spec 7 "Acquiring" and the order of a Recruit step in advanced mode: when a meeple takes
a Black Market card, the market refill, chains, both teams landing, and the End step."""

from __future__ import annotations

from referee import (
    ChooseAgent,
    Decision,
    EndReason,
    EventKind,
    Play,
    TakeBlackMarket,
)
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
    UP,
    A,
    B,
    board,
    deal,
    decision,
    events_of,
    hand,
    moves,
    new_events,
    options,
    outcome,
    play,
)

MARKET = [BM.SURVEILLANCE_VAN, BM.SMOKE_SCREEN, BM.OUTPOST]
B_HAND = [ENF, SEN, SAB, DA]


def adv(hands, draw=(), market=MARKET, bm_next=(BM.LOOKOUT, BM.MIND_CONTROL), **kw):  # type: ignore[no-untyped-def]
    return deal(hands, draw, mode="advanced", market=market, bm_next=bm_next, **kw)


def take(card: BM, seat: int = 0) -> TakeBlackMarket:
    return TakeBlackMarket(card, seat)


# --- when a meeple acquires -----------------------------------------------------------------


def test_stopping_exactly_on_a_corner_takes_a_card_and_refills_first() -> None:
    s = adv([[DD, CB, SAB, DA], B_HAND], draw=[SEN, SEN])
    s = play(s, Play(DD, CB), DOWN)  # A: Daredevil +2 from 0 to corner 2
    assert s.pos == (2, 7)
    assert decision(s) == (Decision.BLACK_MARKET, 0)
    assert options(s) == {take(c) for c in MARKET}
    before = s
    s = play(s, take(BM.SURVEILLANCE_VAN))
    kinds = [e.kind for e in new_events(before, s)]
    assert kinds[:3] == [EventKind.MARKET_TAKEN, EventKind.MARKET_REVEALED, EventKind.MOVED]
    assert set(s.market) == {BM.SMOKE_SCREEN, BM.OUTPOST, BM.LOOKOUT}
    assert s.bm_deck[0] == BM.MIND_CONTROL and s.bm_discard == (BM.SURVEILLANCE_VAN,)
    assert s.pos == (3, 7) and s.gap == 4
    assert decision(s) == (Decision.DISCARD, 1)


def test_the_opponent_landing_during_the_active_turn_takes_a_card() -> None:
    s = adv([[CB, DD, SAB, DA], B_HAND], draw=[SEN, SEN])
    s = play(s, Play(CB, DD), DOWN)  # B gets the Daredevil: +2 from 7 to corner 9
    assert s.pos == (0, 9)
    assert decision(s) == (Decision.BLACK_MARKET, 1)
    assert options(s) == {take(c, 1) for c in MARKET}


def test_passing_over_a_corner_gives_nothing() -> None:
    s = adv([[SK, CB, SAB, DA], B_HAND], draw=[SEN, SEN])
    before = s
    s = play(s, Play(SK, CB), DOWN)  # +4 from 0, over corner 2
    assert moves(s, since=before) == [(A, 4, 4)]
    assert decision(s) == (Decision.DISCARD, 1) and s.market == tuple(MARKET)


def test_moving_backwards_onto_a_corner_counts() -> None:
    s = board(adv([[SAB, CB, ENF, DA], B_HAND], draw=[SEN, SEN]), a=3, b=10)
    s = play(s, Play(SAB, CB), DOWN)  # Saboteur -1 from 3 to corner 2
    assert s.pos == (2, 10) and decision(s) == (Decision.BLACK_MARKET, 0)


def test_a_meeple_already_on_a_corner_that_does_not_move_gets_nothing() -> None:
    s = board(adv([[CB, SEN, ENF, DA], [DD, SAB, ENF, DA]], draw=[SEN, SAB]), a=2, b=9)
    s = play(s, Play(CB, SEN), DOWN)  # B: 1st Sentinel 0, A: 1st Codebreaker 0
    assert s.pos == (2, 9)
    assert decision(s) == (Decision.DISCARD, 1) and s.market == tuple(MARKET)


def test_an_empty_black_market_deck_is_not_refilled_or_reshuffled() -> None:
    s = adv([[DD, CB, SAB, DA], [CB, DD, SEN, SAB]], draw=[SEN, SEN, ENF, ENF])
    s = board(s, bm_deck_left=[])
    s = play(s, Play(DD, CB), DOWN, take(BM.SURVEILLANCE_VAN))
    assert set(s.market) == {BM.SMOKE_SCREEN, BM.OUTPOST} and s.bm_deck == ()
    assert not events_of(s, EventKind.MARKET_REVEALED)
    s = play(s, Play(CB, DD), UP)  # B's turn: A takes the Codebreaker, B gets 7 -> 9
    assert decision(s) == (Decision.BLACK_MARKET, 1)
    assert options(s) == {take(BM.SMOKE_SCREEN, 1), take(BM.OUTPOST, 1)}


def test_an_empty_market_gives_nothing() -> None:
    s = adv([[DD, CB, SAB, DA], B_HAND], draw=[SEN, SEN])
    s = s._replace(market=(), bm_deck=(), bm_discard=tuple(BM))  # every card used up
    s = play(s, Play(DD, CB), DOWN)
    assert s.pos == (2, 7) and decision(s) == (Decision.DISCARD, 1)


def test_the_market_is_refilled_before_the_card_is_resolved() -> None:
    """Smoke Screen chains A onto a second corner: the card that refilled the market after
    Smoke Screen was taken is already on sale for the second landing."""
    s = adv(
        [[SEN, CB, ENF, DA], [CB, SAB, ENF, DA]],
        draw=[SAB, DD, SK],
        market=[BM.SMOKE_SCREEN, BM.OUTPOST, BM.SPYCATION],
        bm_next=[BM.SURVEILLANCE_VAN],
    )
    s = board(s, a=3, b=12, play_a=[SEN])
    s = play(s, Play(SEN, CB), DOWN)  # A: 2nd Sentinel +2 to corner 5; B: Codebreaker 0
    assert s.pos == (5, 12) and decision(s) == (Decision.BLACK_MARKET, 0)
    s = play(s, take(BM.SMOKE_SCREEN))  # recruits the top card, the Sidekick: +4 to 9
    assert s.in_play[A][SK] == 1 and s.pos == (9, 12)
    assert decision(s) == (Decision.BLACK_MARKET, 0), "a chain: another corner"
    assert take(BM.SURVEILLANCE_VAN) in options(s)
    s = play(s, take(BM.SURVEILLANCE_VAN))
    assert s.pos == (10, 12) and s.gap == 2 and not s.over


def test_the_hand_is_refilled_after_an_instant_before_a_chained_card() -> None:
    """Secret Recruit empties a hand slot and chains onto a corner where A takes Smoke
    Screen: the hand draws first, so Smoke Screen recruits the card after it."""
    s = adv(
        [[SEN, CB, SK, SAB], [CB, SAB, ENF, DA]],
        draw=[ENF, DA, MOLE, DD],
        market=[BM.SECRET_RECRUIT, BM.SMOKE_SCREEN, BM.SURVEILLANCE_VAN],
        bm_next=[BM.OUTPOST, BM.SPYCATION],
    )
    s = board(s, a=3, b=12, play_a=[SEN])
    s = play(s, Play(SEN, CB), DOWN)  # A: +2 to 5
    assert hand(s, 0) == [DA, ENF, SAB, SK]
    s = play(s, take(BM.SECRET_RECRUIT))
    assert decision(s) == (Decision.SECRET_RECRUIT, 0)
    s = play(s, ChooseAgent(SK))  # +4 to corner 9; the hand draws the Mole
    assert hand(s, 0) == [DA, ENF, SAB, MOLE] and s.pos == (9, 12)
    assert decision(s) == (Decision.BLACK_MARKET, 0)
    s = play(s, take(BM.SMOKE_SCREEN))  # recruits the Daredevil (not the Mole): +2 to 11
    assert s.in_play[A][DD] == 1 and s.in_play[A][MOLE] == 0
    assert s.pos == (11, 12) and s.gap == 1 and not s.over


def test_both_teams_on_corners_the_active_team_resolves_fully_first() -> None:
    s = adv(
        [[SEN, DD, SK, CB], [ENF, SAB, DA, CB]],
        draw=[SAB, ENF, DA, DA],
        market=[BM.SECRET_RECRUIT, BM.SURVEILLANCE_VAN, BM.MIND_CONTROL],
        bm_next=[BM.SPYCATION, BM.OUTPOST],
    )
    s = board(s, a=3, b=13, play_a=[SEN], play_b=[DD])
    s = play(s, Play(SEN, DD), DOWN)  # A: 2nd Sentinel +2 to 5; B: 2nd Daredevil +3 to 2
    assert s.pos == (5, 2) and s.gap == 11
    assert decision(s) == (Decision.BLACK_MARKET, 0), "the active team first"
    s = play(s, take(BM.SECRET_RECRUIT), ChooseAgent(SK))  # A: +4 to corner 9: a chain
    assert s.pos == (9, 2) and decision(s) == (Decision.BLACK_MARKET, 0)
    s = play(s, take(BM.SURVEILLANCE_VAN))  # A: +1 to 10, its chain is over
    assert s.pos == (10, 2)
    assert decision(s) == (Decision.BLACK_MARKET, 1), "then the other team"
    assert options(s) == {take(c, 1) for c in (BM.MIND_CONTROL, BM.SPYCATION, BM.OUTPOST)}
    s = play(s, take(BM.MIND_CONTROL, 1), ChooseAgent(SK))
    taken = [(e.team, e.bm) for e in events_of(s, EventKind.MARKET_TAKEN)]
    assert taken == [
        (A, BM.SECRET_RECRUIT),
        (A, BM.SURVEILLANCE_VAN),
        (B, BM.MIND_CONTROL),
    ]
    assert s.in_play[A][SK] == 0 and s.pos == (10, 2) and s.gap == 6
    assert decision(s) == (Decision.DISCARD, 1)


def test_order_main_moves_then_getaway_car_then_acquisitions() -> None:
    s = adv([[DD, SK, CB, SEN], [ENF, SAB, DA, CB]], draw=[SAB, ENF])
    s = board(s, a=3, b=10, ongoing_b=[BM.GETAWAY_CAR])
    before = s
    s = play(s, Play(DD, SK), DOWN)  # B: Sidekick +4, 10 -> 0 (A's home); A: +2 to corner 5
    assert moves(s, since=before) == [(A, 2, 5), (B, 4, 0), (B, 3, 3)]
    assert decision(s) == (Decision.BLACK_MARKET, 0)
    assert s.pos == (5, 3) and s.gap == 12, "Getaway Car already moved B"
    s = play(s, take(BM.SURVEILLANCE_VAN))
    assert s.pos == (6, 3) and s.gap == 11 and not s.over


def test_nobody_wins_during_the_recruit_step() -> None:
    """A passes B with its main move and lands on a corner: it still takes its card, and
    only the End step declares the catch."""
    s = board(adv([[DD, SEN, SAB, DA], B_HAND], draw=[CB, CB]), a=0, b=1)
    s = play(s, Play(DD, SEN), DOWN)
    assert s.gap == -1 and not s.over
    assert decision(s) == (Decision.BLACK_MARKET, 0)
    s = play(s, take(BM.SURVEILLANCE_VAN))
    r = outcome(s)
    assert (r.winner, r.reason, r.positions, r.gap) == (A, EndReason.CATCH, (3, 1), -2)


def test_three_codebreakers_still_let_the_other_team_acquire_first() -> None:
    s = adv([[CB, DD, SAB, DA], B_HAND], draw=[SEN, SEN])
    s = board(s, play_a=[CB, CB])
    s = play(s, Play(DD, CB), UP)  # B: Daredevil to corner 9; A: its 3rd Codebreaker
    assert not s.over and decision(s) == (Decision.BLACK_MARKET, 1)
    s = play(s, take(BM.OUTPOST, 1))  # B has a Sentinel in hand: 1st copy, 0
    assert outcome(s)[:2] == (A, EndReason.CODEBREAKERS)


def test_end_conditions_are_read_after_the_acquisitions() -> None:
    """B recruits its 3rd Codebreaker, but A's Mind Control takes one back before End."""
    market = [BM.MIND_CONTROL, BM.SURVEILLANCE_VAN, BM.SMOKE_SCREEN]
    s = adv([[DD, CB, SAB, DA], B_HAND], draw=[SEN, SEN], market=market, bm_next=())
    s = board(s, play_b=[CB, CB])
    s = play(s, Play(DD, CB), DOWN)  # B: 3rd Codebreaker; A: +2 to corner 2
    assert s.in_play[B][CB] == 3 and decision(s) == (Decision.BLACK_MARKET, 0)
    s = play(s, take(BM.MIND_CONTROL), ChooseAgent(CB))
    assert s.in_play[B][CB] == 2 and CB in hand(s, 0)
    assert not s.over and decision(s) == (Decision.DISCARD, 1)
