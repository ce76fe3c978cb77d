"""A fast rollout policy for search: one-ply judgement by arithmetic, without ``apply``.

It plays like the greedy bot (take the card that helps us most and hurts us least, and
offer a pair whose worse half is still good for us) but costs a few microseconds, so the
search bot can afford hundreds of full playouts per decision.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from referee.actions import Action, Decision, Play, Recruit, Side
from referee.bots.evaluate import WIN
from referee.cards import Agent, base_move
from referee.state import State

_CB, _DD = Agent.CODEBREAKER, Agent.DAREDEVIL


def _swing(state: State, team: int, mine: Agent, theirs: Agent) -> float:
    """Value for ``team`` of recruiting ``mine`` while the other team recruits ``theirs``."""
    other = 1 - team
    play_me, play_them = state.in_play[team], state.in_play[other]
    n_me, n_them = play_me[mine] + 1, play_them[theirs] + 1
    d_me, d_them = base_move(mine, n_me), base_move(theirs, n_them)
    # both teams chase clockwise: A closes the gap with +, B with +
    gap = state.gap - d_me + d_them if team == 0 else state.gap + d_me - d_them
    # gap is now "spaces left for team to catch" when team == 0; mirror for team B
    left_me = gap if team == 0 else 14 - gap
    if left_me <= 0:
        return WIN
    if left_me >= 14:
        return -WIN
    cb_me = play_me[_CB] + (mine is _CB)
    dd_me = play_me[_DD] + (mine is _DD)
    cb_them = play_them[_CB] + (theirs is _CB)
    dd_them = play_them[_DD] + (theirs is _DD)
    if cb_me >= 3 or dd_them >= 3:
        return WIN
    if cb_them >= 3 or dd_me >= 3:
        return -WIN
    return (14 - 2 * left_me) + 3.0 * (cb_me - cb_them) - 3.0 * (dd_me - dd_them)


def quick_action(state: State, legal: Sequence[Action], rng: random.Random) -> Action:
    decision = state.decision
    me = state.config.team_of(state.actor)
    if decision is Decision.RECRUIT:
        up, down = state.offer_up, state.offer_down
        assert up is not None and down is not None
        if _swing(state, me, up, down) >= _swing(state, me, down, up):
            return legal[0] if legal[0] == Recruit(Side.FACE_UP) else legal[1]
        return legal[1] if legal[1] == Recruit(Side.FACE_DOWN) else legal[0]
    if decision is Decision.PLAY:
        best, best_v = legal[0], -2 * WIN
        for action in legal:
            assert isinstance(action, Play)
            # the opponent takes one card, we keep the other: assume the worse case for us
            v = min(
                _swing(state, me, action.down, action.up), _swing(state, me, action.up, action.down)
            )
            if v > best_v:
                best, best_v = action, v
        return best
    if decision is Decision.DISCARD:
        return legal[-1] if rng.random() < 0.8 else legal[int(rng.random() * len(legal))]
    return legal[int(rng.random() * len(legal))]
