"""Spec 4 step 1: optional discards, the identical-pair exception; plus the referee's
contract for refused actions (IllegalAction) and forfeits."""

from __future__ import annotations

import json

import pytest

from referee import (
    ChooseAgent,
    Decision,
    Discard,
    EndReason,
    EventKind,
    IllegalAction,
    Play,
    Recruit,
    Side,
    TakeBlackMarket,
    apply,
    forfeit,
    legal_actions,
)
from referee.observation import observe
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
    events_of,
    hand,
    options,
    outcome,
    play,
    play_on,
)

HANDS = [[ENF, SAB, CB, SEN], [DD, DA, CB, SEN]]


# --- discards (spec 4 step 1.1) ---------------------------------------------------------


def test_a_discard_goes_out_of_the_game_and_draws_one() -> None:
    s = deal(HANDS, draw=[MOLE, SK, DD])
    s = play(s, Discard(SAB), auto_stop=False)
    assert hand(s, 0) == [ENF, CB, SEN, MOLE]
    assert s.discards[0][SAB] == 1 and sum(s.discards[0]) == 1
    assert s.deck[:2] == (SK, DD)
    assert decision(s) == (Decision.DISCARD, 0), "discarding is repeatable"
    ev = events_of(s, EventKind.DISCARDED)
    assert [(e.seat, e.agent) for e in ev] == [(0, None)], "the card stays secret"
    theirs = observe(s, 1)
    assert theirs.discards == s.discards[1] and theirs.seats[0].discards_used == 1
    assert "SABOTEUR" not in json.dumps(theirs.to_json()), "only the owner knows the card"
    assert observe(s, 0).discards == s.discards[0]


def test_discarded_cards_never_come_back() -> None:
    """Card conservation: after the discard the Saboteur is in no hand, deck or play area."""
    s = deal(HANDS, draw=[MOLE, SK])
    n_sab = lambda st: (  # noqa: E731
        sum(h[SAB] for h in st.hands) + st.deck.count(SAB) + st.in_play[A][SAB] + st.in_play[B][SAB]
    )
    before = n_sab(s)
    s = play(s, Discard(SAB), STOP, Play(ENF, CB), UP, auto_stop=False)
    assert n_sab(s) == before - 1
    assert s.discards[0][SAB] == 1


def test_at_most_four_discards_per_game_for_a_two_player_seat() -> None:
    s = deal(HANDS, draw=[ENF, SAB, CB, SEN, DD, DA, DA, DA, DA, DA])
    s = play(s, Discard(ENF), Discard(SAB), Discard(CB), auto_stop=False)
    assert decision(s) == (Decision.DISCARD, 0)
    s = play(s, STOP, Play(ENF, SAB), DOWN, auto_stop=False)  # 3 used in turn 1
    s = play(s, STOP, Play(DD, DA), DOWN, auto_stop=False)  # B's turn
    assert decision(s) == (Decision.DISCARD, 0)
    s = play(s, Discard(SEN), auto_stop=False)  # the 4th, in A's second turn
    assert decision(s) == (Decision.PLAY, 0), "no 5th discard is offered"
    assert sum(s.discards[0]) == 4
    assert Discard(SEN) not in legal_actions(s)
    with pytest.raises(IllegalAction):
        apply(s, Discard(CB))


def test_no_discard_when_the_agent_deck_is_empty() -> None:
    s = board(deal(HANDS), deck=[])
    assert decision(s) == (Decision.PLAY, 0)
    with pytest.raises(IllegalAction):
        apply(s, Discard(ENF))
    s = board(deal(HANDS), deck=[MOLE])
    s = play(s, Discard(ENF), auto_stop=False)  # draws the last card
    assert s.deck == () and hand(s, 0) == [CB, SAB, SEN, MOLE]
    assert decision(s) == (Decision.PLAY, 0), "the deck is empty: discards stop"


def test_stopping_leaves_the_discards_for_a_later_turn() -> None:
    s = deal(HANDS, draw=[MOLE, SK, DD, DA, SEN, SEN])
    s = play(s, STOP, auto_stop=False)
    assert decision(s) == (Decision.PLAY, 0)
    s = play(s, Play(ENF, SAB), DOWN, STOP, Play(DD, DA), DOWN, auto_stop=False)
    assert decision(s) == (Decision.DISCARD, 0)
    assert observe(s, 0).seats[0].discards_left == 4


def five_card_hand():  # type: ignore[no-untyped-def]
    """Advanced: A lands on corner 2 and Mind Control brings B's Codebreaker into A's hand."""
    s = deal(
        [[DD, CB, SAB, DA], [CB, ENF, SAB, DA]],
        draw=[SEN, SEN, ENF, SAB, DD, DD, SK],
        mode="advanced",
        market=[BM.MIND_CONTROL, BM.SURVEILLANCE_VAN, BM.SMOKE_SCREEN],
    )
    s = play(s, Play(DD, CB), DOWN, TakeBlackMarket(BM.MIND_CONTROL, 0), ChooseAgent(CB))
    assert hand(s, 0) == [DA, CB, SAB, SEN, SEN], "a hand above 4 is kept"
    s = play(s, Play(ENF, SAB), UP)  # B's turn; A: Enforcer +1, B: Saboteur -1
    assert decision(s) == (Decision.DISCARD, 0) and s.deck[:2] == (DD, DD)
    return s


def test_a_discard_draws_exactly_one_even_into_a_hand_above_four() -> None:
    s = play(five_card_hand(), Discard(SAB), auto_stop=False)
    assert hand(s, 0) == [DA, CB, DD, SEN, SEN] and s.deck[0] == DD


def test_playing_from_a_hand_above_four_draws_back_to_four_only() -> None:
    s = play(five_card_hand(), Play(SEN, CB))
    assert hand(s, 0) == [DA, SAB, DD, SEN], "5 - 2 + 1"
    assert s.deck[0] == DD


# --- the two cards played (spec 4 step 1.2) ------------------------------------------------


def test_the_two_cards_must_have_different_ids() -> None:
    s = board(deal([[SEN, SEN, SEN, ENF], HANDS[1]]), deck=[])
    assert options(s) == {Play(SEN, ENF), Play(ENF, SEN)}
    with pytest.raises(IllegalAction):
        apply(s, Play(SEN, SEN))


def test_a_pair_is_not_enough_for_the_identical_exception() -> None:
    s = board(deal([[SEN, SEN, ENF, ENF], HANDS[1]]), deck=[])
    assert Play(SEN, SEN) not in options(s) and Play(ENF, ENF) not in options(s)
    assert options(s) == {Play(SEN, ENF), Play(ENF, SEN)}


def test_identical_pair_when_every_hand_card_has_the_same_id() -> None:
    s = board(deal([[SEN, SEN, SEN, SEN], HANDS[1]], draw=[DD, DD]), play_a=[SEN])
    s = play(s, STOP, auto_stop=False)
    assert decision(s) == (Decision.PLAY, 0), "a single option is still asked"
    assert options(s) == {Play(SEN, SEN)}
    s = play(s, Play(SEN, SEN), DOWN)
    # A already had one Sentinel; B gets its 1st (0), A its 2nd (+2)
    assert s.in_play[A][SEN] == 2 and s.in_play[B][SEN] == 1
    assert s.pos == (2, 7) and hand(s, 0) == [DD, DD, SEN, SEN]


def test_playing_a_card_not_in_hand_is_refused() -> None:
    s = play(deal(HANDS), STOP, auto_stop=False)
    with pytest.raises(IllegalAction):
        apply(s, Play(MOLE, SK))


# --- refused actions and forfeits ---------------------------------------------------------


def test_a_wrong_action_is_refused_with_a_clear_message() -> None:
    s = play(deal(HANDS), STOP, auto_stop=False)
    with pytest.raises(IllegalAction) as err:
        apply(s, Recruit(Side.FACE_UP))
    message = str(err.value)
    assert "seat 0" in message and "play" in message
    assert "recruit" in message, "the message names the refused action"
    assert "ENFORCER" in message, "the message lists what the seat may do"
    with pytest.raises(IllegalAction):
        apply(s, TakeBlackMarket(BM.LOOKOUT, 0))
    with pytest.raises(IllegalAction):
        apply(s, "play the Enforcer")  # type: ignore[arg-type]
    assert decision(s) == (Decision.PLAY, 0), "a refused action changes nothing"


def test_the_opponent_cannot_answer_the_discard_or_play_decision() -> None:
    """Only the asked seat acts: the decisions belong to state.actor, never to the other."""
    s = deal(HANDS)
    assert s.actor == 0
    with pytest.raises(IllegalAction):
        apply(s, Discard(DD))  # B's card, not in A's hand


def test_no_action_after_the_game_is_over() -> None:
    s = board(deal([[SK, CB, SAB, DA], HANDS[1]]), a=0, b=4)
    s = play(s, Play(SK, CB), DOWN)
    assert s.over and s.decision is None and s.actor == -1
    assert legal_actions(s) == ()
    with pytest.raises(IllegalAction, match="over"):
        apply(s, UP)
    with pytest.raises(IllegalAction, match="over"):
        forfeit(s, 0)


def test_forfeit_ends_the_game_for_the_seats_team() -> None:
    s = play(deal(HANDS), STOP, Play(ENF, SAB), auto_stop=False)
    s = forfeit(s, 1)
    r = outcome(s)
    assert (r.winner, r.reason, r.forfeit_seat) == (A, EndReason.FORFEIT, 1)
    assert s.over and legal_actions(s) == ()
    with pytest.raises(IllegalAction):
        play_on(s, UP)


def test_a_forfeit_in_a_team_game_loses_for_the_whole_team() -> None:
    s = deal([HANDS[0], HANDS[1], [DD, DD, SAB, SAB], [MOLE, SK, CB, CB]])
    r = outcome(forfeit(s, 2))
    assert (r.winner, r.reason, r.forfeit_seat) == (B, EndReason.FORFEIT, 2)
    with pytest.raises(IllegalAction):
        forfeit(s, 4)
