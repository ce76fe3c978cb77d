"""The match runner: ``run_match(seats, config, seed, match_id=...)`` plays one game between
house seats (in-process) and remote seats (through the relay) and returns a
``MatchResult``. See ``arena.adapters.runner.match``."""

from arena.adapters.runner.match import run_match
from arena.adapters.runner.remote import RemoteSeat
from arena.adapters.runner.resume import ArenaFault
from arena.adapters.runner.seats import HouseSeat, Seat, TimeControl
from arena.terms.faults import Fault, FaultAction, FaultCause, FaultPolicy
from arena.terms.result import LatencyStats, MatchResult, MatchStatus, SeatReport

__all__ = [
    "ArenaFault",
    "Fault",
    "FaultAction",
    "FaultCause",
    "FaultPolicy",
    "HouseSeat",
    "LatencyStats",
    "MatchResult",
    "MatchStatus",
    "RemoteSeat",
    "Seat",
    "SeatReport",
    "TimeControl",
    "run_match",
]
