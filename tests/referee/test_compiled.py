"""The compiled engine (mypyc) plays exactly as the pure one, and every process runs the
build it should.

``make install`` builds the compiled engine twice: in place in the checkout
(``referee/*.so``, what the arena's processes run) and as a wheel into .venv/compiled (what
``AVENUE_ENGINE_COMPILE=1 pip install`` gives a bot author). The pure sources
(``AVENUE_ENGINE=pure``) and both builds play the same 2,400 seeded random games
(game_digests.py: six configurations, 400 each) and must print the same digests, which must
also be the ones the engine printed before any speed work (a faster engine that plays
differently fails here). A build older than the sources is never run
(``referee/_selection.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "referee" / "game_digests.py"
COMPILED_PY = ROOT / ".venv" / "compiled" / "bin" / "python"
GAMES = 400

#: printed by game_digests.py 400 on the engine of commit 4bb15a6 (before issue 14 §5)
GOLDEN = {
    "simple-2": "edf1975b62620524177ba39f2804ecf51e531dfc72ce0ead0b8dc6b66ba2fb23",
    "advanced-2": "7b95e48a9e7315c316790c21fd4ebd1bd1e42a6c8be967a1d802f6bbff58c61d",
    "simple-4": "e20e7a4b99dc29ea7d244b59e9884832e51eaf2f37e78590f835adee7d4de84b",
    "advanced-4": "249ada0bb9ad98336281fcbd83bfae5859d683472e33f430e58272378e9e4bf0",
    "advanced-3": "8d721f0f48a4206852a9a98c05fd0ca42f9bee3686d50e9a1aaacb523a4ac6d4",
    "summary-board-2": "500453f2c725251898c5bf2670afbf27a23ebdda18fefa27e6ac06168aa4e4c1",
}


def digests(python: Path | str, *, pure: bool = False) -> dict[str, object]:
    # -I: the interpreter's installed referee (the checkout's, by the editable install)
    env = {k: v for k, v in os.environ.items() if k != "AVENUE_ENGINE"}
    if pure:
        env["AVENUE_ENGINE"] = "pure"
    proc = subprocess.run(
        [str(python), "-I", str(SCRIPT), str(GAMES)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd="/",
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, object] = json.loads(proc.stdout)
    return out


def test_pure_engine_plays_as_before() -> None:
    pure = digests(sys.executable, pure=True)
    assert str(pure["engine"]).endswith("engine.py")
    assert pure["digests"] == GOLDEN


def test_the_in_place_build_plays_as_the_pure_one() -> None:
    assert (ROOT / "referee" / "_compiled.json").exists(), (
        "no compiled engine in the checkout: run `make install` (builds referee/*.so)"
    )
    compiled = digests(sys.executable)
    assert str(compiled["engine"]).endswith(".so"), compiled["engine"]
    assert compiled["digests"] == GOLDEN


def test_compiled_engine_plays_as_the_pure_one() -> None:
    assert COMPILED_PY.exists(), "no compiled engine: run `make install` (builds .venv/compiled)"
    compiled = digests(COMPILED_PY)
    # the extension module, not the source shipped beside it
    assert str(compiled["engine"]).endswith(".so"), compiled["engine"]
    assert compiled["digests"] == GOLDEN


def test_the_tests_import_the_build_they_mean() -> None:
    """``make test`` runs the suite on the compiled engine, then this directory on the pure
    one (``make test-referee-pure``); a run that silently imported the other build would
    prove nothing. Outside make, the build the engine says it chose."""
    import referee
    from referee import engine

    expected = os.environ.get("AVENUE_ENGINE_EXPECT", referee.ENGINE)
    assert referee.ENGINE == expected, (referee.ENGINE, referee.ENGINE_REASON)
    suffix = ".so" if expected == "compiled" else ".py"
    assert engine.__file__ is not None and engine.__file__.endswith(suffix), engine.__file__


def test_a_build_older_than_its_sources_is_never_run(tmp_path: Path) -> None:
    """A copy of the checkout's engine with its build: runs compiled; the same copy with a
    source edited after the build runs the sources, and says why."""
    import shutil

    if not (ROOT / "referee" / "_compiled.json").exists():
        import pytest

        pytest.skip("no in-place build (make install makes one)")
    shutil.copytree(ROOT / "referee", tmp_path / "referee", ignore=shutil.ignore_patterns("build"))
    probe = (
        "import referee, referee.engine as e; "
        "print(referee.ENGINE, e.__file__.rsplit('.', 1)[-1], referee.ENGINE_REASON)"
    )

    def which() -> str:
        env = {k: v for k, v in os.environ.items() if k != "AVENUE_ENGINE"}
        env["PYTHONPATH"] = str(tmp_path)
        return subprocess.run(
            [sys.executable, "-s", "-P", "-c", probe],
            capture_output=True,
            text=True,
            cwd="/",
            env=env,
            check=True,
            timeout=120,
        ).stdout.strip()

    assert which().startswith("compiled so")
    engine_py = tmp_path / "referee" / "engine.py"
    engine_py.write_text(engine_py.read_text() + "\n# edited after the build\n")
    assert which() == (
        "pure py the compiled build is older than the sources (make install rebuilds it)"
    )
