"""Agent Avenue bot SDK.

Connects a bot to an Agent Avenue Arena gateway over gRPC and hands it decisions to
answer::

    import random
    from avenue_sdk import Bot

    class MyBot(Bot):
        def decide(self, request):
            return random.randrange(len(request.legal))

then ``python -m avenue_sdk run mybot:MyBot --arena HOST:PORT --token TOKEN``, or play it
locally, with no server, against a house bot:
``python -m avenue_sdk play mybot:MyBot greedy --games 1000`` (``avenue_sdk.local``).
``avenue_sdk.sim`` is a forward model (sample the hidden cards, play forward with the rules
engine), ``avenue_sdk.house`` the house bots as SDK bots, ``avenue_sdk.env`` a PettingZoo
environment (extra ``rl``).

The wire messages are generated from ``proto/agent_avenue/v1`` into the sibling package
``agent_avenue.v1`` (``from agent_avenue.v1 import arena_pb2``); ``avenue_sdk.view`` reads
them (card names, choice descriptions, the observation as a dict).
"""

from avenue_sdk.bot import Bot, notice_data
from avenue_sdk.client import Client, run

__version__ = "0.3.0"

__all__ = ["Bot", "Client", "__version__", "notice_data", "run"]
