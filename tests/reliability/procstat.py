"""What the rig's processes cost: CPU seconds from ``/proc``, by kind of process."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

_TICK = os.sysconf("SC_CLK_TCK")


class Process(Protocol):
    @property
    def pid(self) -> int: ...

    def alive(self) -> bool: ...


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # after the command's ")": state is field 0, utime 11 and stime 12 (proc(5) 3, 14, 15)
    return (int(fields[11]) + int(fields[12])) / _TICK


def rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (``VmRSS``; 0 when it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cpu_by_kind(kinds: Mapping[str, Iterable[Process]]) -> dict[str, float]:
    """CPU seconds so far of the live processes of each kind."""
    return {k: sum(cpu_seconds(p.pid) for p in ps if p.alive()) for k, ps in kinds.items()}


def cpu_line(spent: Mapping[str, float], decisions: int, wall_s: float) -> str:
    """One line: each kind's CPU seconds and its share of one decision."""
    cores = os.cpu_count() or 1
    parts = ", ".join(
        f"{k} {v:.1f} s = {1000 * v / max(1, decisions):.2f} ms" for k, v in spent.items()
    )
    return (
        f"CPU while the matches played, per asked decision: {parts} "
        f"(of {cores * wall_s:.0f} core-seconds on {cores} cores)"
    )
