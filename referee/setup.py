"""Build of agent-avenue-engine: pure Python unless AVENUE_ENGINE_COMPILE=1 asks for mypyc.

    pip install ./referee                              # pure Python (the default)
    AVENUE_ENGINE_COMPILE=1 pip install ./referee      # the rules core compiled with mypyc

The compiled build ships the .py sources too; Python imports an extension module before
the source of the same name, so the compiled modules win and the rest stays pure Python.
mypyc is a build requirement only when asked (_build/backend.py).
"""

from __future__ import annotations

import os

from setuptools import setup
from setuptools.command.build_py import build_py

#: the modules every decision runs through. actions.py stays pure Python: mypyc turns the
#: ``kind`` ClassVar of its slotted dataclasses into a read-only field the generated
#: __init__ then cannot set; the rest (replays, bots, CLI) is not on the hot path.
COMPILED = [
    "cards.py",
    "config.py",
    "events.py",
    "phases.py",
    "state.py",
    "work.py",
    "effects.py",
    "legal.py",
    "direct.py",
    "engine.py",
    "turn.py",
    "observation.py",
]


def wants_compiled() -> bool:
    return os.environ.get("AVENUE_ENGINE_COMPILE", "") not in ("", "0")


class BuildPy(build_py):  # type: ignore[misc]  # setuptools ships no types here
    """This directory is the package itself: keep the build scripts out of it."""

    def find_package_modules(self, package, package_dir):  # type: ignore[no-untyped-def]
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if not (package == "referee" and m[1] == "setup")]


ext_modules = []
if wants_compiled():
    from mypyc.build import mypycify

    ext_modules = mypycify(["--config-file", "_build/mypyc.ini", *COMPILED], opt_level="3")

setup(ext_modules=ext_modules, cmdclass={"build_py": BuildPy})
