"""Limits per sandbox, not per process: one control group per match's sandbox.

A sandbox's memory, CPU seconds, processes and cores are totals over all its processes:
the kernel enforces them where it can and the host watches the rest
(``arena.adapters.bothost.sandbox``'s watcher reads ``usage()`` a few times a second and kills the
sandbox at a limit, as that bot's own typed fault). Three ways, chosen once per bot host by
``HOSTED_SANDBOX_CGROUP`` (``auto``, ``v2``, ``v1``, ``measure``):

* **cgroup v2** (a delegated subtree: the bot host's own cgroup, e.g. a systemd unit with
  ``Delegate=yes``, or a container's): the host moves itself into a leaf ``host`` and gives
  each sandbox a sibling with ``memory.max`` (swap off), ``pids.max`` and ``cpu.max``; an
  OOM kill is read from ``memory.events``, and ``cgroup.kill`` ends it whole.
* **cgroup v1** (a hybrid host like this project's CI machines): the same from the
  ``memory``, ``pids``, ``cpu`` and ``cpuacct`` hierarchies (``memory.limit_in_bytes`` and
  ``memory.memsw.limit_in_bytes``, ``pids.max``, ``cpu.cfs_quota_us``, ``cpuacct.usage``).
* **measure** (no cgroup the host may write): the host sums what the kernel reports of
  the sandbox's processes (each sandbox has a host uid of its own, so its processes are
  those of that uid) and kills the sandbox at a limit; the processes rlimit, which counts
  per uid, is then the whole sandbox's too. A sandbox can outrun a look by a few hundred
  milliseconds there: docs/operations.md says to give the host a cgroup.

The sandbox joins its group before bubblewrap starts (``join_argv``: a shell writes its
own pid into the group, then execs), so that nothing of it ever runs outside.
"""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import dataclass
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
#: the sandboxes' parent group, under the bot host's own
PARENT = "avenue-sandboxes"
#: cpu.max / cfs period (microseconds)
PERIOD_US = 100_000


class CgroupUnavailable(RuntimeError):
    """The cgroup way asked for cannot be used here (the reason says why)."""


@dataclass(frozen=True)
class Usage:
    memory_bytes: int
    cpu_seconds: float
    processes: int
    #: processes the kernel killed for memory in this group since it was made
    oom_kills: int


def _read_int(path: Path, default: int = 0) -> int:
    try:
        return int(path.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return default


def _keyed(path: Path) -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if value.strip().lstrip("-").isdigit():
                out[key] = int(value)
    except OSError:
        pass
    return out


def _own_groups() -> dict[str, str]:
    """controller (``""`` for v2) -> this process's group path, from /proc/self/cgroup."""
    groups: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _hid, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            groups[controller.removeprefix("name=")] = path
    return groups


def _mounts() -> dict[str, Path]:
    """controller (``""`` for the v2 hierarchy) -> where its hierarchy is mounted."""
    mounts: dict[str, Path] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fstype, _source, options = (right.split(" ") + ["", ""])[:3]
        point = Path(left.split(" ")[4])
        if fstype == "cgroup2":
            mounts.setdefault("", point)
        elif fstype == "cgroup":
            for option in options.split(","):
                if option in ("memory", "pids", "cpu", "cpuacct"):
                    mounts.setdefault(option, point)
    return mounts


class Group:
    """One sandbox's group (or, in ``measure``, its uid's processes)."""

    mode = "measure"

    def __init__(self, name: str, uid: int) -> None:
        self.name = name
        self.uid = uid

    def procs_files(self) -> list[str]:
        """The files a process writes its pid to, to join the group (none in ``measure``)."""
        return []

    def usage(self) -> Usage:
        """What the sandbox's processes use now: the host's own measure."""
        page = os.sysconf("SC_PAGE_SIZE")
        tick = os.sysconf("SC_CLK_TCK")
        memory = cpu = count = 0
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                if entry.stat().st_uid != self.uid:
                    continue
                statm = Path(entry.path, "statm").read_text().split()
                stat = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # gone meanwhile
            memory += int(statm[1]) * page
            # utime, stime, cutime, cstime: the last two hold the children it has reaped
            cpu += sum(int(v) for v in stat[11:15])
            count += 1
        return Usage(memory, cpu / tick, count, 0)

    def kill(self) -> None:
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    if entry.stat().st_uid == self.uid:
                        os.kill(int(entry.name), signal.SIGKILL)
                except (OSError, ProcessLookupError):
                    pass

    def remove(self) -> None:
        pass


class GroupV1(Group):
    mode = "v1"

    def __init__(self, name: str, uid: int, dirs: dict[str, Path]) -> None:
        super().__init__(name, uid)
        self.dirs = dirs

    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs.values()]

    def usage(self) -> Usage:
        memory = _read_int(self.dirs["memory"] / "memory.usage_in_bytes")
        oom = _keyed(self.dirs["memory"] / "memory.oom_control").get("oom_kill", 0)
        cpu = _read_int(self.dirs["cpuacct"] / "cpuacct.usage") / 1e9
        pids = _read_int(self.dirs["pids"] / "pids.current")
        return Usage(memory, cpu, pids, oom)

    def _procs(self) -> list[int]:
        try:
            return [int(p) for p in (self.dirs["pids"] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill(self) -> None:
        # the processes of a group cannot fork past a kill that loops until it is empty
        for _ in range(100):
            procs = self._procs()
            if not procs:
                return
            for pid in procs:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def remove(self) -> None:
        self.kill()
        for d in self.dirs.values():
            _rmdir(d)


class GroupV2(Group):
    mode = "v2"

    def __init__(self, name: str, uid: int, path: Path) -> None:
        super().__init__(name, uid)
        self.path = path

    def procs_files(self) -> list[str]:
        return [str(self.path / "cgroup.procs")]

    def usage(self) -> Usage:
        memory = _read_int(self.path / "memory.current")
        oom = _keyed(self.path / "memory.events").get("oom_kill", 0)
        cpu = _keyed(self.path / "cpu.stat").get("usage_usec", 0) / 1e6
        pids = _read_int(self.path / "pids.current")
        return Usage(memory, cpu, pids, oom)

    def kill(self) -> None:
        try:
            (self.path / "cgroup.kill").write_text("1")
        except OSError:
            super().kill()

    def remove(self) -> None:
        self.kill()
        _rmdir(self.path)


def _rmdir(path: Path) -> None:
    """A group's directory goes once its last process is reaped (EBUSY until then)."""
    for _ in range(200):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            threading.Event().wait(0.01)


@dataclass(frozen=True)
class Quota:
    memory_bytes: int
    processes: int
    cpu_cores: float


class Groups:
    """Makes each sandbox's group, in the way chosen for this host."""

    def __init__(self, mode: str = "auto") -> None:
        if mode not in ("auto", "v2", "v1", "measure"):
            raise CgroupUnavailable(
                f"HOSTED_SANDBOX_CGROUP={mode!r}: expected auto, v2, v1 or measure"
            )
        self.mode = "measure"
        self._v2: Path | None = None
        self._v1: dict[str, Path] = {}
        errors: list[str] = []
        for candidate in ("v2", "v1") if mode == "auto" else (mode,):
            if candidate == "measure":
                break
            try:
                if candidate == "v2":
                    self._v2 = self._setup_v2()
                else:
                    self._v1 = self._setup_v1()
                self.mode = candidate
                break
            except (CgroupUnavailable, OSError) as exc:
                errors.append(f"{candidate}: {exc}")
        if mode in ("v2", "v1") and self.mode != mode:
            raise CgroupUnavailable("; ".join(errors))
        #: why the host fell back to measuring ("" when it did not)
        self.fallback_reason = "; ".join(errors) if self.mode == "measure" else ""

    @staticmethod
    def _setup_v2() -> Path:
        own = _own_groups().get("")
        mount = _mounts().get("")
        if own is None or mount is None:
            raise CgroupUnavailable("no cgroup v2 hierarchy")
        base = mount / own.lstrip("/")
        wanted = {"memory", "pids", "cpu"}
        have = set((base / "cgroup.controllers").read_text().split())
        if not wanted <= have:
            raise CgroupUnavailable(
                f"the host's cgroup {own} is not delegated the {', '.join(sorted(wanted - have))}"
                " controller(s)"
            )
        # no process may sit in a group that hands controllers down: the host moves into
        # a leaf of its own first (every thread goes with the process)
        leaf = base / "host"
        leaf.mkdir(exist_ok=True)
        for pid in (base / "cgroup.procs").read_text().split():
            try:
                (leaf / "cgroup.procs").write_text(pid)
            except OSError:
                pass
        (base / "cgroup.subtree_control").write_text("+memory +pids +cpu")
        parent = base / PARENT
        parent.mkdir(exist_ok=True)
        (parent / "cgroup.subtree_control").write_text("+memory +pids +cpu")
        return parent

    @staticmethod
    def _setup_v1() -> dict[str, Path]:
        own = _own_groups()
        mounts = _mounts()
        dirs: dict[str, Path] = {}
        for controller in ("memory", "pids", "cpu", "cpuacct"):
            if controller not in mounts or controller not in own:
                raise CgroupUnavailable(f"no cgroup v1 {controller} hierarchy")
            parent = mounts[controller] / own[controller].lstrip("/") / PARENT
            parent.mkdir(exist_ok=True)
            if not os.access(parent, os.W_OK):
                raise CgroupUnavailable(f"{parent} is not writable")
            dirs[controller] = parent
        return dirs

    def make(self, name: str, uid: int, quota: Quota) -> Group:
        """A new group for one sandbox, limits set; ``Group.remove()`` when it is done."""
        if self.mode == "v2":
            assert self._v2 is not None
            path = self._v2 / name
            path.mkdir()
            (path / "memory.max").write_text(str(quota.memory_bytes))
            _try_write(path / "memory.swap.max", "0")
            (path / "pids.max").write_text(str(quota.processes))
            (path / "cpu.max").write_text(f"{int(quota.cpu_cores * PERIOD_US)} {PERIOD_US}")
            return GroupV2(name, uid, path)
        if self.mode == "v1":
            dirs = {c: p / name for c, p in self._v1.items()}
            for d in dirs.values():
                d.mkdir(exist_ok=True)
            memory = dirs["memory"]
            (memory / "memory.limit_in_bytes").write_text(str(quota.memory_bytes))
            # swap may not extend it (the file exists where swap accounting is on)
            _try_write(memory / "memory.memsw.limit_in_bytes", str(quota.memory_bytes))
            (dirs["pids"] / "pids.max").write_text(str(quota.processes))
            (dirs["cpu"] / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (dirs["cpu"] / "cpu.cfs_quota_us").write_text(str(int(quota.cpu_cores * PERIOD_US)))
            return GroupV1(name, uid, dirs)
        return Group(name, uid)


def _try_write(path: Path, value: str) -> None:
    try:
        path.write_text(value)
    except OSError:
        pass


def join_argv(group: Group, argv: list[str]) -> list[str]:
    """``argv`` run inside ``group``: a shell joins it, then execs ``argv`` (same pid)."""
    files = group.procs_files()
    if not files:
        return argv
    script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
    return ["/bin/sh", "-c", script, "sh", *files, "--", *argv]


_groups: Groups | None = None
_groups_lock = threading.Lock()


def groups() -> Groups:
    """This process's way of making groups, chosen at the first call."""
    global _groups
    with _groups_lock:
        if _groups is None:
            from django.conf import settings

            _groups = Groups(getattr(settings, "HOSTED_SANDBOX_CGROUP", "auto"))
        return _groups
