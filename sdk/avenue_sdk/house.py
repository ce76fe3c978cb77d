"""The arena's house bots as SDK bots: sparring partners for the local arena, and bots to
run on an arena (``python -m avenue_sdk run avenue_sdk.house:GreedyBot``).

Each decodes the ``DecisionRequest`` into the referee's ``Observation`` and legal actions
(``avenue_sdk.protocol.decode``) and asks the referee's own bot, so it plays as the house
bot of the same name does (the same seed gives the same choices).
"""

from __future__ import annotations

import secrets

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.bot import Bot
from avenue_sdk.protocol.decode import legal_of, observation_of
from referee.bots import GreedyBot as _Greedy
from referee.bots import RandomBot as _Random
from referee.bots import SearchBot as _Search
from referee.bots.base import Bot as _RefereeBot


class HouseBot(Bot):
    """Answers with a referee bot; ``seed`` None draws one."""

    def __init__(self, bot: _RefereeBot) -> None:
        self.bot = bot
        self.version = f"house-{bot.name}"

    def decide(self, request: pb.DecisionRequest) -> int:
        legal = legal_of(request)
        action = self.bot.act(observation_of(request.observation, history=False), legal)
        return legal.index(action)


def _seed(seed: int | None) -> int:
    return secrets.randbits(32) if seed is None else seed


class RandomBot(HouseBot):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(_Random(_seed(seed)))


class GreedyBot(HouseBot):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(_Greedy(_seed(seed)))


class SearchBot(HouseBot):
    def __init__(self, seed: int | None = None, playouts: int = 200) -> None:
        super().__init__(_Search(_seed(seed), playouts=playouts))


#: house name -> SDK bot class (``python -m avenue_sdk run greedy`` is GreedyBot)
HOUSE = {"random": RandomBot, "greedy": GreedyBot, "search": SearchBot}
