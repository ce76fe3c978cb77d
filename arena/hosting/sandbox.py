"""The sandbox a hosted bot's code runs in: bubblewrap, a host uid of its own, pipes.

One ``Sandbox`` per match (a fresh process, fresh tmp: nothing survives a match). The bwrap
process starts as root so that it can build the mount namespace from paths only root may
traverse (the interpreter under ``/root/.pyenv``), then ``setpriv`` drops to an unprivileged
*host* uid from ``HOSTED_SANDBOX_UIDS`` with no groups, no capabilities (bounding set
emptied) and no-new-privs before Python starts. There is deliberately no user namespace: a
root bwrap with ``--unshare-user --uid 65534`` maps the sandbox onto host root, which still
reads every root-readable file bound in; here the kernel checks the bot's accesses as a
stranger's. Every other namespace is new (``--unshare-net``: no network at all, only a
loopback nobody listens on; pid, ipc, uts, cgroup). The view holds only read-only binds of
the interpreter, the system libraries it links, the SDK and engine packages and the bot's
own code, plus a private size-limited tmpfs. rlimits (CPU seconds, address space,
processes, open files, file size) are set before exec and inherited; the host kills the
whole sandbox at a wall-clock limit.

The host and the child (``arena.hosting.child``) talk in frames over the pipes; see there.
How a failure is typed (crash, timeout, memory, process limit, invalid output) is
``arena.hosting.faults``.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from agent_avenue.v1 import arena_pb2 as pb
from arena.hosting.bwrap import (
    BWRAP,
    PRLIMIT,
    SETPRIV,
    Limits,
    SandboxUnavailable,
    _give_uid,
    _take_uid,
    command,
)
from arena.hosting.child import HEADER
from arena.hosting.faults import SandboxFault, exit_fault, oom_kills
from avenue_sdk.protocol.faults import FaultCause

__all__ = [
    "Limits",
    "Sandbox",
    "SandboxFault",
    "SandboxUnavailable",
    "discard",
    "unpack",
]

#: a reply frame larger than this is not an answer (the gateway's own limit is 1 MiB)
MAX_REPLY = 1 << 20
#: stderr kept per sandbox (the last bytes), for the owner's view of a fault
STDERR_KEEP = 16 << 10


def check_available() -> str:
    """Raise ``SandboxUnavailable`` with what is missing, else return bwrap's version. Runs a
    real sandbox that must come up as the unprivileged uid with no capabilities."""
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable("hosted bots need Linux (bubblewrap namespaces)")
    for tool, package in ((BWRAP, "bubblewrap"), (SETPRIV, "util-linux"), (PRLIMIT, "util-linux")):
        if not os.access(tool, os.X_OK):
            raise SandboxUnavailable(
                f"{tool} is missing: install Debian's {package} (scripts/ensure_bubblewrap.sh)"
            )
    if os.geteuid() != 0:
        raise SandboxUnavailable(
            "the bot host must start as root: it builds each sandbox as root and drops the "
            "bot's code to an unprivileged uid of its own (HOSTED_SANDBOX_UIDS)"
        )
    with tempfile.TemporaryDirectory() as code_dir:
        os.chmod(code_dir, 0o755)
        Path(code_dir, "probe.py").write_text(PROBE)
        os.chmod(Path(code_dir, "probe.py"), 0o644)
        box = Sandbox(code_dir, "probe:Probe", Limits(wall_seconds=60, load_seconds=60))
        try:
            box.start()
        except SandboxFault as exc:
            said = " ".join(box.stderr_tail(3).split())
            raise SandboxUnavailable(
                f"a probe sandbox did not start ({exc.detail}: {said}); the kernel may "
                "forbid namespaces (see docs/operations.md, 'Hosted bots')"
            ) from None
        finally:
            box.close()
        version = subprocess.run([BWRAP, "--version"], capture_output=True, text=True).stdout
    return version.strip()


PROBE = """\
import os
from avenue_sdk import Bot

if os.getuid() == 0 or os.geteuid() == 0:
    raise SystemExit("running as root")
for line in open("/proc/self/status"):
    if line.startswith("CapEff:") and int(line.split()[1], 16):
        raise SystemExit("has capabilities")


class Probe(Bot):
    pass
"""


@dataclass
class Sandbox:
    """One bot process in its own sandbox, for one match."""

    code_dir: str
    entry_point: str
    limits: Limits = field(default_factory=Limits)
    uid: int = 0
    bot_version: str = ""
    _proc: subprocess.Popen[bytes] | None = None
    _replies: queue.SimpleQueue[bytes | None] = field(default_factory=queue.SimpleQueue)
    _stderr: bytearray = field(default_factory=bytearray)
    _started: float = 0.0
    _killed_for: str = ""
    _stderr_reader: threading.Thread | None = None
    #: the kernel's OOM-kill count when the sandbox started (``arena.hosting.faults``)
    _oom_before: int | None = None

    def start(self) -> None:
        """Start the process and wait for its hello; ``SandboxFault`` if it does not load."""
        self.uid = _take_uid()
        self._started = time.monotonic()
        self._oom_before = oom_kills()
        self._proc = subprocess.Popen(
            command(self.code_dir, self.entry_point, self.uid, self.limits),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
            # its own process group, which kill() ends whole
            start_new_session=True,
        )
        threading.Thread(target=self._read_replies, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()
        hello = self._receive(self.limits.load_seconds, "loading the bot")
        if hello.WhichOneof("kind") != "hello":
            raise SandboxFault(FaultCause.INVALID_OUTPUT, "the bot's first message is not a hello")
        self.bot_version = hello.hello.bot_version

    def send(self, message: pb.ArenaMessage) -> None:
        data = message.SerializeToString()
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(HEADER.pack(len(data)) + data)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise SandboxFault(FaultCause.CRASH, "the bot's process is gone") from None

    def ask(self, request_bytes: bytes, timeout_s: float) -> pb.Action:
        """Send a ``DecisionRequest`` (as an ``ArenaMessage``'s bytes) and wait for its
        ``Action``; ``SandboxFault`` when the bot cannot answer in ``timeout_s``."""
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(HEADER.pack(len(request_bytes)) + request_bytes)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise SandboxFault(FaultCause.CRASH, "the bot's process is gone") from None
        reply = self._receive(timeout_s, "a decision")
        if reply.WhichOneof("kind") != "action":
            raise SandboxFault(FaultCause.INVALID_OUTPUT, "the bot's reply is not an action")
        return reply.action

    def _receive(self, timeout_s: float, what: str) -> pb.BotMessage:
        wall_left = self.limits.wall_seconds - (time.monotonic() - self._started)
        wait = max(0.0, min(timeout_s, wall_left))
        try:
            data = self._replies.get(timeout=wait)
        except queue.Empty:
            if wait < timeout_s:
                self.kill("wall")
                raise SandboxFault(
                    FaultCause.TIMEOUT,
                    f"the match's wall-clock limit ({self.limits.wall_seconds:g} s)",
                ) from None
            self.kill("timeout")
            raise SandboxFault(
                FaultCause.TIMEOUT, f"no answer to {what} within {timeout_s:g} s"
            ) from None
        if data is None:
            raise self._exited()
        try:
            return pb.BotMessage.FromString(data)
        except Exception:  # noqa: BLE001 - unreadable bytes are the bot's malformed answer
            self.kill("malformed")
            raise SandboxFault(
                FaultCause.INVALID_OUTPUT, "the bot's reply does not parse"
            ) from None

    def _read_replies(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stream = self._proc.stdout
        try:
            while True:
                head = stream.read(HEADER.size)
                if len(head) < HEADER.size:
                    break
                (size,) = HEADER.unpack(head)
                if size > MAX_REPLY:
                    self.kill("oversized")
                    break
                data = stream.read(size)
                if len(data) < size:
                    break
                self._replies.put(data)
        finally:
            self._replies.put(None)

    def _read_stderr(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        while chunk := self._proc.stderr.read1(4096):  # type: ignore[attr-defined]
            self._stderr += chunk
            if len(self._stderr) > 2 * STDERR_KEEP:
                del self._stderr[:-STDERR_KEEP]

    def stderr_tail(self, lines: int = 20) -> str:
        text = bytes(self._stderr[-STDERR_KEEP:]).decode("utf-8", "replace")
        return "\n".join(text.splitlines()[-lines:])

    def _exited(self) -> SandboxFault:
        """The process ended or closed its output: which fault that was."""
        assert self._proc is not None
        try:
            code = self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.kill("closed")
            code = self._proc.wait()
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=5)  # the last lines, which say why
        if self._killed_for == "oversized":
            return SandboxFault(FaultCause.INVALID_OUTPUT, f"a reply frame over {MAX_REPLY} bytes")
        return exit_fault(
            code,
            memory_limit=self.limits.address_space,
            cpu_seconds=self.limits.cpu_seconds,
            oom_before=self._oom_before,
            tail=self.stderr_tail(5),
        )

    def kill(self, why: str = "") -> None:
        """Kill the whole sandbox (bwrap's pid namespace goes with it), then read what is
        left of its stderr: the lines its owner sees are the last it wrote."""
        if not self._killed_for:
            self._killed_for = why or "killed"
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        reader = self._stderr_reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=5)

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                assert proc.stdin is not None
                proc.stdin.close()
                proc.wait(timeout=2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill("closed")
        proc.wait()
        _give_uid(self.uid)
        self._proc = None


def unpack(files: dict[str, bytes], into: str | None = None) -> str:
    """Write a bot's files into a fresh directory the sandbox uid may read (not write)."""
    root = tempfile.mkdtemp(prefix="avenue-bot-", dir=into)
    os.chmod(root, 0o755)
    for name, data in files.items():
        path = Path(root, name)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
        path.write_bytes(data)
        path.chmod(0o644)
    for dirpath, _dirs, _files in os.walk(root):
        os.chmod(dirpath, 0o755)
    return root


def discard(code_dir: str) -> None:
    shutil.rmtree(code_dir, ignore_errors=True)
