"""The seat interface the match runner drives, and its two kinds of seat.

``TimeControl`` (imported from the SDK's protocol package, which the local arena shares)
is re-exported here.

``HouseSeat`` asks a referee house bot in-process; ``RemoteSeat`` sends the decision
through the relay to whichever gateway holds the bot's stream. The runner treats both the
same: it owns the clock and the fault policy, a seat only answers or reports a fault.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from google.protobuf.message import DecodeError

from agent_avenue.v1 import arena_pb2 as pb
from arena.relay.base import Delivery, DeliveryKind, DropCounts, InboundKind, RunnerRelay
from arena.runner.faults import FaultCause
from avenue_sdk.protocol import convert
from avenue_sdk.protocol.timing import TimeControl
from referee import Action, GameConfig
from referee.bots import make_bot
from referee.engine import GameResult
from referee.observation import Observation


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
    drops: DropCounts = field(default_factory=DropCounts)


@dataclass(frozen=True)
class Ask:
    seq: int
    obs: Observation
    legal: Sequence[Action]
    decision_ms: int
    bank_ms: int

    @property
    def allowance_s(self) -> float:
        return (self.decision_ms + self.bank_ms) / 1000


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


class RemoteSeat(Seat):
    """A bot connected to some gateway, reached through the relay."""

    kind = "remote"

    def __init__(self, bot_id: str, name: str, relay: RunnerRelay) -> None:
        self.bot_id = bot_id
        self.name = name
        self.relay = relay
        self._history_sent = 0
        self._previous_latency: float | None = None

    def open(self, ctx: MatchContext) -> None:
        self.relay.open_match(ctx.match_id)

    def start(self, ctx: MatchContext, seat: int) -> Answer | None:
        tc = ctx.time_control
        payload = convert.match_started(
            match_id=ctx.match_id,
            seat=seat,
            config=ctx.config,
            first_team=ctx.first_team,
            names=ctx.names,
            decision_ms=tc.decision_ms,
            bank_ms=tc.bank_ms,
        )
        delivery = Delivery(DeliveryKind.STARTED, ctx.match_id, 0, payload)
        give_up = time.monotonic() + ctx.connect_grace_s
        while not self.relay.deliver(self._bot_id, delivery):
            if time.monotonic() >= give_up:
                return Answer(
                    0.0,
                    fault=FaultCause.NO_SHOW,
                    detail=f"{self.name} was not connected when the match started"
                    + (f" (waited {ctx.connect_grace_s:g} s)" if ctx.connect_grace_s else ""),
                )
            time.sleep(0.05)
        return None

    @property
    def _bot_id(self) -> str:
        assert self.bot_id is not None
        return self.bot_id

    def ask(self, ctx: MatchContext, seat: int, ask: Ask) -> Answer:
        payload = convert.decision_request(
            match_id=ctx.match_id,
            seq=ask.seq,
            obs=ask.obs,
            first_team=ctx.first_team,
            legal=ask.legal,
            history_start=self._history_sent,
            decision_ms=ask.decision_ms,
            bank_ms=ask.bank_ms,
            previous_latency_ms=self._previous_latency,
        )
        sent = time.monotonic()
        inbound = self.relay.request(
            self._bot_id,
            Delivery(DeliveryKind.REQUEST, ctx.match_id, ask.seq, payload),
            sent + ask.allowance_s,
            ctx.drops,
        )
        self._history_sent = len(ask.obs.history)
        latency = (time.monotonic() - sent) * 1000
        self._previous_latency = latency
        if inbound is None:
            return Answer(
                latency,
                fault=FaultCause.TIMEOUT,
                detail=f"no answer to decision {ask.seq} within {ask.allowance_s:g} s",
            )
        if inbound.kind is InboundKind.DISCONNECTED:
            return Answer(latency, disconnected_bot=inbound.bot_id, detail=inbound.detail)
        if inbound.kind is InboundKind.MALFORMED:
            return Answer(latency, fault=FaultCause.MALFORMED_ACTION, detail=inbound.detail)
        try:
            message = pb.Action.FromString(inbound.payload)
        except DecodeError as exc:
            return Answer(latency, fault=FaultCause.MALFORMED_ACTION, detail=str(exc))
        try:
            action = convert.read_answer(message, ask.legal)
        except convert.AnswerError as exc:
            return Answer(latency, fault=FaultCause(exc.cause.value), detail=str(exc))
        return Answer(latency, action=action)

    def end(self, ctx: MatchContext, seat: int, ending: Ending) -> None:
        payload = convert.match_ended(
            match_id=ctx.match_id,
            seat=seat,
            team=ctx.config.team_of(seat),
            result=ending.result,
            fault_cause=ending.fault_cause,
            fault_seat=ending.fault_seat,
            replay_id=ctx.replay_id,
            message=ending.message,
        )
        self.relay.deliver(self._bot_id, Delivery(DeliveryKind.ENDED, ctx.match_id, 0, payload))

    def close(self, ctx: MatchContext) -> None:
        self.relay.close_match(ctx.match_id)
