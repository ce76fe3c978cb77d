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
"""

from __future__ import annotations

import importlib.util
import os
import queue
import random
import resource
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
from arena.hosting import child as child_module
from arena.hosting.child import HEADER

BWRAP = "/usr/bin/bwrap"
SETPRIV = "/usr/bin/setpriv"
#: where things are mounted inside
LIB = "/opt/avenue/lib"
CHILD = "/opt/avenue/child.py"
BOT = "/bot"
#: the packages a bot may import besides the standard library and its own vendored code
PACKAGES = ("google", "grpc", "agent_avenue", "avenue_sdk", "referee")
#: a reply frame larger than this is not an answer (the gateway's own limit is 1 MiB)
MAX_REPLY = 1 << 20
#: stderr kept per sandbox (the last bytes), for the owner's view of a fault
STDERR_KEEP = 16 << 10


@dataclass(frozen=True)
class Limits:
    """What one sandbox (one match) may use; ``settings.HOSTED_SANDBOX_LIMITS`` overrides."""

    #: CPU seconds over the whole match (SIGXCPU, then SIGKILL a second later)
    cpu_seconds: int = 120
    #: address space: 1 GiB
    address_space: int = 1 << 30
    #: processes and threads of the sandbox's uid
    processes: int = 32
    open_files: int = 64
    #: the private tmp (a tmpfs) and the largest file the bot may write
    tmp_bytes: int = 64 << 20
    #: wall-clock limit of the whole match; the host kills the sandbox past it
    wall_seconds: float = 900.0
    #: how long loading the bot (imports, the class's ``__init__``) may take
    load_seconds: float = 30.0

    @classmethod
    def from_settings(cls) -> Limits:
        from django.conf import settings

        return cls(**getattr(settings, "HOSTED_SANDBOX_LIMITS", {}))


class SandboxUnavailable(RuntimeError):
    """No sandbox can be set up here: hosted code must not run at all."""


class SandboxFault(Exception):
    """The bot failed: ``cause`` is a ``FaultCause`` value, ``detail`` says how."""

    def __init__(self, cause: str, detail: str) -> None:
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail


def _package_dirs() -> dict[str, str]:
    """Host directory of each package in ``PACKAGES``."""
    found: dict[str, str] = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        locations = list(spec.submodule_search_locations or []) if spec else []
        if name == "google":
            locations = [p for p in locations if os.path.isdir(os.path.join(p, "protobuf"))]
        if not locations:
            raise SandboxUnavailable(f"package {name} is not installed; the sandbox needs it")
        found[name] = locations[0]
    return found


def _interpreter() -> tuple[str, str]:
    """(prefix, executable) of the real interpreter under the venv."""
    prefix = sys.base_prefix
    exe = os.path.join(prefix, "bin", f"python{sys.version_info.major}.{sys.version_info.minor}")
    if not os.path.exists(exe):
        raise SandboxUnavailable(f"no interpreter at {exe}")
    return prefix, exe


_uid_lock = threading.Lock()
_uids_in_use: set[int] = set()


def _uid_range() -> tuple[int, int]:
    from django.conf import settings

    low, high = getattr(settings, "HOSTED_SANDBOX_UIDS", (61000, 61999))
    return int(low), int(high)


def _take_uid() -> int:
    """A host uid no other sandbox of this process uses: RLIMIT_NPROC counts per uid, so a
    fork-bomb in one sandbox cannot starve the others. Random within the range so that two
    bot hosts on one machine rarely share one either."""
    low, high = _uid_range()
    with _uid_lock:
        free = [u for u in range(low, high + 1) if u not in _uids_in_use]
        if not free:
            raise SandboxUnavailable(f"every sandbox uid in {low}..{high} is in use")
        uid = random.choice(free)
        _uids_in_use.add(uid)
        return uid


def _give_uid(uid: int) -> None:
    with _uid_lock:
        _uids_in_use.discard(uid)


def command(code_dir: str, entry_point: str, uid: int, limits: Limits) -> list[str]:
    """The bwrap command line for one sandbox."""
    prefix, exe = _interpreter()
    argv = [
        BWRAP,
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--ro-bind",
        prefix,
        prefix,
    ]
    # the system libraries the interpreter and the extension modules link
    for path in ("/usr/lib", "/usr/lib64", "/lib", "/lib64"):
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    argv += ["--ro-bind", SETPRIV, SETPRIV]
    for name, host_dir in _package_dirs().items():
        argv += ["--ro-bind", host_dir, f"{LIB}/{name}"]
    argv += [
        "--ro-bind",
        child_module.__file__,
        CHILD,
        "--ro-bind",
        code_dir,
        BOT,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/tmp",
        "--chdir",
        BOT,
        "--clearenv",
        "--setenv",
        "PYTHONPATH",
        f"{BOT}:{LIB}",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--setenv",
        "PYTHONDONTWRITEBYTECODE",
        "1",
        "--",
        SETPRIV,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        exe,
        "-s",
        "-B",
        CHILD,
        entry_point,
    ]
    return argv[:1] + _parents(argv) + argv[1:]


def _parents(argv: list[str]) -> list[str]:
    """``--dir`` for every parent of a mount point: bwrap run as root makes missing parents
    mode 0700, which the sandbox's uid could not traverse."""
    dests: set[str] = set()
    for i, arg in enumerate(argv):
        if arg in ("--ro-bind", "--bind"):
            dests.add(argv[i + 2])
        elif arg == "--symlink":
            dests.add(argv[i + 2])
    parents: set[str] = set()
    for dest in dests:
        parent = os.path.dirname(dest)
        while parent not in ("/", ""):
            parents.add(parent)
            parent = os.path.dirname(parent)
    out: list[str] = []
    for parent in sorted(parents, key=lambda p: (p.count("/"), p)):
        out += ["--perms", "0755", "--dir", parent]
    return out


def _rlimits(limits: Limits) -> None:
    """Run in the forked child before exec (``preexec_fn``): inherited by bwrap and the bot."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files, limits.open_files))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.tmp_bytes, limits.tmp_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def check_available() -> str:
    """Raise ``SandboxUnavailable`` with what is missing, else return bwrap's version. Runs a
    real sandbox that must come up as the unprivileged uid with no capabilities."""
    if not sys.platform.startswith("linux"):
        raise SandboxUnavailable("hosted bots need Linux (bubblewrap namespaces)")
    for tool, package in ((BWRAP, "bubblewrap"), (SETPRIV, "util-linux")):
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
            raise SandboxUnavailable(
                f"a probe sandbox did not start ({exc.detail}); the kernel may forbid "
                "namespaces (see docs/operations.md, 'Hosted bots')"
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

    def start(self) -> None:
        """Start the process and wait for its hello; ``SandboxFault`` if it does not load."""
        self.uid = _take_uid()
        self._started = time.monotonic()
        self._proc = subprocess.Popen(
            command(self.code_dir, self.entry_point, self.uid, self.limits),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: _rlimits(self.limits),  # noqa: PLW1509 - no threads needed
            close_fds=True,
            # its own process group, which kill() ends whole
            start_new_session=True,
        )
        threading.Thread(target=self._read_replies, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()
        hello = self._receive(self.limits.load_seconds, "loading the bot")
        if hello.WhichOneof("kind") != "hello":
            raise self._fault("malformed_action", "the bot's first message is not a hello")
        self.bot_version = hello.hello.bot_version

    def send(self, message: pb.ArenaMessage) -> None:
        data = message.SerializeToString()
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(HEADER.pack(len(data)) + data)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._fault("crash", "the bot's process is gone") from None

    def ask(self, request_bytes: bytes, timeout_s: float) -> pb.Action:
        """Send a ``DecisionRequest`` (as an ``ArenaMessage``'s bytes) and wait for its
        ``Action``; ``SandboxFault`` when the bot cannot answer in ``timeout_s``."""
        assert self._proc is not None and self._proc.stdin is not None
        try:
            self._proc.stdin.write(HEADER.pack(len(request_bytes)) + request_bytes)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._fault("crash", "the bot's process is gone") from None
        reply = self._receive(timeout_s, "a decision")
        if reply.WhichOneof("kind") != "action":
            raise self._fault("malformed_action", "the bot's reply is not an action")
        return reply.action

    def _receive(self, timeout_s: float, what: str) -> pb.BotMessage:
        wall_left = self.limits.wall_seconds - (time.monotonic() - self._started)
        wait = max(0.0, min(timeout_s, wall_left))
        try:
            data = self._replies.get(timeout=wait)
        except queue.Empty:
            if wait < timeout_s:
                self.kill("wall")
                raise self._fault(
                    "timeout", f"the match's wall-clock limit ({self.limits.wall_seconds:g} s)"
                ) from None
            self.kill("timeout")
            raise self._fault("timeout", f"no answer to {what} within {timeout_s:g} s") from None
        if data is None:
            raise self._exited()
        try:
            return pb.BotMessage.FromString(data)
        except Exception:  # noqa: BLE001 - unreadable bytes are the bot's malformed answer
            self.kill("malformed")
            raise self._fault("malformed_action", "the bot's reply does not parse") from None

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

    def _fault(self, cause: str, detail: str) -> SandboxFault:
        return SandboxFault(cause, detail)

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
            return SandboxFault("malformed_action", f"a reply over {MAX_REPLY} bytes")
        tail = self.stderr_tail(5)
        if "MemoryError" in tail:
            gib = self.limits.address_space / (1 << 30)
            return SandboxFault("crash", f"memory limit: {gib:g} GiB of address space")
        if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            return SandboxFault("timeout", f"CPU limit: {self.limits.cpu_seconds} s")
        last = tail.splitlines()[-1] if tail else ""
        said = f": {last}" if last else ""
        return SandboxFault("crash", f"the bot's process ended (status {code}){said}")

    def kill(self, why: str = "") -> None:
        """Kill the whole sandbox (bwrap's pid namespace goes with it)."""
        if not self._killed_for:
            self._killed_for = why or "killed"
        proc = self._proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

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
