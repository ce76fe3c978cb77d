"""A hosted bot's seat in a game: each request goes to its sandbox as the bot protocol's own
bytes, each answer comes back as an ``Action`` and is read by the arena's ``read_answer``
(through ``avenue_sdk.local.answers``, the helper the local arena's seats share).
Plugs into the local arena's game loop (``avenue_sdk.local.game.play``), which the upload
check and version tests use; any fault of the sandbox (crash, timeout, memory, unreadable
output) is the bot's, typed, with its stderr's last lines kept for its owner."""

from __future__ import annotations

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.bothost.sandbox import Sandbox, SandboxFault
from avenue_sdk.local import answers
from avenue_sdk.local.answers import Answer, Ending, Stopwatch
from avenue_sdk.local.seats import Match, ProtocolSeat
from avenue_sdk.protocol.faults import FaultCause
from avenue_sdk.protocol.timing import Ask


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

    def ask(self, match: Match, seat: int, ask: Ask) -> Answer:
        payload = self.request_payload(match, seat, ask)
        watch = Stopwatch()
        if self.fault is not None:
            return Answer(0.0, fault=self.fault.cause, detail=self.fault.detail)
        try:
            reply = self.sandbox.ask(payload, ask.allowance_s)
        except SandboxFault as exc:
            self.fault = exc
            return Answer(watch.ms(), fault=exc.cause, detail=exc.detail)
        latency = watch.ms()
        self.answered(seat, latency)
        if reply.match_id != match.match_id or reply.seq != ask.seq:
            self.fault = SandboxFault(
                FaultCause.MALFORMED_ACTION,
                f"an answer to {reply.match_id}/{reply.seq}, asked {ask.seq}",
            )
            return Answer(latency, fault=FaultCause.MALFORMED_ACTION, detail=self.fault.detail)
        return answers.read(reply, ask.legal, latency)

    def end(self, match: Match, seat: int, ending: Ending) -> None:
        if self.fault is not None:
            return
        payload = self.ended_payload(match, seat, ending)
        try:
            self.sandbox.send(pb.ArenaMessage.FromString(payload))
        except SandboxFault as exc:
            self.fault = exc
