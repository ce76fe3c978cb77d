"""A simple heuristic bot: values each card by how far it would move its recruiter now.

Playing: assume the opponent is equally likely to take either card and keep the pair
that leaves us furthest ahead. Recruiting: take the face-up card if it is worth more to
us than an average card, else gamble on the hidden one. Discarding: get rid of the Mole.
Everything else: the first legal choice.
"""

from __future__ import annotations

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk import Bot

#: meeple move for the 1st, 2nd and 3rd+ copy in play (rules section 1)
MOVES = {
    pb.AGENT_DOUBLE_AGENT: (-1, 6, -1),
    pb.AGENT_ENFORCER: (1, 2, 3),
    pb.AGENT_CODEBREAKER: (0, 0, 0),
    pb.AGENT_SABOTEUR: (-1, -1, -2),
    pb.AGENT_DAREDEVIL: (2, 3, 0),
    pb.AGENT_SENTINEL: (0, 2, 6),
    pb.AGENT_SIDEKICK: (4, 4, 4),
    pb.AGENT_MOLE: (-3, -3, -3),
}
WIN = 20.0
AVERAGE = 1.0


def in_play(obs: pb.Observation, team: int, agent: int) -> int:
    return sum(c.count for c in obs.teams[team].in_play if c.agent == agent)


def value(obs: pb.Observation, team: int, agent: int) -> float:
    """How good recruiting ``agent`` now is for ``team``."""
    copies = in_play(obs, team, agent) + 1
    score = float(MOVES[agent][min(copies, 3) - 1])
    if copies >= 3 and agent == pb.AGENT_CODEBREAKER:
        score += WIN
    if copies >= 3 and agent == pb.AGENT_DAREDEVIL:
        score -= WIN
    return score


class HeuristicBot(Bot):
    version = "heuristic-1"

    def discard(self, request: pb.DecisionRequest) -> int:
        for i, choice in enumerate(request.legal):
            if choice.WhichOneof("kind") == "discard" and choice.discard.card == pb.AGENT_MOLE:
                return i
        return len(request.legal) - 1  # stop discarding is last

    def play(self, request: pb.DecisionRequest) -> int:
        obs = request.observation
        us, them = obs.team, 1 - obs.team

        def score(choice: pb.Choice) -> float:
            up, down = choice.play.face_up, choice.play.face_down
            they_take_up = value(obs, us, down) - value(obs, them, up)
            they_take_down = value(obs, us, up) - value(obs, them, down)
            return (they_take_up + they_take_down) / 2

        return max(range(len(request.legal)), key=lambda i: score(request.legal[i]))

    def recruit(self, request: pb.DecisionRequest) -> int:
        obs = request.observation
        take_up = value(obs, obs.team, obs.offer_up) >= AVERAGE
        wanted = pb.SIDE_FACE_UP if take_up else pb.SIDE_FACE_DOWN
        for i, choice in enumerate(request.legal):
            if choice.recruit.side == wanted:
                return i
        return 0
