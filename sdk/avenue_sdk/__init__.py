"""Agent Avenue bot SDK.

Connects a bot to an Agent Avenue Arena gateway over gRPC and hands it decisions to
answer::

    import random
    from avenue_sdk import Bot

    class MyBot(Bot):
        def decide(self, request):
            return random.randrange(len(request.legal))

then ``python -m avenue_sdk run mybot:MyBot --arena HOST:PORT --token TOKEN``.

The wire messages are generated from ``proto/agent_avenue/v1`` into the sibling package
``agent_avenue.v1`` (``from agent_avenue.v1 import arena_pb2``); ``avenue_sdk.view`` reads
them (card names, choice descriptions, the observation as a dict).
"""

from avenue_sdk.bot import Bot
from avenue_sdk.client import Client, run

__version__ = "0.2.0"

__all__ = ["Bot", "Client", "__version__", "run"]
