"""Hostile hosted bots for the sandbox's tests: each tries its attack inside ``decide`` and
prints ``ESCAPED`` if it worked (then carries on), so that a test can never pass by an
attack that silently worked. ``check`` runs one through the real upload check."""

from __future__ import annotations

import pytest

from arena.adapters.bothost import probe
from arena.adapters.bothost.check import CheckResult, run_check
from arena.adapters.bothost.sandbox import Limits, SandboxUnavailable


def require_sandbox() -> None:
    """Skip the module where no sandbox can be set up (``make test`` installs one)."""
    try:
        probe.check_available()
    except SandboxUnavailable as exc:  # pragma: no cover - make test installs bubblewrap
        pytest.skip(f"no sandbox here: {exc}", allow_module_level=True)


GOOD = b"""
from avenue_sdk import Bot


class Mine(Bot):
    def decide(self, request):
        return len(request.legal) - 1
"""

LIMITS = Limits(
    cpu_seconds=5,
    address_space=1 << 30,
    processes=32,
    open_files=64,
    tmp_bytes=16 << 20,
    wall_seconds=60,
    load_seconds=30,
)

PRELUDE = (
    "import ctypes, errno, os, socket, sys, time\n"
    "from avenue_sdk import Bot\n\n"
    "libc = ctypes.CDLL(None, use_errno=True)\n\n\n"
    "def call(name, *args):\n"
    "    rc = getattr(libc, name)(*args)\n"
    "    return rc, ctypes.get_errno()\n\n\n"
)


def hostile(body: str, init: str = "") -> dict[str, bytes]:
    """A bot whose first decision runs ``body`` (indented into ``decide``), and whose
    ``__init__`` runs ``init``."""
    code = PRELUDE + "class Mine(Bot):\n"
    code += "    def __init__(self):\n        super().__init__()\n"
    code += "".join(f"        {line}\n" for line in init.strip().splitlines())
    code += "    def decide(self, request):\n"
    code += "".join(f"        {line}\n" for line in body.strip().splitlines())
    code += "        return 0\n"
    return {"mine.py": code.encode()}


def check(files: dict[str, bytes], limits: Limits = LIMITS, **kw: int) -> CheckResult:
    return run_check(files, "mine:Mine", limits, **kw)


def contained(result: CheckResult, cause: str, says: str) -> None:
    assert "ESCAPED" not in result.log, result.log
    assert not result.passed, result.log
    assert result.cause == cause, result.log
    assert says in result.log, result.log
