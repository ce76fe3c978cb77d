"""Rules section 1 (card values) and 5 (4th+ copies use the 3rd icon).

Each scenario: team A already has ``before`` copies of an agent in play, plays that agent
face up and a card worth nothing to B face down; B recruits the face-down card, so A
recruits its (before+1)-th copy and moves by the printed icon.
"""

from __future__ import annotations

import pytest

from referee import Agent, EndReason, EventKind, Play
from referee.cards import FULL_DECK
from tests.referee.scenario import (
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
    moves,
    new_events,
    outcome,
    play,
)

WIN, LOSE = "WIN", "LOSE"
Value = int | str

#: the printed table of rules section 1, copy by copy (1st, 2nd, 3rd, 4th, 5th, 6th)
PRINTED: dict[Agent, list[Value]] = {
    DA: [-1, +6, -1, -1, -1, -1],
    ENF: [+1, +2, +3, +3, +3, +3],
    CB: [0, 0, WIN],
    SAB: [-1, -1, -2, -2, -2, -2],
    DD: [+2, +3, LOSE],
    SEN: [0, +2, +6, +6, +6, +6],
    SK: [+4],
    MOLE: [-3],
}
# 4th+ Codebreakers/Daredevils are unreachable: the 3rd copy ends the game.

CASES = [
    pytest.param(agent, n, value, id=f"{agent.name}-copy{n}")
    for agent, values in PRINTED.items()
    for n, value in enumerate(values, start=1)
]


def test_the_deck_holds_38_cards_with_the_printed_copies() -> None:
    assert len(FULL_DECK) == 38
    copies = {agent: FULL_DECK.count(agent) for agent in PRINTED}
    assert copies == {DA: 6, ENF: 6, CB: 6, SAB: 6, DD: 6, SEN: 6, SK: 1, MOLE: 1}


def _recruit_nth_copy(agent, n):  # type: ignore[no-untyped-def]
    """A recruits its n-th copy of ``agent``; B recruits a first Sentinel/Codebreaker (0)."""
    other = CB if agent is SEN else SEN
    fillers = [c for c in (SAB, ENF, DA, DD) if c is not agent][:2]
    b_hand = [c for c in (DA, ENF, SAB, DD, CB) if c is not agent][:4]
    s = deal([[agent, other, *fillers], b_hand])
    s = board(s, a=0, b=7, play_a=[agent] * (n - 1))
    before = s
    s = play(s, Play(agent, other), DOWN)
    return before, s


@pytest.mark.parametrize(("agent", "n", "value"), CASES)
def test_printed_value_of_each_copy(agent, n, value) -> None:  # type: ignore[no-untyped-def]
    before, s = _recruit_nth_copy(agent, n)
    recruited = [
        (e.team, e.agent, e.amount) for e in new_events(before, s) if e.kind is EventKind.RECRUITED
    ]
    assert (A, agent, n) in recruited, "the event reports the copies now in play"
    assert s.in_play[A][agent] == n
    a_moves = [m for m in moves(s, since=before) if m[0] == A]
    if value == WIN:
        assert a_moves == [], "the WIN icon moves nothing"
        assert s.pos == (0, 7)
        assert outcome(s)[:2] == (A, EndReason.CODEBREAKERS)
    elif value == LOSE:
        assert a_moves == [], "the LOSE icon moves nothing"
        assert s.pos == (0, 7)
        assert outcome(s)[:2] == (B, EndReason.DAREDEVILS)
    elif value == 0:
        assert a_moves == [] and s.pos == (0, 7) and s.gap == 7
        assert not s.over
    else:
        assert a_moves == [(A, value, value % 14)]
        assert s.pos == (value % 14, 7)
        assert s.gap == 7 - value
        assert not s.over


def test_copies_are_counted_per_team() -> None:
    """B already has an Enforcer: A's first Enforcer is still a 1st copy (+1), and B's next
    one is its 2nd (+2) whatever A holds."""
    s = deal([[ENF, SEN, SAB, DA], [ENF, CB, SAB, DA]])
    s = board(s, a=0, b=7, play_b=[ENF])
    s = play(s, Play(ENF, SEN), DOWN)  # B takes the Sentinel (1st: 0), A the Enforcer
    assert s.in_play[A][ENF] == 1 and s.pos == (1, 7) and s.gap == 6
    s = play(s, Play(ENF, CB), DOWN)  # B's turn: A takes the Codebreaker, B its 2nd Enforcer
    assert s.in_play[B][ENF] == 2
    assert s.pos == (1, 9) and s.gap == 8


def test_the_active_team_recruits_the_card_the_opponent_left() -> None:
    s = deal([[SK, MOLE, SAB, DA], [ENF, CB, SAB, DA]])
    s1 = play(s, Play(SK, MOLE), DOWN)  # B takes the Mole: -3; A keeps the Sidekick: +4
    assert s1.in_play[A][SK] == 1 and s1.in_play[B][MOLE] == 1
    assert s1.pos == (4, 4) and s1.gap == 7 - 4 - 3 == 0
    assert outcome(s1)[:2] == (A, EndReason.CATCH)  # B walked backwards into A: A caught it
    s2 = play(s, Play(SK, MOLE), UP)  # B takes the Sidekick: +4; A keeps the Mole: -3
    assert s2.in_play[B][SK] == 1 and s2.in_play[A][MOLE] == 1
    assert s2.pos == (11, 11) and s2.gap == 7 + 3 + 4 == 14
    assert outcome(s2)[:2] == (B, EndReason.CATCH)
