"""A bot in a process of its own, played over the bot protocol: the local arena's default.

``StreamSeat`` starts a ``LocalGateway`` and the bot's command, with the gateway's address
and the run's token in ``AVENUE_ARENA`` / ``AVENUE_TOKEN`` (and in place of ``{arena}`` /
``{token}`` in the command), waits for its stream, and asks it every decision over gRPC as
the arena does: the same messages (``ProtocolSeat``), the answer read with the arena's
``read_answer``, the time measured from writing the request to reading the answer. The bot
sees nothing but its messages: the game's true state stays in the referee's process.

A Python ``module:Class`` runs as ``python -m avenue_sdk run module:Class``, the SDK's own
client, so exceptions in ``decide`` are what they are on the arena (logged by the client,
which answers with the first legal choice). Any other command is any language's bot. A
bot process that dies is a ``DISCONNECT`` in the game it was playing and is started again
for the next one; one that does not connect at all stops the run with its output.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agent_avenue.v1 import arena_pb2 as pb
from avenue_sdk.local import answers
from avenue_sdk.local.answers import Answer, Ending
from avenue_sdk.local.gateway import Disconnected, LocalGateway
from avenue_sdk.local.seats import Match, ProtocolSeat
from avenue_sdk.protocol.faults import FaultCause
from avenue_sdk.protocol.timing import Ask

#: ``module:Class`` (anything else that is not a house bot is a command)
PYTHON_SPEC = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
#: how long a bot's process has to open its stream (an interpreter, a JIT, imports)
CONNECT_TIMEOUT_S = 60.0
#: the lines of its output shown when a bot does not start
TAIL_LINES = 20


class BotDidNotStart(RuntimeError):
    """The bot's command did not connect to the local gateway."""


def is_command(spec: str) -> bool:
    """A command line (``"node dist/main.js"``, ``./mybot``) rather than ``module:Class``."""
    return PYTHON_SPEC.fullmatch(spec) is None


def command_for(spec: str) -> list[str]:
    """The argv that runs ``spec``: a Python bot under the SDK's client, or the command."""
    if not is_command(spec):
        return [sys.executable, "-m", "avenue_sdk", "run", spec, "--arena", "{arena}"]
    argv = shlex.split(spec)
    if not argv:
        raise ValueError("an empty bot command")
    return argv


class BotProcess:
    """The bot's command, its output in ``log_path``; killed with the local arena."""

    def __init__(self, argv: list[str], gateway: LocalGateway, log_path: Path) -> None:
        self.argv = [a.replace("{arena}", gateway.address).replace("{token}", gateway.token)
                     for a in argv]  # fmt: skip
        self.gateway = gateway
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        env = dict(os.environ)
        env.update(
            AVENUE_ARENA=self.gateway.address,
            AVENUE_TOKEN=self.gateway.token,
            PYTHONUNBUFFERED="1",
        )
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as out:
            out.write(f"--- local arena: starting {shlex.join(self.argv)}\n".encode())
            out.flush()
            try:
                self.proc = subprocess.Popen(
                    _launched(self.argv),
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    env=env,
                    # Ctrl-C on the terminal is the local arena's, which then stops the bot
                    start_new_session=True,
                )
            except OSError as exc:
                raise BotDidNotStart(f"cannot run {shlex.join(self.argv)}: {exc}") from None
        self.starts += 1
        deadline = time.monotonic() + CONNECT_TIMEOUT_S
        while not self.gateway.wait_connected(0.2):
            if self.proc.poll() is not None:
                raise BotDidNotStart(
                    f"{shlex.join(self.argv)} exited with status {self.proc.returncode} "
                    f"before it connected; its output ({self.log_path}):\n{self.tail()}"
                )
            if time.monotonic() > deadline:
                self.stop()
                raise BotDidNotStart(
                    f"{shlex.join(self.argv)} did not connect to {self.gateway.address} "
                    f"within {CONNECT_TIMEOUT_S:g} s (it is given the address and token in "
                    f"AVENUE_ARENA and AVENUE_TOKEN); its output ({self.log_path}):\n"
                    f"{self.tail()}"
                )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def tail(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no output)"
        return "\n".join(f"  | {line}" for line in lines[-TAIL_LINES:]) or "  (no output)"

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


#: run by the child before it becomes the bot: SIGKILL when the local arena's process dies
#: (Linux's PR_SET_PDEATHSIG), so that no bot outlives a run that was killed. (A
#: ``preexec_fn`` would make ``Popen`` fork a process that runs gRPC's threads.)
_LAUNCH = (
    "import ctypes, os, signal, sys\n"
    "try:\n"
    "    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)\n"
    "except (OSError, AttributeError):\n"
    "    pass\n"
    "if os.getppid() == 1:\n"
    "    sys.exit(1)\n"
    "try:\n"
    "    os.execvp(sys.argv[1], sys.argv[1:])\n"
    "except OSError as exc:\n"
    "    sys.exit(f'cannot run {sys.argv[1]!r}: {exc}')\n"
)


def _launched(argv: list[str]) -> list[str]:
    if sys.platform != "linux":
        return argv
    return [sys.executable, "-c", _LAUNCH, *argv]


class StreamSeat(ProtocolSeat):
    """A bot asked over a real stream, from a process of its own."""

    def __init__(
        self,
        spec: str,
        log_path: Path,
        on_message: Callable[[pb.ArenaMessage], None] | None = None,
    ) -> None:
        super().__init__()
        self.name = spec
        self.on_message = on_message
        self.gateway = LocalGateway(spec)
        self.process = BotProcess(command_for(spec), self.gateway, log_path)
        self.process.start()

    def _send(self, payload: bytes) -> bool:
        message = pb.ArenaMessage.FromString(payload)
        if self.on_message is not None:
            self.on_message(message)
        return self.gateway.send(message)

    def start(self, match: Match, seat: int) -> None:
        if not self.gateway.connected:  # its process died in an earlier game
            self.process.stop()
            self.process.start()
        self._send(self.started_payload(match, seat))

    def ask(self, match: Match, seat: int, ask: Ask) -> Answer:
        watch = answers.Stopwatch()
        if not self._send(self.request_payload(match, seat, ask)):
            return self._gone(watch, ask)
        try:
            action = self.gateway.answer(match.match_id, ask.seq, ask.allowance_s)
        except Disconnected:
            return self._gone(watch, ask)
        latency = watch.ms()
        if action is None:
            return Answer(
                latency,
                fault=FaultCause.TIMEOUT,
                detail=f"no answer to decision {ask.seq} within {ask.allowance_s:g} s",
            )
        self.answered(seat, latency)
        return answers.read(action, ask.legal, latency)

    def _gone(self, watch: answers.Stopwatch, ask: Ask) -> Answer:
        status = self.process.proc.poll() if self.process.proc is not None else None
        why = f"its process exited with status {status}" if status is not None else "it closed it"
        return Answer(
            watch.ms(),
            fault=FaultCause.DISCONNECT,
            detail=f"the bot's stream ended during decision {ask.seq} ({why}); "
            f"its output: {self.process.log_path}",
        )

    def end(self, match: Match, seat: int, ending: Ending) -> None:
        self._send(self.ended_payload(match, seat, ending))

    def close(self) -> None:
        self.gateway.close()
        self.process.stop()
