"""How a failed sandbox's end is typed (``arena.adapters.bothost.faults``, ``child.exit_status``),
for the ends a test cannot provoke safely on a shared machine: a kernel OOM kill above
all. The sandboxes' real faults are in test_sandbox_security.py and test_hosted_matches.py."""

from __future__ import annotations

import errno
import signal

import pytest

from arena.adapters.bothost import child
from arena.adapters.bothost.faults import exit_fault, oom_kills
from avenue_sdk.protocol.faults import FaultCause


def typed(code: int, oom_before: int | None = None, tail: str = "") -> tuple[str, str]:
    fault = exit_fault(
        code, memory_limit=1 << 30, cpu_seconds=120, oom_before=oom_before, tail=tail
    )
    return fault.cause, fault.detail


def test_a_sigkill_nobody_sent_is_memory_only_when_the_kernel_counted_an_oom_kill() -> None:
    now = oom_kills()
    if now is None:  # pragma: no cover - every Linux since 4.13 has it
        pytest.skip("no oom_kill in /proc/vmstat")
    for code in (-signal.SIGKILL, 128 + signal.SIGKILL):  # Popen's and bwrap's spelling
        assert typed(code, oom_before=now - 1) == (
            FaultCause.MEMORY,
            "killed by the kernel for memory (OOM)",
        )
        cause, detail = typed(code, oom_before=now)
        assert cause == FaultCause.CRASH and "SIGKILL" in detail


def test_exit_statuses_and_signals() -> None:
    assert typed(child.EXIT_MEMORY)[0] == FaultCause.MEMORY
    assert typed(child.EXIT_PROCESSES)[0] == FaultCause.PROCESS_LIMIT
    assert typed(128 + signal.SIGXCPU) == (FaultCause.TIMEOUT, "CPU limit: 120 s of CPU time")
    assert typed(child.EXIT_LOAD)[0] == FaultCause.CRASH
    assert "raised an exception" in typed(child.EXIT_CRASH)[1]
    # a MemoryError the child could not classify (e.g. raised outside the bot's code)
    assert typed(1, tail="MemoryError")[0] == FaultCause.MEMORY


def test_the_public_detail_never_quotes_stderr() -> None:
    for code in (child.EXIT_LOAD, child.EXIT_CRASH, 1, -signal.SIGSEGV):
        assert "s3cret" not in typed(code, tail="Traceback ...\nValueError: s3cret")[1]


def test_the_childs_status_for_the_bots_exception() -> None:
    # an exception the bot raised while handling a MemoryError
    wrapped = ValueError("wrapped")
    wrapped.__context__ = MemoryError()
    assert child.exit_status(MemoryError(), 4) == child.EXIT_MEMORY
    assert child.exit_status(wrapped, 4) == child.EXIT_MEMORY
    eagain = BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
    assert child.exit_status(eagain, 4) == child.EXIT_PROCESSES
    assert child.exit_status(RuntimeError("can't start new thread"), 4) == child.EXIT_PROCESSES
    assert child.exit_status(ZeroDivisionError(), 4) == 4
    assert child.exit_status(SystemExit("bye"), 3) == 3
