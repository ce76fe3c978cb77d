"""House bots: ``random``, ``greedy`` and ``search``, behind one small ``Bot`` interface.

A bot sees only its ``Observation`` and the legal actions, never the state. Each is
deterministic under its seed.
"""

from referee.bots.base import HOUSE_BOTS, Bot, load_bot, make_bot
from referee.bots.greedy import GreedyBot
from referee.bots.random_bot import RandomBot
from referee.bots.search import SearchBot

__all__ = ["Bot", "GreedyBot", "HOUSE_BOTS", "RandomBot", "SearchBot", "load_bot", "make_bot"]
