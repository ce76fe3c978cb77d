"""Spec 4 "Running out of cards" and 5: the game ends when no one won, the agent deck is
empty and the NEXT player holds fewer than 2 cards; the team closer to catching wins
(gap < 7: A; gap > 7: B; gap == 7: the active team)."""

from __future__ import annotations

import pytest

from referee import (
    Action,
    Agent,
    Decision,
    Discard,
    EndReason,
    Play,
    StopDiscarding,
    apply,
)
from referee.cards import FULL_DECK
from tests.referee.scenario import (
    CB,
    DA,
    DD,
    DOWN,
    ENF,
    SAB,
    SEN,
    SK,
    UP,
    A,
    B,
    board,
    deal,
    decision,
    hand,
    outcome,
    play,
)

HANDS = [[ENF, SAB, CB, SEN], [DD, DA, CB, SEN]]


def late_game(first_team: int, a_hand, b_hand, **kw):  # type: ignore[no-untyped-def]
    """The agent deck is empty; the hands are as given."""
    return board(deal(HANDS, first_team=first_team), deck=[], hands=[a_hand, b_hand], **kw)


@pytest.mark.parametrize(
    ("first", "first_hand", "second_hand", "first_play", "second_play", "gap", "winner"),
    [
        # A moves +4 (gap 3); B is active at the end but A is closer
        pytest.param(A, [SK, CB], [SEN, CB], Play(SK, CB), Play(SEN, CB), 3, A, id="gap<7"),
        # B moves +4 (gap 11); A is active at the end but B is closer
        pytest.param(B, [SK, CB], [SEN, CB], Play(SK, CB), Play(SEN, CB), 11, B, id="gap>7"),
        # nobody moves: gap 7, the active team (the second to play) wins
        pytest.param(A, [SEN, CB], [CB, SEN], Play(SEN, CB), Play(CB, SEN), 7, B, id="tie-B"),
        pytest.param(B, [SEN, CB], [CB, SEN], Play(SEN, CB), Play(CB, SEN), 7, A, id="tie-A"),
    ],
)
def test_the_closer_team_wins_when_the_cards_run_out(  # type: ignore[no-untyped-def]
    first, first_hand, second_hand, first_play, second_play, gap, winner
) -> None:
    hands = [first_hand, second_hand] if first == A else [second_hand, first_hand]
    s = late_game(first, *hands)
    s = play(s, first_play, DOWN)  # the opponent takes the face-down Codebreaker
    # The player who just played has no card left, but only the NEXT player's hand counts.
    assert sum(s.hands[first]) == 0 and sum(s.hands[1 - first]) == 2
    assert not s.over and decision(s) == (Decision.PLAY, 1 - first)
    s = play(s, second_play, UP)
    assert s.deck == () and sum(s.hands[first]) == 0
    r = outcome(s)
    assert (r.reason, r.gap, r.winner) == (EndReason.OUT_OF_CARDS, gap, winner)
    assert s.active == 1 - first


def test_only_the_next_players_hand_is_checked() -> None:
    """A (active) still holds 2 cards after playing; B (next) holds 1: the game ends."""
    s = late_game(A, [SEN, CB, ENF, SAB], [CB])
    s = play(s, Play(SEN, CB), UP)
    assert hand(s, 0) == [ENF, SAB]
    r = outcome(s)
    assert (r.reason, r.winner, r.gap) == (EndReason.OUT_OF_CARDS, A, 7)


def test_a_next_player_with_two_cards_keeps_the_game_going() -> None:
    s = late_game(A, [SEN, CB, ENF, SAB], [CB, DD])
    s = play(s, Play(SEN, CB), UP)
    assert not s.over and decision(s) == (Decision.PLAY, 1)


def test_a_win_takes_precedence_over_running_out() -> None:
    s = late_game(A, [SK, CB], [CB], a=0, b=3)
    s = play(s, Play(SK, CB), DOWN)  # A +4 passes B, the deck is empty, B holds 1 card
    r = outcome(s)
    assert (r.reason, r.winner) == (EndReason.CATCH, A)


def test_no_running_out_while_the_deck_has_cards() -> None:
    s = board(deal(HANDS), deck=[DD])
    s = play(s, Play(ENF, SAB), DOWN)
    assert not s.over and s.deck == () and sum(s.hands[0]) == 3


def test_running_out_reached_through_discards() -> None:
    """Two cards left: A's two discards empty the deck, then the hands play down."""
    hands = [[DD, DD, CB, SEN], [CB, SEN, DA, ENF]]
    s = board(deal(hands), deck=[SAB, ENF])
    s = play(s, Discard(DD), Discard(DD), auto_stop=False)
    assert s.deck == () and decision(s) == (Decision.PLAY, 0), "no discard from an empty deck"
    assert hand(s, 0) == [ENF, CB, SAB, SEN] and s.discards[0][DD] == 2
    s = play(s, Play(CB, SEN), UP)  # B: Codebreaker 0, A: Sentinel 0
    assert decision(s) == (Decision.PLAY, 1)
    s = play(s, Play(CB, SEN), UP)  # A: Codebreaker 0, B: Sentinel 0
    s = play(s, Play(SAB, ENF), UP)  # B: Saboteur -1, A: Enforcer +1
    assert s.pos == (1, 6) and s.gap == 5
    assert sum(s.hands[0]) == 0 and not s.over, "A is empty-handed, but B plays next"
    s = play(s, Play(DA, ENF), DOWN)  # A: 2nd Enforcer +2, B: Double Agent -1
    assert s.pos == (3, 5) and s.gap == 2
    r = outcome(s)
    assert (r.reason, r.winner) == (EndReason.OUT_OF_CARDS, A), "gap 2 < 7: A, though B is active"
    assert s.active == B


# --- whole games from a full 38-card deal ---------------------------------------------------
# Spec 5: running out is unreachable without discards; with them it is. These games were
# played from the full deck by scripted (random) choices and end by running out.

CODES = {"DA": DA, "EN": ENF, "CB": CB, "SA": SAB, "DD": DD, "SE": SEN, "SK": SK, "MO": Agent.MOLE}


def _action(token: str) -> Action:
    if token == "stop":
        return StopDiscarding()
    if token.startswith("x"):
        return Discard(CODES[token[1:]])
    if token in ("up", "down"):
        return UP if token == "up" else DOWN
    up, down = token.split("/")
    return Play(CODES[up], CODES[down])


FULL_GAMES = [
    pytest.param(
        "SA SA SE DA DD CB SA SE DD SE MO EN DA SE CB SA SE SA SK DA DD CB EN DD EN EN DD DA "
        "DA DD CB EN SE DA SA CB EN CB",
        "xDA xDD xSA xSE SA/MO down xSA xCB xDD xCB SE/SA down EN/DA down SK/DA up CB/SE down "
        "SA/DD up EN/SE up DA/EN down EN/DA down CB/SE up DD/SE up CB/DD down CB/DD up "
        "EN/SA down DA/EN up",
        8,
        B,
        id="gap-8-B-wins",
    ),
    pytest.param(
        "CB SE CB DD DA DD EN CB SA DA SE SA DD DA DD EN EN DA SE DA SA SE SE EN SA CB DD SK "
        "DD CB SA EN SA MO SE EN DA CB",
        "xCB xSE xDD xSE CB/SA up xCB xDA xDD xDD DA/EN up SA/DA up DA/SE up SA/DA up "
        "SE/EN down SE/DD up DD/SK up CB/DD down SA/EN down CB/SA down EN/SE down DA/MO down "
        "EN/EN down CB/SA up",
        7,
        A,
        id="gap-7-active-A-wins",
    ),
    pytest.param(
        "CB SE DA SK CB EN SE EN DD EN DD CB DD EN MO SA DA CB DA SA DA DD CB SA SA SA SE EN "
        "SA DD SE DA SE CB SE EN DD DA",
        "xCB xDD xSK xDD CB/SE up stop SE/EN down EN/DA up xCB xDA xSA xSA EN/DA down "
        "DD/EN down DD/MO down CB/DA down CB/SE down SA/DD down SE/DA up SE/CB up SA/SE down "
        "SA/DA up EN/EN up DD/SA down",
        2,
        A,
        id="gap-2-A-wins",
    ),
]


@pytest.mark.parametrize(("deck", "script", "gap", "winner"), FULL_GAMES)
def test_a_full_game_with_discards_runs_out(deck: str, script: str, gap: int, winner: int) -> None:
    order = [CODES[c] for c in deck.split()]
    assert sorted(order) == sorted(FULL_DECK)
    s = deal([order[0:4], order[4:8]], draw=order[8:])
    actions = [_action(t) for t in script.split()]
    for action in actions[:-2]:
        s = apply(s, action)
        assert not s.over
    # the last turn: B has just emptied its hand and the game went on, because A (next)
    # still held 2 cards; A plays them and B (next) holds none
    assert decision(s) == (Decision.PLAY, 0) and s.deck == ()
    assert sum(s.hands[1]) == 0 and sum(s.hands[0]) == 2
    s = apply(apply(s, actions[-2]), actions[-1])
    assert sum(s.discards[0]) == 4 and sum(s.discards[1]) == 4
    r = outcome(s)
    assert (r.reason, r.gap, r.winner, r.turns) == (EndReason.OUT_OF_CARDS, gap, winner, 15)
