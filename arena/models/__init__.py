"""Competition domain models: bots; leagues and entries; rounds, matches, their replays and
participations; the arena's incidents. Ratings are in ``arena.ratings.models``, hosted bots'
code versions in ``arena.hosting.models``."""

from arena.models.bots import Bot, BotKind, BotVersion
from arena.models.incidents import Incident, IncidentKind
from arena.models.leagues import (
    DealMode,
    Entry,
    League,
    LeagueFormat,
    LeagueMode,
    LeagueStatus,
    SeedField,
    has_page_q,
    listed_q,
)
from arena.models.matches import (
    Match,
    MatchEndReason,
    MatchReplay,
    MatchStatus,
    Participation,
    Round,
    RoundStatus,
)

__all__ = [
    "Bot",
    "BotKind",
    "BotVersion",
    "DealMode",
    "Entry",
    "League",
    "LeagueFormat",
    "LeagueMode",
    "LeagueStatus",
    "SeedField",
    "has_page_q",
    "listed_q",
    "Match",
    "MatchEndReason",
    "MatchReplay",
    "MatchStatus",
    "Participation",
    "Round",
    "RoundStatus",
    "Incident",
    "IncidentKind",
]
