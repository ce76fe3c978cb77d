"""The local arena: ``python -m avenue_sdk play mybot:MyBot greedy --games 1000 --jobs 2``.

Games are played as an arena plays them (the same ``DecisionRequest`` bytes, the same time
control and fault causes), with no server: ``runner`` plays many and reports, ``game`` plays
one, ``seats`` asks an SDK bot or a house bot.
"""

from avenue_sdk.local.game import Game, play
from avenue_sdk.local.runner import Setup, Summary, game_seed, run

__all__ = ["Game", "Setup", "Summary", "game_seed", "play", "run"]
