"""One test per ruling in docs/rulings.md that the scripted rule scenarios do not already
name (each ruling in that file points at its test)."""

from __future__ import annotations

import pytest

from referee import (
    Agent,
    Decision,
    NameFaceUp,
    Play,
    PlayFaceDown,
    PlayFaceUp,
    Retrieve,
    TakeBlackMarket,
    legal_actions,
)
from referee.observation import observe, spectator_view
from referee.state import EndReason
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
    board,
    deal,
    play,
)


def test_r3_team_face_down_card_is_hidden_from_the_teammate() -> None:
    s = deal(
        [[DD, ENF, SAB, SEN], [ENF, CB, SEN, DA], [CB, SAB, MOLE, DA], [SEN, DA, SAB, CB]],
        draw=[SK, DD, DD, DD],
    )
    s = play(s, NameFaceUp(0), PlayFaceUp(DD), PlayFaceDown(MOLE))
    assert s.decision is Decision.RECRUIT
    assert observe(s, 2).my_face_down is MOLE, "the seat that played it knows it"
    for seat in (0, 1, 3):
        assert observe(s, seat).my_face_down is None
        assert observe(s, seat).face_down_offered
    assert spectator_view(s).my_face_down is None


def test_r2_recall_in_a_team_game_is_answered_by_the_captain_into_its_hand() -> None:
    s = deal(
        [[SK, DD, SAB, SEN], [ENF, CB, SEN, DA], [ENF, CB, MOLE, DA], [SEN, DA, SAB, CB]],
        draw=[DD, DD, DD, DD],
        ruleset="summary-board",
    )
    s = board(s, a=1, play_a=[ENF])
    assert s.captain(0) == 0
    # the captain plays face up, seat 2 face down; B takes the Sidekick (+4 to 11) and
    # A's second Enforcer moves it +2 from 1 to the recall space 3
    s = play(s, NameFaceUp(0), PlayFaceUp(SK), PlayFaceDown(ENF), UP)
    assert s.pos == (3, 11)
    assert (s.decision, s.actor) == (Decision.RECALL, 0), "the captain answers the recall"
    sizes = [sum(h) for h in s.hands]
    s = play(s, Retrieve(ENF, recruit=False))
    assert [sum(h) for h in s.hands] == [sizes[0] + 1, *sizes[1:]]
    assert s.hands[0][ENF] == 1 and s.in_play[0][ENF] == 1


def test_r4_the_first_reason_in_check_order_is_reported() -> None:
    # A recruits its 3rd Codebreaker while B recruits its 3rd Daredevil: A is the only
    # candidate, for two reasons; Codebreakers come before Daredevils in the check order.
    s = deal([[CB, DD, SEN, ENF], [SAB, SAB, SEN, ENF]], draw=[DA, DA, DA, DA])
    s = board(s, play_a=[CB, CB], play_b=[DD, DD])
    s = play(s, Play(DD, CB), UP)
    r = s.outcome
    assert r is not None and r.winner == 0 and r.reason is EndReason.CODEBREAKERS
    assert not r.tiebreak
    assert s.in_play[0][CB] == 3 and s.in_play[1][DD] == 3


_MARKET = [BM.SURVEILLANCE_VAN, BM.LOOKOUT, BM.SECRET_RECRUIT]


@pytest.mark.parametrize("holder", [0, 1])
@pytest.mark.parametrize("first", [0, 1])
def test_r14_one_end_reason_whatever_the_team_order(holder: int, first: int) -> None:
    # Both teams recruit their 3rd Daredevil in one turn and one holds Leader of the Pack:
    # that team is a candidate twice (its own win, the other's loss). Which reason is
    # reported must not depend on whether it is team A or B, nor on who is active.
    dealt = [[SEN, SAB, ENF, CB], [SAB, SEN, ENF, CB]]
    s = deal(dealt, mode="advanced", market=_MARKET, first_team=first)
    hands: list[list[Agent]] = [[SAB, SAB, SEN, ENF], [SAB, SAB, SEN, ENF]]
    hands[first] = [DD, DD]  # the active seat holds two Daredevils only: it may play both
    lotp = [BM.LEADER_OF_THE_PACK]
    s = board(
        s,
        play_a=[DD, DD],
        play_b=[DD, DD],
        ongoing_a=lotp if holder == 0 else (),
        ongoing_b=lotp if holder == 1 else (),
        hands=hands,
        deck=[SEN, CB, ENF, DA],
    )
    s = play(s, Play(DD, DD), UP)
    r = s.outcome
    assert r is not None
    assert s.in_play[0][DD] == 3 and s.in_play[1][DD] == 3
    assert (r.winner, r.reason, r.tiebreak) == (holder, EndReason.LEADER_OF_THE_PACK, False)


def test_r8_black_market_options_are_sorted_and_ongoing_cards_name_the_captain() -> None:
    s = deal(
        [[DD, ENF, SAB, SEN], [ENF, CB, SEN, DA], [CB, SAB, MOLE, DA], [SEN, DA, SAB, CB]],
        draw=[SK, DD, DD, DD],
        mode="advanced",
        market=[BM.SURVEILLANCE_VAN, BM.LOOKOUT, BM.SECRET_RECRUIT],
    )
    s = play(s, NameFaceUp(0), PlayFaceUp(DD), PlayFaceDown(CB), DOWN)
    assert s.decision is Decision.BLACK_MARKET
    assert legal_actions(s) == (
        TakeBlackMarket(BM.LOOKOUT, 0),
        TakeBlackMarket(BM.SURVEILLANCE_VAN, 0),
        TakeBlackMarket(BM.SURVEILLANCE_VAN, 2),
        TakeBlackMarket(BM.SECRET_RECRUIT, 0),
        TakeBlackMarket(BM.SECRET_RECRUIT, 2),
    )
