"""Hostile hosted bots in real bubblewrap sandboxes (issue 13 §4): each attack is contained,
is that bot's typed fault, and the host keeps serving (a good bot checked after, and one
checked at the same time, pass).

Each hostile bot tries its attack inside ``decide``; if the attack works it prints
``ESCAPED`` (and carries on), so a test can never pass by an attack that silently worked.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.adapters.bothost import bwrap
from arena.adapters.bothost import sandbox as sb
from arena.adapters.bothost.check import run_check
from tests.hosting.hostile import GOOD, LIMITS, check, contained, hostile, require_sandbox

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]

require_sandbox()


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP port on the host's loopback that accepts (as the gateway's does)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.5)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                conn.close()
            except OSError:
                pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(5)
    server.close()


def test_a_good_bot_passes() -> None:
    result = check({"mine.py": GOOD})
    assert result.passed, result.log
    assert "played one game against random" in result.log


def test_no_tcp_to_the_gateway_redis_or_postgresql(listener: int) -> None:
    # the host itself reaches the listener: the refusal below is the sandbox's
    socket.create_connection(("127.0.0.1", listener), timeout=10).close()
    ports = [listener, 6379, 5432]
    body = f"""
for port in {ports!r}:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        print("ESCAPED tcp", port, file=sys.stderr)
    except OSError as exc:
        print("refused", port, exc, file=sys.stderr)
raise SystemExit("no network")
"""
    result = check(hostile(body))
    contained(result, "crash", "no network")
    assert result.log.count("\nrefused ") == 3


def test_no_unix_socket_to_postgresql() -> None:
    body = """
for path in ("/var/run/postgresql/.s.PGSQL.5432", "/run/postgresql/.s.PGSQL.5432"):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        print("ESCAPED unix", path, file=sys.stderr)
    except OSError:
        pass
raise SystemExit("no unix sockets")
"""
    contained(check(hostile(body)), "crash", "no unix sockets")


def test_cannot_read_shadow_settings_or_other_bots(tmp_path: Path) -> None:
    other = sb.unpack({"secret.py": b"SECRET = 1\n"})
    try:
        targets = [
            "/etc/shadow",
            str(ROOT / "arena" / "settings.py"),
            str(ROOT / ".env"),
            f"{other}/secret.py",
            "/proc/1/environ",
            "/root/.bash_history",
        ]
        body = f"""
for path in {targets!r}:
    try:
        open(path, "rb").read(1)
        print("ESCAPED read", path, file=sys.stderr)
    except OSError as exc:
        print("unreadable", path, type(exc).__name__, file=sys.stderr)
raise SystemExit("nothing to read")
"""
        result = check(hostile(body))
    finally:
        sb.discard(other)
    contained(result, "crash", "nothing to read")
    assert result.log.count("\nunreadable ") == 6


def test_runs_as_its_own_uid_without_capabilities() -> None:
    body = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
header = (ctypes.c_uint32 * 2)(0x20080522, 0)
caps = (ctypes.c_uint32 * 6)()
assert libc.capget(header, caps) == 0
bounding = [c for c in range(41) if libc.prctl(23, c, 0, 0, 0) == 1]  # PR_CAPBSET_READ
if os.getuid() == 0 or any(caps) or bounding:
    print("ESCAPED privileged", os.getuid(), list(caps), bounding, file=sys.stderr)
try:
    os.setuid(0)
    print("ESCAPED setuid", file=sys.stderr)
except OSError:
    pass
try:
    open("/bot/mine.py", "a").write("x")
    print("ESCAPED wrote own code", file=sys.stderr)
except OSError:
    pass
raise SystemExit(f"uid {os.getuid()}")
"""
    result = check(hostile(body))
    contained(result, "crash", "uid 6")


def test_fork_bomb() -> None:
    body = """
while True:
    os.fork()
"""
    contained(check(hostile(body)), "process_limit", "BlockingIOError")


def test_allocate_10_gb() -> None:
    body = """
hog = bytearray(10 * 1024 ** 3)
print("ESCAPED allocated", len(hog), file=sys.stderr)
"""
    contained(check(hostile(body)), "memory", "MemoryError")


def test_write_10_gb() -> None:
    body = """
block = b"x" * (1 << 20)
with open("/tmp/fill", "wb") as f:
    for _ in range(10 * 1024):
        f.write(block)
print("ESCAPED wrote 10 GB", file=sys.stderr)
"""
    contained(check(hostile(body)), "crash", "File too large")


def test_spin_forever_hits_the_cpu_limit() -> None:
    body = """
while True:
    pass
"""
    # a decision allowance longer than the CPU limit: the CPU rlimit is what stops it
    contained(check(hostile(body), decision_ms=30_000, bank_ms=0), "timeout", "CPU limit")


def test_sleep_past_the_deadline() -> None:
    body = """
time.sleep(3600)
"""
    contained(check(hostile(body), decision_ms=1_000, bank_ms=1_000), "timeout", "no answer")


#: writes a frame of bytes that are no message on every descriptor it may write: the
#: protocol's own pipe among them (the child keeps it on a descriptor of its own)
GARBAGE = """
print("writing garbage", file=sys.stderr)
for fd in range(3, 16):
    try:
        os.write(fd, b"\\x00\\x00\\x00\\x08garbage!")
    except OSError:
        pass
"""


def test_output_that_is_not_an_answer() -> None:
    contained(check(hostile(GARBAGE)), "invalid_output", "does not parse")
    # a frame header announcing more than the host reads
    huge = GARBAGE.replace("\\x00\\x00\\x00\\x08garbage!", "\\xff\\xff\\xff\\xff")
    contained(check(hostile(huge)), "invalid_output", "over 1048576 bytes")


def test_a_bot_that_does_not_load() -> None:
    result = run_check({"mine.py": b"raise RuntimeError('boom at import')\n"}, "mine:Mine", LIMITS)
    contained(result, "crash", "boom at import")
    result = run_check({"mine.py": b"class Mine: pass\n"}, "mine:Mine", LIMITS)
    contained(result, "crash", "not a subclass of avenue_sdk.Bot")


def test_others_unaffected_and_the_host_keeps_serving() -> None:
    bomb = hostile("while True:\n    os.fork()")
    hog = hostile("hog = bytearray(10 * 1024 ** 3)")
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(check, [bomb, {"mine.py": GOOD}, hog]))
    assert not results[0].passed and not results[2].passed
    assert results[1].passed, results[1].log
    assert check({"mine.py": GOOD}).passed
    # nothing of any sandbox is left running
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                uid = os.stat(f"/proc/{pid}").st_uid
            except FileNotFoundError:
                continue
            low, high = bwrap._uid_range()
            assert not low <= uid <= high, f"process {pid} of sandbox uid {uid} survived"
