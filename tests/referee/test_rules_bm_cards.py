"""Spec 7: each of the 15 Black Market cards, with the rulings for the fine print."""

from __future__ import annotations

import pytest

from referee import (
    ChooseAgent,
    Decision,
    EndReason,
    EventKind,
    Play,
    Retrieve,
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
B_HAND = [CB, ENF, SAB, DA]


def adv(hands, draw=(), market=MARKET, bm_next=(), **kw):  # type: ignore[no-untyped-def]
    return deal(hands, draw, mode="advanced", market=market, bm_next=bm_next, **kw)


def take(card: BM, seat: int = 0) -> TakeBlackMarket:
    return TakeBlackMarket(card, seat)


# --- ongoing cards that change a recruit's move -------------------------------------------

MODIFIED = [
    # card, agent, copies already in play, combined move of the new copy
    (BM.LOOKOUT, ENF, 0, +3),
    (BM.LOOKOUT, ENF, 1, +4),
    (BM.LOOKOUT, ENF, 2, +5),
    (BM.LOOKOUT, ENF, 3, +5),
    (BM.SUPERCOMPUTER, CB, 0, +3),
    (BM.SUPERCOMPUTER, CB, 1, +3),
    (BM.DISTRACTION_DEVICE, SAB, 0, +1),
    (BM.DISTRACTION_DEVICE, SAB, 1, +1),
    (BM.DISTRACTION_DEVICE, SAB, 2, +2),
    (BM.DISTRACTION_DEVICE, SAB, 3, +2),
    (BM.EVIL_TWIN, DA, 0, -2),
    (BM.EVIL_TWIN, DA, 1, +12),
    (BM.EVIL_TWIN, DA, 2, -2),
]


@pytest.mark.parametrize(
    ("card", "agent", "before", "move"),
    [pytest.param(*c, id=f"{c[0].name}-{c[1].name}-copy{c[2] + 1}") for c in MODIFIED],
)
def test_ongoing_card_changes_the_move_into_one_combined_move(  # type: ignore[no-untyped-def]
    card, agent, before, move
) -> None:
    fillers = [c for c in (DD, MOLE, SK) if c is not agent][:2]
    s = adv([[agent, SEN, *fillers], [CB, ENF, SAB, DD]], draw=[CB, SAB])
    b = 0 if move > 6 else 8  # keep B out of reach
    s = board(s, a=1, b=b, play_a=[agent] * before, ongoing_a=[card])
    start = s
    s = play(s, Play(agent, SEN), DOWN)  # B: 1st Sentinel (0); A: the modified agent
    assert moves(s, since=start) == [(A, move, (1 + move) % 14)]
    assert s.gap == (b - 1) % 14 - move and not s.over


def test_supercomputer_third_codebreaker_moves_and_wins() -> None:
    s = adv([[CB, SEN, DD, SK], [CB, ENF, SAB, DD]])
    s = board(s, a=1, b=8, play_a=[CB, CB], ongoing_a=[BM.SUPERCOMPUTER])
    s = play(s, Play(CB, SEN), DOWN)
    assert s.pos == (4, 8)
    assert outcome(s)[:2] == (A, EndReason.CODEBREAKERS)


def test_ongoing_cards_apply_to_their_own_team_only() -> None:
    s = adv([[ENF, SEN, DD, SK], [CB, ENF, SAB, DD]])
    s = board(s, ongoing_a=[BM.LOOKOUT, BM.EVIL_TWIN])
    s = play(s, Play(ENF, SEN), UP)  # B recruits the Enforcer: a plain +1
    assert s.pos == (0, 8)


def test_lookout_does_not_apply_to_the_enforcer_that_took_it() -> None:
    s = adv([[ENF, SEN, DD, SK], [CB, ENF, SAB, DD]], market=[BM.LOOKOUT, *MARKET[:2]])
    s = board(s, a=1, b=8)
    s = play(s, Play(ENF, SEN), DOWN, take(BM.LOOKOUT))  # +1 to corner 2, then Lookout
    assert BM.LOOKOUT in s.ongoing[A] and s.pos == (2, 8)


def test_recruit_triggers_fire_however_the_agent_is_recruited() -> None:
    """Lookout on an Enforcer from Smoke Screen; Supercomputer on a Secret Recruit."""
    s = adv([[DD, SEN, SAB, DA], B_HAND], draw=[CB, CB, ENF])
    s = board(s, ongoing_a=[BM.LOOKOUT])
    s = play(s, Play(DD, SEN), DOWN)  # +2 to corner 2
    before = s
    s = play(s, take(BM.SMOKE_SCREEN))  # the top card is an Enforcer: +1 +2
    assert moves(s, since=before) == [(A, 3, 5)]
    assert decision(s) == (Decision.BLACK_MARKET, 0), "corner 5: a chained card"

    s = adv([[DD, SEN, CB, DA], B_HAND], draw=[SAB, SAB], market=[BM.SECRET_RECRUIT, *MARKET[:2]])
    s = board(s, ongoing_a=[BM.SUPERCOMPUTER])
    s = play(s, Play(DD, SEN), DOWN, take(BM.SECRET_RECRUIT), ChooseAgent(CB))
    assert s.pos == (5, 7) and decision(s) == (Decision.BLACK_MARKET, 0)


# --- Getaway Car -------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b", "home"), [(12, 5, 0), (5, 12, 7)])
def test_getaway_car_on_either_home(a: int, b: int, home: int) -> None:
    s = adv([[DD, SEN, SAB, DA], B_HAND])
    s = board(s, a=a, b=b, ongoing_a=[BM.GETAWAY_CAR])
    start = s
    s = play(s, Play(DD, SEN), DOWN)  # +2 onto a home, then 3 more
    assert moves(s, since=start) == [(A, 2, home), (A, 3, home + 3)]
    assert s.pos == (home + 3, b) and s.gap == 2 and decision(s) == (Decision.DISCARD, 1)


def test_getaway_car_needs_a_stop_on_the_home_not_a_pass() -> None:
    s = adv([[SK, SEN, SAB, DA], B_HAND])
    s = board(s, a=12, b=5, ongoing_a=[BM.GETAWAY_CAR])
    start = s
    s = play(s, Play(SK, SEN), DOWN)  # +4 over home 0 to corner 2
    assert moves(s, since=start) == [(A, 4, 2)]
    assert decision(s) == (Decision.BLACK_MARKET, 0)


def test_getaway_car_after_a_move_made_by_an_instant_card() -> None:
    s = adv([[DD, CB, SAB, DA], [CB, ENF, SAB, DA]], draw=[MOLE, SK, SEN])
    s = board(s, a=10, b=4, play_a=[SEN], ongoing_a=[BM.GETAWAY_CAR])
    s = play(s, Play(DD, CB), DOWN)  # +2 to corner 12
    before = s
    s = play(s, take(BM.SMOKE_SCREEN))  # the 2nd Sentinel: +2 onto home 0, then 3 more
    assert moves(s, since=before) == [(A, 2, 0), (A, 3, 3)]
    assert s.pos == (3, 4) and s.gap == 1 and not s.over


def test_lookout_and_getaway_car_only_the_final_space_counts() -> None:
    """Lookout makes Enforcer +3 from 11: over corner 12 (nothing) onto home 0 (Getaway
    Car) and on to 3."""
    s = adv([[ENF, CB, SAB, DA], [CB, ENF, SAB, DA]])
    s = board(s, a=11, b=4, ongoing_a=[BM.LOOKOUT, BM.GETAWAY_CAR])
    start = s
    s = play(s, Play(ENF, CB), DOWN)
    assert moves(s, since=start) == [(A, 3, 0), (A, 3, 3)]
    assert s.pos == (3, 4) and decision(s) == (Decision.DISCARD, 1)


def test_lookout_over_a_home_onto_a_corner_only_the_final_space_counts() -> None:
    """Enforcer +3 from 13 passes home 0 (no Getaway Car) and stops on corner 2."""
    s = adv([[ENF, CB, SAB, DA], [CB, ENF, SAB, DA]])
    s = board(s, a=13, b=6, ongoing_a=[BM.LOOKOUT, BM.GETAWAY_CAR])
    start = s
    s = play(s, Play(ENF, CB), DOWN)
    assert moves(s, since=start) == [(A, 3, 2)]
    assert decision(s) == (Decision.BLACK_MARKET, 0)


# --- End-step win cards -------------------------------------------------------------------------

SIX_IDS = [DA, CB, SAB, DD, SEN, MOLE]


def test_leader_of_the_pack_turns_three_daredevils_into_a_win() -> None:
    s = adv([[DD, SEN, SAB, DA], [CB, ENF, SEN, SAB]])
    s = board(s, play_a=[DD, DD], ongoing_a=[BM.LEADER_OF_THE_PACK])
    s = play(s, Play(DD, SEN), DOWN)
    assert outcome(s)[:2] == (A, EndReason.LEADER_OF_THE_PACK)


def test_leader_of_the_pack_does_not_save_the_opponent() -> None:
    s = adv([[DD, SEN, SAB, DA], [CB, ENF, SEN, SAB]])
    s = board(s, play_b=[DD, DD], ongoing_a=[BM.LEADER_OF_THE_PACK])
    s = play(s, Play(DD, SEN), UP)  # B recruits its 3rd Daredevil
    assert outcome(s)[:2] == (A, EndReason.DAREDEVILS)


def test_masterplan_wins_with_seven_different_ids() -> None:
    s = adv([[ENF, CB, SAB, DA], [SEN, ENF, SAB, DA]])
    s = board(s, play_a=SIX_IDS, ongoing_a=[BM.MASTERPLAN])
    s = play(s, Play(ENF, CB), DOWN)  # A's Enforcer is its 7th id
    assert outcome(s)[:2] == (A, EndReason.MASTERPLAN)


def test_masterplan_with_six_ids_does_not_win() -> None:
    s = adv([[SEN, CB, SAB, DA], [SEN, ENF, SAB, DA]])
    s = board(s, play_a=SIX_IDS, ongoing_a=[BM.MASTERPLAN])
    s = play(s, Play(SEN, CB), DOWN)  # a 2nd Sentinel: still six ids
    assert not s.over and s.pos == (2, 7)


def test_masterplan_counts_in_the_turn_it_is_taken() -> None:
    s = adv([[ENF, CB, SAB, DA], [SEN, ENF, SAB, DA]], market=[BM.MASTERPLAN, *MARKET[:2]])
    s = board(s, a=1, b=8, play_a=SIX_IDS)
    s = play(s, Play(ENF, CB), DOWN, take(BM.MASTERPLAN))  # 7th id, +1 to corner 2
    assert outcome(s)[:2] == (A, EndReason.MASTERPLAN)


def test_security_system_opponent_on_your_home_wins() -> None:
    s = adv([[DD, SEN, SAB, DA], B_HAND])
    s = board(s, a=5, b=12, ongoing_a=[BM.SECURITY_SYSTEM])
    s = play(s, Play(DD, SEN), UP)  # B: +2 from 12 onto A's home 0
    assert s.pos == (5, 0) and s.gap == 9
    assert outcome(s)[:2] == (A, EndReason.SECURITY_SYSTEM)


def test_security_system_is_about_your_own_home_only() -> None:
    s = adv([[DD, SEN, SAB, DA], B_HAND])
    s = board(s, a=5, b=12, ongoing_a=[BM.SECURITY_SYSTEM])
    s = play(s, Play(DD, SEN), DOWN)  # A itself onto B's home 7
    assert s.pos == (7, 12) and not s.over


def test_security_system_counts_in_the_turn_it_is_taken() -> None:
    s = adv([[ENF, DD, SAB, DA], B_HAND], market=[BM.SECURITY_SYSTEM, *MARKET[:2]])
    s = board(s, a=1, b=12)
    s = play(s, Play(ENF, DD), DOWN)  # B: +2 onto A's home; A: +1 to corner 2
    s = play(s, take(BM.SECURITY_SYSTEM))
    assert outcome(s)[:2] == (A, EndReason.SECURITY_SYSTEM)


# --- instant cards --------------------------------------------------------------------------


def landed(hand_a, draw=(), market=MARKET, **kw):  # type: ignore[no-untyped-def]
    """A plays (Daredevil, Codebreaker) from home, B takes the Codebreaker, A lands on 2."""
    s = adv([hand_a, B_HAND], draw=draw, market=market, bm_next=[BM.MASTERPLAN])
    s = board(s, **kw)
    s = play(s, Play(DD, CB), DOWN)
    assert s.pos[A] == 2 and decision(s) == (Decision.BLACK_MARKET, 0)
    return s


def test_surveillance_van_moves_one_clockwise() -> None:
    s = play(landed([DD, CB, SAB, DA], draw=[SEN, SEN]), take(BM.SURVEILLANCE_VAN))
    assert s.pos == (3, 7) and s.gap == 4 and BM.SURVEILLANCE_VAN in s.bm_discard


def test_smoke_screen_recruits_the_top_agent_card() -> None:
    s = landed([DD, CB, SAB, DA], draw=[SEN, SEN, SK, MOLE])
    s = play(s, take(BM.SMOKE_SCREEN))
    assert s.in_play[A][SK] == 1 and s.deck[0] == MOLE
    assert s.pos == (6, 7) and hand(s, 0) == [DA, SAB, SEN, SEN]


def test_smoke_screen_with_an_empty_deck_is_ignored() -> None:
    s = landed([DD, CB, SAB, DA], deck=[])
    before = s
    s = play(s, take(BM.SMOKE_SCREEN))
    ignored = [(e.team, e.bm) for e in new_events(before, s) if e.kind is EventKind.EFFECT_IGNORED]
    assert ignored == [(A, BM.SMOKE_SCREEN)]
    assert s.pos == (2, 7) and BM.SMOKE_SCREEN in s.bm_discard


def test_outpost_recruits_a_sentinel_from_hand_then_the_hand_refills() -> None:
    s = landed([DD, CB, SEN, SAB], draw=[ENF, DA, MOLE], play_a=[SEN])
    s = play(s, take(BM.OUTPOST))  # the 2nd Sentinel: +2
    assert s.in_play[A][SEN] == 2 and s.pos == (4, 7)
    assert hand(s, 0) == [DA, ENF, SAB, MOLE]


def test_outpost_without_a_sentinel_in_hand_is_ignored() -> None:
    s = play(landed([DD, CB, SAB, DA], draw=[ENF, DA]), take(BM.OUTPOST))
    assert [e.bm for e in events_of(s, EventKind.EFFECT_IGNORED)] == [BM.OUTPOST]
    assert s.pos == (2, 7) and hand(s, 0) == [DA, DA, ENF, SAB]


def test_secret_recruit_an_id_not_in_play() -> None:
    market = [BM.SECRET_RECRUIT, *MARKET[:2]]
    s = landed([DD, CB, ENF, SAB], draw=[SK, MOLE, DA], market=market, play_a=[ENF])
    s = play(s, take(BM.SECRET_RECRUIT))
    assert decision(s) == (Decision.SECRET_RECRUIT, 0)
    assert options(s) == {ChooseAgent(SAB), ChooseAgent(SK), ChooseAgent(MOLE)}
    s = play(s, ChooseAgent(SAB))  # 1st Saboteur: -1
    assert s.in_play[A][SAB] == 1 and s.pos == (1, 7)
    assert hand(s, 0) == [DA, ENF, SK, MOLE]


def test_secret_recruit_with_only_ids_in_play_is_ignored() -> None:
    market = [BM.SECRET_RECRUIT, *MARKET[:2]]
    s = landed([DD, CB, ENF, SAB], draw=[ENF, SAB], market=market, play_a=[ENF, SAB])
    s = play(s, take(BM.SECRET_RECRUIT))
    assert [e.bm for e in events_of(s, EventKind.EFFECT_IGNORED)] == [BM.SECRET_RECRUIT]
    assert s.pos == (2, 7) and decision(s) == (Decision.DISCARD, 1)


def test_double_trouble_recruits_one_of_a_pair_and_keeps_the_other() -> None:
    market = [BM.DOUBLE_TROUBLE, *MARKET[:2]]
    s = landed([DD, CB, ENF, ENF], draw=[SAB, DA, MOLE], market=market, play_a=[ENF])
    s = play(s, take(BM.DOUBLE_TROUBLE))
    assert decision(s) == (Decision.DOUBLE_TROUBLE, 0) and options(s) == {ChooseAgent(ENF)}
    s = play(s, ChooseAgent(ENF))  # the 2nd Enforcer: +2
    assert [(e.seat, e.agent) for e in events_of(s, EventKind.SHOWN_PAIR)] == [(0, ENF)]
    assert s.in_play[A][ENF] == 2 and s.pos == (4, 7)
    assert hand(s, 0) == [DA, ENF, SAB, MOLE]


def test_double_trouble_without_a_pair_is_ignored() -> None:
    market = [BM.DOUBLE_TROUBLE, *MARKET[:2]]
    s = play(landed([DD, CB, ENF, SAB], draw=[SK, DA], market=market), take(BM.DOUBLE_TROUBLE))
    assert [e.bm for e in events_of(s, EventKind.EFFECT_IGNORED)] == [BM.DOUBLE_TROUBLE]
    assert s.pos == (2, 7)


def test_spycation_takes_an_agent_back_without_moving() -> None:
    market = [BM.SPYCATION, *MARKET[:2]]
    s = landed([DD, CB, SAB, DA], draw=[SEN, SEN], market=market, play_a=[SK])
    s = play(s, take(BM.SPYCATION))
    assert decision(s) == (Decision.SPYCATION, 0)
    assert options(s) == {Retrieve(a, r) for a in (DD, SK) for r in (False, True)}
    s = play(s, Retrieve(SK, False))
    assert s.in_play[A][SK] == 0 and s.pos == (2, 7) and s.gap == 5
    assert hand(s, 0) == [DA, SAB, SEN, SEN, SK], "a hand above 4 is kept"


def test_spycation_may_recruit_the_agent_again_at_once() -> None:
    market = [BM.SPYCATION, *MARKET[:2]]
    s = landed([DD, CB, SAB, DA], draw=[SEN, SEN], market=market, play_a=[ENF, ENF])
    s = play(s, take(BM.SPYCATION), Retrieve(ENF, True))  # back to two in play: +2
    assert s.in_play[A][ENF] == 2 and s.pos == (4, 7)
    assert hand(s, 0) == [DA, SAB, SEN, SEN]
    assert [e.agent for e in events_of(s, EventKind.RETRIEVED)] == [ENF]


def test_mind_control_takes_an_opponent_agent_and_nobody_moves() -> None:
    market = [BM.MIND_CONTROL, *MARKET[:2]]
    s = landed([DD, CB, SAB, DA], draw=[SEN, SEN], market=market, play_b=[MOLE])
    s = play(s, take(BM.MIND_CONTROL))
    assert decision(s) == (Decision.MIND_CONTROL, 0)
    assert options(s) == {ChooseAgent(CB), ChooseAgent(MOLE)}
    s = play(s, ChooseAgent(MOLE))
    assert s.in_play[B][MOLE] == 0 and s.pos == (2, 7) and s.gap == 5
    assert hand(s, 0) == [DA, SAB, SEN, SEN, MOLE]
    assert [(e.team, e.agent) for e in events_of(s, EventKind.STOLEN)] == [(A, MOLE)]
