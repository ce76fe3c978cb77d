"""The bot host's streams: for each active hosted bot it holds the bot's gRPC stream to the
gateway itself (on the trusted side, with a token it issues for the bot), through the SDK's
own ``Client``, so a hosted bot takes the dial-in path and is rated exactly like one. Each
match gets a fresh sandbox (``SandboxedBot``) with the version its seat names (the one
active when the match starts: ``services.match_version_files``).

A fault of the sandbox (crash, timeout, memory, process limit, output that is not an
answer; ``arena.adapters.bothost.faults``) is answered with a ``SeatFault`` naming the decision and
the typed cause, which the gateway honours on hosted bots' streams only
(``arena.adapters.gateway.seatfaults``) and the runner records as that seat's fault. A failure of
the host's own (loading the version, a sandbox that did not start in time, the database)
is answered with a ``HostFailure``: the runner voids the attempt, blaming nobody. A
sandbox that failed before its first decision (it did not load, it died on
``MatchStarted``) is reported at that decision. The stderr's last lines are recorded for
the bot's owner only (``Recorder``), never sent with the fault, which is public with the
match.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from django import db

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.bothost import sandbox as sandbox_module
from arena.adapters.bothost.sandbox import Limits, Sandbox, SandboxFault, discard, unpack
from avenue_sdk.bot import Answer, Bot
from avenue_sdk.client import Client
from avenue_sdk.protocol.convert import FAULT_CAUSE
from avenue_sdk.protocol.faults import FaultCause
from avenue_sdk.session import action_for

log = logging.getLogger("arena.hosting")

#: (files, entry point) of the version to play the match (its protocol id) with
Loader = Callable[[str], tuple[dict[str, bytes], str]]
#: (match id, cause, detail, stderr) of a sandbox that failed: kept for the owner
Recorder = Callable[[str, str, str, str], None]


class _NoAnswer(Exception):
    """The sandbox failed: report ``fault`` for this decision instead of an answer."""

    def __init__(self, fault: SandboxFault) -> None:
        super().__init__(fault.cause.value)
        self.fault = fault


def host_failure(request: pb.DecisionRequest, detail: str) -> pb.BotMessage:
    """The bot host's report that it failed the decision ``request`` asked itself."""
    report = pb.HostFailure(match_id=request.match_id, seq=request.seq, detail=detail[:300])
    return pb.BotMessage(host_failure=report)


def seat_fault(request: pb.DecisionRequest, fault: SandboxFault) -> pb.BotMessage:
    """The bot host's report of ``fault`` for the decision ``request`` asked."""
    report = pb.SeatFault(
        match_id=request.match_id,
        seq=request.seq,
        cause=FAULT_CAUSE[fault.cause],
        detail=fault.detail[:300],
    )
    return pb.BotMessage(seat_fault=report)


#: the threads that start sandboxes. Long-lived on purpose: bwrap's --die-with-parent is
#: the kernel's parent-death signal, which follows the *thread* that forked it, so a
#: sandbox started by a thread that then ends is killed at once.
_STARTERS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="sandbox-start")


@dataclass
class _Start:
    """One match's sandbox while it starts (``ready`` is set once it is up or failed)."""

    ready: threading.Event = field(default_factory=threading.Event)
    box: Sandbox | None = None
    code_dir: str = ""
    #: the bot's fault (it did not load) or the host's own failure, once ready
    fault: SandboxFault | None = None
    error: str = ""


class SandboxedBot(Bot):
    """A hosted bot's matches, each in a sandbox of its own.

    Start-up has one deadline, the first decision's: the sandbox starts on
    ``MatchStarted`` (in a thread of its own, so that the stream goes on); a request that
    comes first waits for it. The sandbox's own setup is the arena's time: the host says
    in ``arena_wait_us`` how long the request waited for it, and if it is not up by the
    end of the decision's allowance, or fails, that is a ``HostFailure`` (the attempt is
    voided). Loading the bot's code is the bot's own time, charged to that decision: not
    loaded by the end of its allowance, or failed, is the seat's fault."""

    def __init__(
        self, name: str, load: Loader, limits: Limits, record: Recorder | None = None
    ) -> None:
        self.name = name
        self.load = load
        self.record = record
        self.limits = limits
        self._lock = threading.Lock()
        #: match id -> its sandbox, starting, up or failed
        self._starts: dict[str, _Start] = {}

    def _fail(self, match_id: str, box: Sandbox, exc: SandboxFault) -> None:
        tail = box.stderr_tail()
        log.warning("hosted bot %s, match %s: %s: %s", self.name, match_id, exc.cause, exc.detail)
        if self.record is not None:
            try:
                self.record(match_id, exc.cause, exc.detail, tail)
            except Exception:  # noqa: BLE001 - the owner's log must not break the match
                log.exception("could not record the fault of hosted bot %s", self.name)
            finally:
                db.connection.close()

    def _start_for(self, match_id: str, started: pb.MatchStarted | None = None) -> _Start:
        """The match's start, begun now (on a starter thread) if it was not yet."""
        with self._lock:
            start = self._starts.get(match_id)
            if start is not None:
                return start
            start = self._starts[match_id] = _Start()
        _STARTERS.submit(self._prepare, match_id, start, started)
        return start

    def on_match_started(self, started: pb.MatchStarted) -> None:
        self._start_for(started.match_id, started)

    def _prepare(self, match_id: str, start: _Start, started: pb.MatchStarted | None) -> None:
        try:
            try:
                files, entry_point = self.load(match_id)
            finally:
                db.connection.close()  # the load ran on this thread: give its connection back
            start.code_dir = unpack(files)
            box = start.box = Sandbox(start.code_dir, entry_point, self.limits)
            # no load deadline of its own: answer() holds the first decision's
            box.start(load_seconds=self.limits.wall_seconds)
            if started is not None:
                box.send(pb.ArenaMessage(match_started=started))
        except SandboxFault as exc:
            start.fault = exc
            assert start.box is not None
            self._fail(match_id, start.box, exc)
        except Exception as exc:  # noqa: BLE001 - the host's own failure (setup, the database)
            log.exception("hosted bot %s: match %s: no sandbox", self.name, match_id)
            start.error = f"{type(exc).__name__}: {exc}"
        finally:
            start.ready.set()

    def answer(self, request: pb.DecisionRequest, received_at: float | None = None) -> pb.Action:
        """The sandbox's ``Action`` for ``request`` (received from the gateway at
        ``received_at``), with ``arena_wait_us``: how long it waited for the sandbox's
        setup (the arena's part of its start)."""
        received_at = time.monotonic() if received_at is None else received_at
        allowance = (request.decision_ms + request.bank_ms) / 1000
        start = self._start_for(request.match_id)
        if not start.ready.wait(max(0.0, received_at + allowance - time.monotonic())):
            box = start.box
            if box is None or not box.booted_at:
                raise RuntimeError(f"match {request.match_id}: the sandbox was not set up in time")
            late = SandboxFault(
                FaultCause.TIMEOUT,
                f"the bot did not load within its first decision's allowance ({allowance:g} s)",
            )
            box.kill("timeout")
            start.fault = late
            self._fail(request.match_id, box, late)
            raise _NoAnswer(late)
        if start.fault is not None:
            raise _NoAnswer(start.fault)
        if start.error or start.box is None:
            raise RuntimeError(f"match {request.match_id}: no sandbox ({start.error})")
        box = start.box
        waited_us = max(0, int((box.booted_at - received_at) * 1_000_000))
        remaining = allowance - (time.monotonic() - received_at)
        try:
            action = box.ask(
                pb.ArenaMessage(decision_request=request).SerializeToString(),
                max(0.0, remaining) + waited_us / 1e6,
            )
        except SandboxFault as exc:
            start.fault = exc
            self._fail(request.match_id, box, exc)
            box.kill("fault")
            raise _NoAnswer(exc) from None
        # the host's own figure only: whatever the code in the sandbox put there is dropped
        action.arena_wait_us = waited_us
        return action

    def sandboxes_up(self) -> int:
        """How many of its matches have a sandbox up and loaded now."""
        with self._lock:
            starts = list(self._starts.values())
        return sum(1 for s in starts if s.ready.is_set() and s.box is not None and not s.fault)

    def decide(self, request: pb.DecisionRequest) -> Answer:  # pragma: no cover - answer()
        return self.answer(request).choice_index

    def on_match_ended(self, ended: pb.MatchEnded) -> None:
        with self._lock:
            start = self._starts.pop(ended.match_id, None)
        if start is None:
            return
        if not start.ready.wait(0):
            if start.box is not None:
                start.box.kill("ended")  # still loading: no use for it now
            start.ready.wait(sandbox_module.SETUP_SECONDS + 5)
        box = start.box
        if box is not None and start.fault is None and not start.error:
            try:
                box.send(pb.ArenaMessage(match_ended=ended))
            except SandboxFault:
                pass
        self._discard(start)

    @staticmethod
    def _discard(start: _Start) -> None:
        if start.box is not None:
            start.box.close()
        if start.code_dir:
            discard(start.code_dir)

    def close(self) -> None:
        with self._lock:
            held = list(self._starts.values())
            self._starts.clear()
        for start in held:
            start.ready.wait(sandbox_module.SETUP_SECONDS + 5)
            self._discard(start)


class HostClient(Client):
    """The SDK client, answering from the sandbox: its ``Action`` as it is (the child made it
    with ``action_for``), or a ``SeatFault`` when the sandbox failed."""

    bot: SandboxedBot

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: (match id, seq) -> when the request was read from the stream (time.monotonic())
        self._received: dict[tuple[str, int], float] = {}

    def _handle(
        self,
        message: pb.ArenaMessage,
        send_soon: Callable[[pb.BotMessage], None],
        kind: str | None = None,
    ) -> pb.BotMessage | None:
        kind = kind or message.WhichOneof("kind")
        if kind == "decision_request":
            request = message.decision_request
            self._received[(request.match_id, request.seq)] = time.monotonic()
        return super()._handle(message, send_soon, kind)

    def _answer(
        self, request: pb.DecisionRequest, *, on_loop: bool = False
    ) -> pb.BotMessage | None:
        received_at = self._received.pop((request.match_id, request.seq), None)
        try:
            action = self.bot.answer(request, received_at)
        except _NoAnswer as failed:
            return seat_fault(request, failed.fault)
        except Exception as exc:  # noqa: BLE001 - the host's own failure, not the bot's
            log.exception("hosted bot %s: decision %d failed", self.bot.name, request.seq)
            # the arena's failure: the runner voids the attempt and plays the match again
            return host_failure(request, f"{type(exc).__name__}: {exc}")
        if action.match_id != request.match_id or action.seq != request.seq:
            waited = action.arena_wait_us
            action = action_for(request, action.choice_index)
            action.arena_wait_us = waited
        return pb.BotMessage(action=action)


def serve_bot(
    name: str,
    arena: str,
    token: str,
    load: Loader,
    limits: Limits,
    max_matches: int = 4,
    record: Recorder | None = None,
) -> tuple[HostClient, threading.Thread]:
    """Hold ``name``'s stream in a thread; ``client.stop()`` ends it."""
    bot = SandboxedBot(name, load, limits, record)
    client = HostClient(bot, arena, token, max_matches=max_matches)
    thread = threading.Thread(target=client.run, name=f"bothost-{name}", daemon=True)
    thread.start()
    return client, thread
