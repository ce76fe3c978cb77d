"""A hosted bot's seat in a game: each request goes to its sandbox as the bot protocol's own
bytes, each answer comes back as an ``Action`` and is read by the arena's ``read_answer``.
Plugs into the local arena's game loop (``avenue_sdk.local.game.play``), which the upload
check uses; any fault of the sandbox (crash, timeout, memory, unreadable output) is the
bot's, typed, with its stderr's last lines kept for its owner."""

from __future__ import annotations

import time
from collections.abc import Sequence

from agent_avenue.v1 import arena_pb2 as pb
from arena.hosting.sandbox import Sandbox, SandboxFault
from avenue_sdk.local.seats import Answer, Match, ProtocolSeat
from avenue_sdk.protocol import convert
from avenue_sdk.protocol.faults import FaultCause
from referee import Action
from referee.engine import GameResult
from referee.observation import Observation


class SandboxSeat(ProtocolSeat):
    def __init__(self, sandbox: Sandbox, name: str) -> None:
        super().__init__()
        self.sandbox = sandbox
        self.name = name
        #: the first fault, kept for the check's log
        self.fault: SandboxFault | None = None

    def start(self, match: Match, seat: int) -> None:
        payload = self.started_payload(match, seat)
        try:
            self.sandbox.send(pb.ArenaMessage.FromString(payload))
        except SandboxFault as exc:
            self.fault = self.fault or exc

    def ask(
        self,
        match: Match,
        seat: int,
        seq: int,
        obs: Observation,
        legal: Sequence[Action],
        decision_ms: int,
        bank_ms: int,
    ) -> Answer:
        payload = self.request_payload(match, seat, seq, obs, legal, decision_ms, bank_ms)
        started = time.perf_counter()
        if self.fault is not None:
            return Answer(0.0, fault=self.fault.cause, detail=self.fault.detail)
        try:
            reply = self.sandbox.ask(payload, (decision_ms + bank_ms) / 1000)
        except SandboxFault as exc:
            self.fault = exc
            latency = (time.perf_counter() - started) * 1000
            return Answer(latency, fault=exc.cause, detail=exc.detail)
        latency = (time.perf_counter() - started) * 1000
        self.answered(seat, latency)
        if reply.match_id != match.match_id or reply.seq != seq:
            self.fault = SandboxFault(
                FaultCause.MALFORMED_ACTION,
                f"an answer to {reply.match_id}/{reply.seq}, asked {seq}",
            )
            return Answer(latency, fault=FaultCause.MALFORMED_ACTION, detail=self.fault.detail)
        try:
            action = convert.read_answer(reply, legal)
        except convert.AnswerError as exc:
            return Answer(latency, fault=exc.cause, detail=str(exc))
        return Answer(latency, action=action)

    def end(
        self,
        match: Match,
        seat: int,
        result: GameResult | None,
        fault: tuple[FaultCause, int] | None,
        message: str,
    ) -> None:
        if self.fault is not None:
            return
        payload = self.ended_payload(match, seat, result, fault, message)
        try:
            self.sandbox.send(pb.ArenaMessage.FromString(payload))
        except SandboxFault as exc:
            self.fault = exc
