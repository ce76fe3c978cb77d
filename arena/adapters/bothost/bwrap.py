"""The bubblewrap command line of one sandbox: what it sees, which uid it runs as, its rlimits.

The view (read-only binds of the interpreter, the system libraries, the SDK and engine
packages and the bot's own code; a private size-limited tmpfs), the namespaces, the drop
to an unprivileged host uid of its own through ``setpriv``, and the rlimits that
``prlimit`` sets before it execs bwrap.
``arena.adapters.bothost.sandbox`` runs it; its module doc says why it is built this way.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import threading
from dataclasses import dataclass

from arena.adapters.bothost import child as child_module
from arena.adapters.bothost import seccomp

BWRAP = "/usr/bin/bwrap"
SETPRIV = "/usr/bin/setpriv"
PRLIMIT = "/usr/bin/prlimit"
#: where things are mounted inside
LIB = "/opt/avenue/lib"
#: the interpreter's prefix inside (its host prefix is not shown)
PYTHON = "/opt/avenue/python"
CHILD = "/opt/avenue/child.py"
BOT = "/bot"
#: the packages a bot may import besides the standard library and its own vendored code
PACKAGES = ("google", "grpc", "agent_avenue", "avenue_sdk", "referee", "typing_extensions")


@dataclass(frozen=True)
class Limits:
    """What one sandbox (one match) may use; ``settings.HOSTED_SANDBOX_LIMITS`` overrides."""

    #: CPU seconds over the whole match, all the sandbox's processes together (its group's;
    #: each process also has it as its rlimit: SIGXCPU, then SIGKILL a second later)
    cpu_seconds: int = 120
    #: memory of all the sandbox's processes together (its group's), and each process's
    #: address space: 1 GiB
    address_space: int = 1 << 30
    #: processes and threads of the whole sandbox (its group's ``pids.max``, and the
    #: rlimit of its uid, which no other sandbox shares)
    processes: int = 32
    #: cores the whole sandbox may keep busy at once (its group's CPU quota)
    cpu_cores: float = 1.0
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


def _package_dirs() -> dict[str, str]:
    """Where each of ``PACKAGES`` is on the host, by its name inside ``LIB`` (a package's
    directory, or a single module's file)."""
    found: dict[str, str] = {}
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        locations = list(spec.submodule_search_locations or []) if spec else []
        if name == "google":
            locations = [p for p in locations if os.path.isdir(os.path.join(p, "protobuf"))]
        if locations:
            found[name] = locations[0]
        elif spec is not None and spec.origin and spec.origin.endswith(".py"):
            found[f"{name}.py"] = spec.origin
        else:
            raise SandboxUnavailable(f"package {name} is not installed; the sandbox needs it")
    return found


def _interpreter() -> tuple[str, str]:
    """(prefix, ``pythonX.Y``) of the real interpreter under the venv."""
    prefix = sys.base_prefix
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    if not os.path.exists(os.path.join(prefix, "bin", name)):
        raise SandboxUnavailable(f"no interpreter at {prefix}/bin/{name}")
    return prefix, name


def _interpreter_binds() -> list[str]:
    """The interpreter, its shared library and its standard library, at ``PYTHON``; its
    ``site-packages`` (with whatever ``.pth`` start-up hooks were installed there) stays
    hidden under an empty tmpfs, so only the standard library and ``PACKAGES`` load."""
    prefix, name = _interpreter()
    argv = ["--ro-bind", f"{prefix}/bin/{name}", f"{PYTHON}/bin/{name}"]
    lib = os.path.join(prefix, "lib")
    for entry in sorted(os.listdir(lib)):
        if entry.startswith(f"lib{name}") and ".so" in entry:
            argv += ["--ro-bind", os.path.join(lib, entry), f"{PYTHON}/lib/{entry}"]
    argv += ["--ro-bind", os.path.join(lib, name), f"{PYTHON}/lib/{name}"]
    for hidden in ("site-packages", "dist-packages"):
        if os.path.isdir(os.path.join(lib, name, hidden)):
            argv += ["--tmpfs", f"{PYTHON}/lib/{name}/{hidden}"]
    return argv


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


@dataclass(frozen=True)
class Command:
    """How to start one sandbox: ``argv`` with the descriptors it must inherit
    (``pass_fds``), which ``close()`` closes in the host once the process has them."""

    argv: list[str]
    pass_fds: tuple[int, ...]

    def close(self) -> None:
        for fd in self.pass_fds:
            os.close(fd)


def command(code_dir: str, entry_point: str, uid: int, limits: Limits) -> Command:
    """The command line of one sandbox. bwrap's own options (the binds, which name host
    paths) go through a descriptor (``--args``), the seccomp filter through another; bwrap
    closes both before the bot's code runs, and the sandbox has no /proc: nothing in it
    names a host path."""
    _prefix, name = _interpreter()
    options = [
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        *_interpreter_binds(),
    ]
    # the system libraries the interpreter and the extension modules link
    for path in ("/usr/lib", "/usr/lib64", "/lib", "/lib64"):
        if os.path.islink(path):
            options += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            options += ["--ro-bind", path, path]
    options += ["--ro-bind", SETPRIV, SETPRIV]
    for package, host_dir in _package_dirs().items():
        options += ["--ro-bind", host_dir, f"{LIB}/{package}"]
    options += [
        "--ro-bind",
        child_module.__file__,
        CHILD,
        "--ro-bind",
        code_dir,
        BOT,
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
        "PYTHONHOME",
        PYTHON,
        "--setenv",
        "PYTHONPATH",
        f"{BOT}:{LIB}",
        "--setenv",
        "LD_LIBRARY_PATH",
        f"{PYTHON}/lib",
        "--setenv",
        "HOME",
        "/tmp",
        "--setenv",
        "TMPDIR",
        "/tmp",
        "--setenv",
        "PYTHONDONTWRITEBYTECODE",
        "1",
    ]
    options = _parents(options) + options
    filter_fd = seccomp.program_fd()
    options += ["--seccomp", str(filter_fd)]
    args_fd = os.memfd_create("avenue-bwrap-args", os.MFD_CLOEXEC)
    os.write(args_fd, b"".join(o.encode() + b"\0" for o in options))
    os.lseek(args_fd, 0, os.SEEK_SET)
    argv = [
        BWRAP,
        "--args",
        str(args_fd),
        "--",
        SETPRIV,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        f"{PYTHON}/bin/{name}",
        # no site: no site-packages, no .pth hooks; bytecode is not written
        "-S",
        "-B",
        CHILD,
        entry_point,
    ]
    return Command(_rlimits(limits) + argv, (filter_fd, args_fd))


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


def _rlimits(limits: Limits) -> list[str]:
    """``prlimit`` sets the limits and execs bwrap, which the bot inherits them through.
    Set in the parent with ``preexec_fn`` they would run Python between fork and exec in
    a process with other threads (the bot host's gRPC threads), which can deadlock or
    crash the child (seen: a SIGSEGV before exec)."""
    cpu = limits.cpu_seconds
    return [
        PRLIMIT,
        f"--cpu={cpu}:{cpu + 1}",
        f"--as={limits.address_space}:{limits.address_space}",
        f"--nproc={limits.processes}:{limits.processes}",
        f"--nofile={limits.open_files}:{limits.open_files}",
        f"--fsize={limits.tmp_bytes}:{limits.tmp_bytes}",
        "--core=0:0",
        "--",
    ]
