"""A static evaluation of a state from one team's side, shared by the greedy and search bots."""

from __future__ import annotations

from referee.cards import Agent
from referee.engine import result
from referee.state import State

WIN = 1000.0


def evaluate(state: State, team: int) -> float:
    """Higher is better for ``team``: won/lost, then distance to a catch and card threats."""
    if state.outcome is not None:
        res = result(state)
        assert res is not None
        return WIN if res.winner == team else -WIN
    # gap = spaces A still needs to catch B; 14 - gap = spaces B needs to catch A
    reach = (14 - state.gap) - state.gap  # > 0: A is the closer hunter
    score = float(reach if team == 0 else -reach)
    mine, theirs = state.in_play[team], state.in_play[1 - team]
    score += 4.0 * _near_three(mine[Agent.CODEBREAKER]) - 4.0 * _near_three(
        theirs[Agent.CODEBREAKER]
    )
    score -= 4.0 * _near_three(mine[Agent.DAREDEVIL]) - 4.0 * _near_three(theirs[Agent.DAREDEVIL])
    return score


def _near_three(copies: int) -> float:
    return (0.0, 0.25, 1.0)[copies] if copies < 3 else 2.0
