"""`pip install ./sdk` in a fresh virtual environment, outside the repository: it brings
the engine (referee) and the SDK, and nothing of the server (no Django)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.processes]


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with only `pip install ./sdk`, from a copy of sdk/ and referee/ (an in-tree
    build would leave build/ and egg-info behind in the repository)."""
    base = tmp_path_factory.mktemp("fresh")
    for name in ("sdk", "referee"):
        shutil.copytree(
            ROOT / name,
            base / "src" / name,
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"),
        )
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            str(base / "src" / "sdk"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=base,
    )
    assert pip.returncode == 0, pip.stdout + pip.stderr
    return venv


def test_sdk_brings_the_engine_and_not_the_server(fresh_venv: Path, tmp_path: Path) -> None:
    probe = (
        "import importlib.metadata as md, importlib.util, sys\n"
        "import referee, avenue_sdk, avenue_sdk.sim, avenue_sdk.local, avenue_sdk.house\n"
        "from avenue_sdk.protocol import convert\n"
        "print(referee.__file__)\n"
        "print(md.version('agent-avenue-engine'), referee.__version__)\n"
        "print(importlib.util.find_spec('django') is None, 'django' in sys.modules)\n"
    )
    out = subprocess.run(
        [str(fresh_venv / "bin" / "python"), "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,  # not the repository: nothing importable from the working directory
    )
    assert out.returncode == 0, out.stderr
    where, versions, django = out.stdout.splitlines()
    assert str(fresh_venv) in where, "referee must come from the venv, not the repository"
    engine, declared = versions.split()
    assert engine == declared
    assert django == "True False"


def test_local_arena_runs_in_the_fresh_venv(fresh_venv: Path, tmp_path: Path) -> None:
    out = subprocess.run(
        [
            str(fresh_venv / "bin" / "python"),
            "-m",
            "avenue_sdk",
            "play",
            "avenue_sdk.examples.random_bot:RandomBot",
            "greedy",
            "--games",
            "4",
            "--seed",
            "5",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "4 games" in out.stdout and "Wilson" in out.stdout
