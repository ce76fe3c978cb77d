"""Whether this machine can run hosted bots safely: ``check_available`` runs a real probe
sandbox whose bot looks at what it must not have (root, capabilities, a new user
namespace, the host's session keyring, a network socket, /proc) and says which it found;
the bot host refuses to start if it found any, or if the filter, the keyring isolation or
the asked-for cgroups cannot be applied, saying which (``manage.py runbothost``)."""

from __future__ import annotations

import os
import subprocess
import sys

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.bothost import cgroups
from arena.adapters.bothost.bwrap import BWRAP, PRLIMIT, SETPRIV, Limits, SandboxUnavailable
from arena.adapters.bothost.sandbox import Sandbox, SandboxFault, SandboxSetupError, discard, unpack
from arena.adapters.bothost.seccomp import SeccompUnavailable
from arena.adapters.bothost.seccomp import program as seccomp_program

#: what the probe bot can find, by the bit it sets in its answer's choice index
PROBLEMS = {
    1: "it runs as root",
    2: "it holds capabilities",
    4: "it can make a new user namespace (the seccomp filter is not applied)",
    8: "it can read a session keyring (the keyring isolation is not applied)",
    16: "it can open a network socket",
    32: "it sees /proc",
}

PROBE = """\
import ctypes, errno, os, socket
from avenue_sdk import Bot

libc = ctypes.CDLL(None, use_errno=True)


def found():
    bits = 0
    if os.getuid() == 0 or os.geteuid() == 0:
        bits |= 1
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    data = (ctypes.c_uint32 * 6)()
    if libc.capget(header, data) == 0 and any(data):
        bits |= 2
    if libc.unshare(0x10000000) == 0:
        bits |= 4
    if libc.syscall(250, 0, ctypes.c_long(-3), 0) >= 0:
        bits |= 8
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
        bits |= 16
    except OSError:
        pass
    if os.path.exists("/proc/self"):
        bits |= 32
    return bits


class Probe(Bot):
    def decide(self, request):
        return found()
"""


def probe_verdict(bits: int) -> str:
    """The problems the probe's answer names ("" when none)."""
    return "; ".join(text for bit, text in PROBLEMS.items() if bits & bit)


def check_available() -> str:
    """Raise ``SandboxUnavailable`` with what is missing, else return what the sandboxes
    run with. Runs a real sandbox that must come up as the unprivileged uid with no
    capabilities, no keyring of the host's and the filter applied."""
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
    try:
        seccomp_program()
    except SeccompUnavailable as exc:
        raise SandboxUnavailable(f"the seccomp filter cannot be built: {exc}") from None
    try:
        groups = cgroups.groups()
    except cgroups.CgroupUnavailable as exc:
        raise SandboxUnavailable(f"HOSTED_SANDBOX_CGROUP: {exc}") from None
    code_dir = unpack({"probe.py": PROBE.encode()})
    box = Sandbox(code_dir, "probe:Probe", Limits(wall_seconds=60, load_seconds=60))
    try:
        box.start()
        said = box.ask(
            pb.ArenaMessage(
                decision_request=pb.DecisionRequest(match_id="probe", seq=1)
            ).SerializeToString(),
            60,
        )
    except (SandboxFault, SandboxSetupError) as exc:
        said = " ".join(box.stderr_tail(3).split())
        raise SandboxUnavailable(
            f"a probe sandbox did not start ({exc}: {said}); the kernel may forbid "
            "namespaces (see docs/operations.md, 'Hosted bots')"
        ) from None
    finally:
        box.close()
        discard(code_dir)
    problem = probe_verdict(said.choice_index)
    if problem:
        raise SandboxUnavailable(f"a probe sandbox is not isolated: {problem}")
    version = subprocess.run([BWRAP, "--version"], capture_output=True, text=True).stdout
    limits = f"limits per sandbox: {groups.mode}"
    if groups.fallback_reason:
        limits += f" (no cgroup: {groups.fallback_reason})"
    return f"{version.strip()}, seccomp filter, own session keyring, {limits}"
