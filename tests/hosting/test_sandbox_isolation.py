"""A sandbox reaches nothing the next one can see (issue 22 §2), each attempt made inside a
real sandbox: the host's session keyring and every other keyring, new namespaces (and the
mounts they would allow), the kernel interfaces the filter refuses, every socket family but
AF_UNIX, another user reading the unpacked code, the interpreter's own site-packages and
start-up hooks, and any host path."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from agent_avenue.v1 import arena_pb2 as pb
from arena.adapters.bothost import seccomp
from arena.adapters.bothost.sandbox import Sandbox, discard, unpack
from tests.hosting.hostile import LIMITS, check, contained, hostile, require_sandbox

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]

require_sandbox()

KEY_SPEC_SESSION_KEYRING = -3
KEY_SPEC_USER_KEYRING = -4
KEY_SPEC_USER_SESSION_KEYRING = -5


def _add_host_key(description: bytes, payload: bytes) -> int:
    """A key in this (the host's) session keyring, as an operator's tool would leave."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    key = libc.syscall(
        248, b"user", description, payload, len(payload), KEY_SPEC_SESSION_KEYRING
    )  # add_key
    if key < 0:
        pytest.fail(f"could not add a host key: {os.strerror(ctypes.get_errno())}")
    return int(key)


def _unlink_host_key(key: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall(250, 9, ctypes.c_long(key), ctypes.c_long(KEY_SPEC_SESSION_KEYRING))  # unlink


def test_no_keyring_of_the_host_or_of_another_sandbox() -> None:
    key = _add_host_key(b"avenue-operator-secret", b"s3cret")
    try:
        result = check(hostile(_keyring_attack(key)))
    finally:
        _unlink_host_key(key)
    contained(result, "crash", "no keyrings")
    assert result.log.count("\nkeyring ") == 3 and "EPERM" in result.log


def _keyring_attack(key: int) -> str:
    return f"""
libc.syscall.restype = ctypes.c_long
for spec in ({KEY_SPEC_SESSION_KEYRING}, {KEY_SPEC_USER_KEYRING}, {KEY_SPEC_USER_SESSION_KEYRING}):
    rc, err = call("syscall", 250, 0, ctypes.c_long(spec), 0)  # KEYCTL_GET_KEYRING_ID
    if rc >= 0:
        print("ESCAPED keyring", spec, rc, file=sys.stderr)
    print("keyring", spec, errno.errorcode.get(err), file=sys.stderr)
buf = ctypes.create_string_buffer(64)
rc, err = call("syscall", 250, 11, ctypes.c_long({key}), buf, 64)  # KEYCTL_READ
if rc >= 0:
    print("ESCAPED read the host's key", buf.raw[:rc], file=sys.stderr)
rc, err = call("syscall", 250, 10, ctypes.c_long({KEY_SPEC_SESSION_KEYRING}), b"user",
               b"avenue-operator-secret", 0)  # KEYCTL_SEARCH
if rc >= 0:
    print("ESCAPED found the host's key", file=sys.stderr)
for spec in ({KEY_SPEC_SESSION_KEYRING}, {KEY_SPEC_USER_KEYRING}):
    rc, err = call("syscall", 248, b"user", b"covert", b"1", 1, ctypes.c_long(spec))  # add_key
    if rc >= 0:
        print("ESCAPED wrote a key", spec, file=sys.stderr)
rc, err = call("syscall", 249, b"user", b"avenue-operator-secret", None, 0)  # request_key
if rc >= 0:
    print("ESCAPED requested the host's key", file=sys.stderr)
rc, err = call("syscall", 250, 1, b"avenue-shared")  # join a *named* session keyring
if rc >= 0:
    print("ESCAPED joined a named keyring", file=sys.stderr)
raise SystemExit("no keyrings")
"""


def test_no_new_namespace_of_any_kind_nor_a_mount() -> None:
    body = f"""
flags = {seccomp.CLONE_NAMESPACES!r}
for name, flag in flags.items():
    rc, err = call("unshare", flag)
    if rc == 0:
        print("ESCAPED unshare", name, file=sys.stderr)
    libc.syscall.restype = ctypes.c_long
    pid, err = call("syscall", 56, flag | 17, 0, 0, 0, 0)  # clone(flag | SIGCHLD), as fork
    if pid == 0:
        os._exit(0)
    if pid > 0:
        os.waitpid(pid, 0)
        print("ESCAPED clone", name, file=sys.stderr)
rc, err = call("syscall", 435, 0, 0)  # clone3
print("clone3", errno.errorcode.get(err), file=sys.stderr)
os.makedirs("/tmp/m", exist_ok=True)
rc, err = call("mount", b"none", b"/tmp/m", b"tmpfs", 0, None)
if rc == 0:
    print("ESCAPED mounted a tmpfs", file=sys.stderr)
rc, err = call("setns", 0, 0)
print("setns", errno.errorcode.get(err), file=sys.stderr)
raise SystemExit("no namespaces")
"""
    result = check(hostile(body))
    contained(result, "crash", "no namespaces")
    assert "clone3 ENOSYS" in result.log and "setns EPERM" in result.log


#: (name, x86_64 number, arguments) of calls the filter refuses; each would work (or get
#: further than EPERM) for an unprivileged process on a host that allows them
REFUSED_CALLS = [
    ("io_uring_setup", 425, (1, 0)),
    ("bpf", 321, (0, 0, 0)),
    ("perf_event_open", 298, (0, 0, -1, -1, 0)),
    ("userfaultfd", 323, (0,)),
    ("ptrace", 101, (0, 0, 0, 0)),  # PTRACE_TRACEME
    ("process_vm_readv", 310, (1, 0, 0, 0, 0, 0)),
    ("kexec_load", 246, (0, 0, 0, 0)),
    ("init_module", 175, (0, 0, 0)),
    ("keyctl", 250, (0, -3, 0)),
    ("add_key", 248, (0, 0, 0, 0, 0)),
    ("request_key", 249, (0, 0, 0, 0)),
    ("mount", 165, (0, 0, 0, 0, 0)),
    ("unshare", 272, (0x10000000,)),
    ("open_by_handle_at", 304, (0, 0, 0)),
    ("pivot_root", 155, (0, 0)),
    ("fsopen", 430, (0, 0)),
]


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="x86_64 syscall numbers")
def test_each_refused_call_is_refused_with_eperm() -> None:
    body = f"""
libc.syscall.restype = ctypes.c_long
said = []
for name, number, args in {REFUSED_CALLS!r}:
    rc, err = call("syscall", number, *[ctypes.c_long(a) for a in args])
    if rc >= 0:
        print("ESCAPED", name, rc, file=sys.stderr)
    said.append(f"{{name}}={{errno.errorcode.get(err)}}")
print("calls", " ".join(said), file=sys.stderr)
raise SystemExit("refused")
"""
    result = check(hostile(body))
    contained(result, "crash", "refused")
    for name, _number, _args in REFUSED_CALLS:
        assert f" {name}=EPERM" in result.log, (name, result.log)


def test_only_unix_sockets() -> None:
    body = """
families = {n: getattr(socket, n) for n in dir(socket) if n.startswith("AF_") and n != "AF_UNIX"}
for name, family in sorted(families.items()):
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW):
        try:
            socket.socket(family, kind).close()
            print("ESCAPED socket", name, kind, file=sys.stderr)
        except OSError as exc:
            pass
try:
    socket.socketpair(socket.AF_INET)
    print("ESCAPED socketpair inet", file=sys.stderr)
except OSError:
    pass
a, b = socket.socketpair()
a.sendall(b"ok")
assert b.recv(2) == b"ok"
raise SystemExit(f"unix only, {len(families)} families refused")
"""
    result = check(hostile(body))
    contained(result, "crash", "unix only")
    assert "AF_NETLINK" not in result.log and "AF_PACKET" not in result.log


def test_the_code_is_readable_by_its_sandbox_uid_only() -> None:
    code_dir = unpack(
        {"mine.py": b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n    pass\n", "p/q.py": b""}
    )
    box = Sandbox(code_dir, "mine:Mine", LIMITS)
    try:
        box.start()
        for path in (Path(code_dir), Path(code_dir, "p"), Path(code_dir, "mine.py")):
            st = path.stat()
            assert st.st_uid == box.uid, path
            assert st.st_mode & 0o077 == 0, (path, oct(st.st_mode))
        # another unprivileged user of the host cannot read it
        other = subprocess.run(
            [
                "/usr/bin/setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "cat",
                f"{code_dir}/mine.py",
            ],
            capture_output=True,
            text=True,
        )
        assert other.returncode != 0 and "Permission denied" in other.stderr, other
    finally:
        box.close()
        discard(code_dir)


def test_no_site_packages_no_start_up_hooks_no_host_path() -> None:
    """Nothing the arena hands the sandbox names a host path: not its command line, its
    mounts, its environment, its descriptors or any file in its view. (The interpreter's
    own binaries hold the prefix it was built for: docs/operations.md says to install it
    at a neutral one, as the Docker image does.)"""
    base_site = f"{sys.base_prefix}/lib/python{sys.version_info.major}.{sys.version_info.minor}"
    secrets_ = [str(ROOT), sys.base_prefix, sys.prefix, tempfile.gettempdir() + "/avenue-bot"]
    body = f"""
import glob
needles = {secrets_!r}
if not sys.flags.no_site or "site" in sys.modules:
    print("ESCAPED site ran", file=sys.stderr)
for entry in sys.path:
    if entry and not entry.startswith(("/bot", "/opt/avenue")):
        print("ESCAPED sys.path", entry, file=sys.stderr)
for pattern in ("/opt/avenue/python/lib/python3*/site-packages/*", "/opt/avenue/**/*.pth"):
    for found in glob.glob(pattern, recursive=True):
        print("ESCAPED installed", found, file=sys.stderr)
if os.path.exists("/proc/self"):
    print("ESCAPED /proc", file=sys.stderr)
seen = [sys.executable, sys.prefix, sys.base_prefix, repr(os.environ), os.getcwd()]
for fd in range(3, 64):
    try:
        os.set_blocking(fd, False)  # the protocol's own pipes are among them
        seen.append(os.read(fd, 1 << 16).decode("latin-1"))
    except OSError:
        pass
for root, dirs, files in os.walk("/"):
    if root.startswith(("/usr", "/opt/avenue/python/lib", "/lib")):
        dirs[:] = []
        continue
    seen.append(root)
    seen.extend(files)
    if root.startswith(("/dev", "/bot", "/opt/avenue/lib")):
        continue  # devices never end; the bot's own code holds the needles; the packages
    for name in files:
        path = os.path.join(root, name)
        try:
            data = open(path, "rb").read(1 << 16)
        except OSError:
            continue
        if not data.startswith(b"\x7fELF"):  # the interpreter's build prefix is compiled in
            seen.append(data.decode("latin-1"))
for needle in needles:
    if any(needle in text for text in seen):
        print("ESCAPED host path", needle, file=sys.stderr)
raise SystemExit("nothing of the host")
"""
    result = check(hostile(body))
    contained(result, "crash", "nothing of the host")
    assert os.path.isdir(f"{base_site}/site-packages")  # there on the host, hidden inside


def test_a_sandbox_leaves_nothing_for_the_next() -> None:
    """What one match's sandbox writes where it can (its tmp, a keyring) is gone for the
    next."""
    writer = hostile(
        """
open("/tmp/covert", "w").write("hello")
call("syscall", 248, b"user", b"covert", b"1", 1, ctypes.c_long(-4))
raise SystemExit("wrote")
"""
    )
    reader = hostile(
        """
if os.path.exists("/tmp/covert"):
    print("ESCAPED tmp survived", file=sys.stderr)
libc.syscall.restype = ctypes.c_long
rc, err = call("syscall", 250, 10, ctypes.c_long(-4), b"user", b"covert", 0)
if rc >= 0:
    print("ESCAPED key survived", file=sys.stderr)
raise SystemExit("clean")
"""
    )
    contained(check(writer), "crash", "wrote")
    contained(check(reader), "crash", "clean")


def test_the_probe_refuses_a_sandbox_without_the_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot host does not start where the filter cannot be applied: with bwrap handed
    an allow-everything program instead, the probe finds the new user namespace."""
    from arena.adapters.bothost import probe
    from arena.adapters.bothost.sandbox import SandboxUnavailable

    allow_all = b"\x06\x00\x00\x00\x00\x00\xff\x7f"  # BPF: return SECCOMP_RET_ALLOW
    monkeypatch.setattr(seccomp, "program", lambda: allow_all)
    with pytest.raises(SandboxUnavailable, match="new user namespace"):
        probe.check_available()


def test_a_good_bot_still_plays_under_all_of_it() -> None:
    code_dir = unpack(
        {
            "mine.py": b"import threading, multiprocessing\n"
            b"from avenue_sdk import Bot\n\n\nclass Mine(Bot):\n"
            b"    def decide(self, request):\n"
            b"        t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
            b"        return 0\n"
        }
    )
    box = Sandbox(code_dir, "mine:Mine", LIMITS)
    try:
        box.start()
        request = pb.DecisionRequest(match_id="m", seq=1, decision_ms=5000)
        request.legal.add()
        action = box.ask(pb.ArenaMessage(decision_request=request).SerializeToString(), 30)
        assert action.seq == 1
    finally:
        box.close()
        discard(code_dir)


def test_the_probe_refuses_a_sandbox_that_cannot_isolate_its_keyring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With a filter that refuses even joining a new session keyring, the child cannot
    leave the host's: the sandbox does not come up and the bot host does not start."""
    import errno

    from arena.adapters.bothost import probe
    from arena.adapters.bothost.sandbox import SandboxUnavailable

    f = seccomp._Filter(seccomp._library())
    try:
        f.rule("keyctl", errno.EPERM)
        no_keyring = f.export()
    finally:
        f.release()
    monkeypatch.setattr(seccomp, "program", lambda: no_keyring)
    with pytest.raises(SandboxUnavailable, match="cannot isolate its keyring"):
        probe.check_available()
