"""The seat interface the match runner drives, and its two kinds of seat.

``TimeControl`` and ``Ask`` (imported from the SDK's protocol package, which the local
arena shares) are re-exported here.

``HouseSeat`` asks a referee house bot in-process; ``RemoteSeat`` (``arena.adapters.runner.remote``)
sends the decision through the relay to whichever gateway holds the bot's stream. The
runner treats both the same: it owns the clock and the fault policy, a seat only answers
or reports a fault.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from arena.adapters.relay.base import DropCounts
from arena.adapters.runner.resume import Reconnects
from arena.terms.faults import FaultCause
from avenue_sdk.protocol.timing import Ask, TimeControl
from referee import Action, GameConfig
from referee.bots import make_bot
from referee.engine import GameResult


@dataclass
class MatchContext:
    """What every seat of one match shares."""

    match_id: str
    replay_id: str
    config: GameConfig
    first_team: int
    names: tuple[str, ...]
    time_control: TimeControl
    #: how long a remote seat waits for its bot to connect before it is a no-show
    connect_grace_s: float = 0.0
    #: how long a remote bot may be away mid-match (``arena.adapters.runner.resume``)
    reconnect_grace_s: float = 0.0
    drops: DropCounts = field(default_factory=DropCounts)
    #: the remote bots' streams (made by the first remote seat)
    reconnects: Reconnects | None = None


@dataclass(frozen=True)
class Answer:
    latency_ms: float
    action: Action | None = None
    fault: FaultCause | None = None
    detail: str = ""
    #: a bot of the match (maybe not this seat's) whose stream closed meanwhile
    disconnected_bot: str | None = None


@dataclass(frozen=True)
class Ending:
    """How the match ended, for the seats to tell their bots."""

    result: GameResult | None
    fault_cause: FaultCause | None
    fault_seat: int | None
    message: str


class Seat(ABC):
    #: shown to the other seats and in reports
    name: str
    #: "house" or "remote"
    kind: str
    #: the relay identity of a remote bot; None for in-process seats
    bot_id: str | None = None

    def open(self, ctx: MatchContext) -> None:  # noqa: B027 - an optional hook
        """Prepare before any seat is announced (e.g. the match's inbox)."""

    def start(self, ctx: MatchContext, seat: int) -> Answer | None:
        """Announce the match; an ``Answer`` with a fault (NO_SHOW) if the seat cannot play."""
        return None

    @abstractmethod
    def ask(self, ctx: MatchContext, seat: int, ask: Ask) -> Answer:
        """One decision: the chosen legal action, or a fault."""

    def end(self, ctx: MatchContext, seat: int, ending: Ending) -> None:  # noqa: B027 - an optional hook
        """Tell the bot how the match ended."""

    def close(self, ctx: MatchContext) -> None:  # noqa: B027 - an optional hook
        """Release what ``open`` prepared."""


class HouseSeat(Seat):
    """A referee house bot (``random``, ``greedy``, ``search``, ``search:400``) in-process."""

    kind = "house"

    def __init__(self, spec: str, seed: int, name: str | None = None) -> None:
        self.bot = make_bot(spec, seed)
        self.name = name or spec

    def ask(self, ctx: MatchContext, seat: int, ask: Ask) -> Answer:
        started = time.perf_counter()
        try:
            action = self.bot.act(ask.obs, ask.legal)
        except Exception as exc:  # noqa: BLE001 - any exception of a bot is its crash
            latency = (time.perf_counter() - started) * 1000
            return Answer(latency, fault=FaultCause.CRASH, detail=f"{type(exc).__name__}: {exc}")
        latency = (time.perf_counter() - started) * 1000
        if action not in ask.legal:
            return Answer(latency, fault=FaultCause.ILLEGAL_ACTION, detail=f"{action!r}")
        return Answer(latency, action=action)
