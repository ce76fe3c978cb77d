"""Spec 8: the team variant (2 vs 2 and 2 vs 1), with the captain ruling."""

from __future__ import annotations

import json

import pytest

from referee import (
    ChooseAgent,
    Decision,
    Discard,
    EndReason,
    IllegalAction,
    NameFaceUp,
    Play,
    PlayFaceDown,
    PlayFaceUp,
    TakeBlackMarket,
    apply,
)
from referee.observation import observe, spectator_view
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
    STOP,
    UP,
    A,
    B,
    board,
    deal,
    decision,
    hand,
    options,
    outcome,
    play,
)

H0 = [ENF, SAB, CB, SEN]
H1 = [DD, DA, CB, SEN]
H2 = [SK, MOLE, SAB, DA]
H3 = [ENF, DD, SAB, CB]


def four(hands=(H0, H1, H2, H3), **kw):  # type: ignore[no-untyped-def]
    return deal(list(hands), **kw)  # teams A = seats 0, 2; B = seats 1, 3


def test_two_vs_two_turn_order_and_captains() -> None:
    s = four(draw=[DA, DA, DA, DA, SEN, SEN])
    # turn 1, A: captain = A's teammate 0 (no A turn completed)
    assert decision(s) == (Decision.NAME_FACE_UP, 0)
    assert options(s) == {NameFaceUp(0), NameFaceUp(2)}
    s = play(s, NameFaceUp(2))
    assert decision(s) == (Decision.DISCARD, 2), "the face-up player may discard first"
    s = play(s, STOP)
    assert decision(s) == (Decision.PLAY_FACE_UP, 2)
    assert options(s) == {PlayFaceUp(c) for c in (SK, MOLE, SAB, DA)}
    s = play(s, PlayFaceUp(SK))
    assert len(hand(s, 2)) == 4, "the face-up player draws before the teammate acts"
    assert decision(s) == (Decision.DISCARD, 0)
    assert observe(s, 0).offer_up == SK, "the teammate has seen the face-up card"
    s = play(s, STOP)
    assert decision(s) == (Decision.PLAY_FACE_DOWN, 0)
    s = play(s, PlayFaceDown(SAB))
    assert len(hand(s, 0)) == 4
    assert decision(s) == (Decision.RECRUIT, 1), "B's captain for its first turn"
    s = play(s, UP)  # B: Sidekick +4; A (one shared area): Saboteur -1
    assert s.in_play[A][SAB] == 1 and s.in_play[B][SK] == 1
    assert s.pos == (13, 11) and s.gap == 12
    # turn 2, B: captain seat 1; A's recruit choice by A's captain of turn 3, seat 2
    assert decision(s) == (Decision.NAME_FACE_UP, 1)
    s = play(s, NameFaceUp(3), PlayFaceUp(CB), PlayFaceDown(SEN))
    assert decision(s) == (Decision.RECRUIT, 2)
    s = play(s, UP)  # A: Codebreaker 0; B: Sentinel 0
    # turn 3, A: captain seat 2 (one A turn completed); B's recruit by seat 3
    assert decision(s) == (Decision.NAME_FACE_UP, 2)
    s = play(s, NameFaceUp(0), PlayFaceUp(SEN), PlayFaceDown(MOLE))
    assert decision(s) == (Decision.RECRUIT, 3)
    s = play(s, DOWN)  # B: Mole -3; A: Sentinel 0
    assert s.pos == (13, 8) and s.gap == 9
    # turn 4, B: captain seat 3
    assert decision(s) == (Decision.NAME_FACE_UP, 3)
    assert s.turns_done == (2, 1) and (s.captain(A), s.captain(B)) == (0, 3)


def test_the_recruit_is_blind_for_the_opposing_captain() -> None:
    s = play(four(), NameFaceUp(0), PlayFaceUp(ENF), PlayFaceDown(MOLE))
    assert decision(s) == (Decision.RECRUIT, 1)
    for view in (observe(s, 1), observe(s, 3), spectator_view(s)):
        assert view.my_face_down is None and view.face_down_offered
        assert "MOLE" not in json.dumps(view.to_json())
    assert observe(s, 2).my_face_down == MOLE


def test_the_face_down_card_must_differ_from_the_face_up_card() -> None:
    s = play(four(), NameFaceUp(2), PlayFaceUp(SAB), STOP)
    assert decision(s) == (Decision.PLAY_FACE_DOWN, 0)
    assert options(s) == {PlayFaceDown(c) for c in (ENF, CB, SEN)}
    with pytest.raises(IllegalAction):
        apply(s, PlayFaceDown(SAB))


def test_the_same_id_face_down_when_the_whole_hand_is_that_id() -> None:
    s = four([[ENF, ENF, ENF, ENF], H1, [ENF, SK, SAB, DA], H3])
    s = play(s, NameFaceUp(2), PlayFaceUp(ENF), STOP)
    assert decision(s) == (Decision.PLAY_FACE_DOWN, 0)
    assert options(s) == {PlayFaceDown(ENF)}, "a single option is still asked"
    s = play(s, PlayFaceDown(ENF), DOWN)  # B and A each recruit a 1st Enforcer
    assert s.pos == (1, 8)


def test_two_discards_per_teammate() -> None:
    s = four(draw=[DD, DD, DD, DD, SEN, SEN, SEN, SEN])
    s = play(s, NameFaceUp(2), Discard(SK), Discard(MOLE), auto_stop=False)
    assert decision(s) == (Decision.PLAY_FACE_UP, 2), "seat 2 used its two discards"
    s = play(s, PlayFaceUp(SAB), auto_stop=False)
    assert decision(s) == (Decision.DISCARD, 0), "its teammate still has two"
    s = play(s, Discard(ENF), Discard(SAB), auto_stop=False)
    assert decision(s) == (Decision.PLAY_FACE_DOWN, 0)
    assert [sum(d) for d in s.discards] == [2, 0, 2, 0]
    assert observe(s, 1).seats[0].discards_left == 0


def test_a_solo_player_facing_a_team_has_four_discards() -> None:
    s = deal([H0, H1, H2], draw=[SEN] * 4, first_team=B)  # A = seats 0, 2; B = seat 1 alone
    assert decision(s) == (Decision.DISCARD, 1)
    s = play(s, Discard(DD), Discard(DA), Discard(CB), Discard(SEN), auto_stop=False)
    assert decision(s) == (Decision.PLAY, 1), "the solo plays as in two-player games"
    assert sum(s.discards[1]) == 4


def test_the_face_up_player_draws_the_last_card() -> None:
    s = board(four(), deck=[MOLE])
    s = play(s, NameFaceUp(0), STOP, PlayFaceUp(ENF), auto_stop=False)
    assert hand(s, 0) == [CB, SAB, SEN, MOLE] and s.deck == ()
    assert decision(s) == (Decision.PLAY_FACE_DOWN, 2), "no discard: the deck is empty"
    s = play(s, PlayFaceDown(SK))
    assert len(hand(s, 2)) == 3


# --- running out with teams ---------------------------------------------------------------


def test_running_out_when_a_player_of_the_next_team_has_no_cards() -> None:
    s = board(four(), deck=[], hands=[[ENF], [CB], [SEN], []])
    s = play(s, NameFaceUp(0), PlayFaceUp(ENF), PlayFaceDown(SEN), UP)  # B: Enforcer +1
    r = outcome(s)
    assert (r.reason, r.gap, r.winner) == (EndReason.OUT_OF_CARDS, 8, B)


def test_no_running_out_while_each_next_player_has_a_card() -> None:
    s = board(four(), deck=[], hands=[[ENF], [CB], [SEN], [SAB]])
    s = play(s, NameFaceUp(0), PlayFaceUp(ENF), PlayFaceDown(SEN), UP)
    assert not s.over and decision(s) == (Decision.NAME_FACE_UP, 1)
    assert hand(s, 0) == [] and hand(s, 2) == [], "the active team's hands are not checked"


@pytest.mark.parametrize(("solo_hand", "over"), [([CB], True), ([CB, SAB], False)])
def test_running_out_when_a_solo_player_next_has_fewer_than_two(solo_hand, over) -> None:  # type: ignore[no-untyped-def]
    s = board(deal([H0, H1, H2]), deck=[], hands=[[ENF], solo_hand, [SEN]])
    s = play(s, NameFaceUp(0), PlayFaceUp(ENF), PlayFaceDown(SEN), DOWN)  # A: Enforcer +1
    assert s.over is over
    if over:
        r = outcome(s)
        assert (r.reason, r.gap, r.winner) == (EndReason.OUT_OF_CARDS, 6, A)


def test_running_out_when_the_team_plays_after_the_solo() -> None:
    s = board(deal([H0, H1, H2], first_team=B), deck=[], hands=[[CB], [SEN, CB], []])
    s = play(s, Play(SEN, CB), UP)  # A's captain (seat 0) takes the Sentinel
    r = outcome(s)
    assert (r.reason, r.gap, r.winner) == (EndReason.OUT_OF_CARDS, 7, B), "tie: active B"


# --- 2 vs 1 ----------------------------------------------------------------------------------


def test_two_vs_one_turn_order_and_captains() -> None:
    s = deal([H0, H1, H2])  # A = seats 0, 2; B = seat 1 alone
    s = play(s, NameFaceUp(0), PlayFaceUp(CB), PlayFaceDown(SK))
    assert decision(s) == (Decision.RECRUIT, 1)
    s = play(s, UP)  # B: Codebreaker 0; A: Sidekick +4
    assert decision(s) == (Decision.DISCARD, 1) and s.active == B
    s = play(s, Play(SEN, DA))
    assert decision(s) == (Decision.RECRUIT, 2), "A's captain for its 2nd turn"
    s = play(s, UP)  # A: Sentinel 0; B: Double Agent -1
    assert decision(s) == (Decision.NAME_FACE_UP, 2)


def test_solo_team_a_against_a_pair() -> None:
    s = deal([H0, H1, H2], teams=((0,), (1, 2)))
    assert decision(s) == (Decision.DISCARD, 0)
    s = play(s, Play(ENF, SAB))
    assert decision(s) == (Decision.RECRUIT, 1)
    s = play(s, UP)
    assert decision(s) == (Decision.NAME_FACE_UP, 1)
    s = play(s, NameFaceUp(2), PlayFaceUp(SK), PlayFaceDown(CB))
    assert decision(s) == (Decision.RECRUIT, 0)
    s = play(s, UP, Play(CB, SEN))
    assert decision(s) == (Decision.RECRUIT, 2), "B's captain of its 2nd turn"
    s = play(s, UP)
    assert decision(s) == (Decision.NAME_FACE_UP, 2)


# --- the Black Market with teams --------------------------------------------------------------


def test_black_market_choices_are_made_by_the_captain_and_the_taker() -> None:
    s = four(
        [[DD, ENF, SAB, SEN], [ENF, CB, SEN, DA], [CB, SAB, MOLE, DA], [SEN, DA, SAB, CB]],
        draw=[SK, DD, DD, DD],
        mode="advanced",
        market=[BM.SECRET_RECRUIT, BM.LOOKOUT, BM.SURVEILLANCE_VAN],
        bm_next=[BM.SPYCATION, BM.OUTPOST],
    )
    s = play(s, NameFaceUp(0), PlayFaceUp(DD), PlayFaceDown(CB), DOWN)  # A: +2 to corner 2
    assert decision(s) == (Decision.BLACK_MARKET, 0)
    assert options(s) == {
        TakeBlackMarket(BM.SECRET_RECRUIT, 0),
        TakeBlackMarket(BM.SECRET_RECRUIT, 2),
        TakeBlackMarket(BM.LOOKOUT, 0),
        TakeBlackMarket(BM.SURVEILLANCE_VAN, 0),
        TakeBlackMarket(BM.SURVEILLANCE_VAN, 2),
    }
    s = play(s, TakeBlackMarket(BM.SECRET_RECRUIT, 2))
    assert decision(s) == (Decision.SECRET_RECRUIT, 2), "the taker answers from its hand"
    assert options(s) == {ChooseAgent(c) for c in (SAB, MOLE, DA)}
    s = play(s, ChooseAgent(SAB))  # -1 to 1; seat 2 refills
    assert s.pos == (1, 7) and len(hand(s, 2)) == 4
    # B's turn: A lands on a corner and A's captain of its next turn (seat 2) chooses
    s = play(s, NameFaceUp(1), PlayFaceUp(ENF), PlayFaceDown(SEN))
    assert decision(s) == (Decision.RECRUIT, 2)
    s = play(s, UP)  # A: Enforcer +1 to corner 2
    assert s.pos == (1 + 1, 7) and decision(s) == (Decision.BLACK_MARKET, 2)
    assert TakeBlackMarket(BM.LOOKOUT, 2) in options(s)
    assert TakeBlackMarket(BM.LOOKOUT, 0) not in options(s)
