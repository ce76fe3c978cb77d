"""The generated protocol code checked in under sdk/ matches proto/ exactly."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GENERATED_ROOT = ROOT / "sdk"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")


def _load_gen_proto():
    spec = importlib.util.spec_from_file_location("gen_proto", ROOT / "scripts" / "gen_proto.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _generated_files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name.endswith(GENERATED_SUFFIXES)
    }


@pytest.mark.processes
def test_checked_in_generated_code_matches_proto(tmp_path: Path) -> None:
    gen_proto = _load_gen_proto()
    cmd = gen_proto.protoc_command(tmp_path)
    assert cmd[1:4] == ["-m", "grpc_tools.protoc", "-Iproto"]
    assert "proto/agent_avenue/v1/arena.proto" in cmd
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr

    fresh = _generated_files(tmp_path)
    checked_in = _generated_files(GENERATED_ROOT)
    assert fresh, "protoc generated nothing"
    missing = sorted(set(fresh) - set(checked_in))
    stale = sorted(set(checked_in) - set(fresh))
    common = set(fresh) & set(checked_in)
    differ = sorted(name for name in common if fresh[name] != checked_in[name])
    assert not (missing or stale or differ), (
        "Generated protocol code under sdk/ is out of date with proto/: run `make proto` "
        f"and commit the result (missing: {missing}, no longer generated: {stale}, "
        f"differ: {differ})"
    )


def test_every_generated_package_has_an_init() -> None:
    for name in _generated_files(GENERATED_ROOT):
        package = (GENERATED_ROOT / name).parent
        while package != GENERATED_ROOT:
            assert (package / "__init__.py").is_file(), f"{package} lacks __init__.py"
            package = package.parent


@pytest.mark.processes
def test_generated_code_imports_without_patching() -> None:
    code = (
        "from agent_avenue.v1 import arena_pb2, arena_pb2_grpc; "
        "assert arena_pb2.DESCRIPTOR.package == 'agent_avenue.v1'; "
        "assert hasattr(arena_pb2_grpc, 'BotArenaStub')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
