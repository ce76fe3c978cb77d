"""The seccomp filter every sandbox runs under: the system calls a bot never needs are
refused, so that only the filter, not the host's sysctls, stands between a bot and the
kernel's riskier interfaces.

Built once per bot host with libseccomp (Debian's ``libseccomp2``, through ``ctypes``:
libseccomp resolves the syscall numbers and writes the BPF program) and handed to
bubblewrap with ``--seccomp FD``, which loads it after the namespaces are built and before
the sandbox's first program runs; every process of the sandbox inherits it and none can
lift it (no-new-privs). Default: allow; every rule below answers its call with an error
(a bot sees ``PermissionError`` or ``OSError``, never a crash it cannot understand), and
a call from another architecture's ABI (x32, i386 on x86_64) kills the process.

``DENIED`` is the list, by reason; ``docs/architecture.md`` compares it with nsjail's and
Docker's defaults.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os

#: syscall name -> why a bot never needs it (each answered with EPERM)
DENIED: dict[str, str] = {
    # new namespaces and mounts: the sandbox's view is the host's to build
    "unshare": "namespaces",
    "setns": "namespaces",
    "mount": "mounts",
    "umount2": "mounts",
    "pivot_root": "mounts",
    "chroot": "mounts",
    "move_mount": "mounts",
    "open_tree": "mounts",
    "fsopen": "mounts",
    "fsconfig": "mounts",
    "fsmount": "mounts",
    "fspick": "mounts",
    "mount_setattr": "mounts",
    # the kernel's keyrings (a channel between sandboxes); keyctl has one exception below
    "add_key": "keyrings",
    "request_key": "keyrings",
    # reading or steering other processes
    "ptrace": "debugging",
    "process_vm_readv": "debugging",
    "process_vm_writev": "debugging",
    "kcmp": "debugging",
    "pidfd_getfd": "debugging",
    # kernel interfaces with a history of privilege escalations
    "bpf": "kernel interface",
    "perf_event_open": "kernel interface",
    "userfaultfd": "kernel interface",
    "io_uring_setup": "kernel interface",
    "io_uring_enter": "kernel interface",
    "io_uring_register": "kernel interface",
    "open_by_handle_at": "kernel interface",
    "name_to_handle_at": "kernel interface",
    "fanotify_init": "kernel interface",
    "lookup_dcookie": "kernel interface",
    "uselib": "kernel interface",
    "mbind": "kernel interface",
    "set_mempolicy": "kernel interface",
    "move_pages": "kernel interface",
    # the machine's own state
    "kexec_load": "machine",
    "kexec_file_load": "machine",
    "init_module": "machine",
    "finit_module": "machine",
    "delete_module": "machine",
    "reboot": "machine",
    "swapon": "machine",
    "swapoff": "machine",
    "acct": "machine",
    "quotactl": "machine",
    "quotactl_fd": "machine",
    "syslog": "machine",
    "iopl": "machine",
    "ioperm": "machine",
    "settimeofday": "machine",
    "clock_settime": "machine",
    "clock_adjtime": "machine",
    "adjtimex": "machine",
    "sethostname": "machine",
    "setdomainname": "machine",
    "vhangup": "machine",
    "_sysctl": "machine",
}

#: clone(2) flags that make a namespace: refused (clone3 is refused as a whole with
#: ENOSYS, so that the C library falls back to clone, whose flags a filter can read)
CLONE_NAMESPACES = {
    "CLONE_NEWTIME": 0x00000080,
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
#: the only socket family a sandbox may open: AF_UNIX (socketpair, multiprocessing); the
#: sandbox has no network anyway, and netlink, packet and the rest are refused here
AF_UNIX = 1
#: keyctl's one allowed operation: join a *new anonymous* session keyring (name NULL),
#: which the sandbox's first program does before the bot's code loads
KEYCTL_JOIN_SESSION_KEYRING = 1
#: ioctls that push input into a terminal
TIOCSTI = 0x5412
TIOCLINUX = 0x541C

_ACT_ALLOW = 0x7FFF0000


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


_CMP_NE = 1
_CMP_EQ = 4
_CMP_MASKED_EQ = 7


class _ArgCmp(ctypes.Structure):
    _fields_ = [
        ("arg", ctypes.c_uint),
        ("op", ctypes.c_int),
        ("datum_a", ctypes.c_uint64),
        ("datum_b", ctypes.c_uint64),
    ]


class SeccompUnavailable(RuntimeError):
    """The filter cannot be built here (no libseccomp)."""


def _library() -> ctypes.CDLL:
    name = ctypes.util.find_library("seccomp")
    if name is None:
        raise SeccompUnavailable(
            "libseccomp is missing: install Debian's libseccomp2 (scripts/ensure_bubblewrap.sh)"
        )
    lib = ctypes.CDLL(name, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    lib.seccomp_syscall_resolve_name.restype = ctypes.c_int
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.restype = ctypes.c_int
    lib.seccomp_rule_add_array.argtypes = [
        ctypes.c_void_p,
        ctypes.c_uint32,
        ctypes.c_int,
        ctypes.c_uint,
        ctypes.POINTER(_ArgCmp),
    ]
    lib.seccomp_export_bpf.restype = ctypes.c_int
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    return lib


class _Filter:
    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        self.ctx = lib.seccomp_init(_ACT_ALLOW)
        if not self.ctx:
            raise SeccompUnavailable("seccomp_init failed")

    def rule(self, name: str, code: int, *cmps: tuple[int, int, int, int]) -> None:
        number = self.lib.seccomp_syscall_resolve_name(name.encode())
        if number < 0:
            return  # not a system call of this architecture (e.g. iopl on arm64)
        array = (_ArgCmp * max(1, len(cmps)))(*[_ArgCmp(*c) for c in cmps])
        rc = self.lib.seccomp_rule_add_array(self.ctx, _act_errno(code), number, len(cmps), array)
        if rc < 0:
            raise SeccompUnavailable(f"seccomp rule for {name}: {os.strerror(-rc)}")

    def export(self) -> bytes:
        read, write = os.pipe()
        try:
            rc = self.lib.seccomp_export_bpf(self.ctx, write)
            os.close(write)
            write = -1
            if rc < 0:
                raise SeccompUnavailable(f"seccomp_export_bpf: {os.strerror(-rc)}")
            chunks = []
            while chunk := os.read(read, 1 << 16):
                chunks.append(chunk)
            return b"".join(chunks)
        finally:
            if write >= 0:
                os.close(write)
            os.close(read)

    def release(self) -> None:
        self.lib.seccomp_release(self.ctx)


@functools.cache
def program() -> bytes:
    """The filter as a BPF program (what ``bwrap --seccomp`` reads), built once."""
    f = _Filter(_library())
    try:
        for name in DENIED:
            f.rule(name, errno.EPERM)
        f.rule("clone3", errno.ENOSYS)
        for flag in CLONE_NAMESPACES.values():
            f.rule("clone", errno.EPERM, (0, _CMP_MASKED_EQ, flag, flag))
        f.rule("socket", errno.EAFNOSUPPORT, (0, _CMP_NE, AF_UNIX, 0))
        f.rule("socketpair", errno.EAFNOSUPPORT, (0, _CMP_NE, AF_UNIX, 0))
        join = KEYCTL_JOIN_SESSION_KEYRING
        f.rule("keyctl", errno.EPERM, (0, _CMP_NE, join, 0))
        f.rule("keyctl", errno.EPERM, (0, _CMP_EQ, join, 0), (1, _CMP_NE, 0, 0))
        for request in (TIOCSTI, TIOCLINUX):
            f.rule("ioctl", errno.EPERM, (1, _CMP_EQ, request, 0))
        return f.export()
    finally:
        f.release()


def program_fd() -> int:
    """A fresh read-only descriptor holding ``program()`` at offset 0, for one bwrap."""
    fd = os.memfd_create("avenue-seccomp", os.MFD_CLOEXEC)
    os.write(fd, program())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
