"""The type of a variant's compiled rule lists: what ``State`` carries and the engine runs.

A variant is a list of named phases (config.py); ``effects.compile_phases`` turns the names
into these tuples of functions. The type is generic in the working copy ``W`` the functions
mutate (``referee.work.Work``), so neither ``state`` nor this module needs to import the
work copy or the rules: dependencies run one way, effects -> work -> state -> phases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, NamedTuple, TypeVar

from referee.cards import Agent
from referee.events import EndReason, Task

W = TypeVar("W")


class Phases(NamedTuple, Generic[W]):
    name: str
    #: (work, team, agent, move) -> the move after ongoing cards changed it
    recruit_modifiers: tuple[Callable[[W, int, Agent, int], int], ...]
    #: (work, team) -> extra move from the space the meeple stopped on
    after_move: tuple[Callable[[W, int], int], ...]
    #: (work, task) -> whether this landing handled the task
    landings: tuple[Callable[[W, Task], bool], ...]
    landing_spaces: frozenset[int]
    #: work -> the (team, reason) end conditions met now
    end_checks: tuple[Callable[[W], tuple[tuple[int, EndReason], ...]], ...]
