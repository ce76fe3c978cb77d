"""The bot host's streams: for each active hosted bot it holds the bot's gRPC stream to the
gateway itself (on the trusted side, with a token it issues for the bot), through the SDK's
own ``Client``, so a hosted bot takes the dial-in path and is rated exactly like one. Each
match gets a fresh sandbox (``SandboxedBot``) with the version its seat names (the one
active when the match starts: ``services.match_version_files``).

A fault of the sandbox (crash, timeout, memory, process limit, output that is not an
answer; ``arena.hosting.faults``) is answered with a ``SeatFault`` naming the decision and
the typed cause, which the gateway honours on hosted bots' streams only
(``arena.gateway.seatfaults``) and the runner records as that seat's fault. A failure of
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
from typing import Any

from django import db

from agent_avenue.v1 import arena_pb2 as pb
from arena.hosting.sandbox import Limits, Sandbox, SandboxFault, discard, unpack
from avenue_sdk.bot import Answer, Bot
from avenue_sdk.client import Client
from avenue_sdk.protocol.convert import FAULT_CAUSE
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


class SandboxedBot(Bot):
    def __init__(
        self, name: str, load: Loader, limits: Limits, record: Recorder | None = None
    ) -> None:
        self.name = name
        self.load = load
        self.record = record
        self.limits = limits
        self._lock = threading.Lock()
        #: match id -> (sandbox, its code directory, its fault if it failed)
        self._boxes: dict[str, tuple[Sandbox, str]] = {}
        self._failed: dict[str, SandboxFault] = {}
        #: match id -> set once its sandbox is started (or failed), by a thread of its own
        self._preparing: dict[str, threading.Event] = {}
        #: match id -> when its sandbox was ready (time.monotonic())
        self._ready_at: dict[str, float] = {}

    def _box(self, match_id: str) -> Sandbox:
        with self._lock:
            if match_id in self._failed:
                raise _NoAnswer(self._failed[match_id])
            held = self._boxes.get(match_id)
            if held is not None:
                return held[0]
        try:
            files, entry_point = self.load(match_id)
        finally:
            # the load ran on the client's thread: give its database connection back
            db.connection.close()
        code_dir = unpack(files)
        box = Sandbox(code_dir, entry_point, self.limits)
        try:
            box.start()
        except SandboxFault as exc:
            self._fail(match_id, box, exc)
            box.close()
            discard(code_dir)
            raise _NoAnswer(exc) from None
        with self._lock:
            self._boxes[match_id] = (box, code_dir)
            self._ready_at[match_id] = time.monotonic()
        return box

    def _fail(self, match_id: str, box: Sandbox, exc: SandboxFault) -> None:
        with self._lock:
            self._failed[match_id] = exc
        tail = box.stderr_tail()
        log.warning("hosted bot %s, match %s: %s: %s", self.name, match_id, exc.cause, exc.detail)
        if self.record is not None:
            try:
                self.record(match_id, exc.cause, exc.detail, tail)
            except Exception:  # noqa: BLE001 - the owner's log must not break the match
                log.exception("could not record the fault of hosted bot %s", self.name)
            finally:
                db.connection.close()

    def on_match_started(self, started: pb.MatchStarted) -> None:
        """Start the match's sandbox in a thread of its own: the stream's reader goes on
        meanwhile (pings, the bot's other matches); a request that comes before the
        sandbox is ready waits for it, and that wait is reported as the arena's."""
        ready = threading.Event()
        with self._lock:
            if started.match_id in self._preparing or started.match_id in self._boxes:
                return
            self._preparing[started.match_id] = ready
        _STARTERS.submit(self._prepare, started, ready)

    def _prepare(self, started: pb.MatchStarted, ready: threading.Event) -> None:
        box: Sandbox | None = None
        try:
            box = self._box(started.match_id)
            box.send(pb.ArenaMessage(match_started=started))
        except _NoAnswer:
            pass
        except SandboxFault as exc:
            assert box is not None
            self._fail(started.match_id, box, exc)
        except Exception:  # noqa: BLE001 - the host's own failure; the decision reports it
            log.exception("hosted bot %s: match %s: no sandbox", self.name, started.match_id)
        finally:
            ready.set()

    def answer(self, request: pb.DecisionRequest, received_at: float | None = None) -> pb.Action:
        """The sandbox's ``Action`` for ``request`` (received from the gateway at
        ``received_at``), with ``arena_wait_us``: how long it waited for the sandbox."""
        received_at = time.monotonic() if received_at is None else received_at
        allowance = (request.decision_ms + request.bank_ms) / 1000
        with self._lock:
            preparing = self._preparing.get(request.match_id)
        if preparing is not None and not preparing.wait(allowance):
            # the host's own slowness, reported as its failure (docs/operations.md)
            raise RuntimeError(f"match {request.match_id}: the sandbox did not start in time")
        box = self._box(request.match_id)
        with self._lock:
            ready_at = self._ready_at.get(request.match_id, received_at)
        waited_us = max(0, int((ready_at - received_at) * 1_000_000))
        try:
            action = box.ask(
                pb.ArenaMessage(decision_request=request).SerializeToString(), allowance
            )
        except SandboxFault as exc:
            self._fail(request.match_id, box, exc)
            box.kill("fault")
            raise _NoAnswer(exc) from None
        # the host's own figure only: whatever the code in the sandbox put there is dropped
        action.arena_wait_us = waited_us
        return action

    def decide(self, request: pb.DecisionRequest) -> Answer:  # pragma: no cover - answer()
        return self.answer(request).choice_index

    def on_match_ended(self, ended: pb.MatchEnded) -> None:
        with self._lock:
            preparing = self._preparing.pop(ended.match_id, None)
        if preparing is not None:
            preparing.wait(self.limits.load_seconds + 5)  # a sandbox still starting
        with self._lock:
            held = self._boxes.pop(ended.match_id, None)
            self._failed.pop(ended.match_id, None)
            self._ready_at.pop(ended.match_id, None)
        if held is None:
            return
        box, code_dir = held
        try:
            box.send(pb.ArenaMessage(match_ended=ended))
        except SandboxFault:
            pass
        box.close()
        discard(code_dir)

    def close(self) -> None:
        with self._lock:
            held = list(self._boxes.values())
            self._boxes.clear()
        for box, code_dir in held:
            box.close()
            discard(code_dir)


class HostClient(Client):
    """The SDK client, answering from the sandbox: its ``Action`` as it is (the child made it
    with ``action_for``), or a ``SeatFault`` when the sandbox failed."""

    bot: SandboxedBot

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: (match id, seq) -> when the request was read from the stream (time.monotonic())
        self._received: dict[tuple[str, int], float] = {}

    def _handle(
        self, message: pb.ArenaMessage, send_soon: Callable[[pb.BotMessage], None]
    ) -> pb.BotMessage | None:
        if message.WhichOneof("kind") == "decision_request":
            request = message.decision_request
            self._received[(request.match_id, request.seq)] = time.monotonic()
        return super()._handle(message, send_soon)

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
