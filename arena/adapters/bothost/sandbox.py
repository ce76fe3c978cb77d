"""The sandbox a hosted bot's code runs in: bubblewrap, a host uid of its own, a control
group of its own, a seccomp filter, pipes.

One ``Sandbox`` per match (a fresh process, fresh tmp: nothing survives a match). The bwrap
process starts as root so that it can build the mount namespace from paths only root may
traverse (the interpreter under ``/root/.pyenv``), then ``setpriv`` drops to an unprivileged
*host* uid from ``HOSTED_SANDBOX_UIDS`` with no groups, no capabilities (bounding set
emptied) and no-new-privs before Python starts. There is deliberately no user namespace: a
root bwrap with ``--unshare-user --uid 65534`` maps the sandbox onto host root, which still
reads every root-readable file bound in; here the kernel checks the bot's accesses as a
stranger's, and the seccomp filter (``arena.adapters.bothost.seccomp``) refuses new namespaces,
mounts, keyrings, ptrace, bpf, io_uring and every socket family but AF_UNIX. Every other
namespace is new (``--unshare-net``: no network at all; pid, ipc, uts, cgroup). The view
(``arena.adapters.bothost.bwrap``) holds only read-only binds of the interpreter and its standard
library, the system libraries it links, the SDK and engine packages and the bot's own code
(readable by the sandbox's uid only), plus a private size-limited tmpfs; no /proc, and no
host path anywhere. Memory, CPU seconds, processes and cores are limits of the whole
sandbox (``arena.adapters.bothost.cgroups``: the kernel's where it can, else the host's measure;
a watcher thread kills the sandbox at a limit); rlimits per process stay beneath them. The
host kills the whole sandbox at a wall-clock limit.

A start has two parts: the sandbox's own setup, until the child's first (empty) frame says
it is about to load the bot, is the arena's (``SandboxSetupError``); loading the bot's
code, until its hello, is the bot's (``SandboxFault``). The host and the child
(``arena.adapters.bothost.child``) talk in frames over the pipes; see there. How a failure is typed
(crash, timeout, memory, process limit, invalid output) is ``arena.adapters.bothost.faults``.
"""

from __future__ import annotations

import logging
import os
import queue
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.bothost import cgroups
from arena.adapters.bothost.bwrap import (
    Limits,
    SandboxUnavailable,
    _give_uid,
    _take_uid,
    command,
)
from arena.adapters.bothost.child import HEADER
from arena.adapters.bothost.codedir import discard, hand_over, unpack
from arena.adapters.bothost.faults import SandboxFault, exit_fault, limit_fault, oom_kills
from avenue_sdk.protocol.faults import FaultCause

__all__ = [
    "Limits",
    "Sandbox",
    "SandboxFault",
    "SandboxSetupError",
    "SandboxUnavailable",
    "discard",
    "unpack",
]

log = logging.getLogger("arena.hosting")

#: a reply frame larger than this is not an answer (the gateway's own limit is 1 MiB)
MAX_REPLY = 1 << 20
#: stderr kept per sandbox (the last bytes), for the owner's view of a fault
STDERR_KEEP = 16 << 10
#: stderr the host reads at most, per second after a first burst: past it the bot's own
#: writes block (its pipe is full), so a flood costs the host next to nothing
STDERR_RATE = 64 << 10
STDERR_BURST = 256 << 10
#: how long the sandbox's own setup may take (the arena's part of a start)
SETUP_SECONDS = 60.0
#: seconds between two looks at the sandbox's group (memory, CPU, processes)
WATCH_EVERY = 0.25


class SandboxSetupError(RuntimeError):
    """The host could not set the sandbox up: the arena's failure, never the bot's."""


@dataclass
class Sandbox:
    """One bot process in its own sandbox, for one match."""

    code_dir: str
    entry_point: str
    limits: Limits = field(default_factory=Limits)
    uid: int = 0
    bot_version: str = ""
    #: when the setup ended and the bot's code began to load (time.monotonic(); 0: not yet)
    booted_at: float = 0.0
    _proc: subprocess.Popen[bytes] | None = None
    _group: cgroups.Group | None = None
    _replies: queue.SimpleQueue[bytes | None] = field(default_factory=queue.SimpleQueue)
    _stderr: bytearray = field(default_factory=bytearray)
    #: stderr bytes read in all (the bounded reader's count)
    stderr_read: int = 0
    _started: float = 0.0
    _killed_for: str = ""
    #: the fault of a limit the watcher killed the sandbox for
    _breach: SandboxFault | None = None
    _stderr_reader: threading.Thread | None = None
    _closing: threading.Event = field(default_factory=threading.Event)
    #: the kernel's OOM-kill count when the sandbox started (``arena.adapters.bothost.faults``)
    _oom_before: int | None = None

    def start(self, load_seconds: float | None = None) -> None:
        """Set the sandbox up (``SandboxSetupError`` if the host cannot: the arena's), then
        load the bot and wait for its hello (``SandboxFault`` if it does not load: the
        bot's) for ``load_seconds`` (default: the limits'; a match's host passes the
        wall limit and keeps the first decision's deadline itself)."""
        self._started = time.monotonic()
        try:
            self.uid = _take_uid()
            hand_over(self.code_dir, self.uid)
            quota = cgroups.Quota(
                self.limits.address_space, self.limits.processes, self.limits.cpu_cores
            )
            self._group = cgroups.groups().make(f"sandbox-{self.uid}", self.uid, quota)
            self._oom_before = oom_kills()
            cmd = command(self.code_dir, self.entry_point, self.uid, self.limits)
            try:
                self._proc = subprocess.Popen(
                    cgroups.join_argv(self._group, cmd.argv),
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    close_fds=True,
                    pass_fds=cmd.pass_fds,
                    # its own process group, which kill() ends whole
                    start_new_session=True,
                )
            finally:
                cmd.close()
        except (OSError, SandboxUnavailable, cgroups.CgroupUnavailable) as exc:
            raise SandboxSetupError(f"the sandbox could not be set up: {exc}") from None
        threading.Thread(target=self._read_replies, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()
        threading.Thread(target=self._watch, daemon=True).start()
        self._boot()
        load = self.limits.load_seconds if load_seconds is None else load_seconds
        hello = self._receive(load, "loading the bot", f"the bot did not load within {load:g} s")
        if hello.WhichOneof("kind") != "hello":
            raise SandboxFault(FaultCause.INVALID_OUTPUT, "the bot's first message is not a hello")
        self.bot_version = hello.hello.bot_version

    def _boot(self) -> None:
        """Wait for the child's empty first frame: the sandbox is up, the bot not loaded."""
        try:
            data = self._replies.get(timeout=SETUP_SECONDS)
        except queue.Empty:
            self.kill("setup")
            raise SandboxSetupError(f"the sandbox was not up within {SETUP_SECONDS:g} s") from None
        if data != b"":
            self.kill("setup")
            code = self._proc.wait() if self._proc is not None else None
            said = " ".join(self.stderr_tail(3).split())
            raise SandboxSetupError(f"the sandbox did not come up (status {code}): {said}")
        self.booted_at = time.monotonic()

    def _write(self, data: bytes) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(HEADER.pack(len(data)) + data)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            gone = SandboxFault(FaultCause.CRASH, "the bot's process is gone")
            raise self._breach or gone from None

    def send(self, message: pb.ArenaMessage) -> None:
        self._write(message.SerializeToString())

    def ask(self, request_bytes: bytes, timeout_s: float) -> pb.Action:
        """Send a ``DecisionRequest`` (as an ``ArenaMessage``'s bytes) and wait for its
        ``Action``; ``SandboxFault`` when the bot cannot answer in ``timeout_s``."""
        self._write(request_bytes)
        reply = self._receive(timeout_s, "a decision")
        if reply.WhichOneof("kind") != "action":
            raise SandboxFault(FaultCause.INVALID_OUTPUT, "the bot's reply is not an action")
        return reply.action

    def _receive(self, timeout_s: float, what: str, late: str = "") -> pb.BotMessage:
        wall_left = self.limits.wall_seconds - (time.monotonic() - self._started)
        wait = max(0.0, min(timeout_s, wall_left))
        try:
            data = self._replies.get(timeout=wait)
        except queue.Empty:
            if self._breach is not None:
                raise self._breach from None
            if wait < timeout_s:
                self.kill("wall")
                raise SandboxFault(
                    FaultCause.TIMEOUT,
                    f"the match's wall-clock limit ({self.limits.wall_seconds:g} s)",
                ) from None
            self.kill("timeout")
            raise SandboxFault(
                FaultCause.TIMEOUT, late or f"no answer to {what} within {timeout_s:g} s"
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
        """Keep the last ``STDERR_KEEP`` bytes, reading at most ``STDERR_RATE`` a second
        after a first ``STDERR_BURST``: a bot that floods its stderr blocks on its own
        full pipe, and costs the host a few reads a second."""
        assert self._proc is not None and self._proc.stderr is not None
        stream = self._proc.stderr
        credit = float(STDERR_BURST)
        last = time.monotonic()
        while True:
            now = time.monotonic()
            credit = min(float(STDERR_BURST), credit + (now - last) * STDERR_RATE)
            last = now
            if credit < 4096:
                if self._closing.wait((4096 - credit) / STDERR_RATE):
                    credit = float(STDERR_BURST)  # closing: read what is left, once
                continue
            chunk = stream.read1(int(min(credit, 64 << 10)))  # type: ignore[attr-defined]
            if not chunk:
                return
            credit -= len(chunk)
            self.stderr_read += len(chunk)
            self._stderr += chunk
            if len(self._stderr) > 2 * STDERR_KEEP:
                del self._stderr[:-STDERR_KEEP]
            if self._closing.is_set() and len(chunk) < 4096:
                return

    def _watch(self) -> None:
        """Kill the sandbox at a limit of the whole of it (``arena.adapters.bothost.cgroups``)."""
        group, proc = self._group, self._proc
        assert group is not None and proc is not None
        limits = self.limits
        while proc.poll() is None and not self._closing.wait(WATCH_EVERY):
            try:
                usage = group.usage()
            except OSError:
                continue
            fault = limit_fault(
                usage,
                measured=group.mode == "measure",
                memory_limit=limits.address_space,
                cpu_seconds=limits.cpu_seconds,
                processes=limits.processes,
            )
            if fault is not None:
                self._breach = fault
                self.kill("limit")
                return

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
        self._closing.set()
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=5)  # the last lines, which say why
        if self._breach is not None:
            return self._breach
        if self._killed_for == "oversized":
            return SandboxFault(FaultCause.INVALID_OUTPUT, f"a reply frame over {MAX_REPLY} bytes")
        if self._group is not None and self._group.mode != "measure":
            try:
                if self._group.usage().oom_kills:
                    return limit_fault(
                        cgroups.Usage(0, 0.0, 0, 1),
                        measured=False,
                        memory_limit=self.limits.address_space,
                        cpu_seconds=self.limits.cpu_seconds,
                        processes=self.limits.processes,
                    ) or SandboxFault(FaultCause.MEMORY, "out of memory")
            except OSError:
                pass
        return exit_fault(
            code,
            memory_limit=self.limits.address_space,
            cpu_seconds=self.limits.cpu_seconds,
            oom_before=self._oom_before,
            tail=self.stderr_tail(5),
        )

    def kill(self, why: str = "") -> None:
        """Kill the whole sandbox (bwrap's pid namespace goes with it, and every process of
        its group), then read what is left of its stderr: the lines its owner sees are the
        last it wrote."""
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
        if self._group is not None:
            self._group.kill()
        self._closing.set()
        reader = self._stderr_reader
        if reader is not None and reader is not threading.current_thread():
            reader.join(timeout=5)

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            self._release()
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
        self._proc = None
        self._release()

    def _release(self) -> None:
        if self._group is not None:
            self._group.remove()
            self._group = None
        if self.uid:
            if _uid_gone(self.uid):
                _give_uid(self.uid)
            else:  # never handed to the next sandbox while a process of this one lives
                log.warning("sandbox uid %d still has processes; it is not reused", self.uid)
            self.uid = 0


def _uid_gone(uid: int, timeout: float = 5.0) -> bool:
    """Wait until no process of ``uid`` is left (killed ones are reaped a moment later)."""
    deadline = time.monotonic() + timeout
    while True:
        alive = False
        for entry in os.scandir("/proc"):
            try:
                if entry.name.isdigit() and entry.stat().st_uid == uid:
                    alive = True
                    break
            except OSError:
                continue
        if not alive:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
