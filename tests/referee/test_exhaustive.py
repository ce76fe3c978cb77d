"""Small exhaustive checks: every possible hand and every move table entry."""

from __future__ import annotations

import itertools

from referee import Decision, GameConfig, Play, PlayFaceDown, new_game
from referee.cards import AGENTS, COPIES, MOVES, N_AGENTS, Agent, base_move
from referee.engine import legal_actions


def all_hands(size: int = 4) -> list[tuple[int, ...]]:
    hands = []
    for combo in itertools.combinations_with_replacement(AGENTS, size):
        counts = tuple(combo.count(a) for a in AGENTS)
        if all(counts[a] <= COPIES[a] for a in AGENTS):
            hands.append(counts)
    return hands


def test_every_hand_has_exactly_the_legal_plays() -> None:
    base = new_game(GameConfig.for_seats(2, "simple", first_team=0), seed=0)
    base = base._replace(decision=Decision.PLAY, actor=0)
    hands = all_hands(4) + all_hands(3) + all_hands(2)
    for hand in hands:
        state = base._replace(hands=(hand, base.hands[1]))
        plays = legal_actions(state)
        ids = [a for a in AGENTS if hand[a]]
        if len(ids) == 1:
            assert plays == (Play(ids[0], ids[0]),), hand
        else:
            expected = {Play(u, d) for u in ids for d in ids if u != d}
            assert set(plays) == expected and len(plays) == len(expected), hand
    assert len(hands) > 300


def test_every_face_down_choice_in_team_play() -> None:
    base = new_game(GameConfig.for_seats(4, "simple", first_team=0), seed=0)
    for hand in all_hands(4):
        for up in AGENTS:
            state = base._replace(
                hands=(base.hands[0], base.hands[1], hand, base.hands[3]),
                decision=Decision.PLAY_FACE_DOWN,
                actor=2,
                offer_up=up,
            )
            cards = {a.card for a in legal_actions(state) if isinstance(a, PlayFaceDown)}
            held = {a for a in AGENTS if hand[a]}
            assert cards == (held - {up} or {up}), (hand, up)


def test_move_table_for_every_copy_count() -> None:
    for agent in AGENTS:
        for copies in range(1, 7):
            expected = MOVES[agent][min(copies, 3) - 1]
            assert base_move(agent, copies) == expected
    assert [base_move(Agent.DOUBLE_AGENT, n) for n in (1, 2, 3, 6)] == [-1, 6, -1, -1]
    assert len(MOVES) == N_AGENTS and sum(COPIES) == 38
