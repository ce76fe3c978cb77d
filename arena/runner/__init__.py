"""The match runner: ``run_match(seats, config, seed, match_id=...)`` plays one game between
house seats (in-process) and remote seats (through the relay) and returns a
``MatchResult``. See ``arena.runner.match``."""

from arena.runner.faults import Fault, FaultAction, FaultCause, FaultPolicy
from arena.runner.match import run_match
from arena.runner.remote import RemoteSeat
from arena.runner.result import LatencyStats, MatchResult, MatchStatus, SeatReport
from arena.runner.resume import ArenaFault
from arena.runner.seats import HouseSeat, Seat, TimeControl

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
