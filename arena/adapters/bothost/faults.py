"""What a hosted bot's sandbox did wrong, typed: the ``FaultCause`` its match records.

A sandbox fails in one of a few ways, each the bot's own fault:

* ``crash``: the bot raised (while loading or playing) or its process died otherwise;
* ``timeout``: no answer within the decision's allowance, the match's wall-clock limit, or
  the CPU seconds of the whole sandbox (its group's, ``limit_fault``; a single process
  also meets its CPU rlimit, SIGXCPU);
* ``memory``: the whole sandbox over its memory (its group's OOM kill, or the host's
  measure: ``limit_fault``), a ``MemoryError`` (a process's address-space rlimit), or a
  SIGKILL the host did not send while the kernel's OOM-kill counter went up;
* ``process_limit``: a new process or thread refused (the sandbox's process limit: a fork
  bomb);
* ``invalid_output``: what it wrote on its protocol pipe is not an answer.

``SandboxFault.detail`` is public with the match (the runner records it): it is worded by
the arena and never quotes the bot's stderr, which only its owner sees
(``arena.hosting.models.SandboxFault``).
"""

from __future__ import annotations

import signal

from arena.adapters.bothost.cgroups import Usage
from arena.adapters.bothost.child import EXIT_CRASH, EXIT_LOAD, EXIT_MEMORY, EXIT_PROCESSES
from avenue_sdk.protocol.faults import FaultCause

VMSTAT = "/proc/vmstat"


class SandboxFault(Exception):
    """The bot failed: ``cause`` is a ``FaultCause`` value, ``detail`` says how."""

    def __init__(self, cause: FaultCause, detail: str) -> None:
        super().__init__(f"{cause.value}: {detail}")
        self.cause = FaultCause(cause)
        self.detail = detail


def oom_kills() -> int | None:
    """The kernel's count of OOM kills since boot (None where it does not say)."""
    try:
        with open(VMSTAT) as stats:
            for line in stats:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _size(memory_limit: int) -> str:
    return f"{memory_limit / (1 << 30):g} GiB"


def limit_fault(
    usage: Usage, *, measured: bool, memory_limit: int, cpu_seconds: int, processes: int
) -> SandboxFault | None:
    """The fault of a sandbox whose processes together are over a limit (None if none):
    the kernel enforces memory and processes in a cgroup (an OOM kill says so); where the
    host only ``measured``, it compares the sums itself."""
    if usage.oom_kills or (measured and usage.memory_bytes > memory_limit):
        return SandboxFault(
            FaultCause.MEMORY,
            f"out of memory: its processes together used more than {_size(memory_limit)}",
        )
    if usage.cpu_seconds > cpu_seconds:
        return SandboxFault(
            FaultCause.TIMEOUT, f"CPU limit: {cpu_seconds} s of CPU time for all its processes"
        )
    if measured and usage.processes > processes:
        return SandboxFault(
            FaultCause.PROCESS_LIMIT, f"more than {processes} processes and threads at once"
        )
    return None


def _signal_of(code: int) -> int | None:
    """The signal that ended the process: Popen says -N, bwrap's exit status 128 + N."""
    if code < 0:
        return -code
    if code > 128:
        return code - 128
    return None


def exit_fault(
    code: int,
    *,
    memory_limit: int,
    cpu_seconds: int,
    oom_before: int | None,
    tail: str,
) -> SandboxFault:
    """The fault of a sandbox whose process ended by itself (the host did not kill it)
    with status ``code``; ``tail`` is the end of its stderr (read, never quoted)."""
    sig = _signal_of(code)
    gib = _size(memory_limit)  # of address space
    if code == EXIT_MEMORY or "MemoryError" in tail:
        return SandboxFault(
            FaultCause.MEMORY, f"out of memory: its limit is {gib} of address space"
        )
    if code == EXIT_PROCESSES:
        return SandboxFault(
            FaultCause.PROCESS_LIMIT, "a new process or thread was refused: over its process limit"
        )
    if sig == signal.SIGXCPU:
        return SandboxFault(FaultCause.TIMEOUT, f"CPU limit: {cpu_seconds} s of CPU time")
    if sig == signal.SIGKILL:
        after = oom_kills()
        if oom_before is not None and after is not None and after > oom_before:
            return SandboxFault(FaultCause.MEMORY, "killed by the kernel for memory (OOM)")
    if code == EXIT_LOAD:
        said = "did not load (an exception, or no avenue_sdk.Bot subclass at its entry point)"
    elif code == EXIT_CRASH:
        said = "raised an exception while playing"
    elif sig is not None:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        said = f"was killed by signal {name}"
    else:
        said = f"exited with status {code}"
    return SandboxFault(FaultCause.CRASH, f"the bot's process {said}; its owner sees its stderr")
