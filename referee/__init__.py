"""The Agent Avenue referee: a pure rules engine on frozen state (standard library only).

state = new_game(GameConfig.for_seats(2, "advanced"), seed=7)
while not state.over:
    state = apply(state, legal_actions(state)[0])
result(state)

``ENGINE`` says which build of the rules core runs ("compiled" or "pure"),
``ENGINE_REASON`` why (``referee._selection``).
"""

from referee._selection import ENGINE, ENGINE_REASON
from referee.actions import (
    Action,
    ChooseAgent,
    Decision,
    Discard,
    IllegalAction,
    NameFaceUp,
    Play,
    PlayFaceDown,
    PlayFaceUp,
    Recruit,
    Retrieve,
    Side,
    StopDiscarding,
    TakeBlackMarket,
    action_from_json,
)
from referee.cards import Agent, BlackMarket
from referee.config import ConfigError, GameConfig, Mode
from referee.engine import GameResult, apply, forfeit, legal_actions, new_game, result
from referee.state import EndReason, Event, EventKind, State

#: the engine distribution's version (agent-avenue-engine); every ruleset carries its own
#: version too (``GameConfig.rules.version``), which is what a match is checked against
__version__ = "1.0.0"

__all__ = [
    "ENGINE",
    "ENGINE_REASON",
    "Action",
    "Agent",
    "BlackMarket",
    "ChooseAgent",
    "ConfigError",
    "Decision",
    "Discard",
    "EndReason",
    "Event",
    "EventKind",
    "GameConfig",
    "GameResult",
    "IllegalAction",
    "Mode",
    "NameFaceUp",
    "Play",
    "PlayFaceDown",
    "PlayFaceUp",
    "Recruit",
    "Retrieve",
    "Side",
    "State",
    "StopDiscarding",
    "TakeBlackMarket",
    "__version__",
    "action_from_json",
    "apply",
    "forfeit",
    "legal_actions",
    "new_game",
    "result",
]
