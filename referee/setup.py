"""Build of agent-avenue-engine: pure Python unless AVENUE_ENGINE_COMPILE=1 asks for mypyc.

    pip install ./referee                              # pure Python (the default)
    AVENUE_ENGINE_COMPILE=1 pip install ./referee      # the rules core compiled with mypyc

The compiled build ships the .py sources too; Python imports an extension module before
the source of the same name, so the compiled modules win and the rest stays pure Python.
mypyc is a build requirement only when asked (_build/backend.py).
"""

from __future__ import annotations

import json
import os
import runpy

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

#: the modules every decision runs through (their list, and why actions.py is not among
#: them, is in _selection.py, which also picks the build at run time)
COMPILED = [f"{name}.py" for name in runpy.run_path("_selection.py")["COMPILED"]]


def wants_compiled() -> bool:
    return os.environ.get("AVENUE_ENGINE_COMPILE", "") not in ("", "0")


class BuildPy(build_py):  # type: ignore[misc]  # setuptools ships no types here
    """This directory is the package itself: keep the build scripts out of it."""

    def find_package_modules(self, package, package_dir):  # type: ignore[no-untyped-def]
        modules = super().find_package_modules(package, package_dir)
        return [m for m in modules if not (package == "referee" and m[1] == "setup")]


class BuildExt(build_ext):  # type: ignore[misc]
    """An in-place build (``make install``'s, in the checkout) records the digest of the
    sources it compiled, so that a later edit makes the engine run its sources
    (_selection.py) instead of a stale build."""

    def run(self) -> None:
        super().run()
        if self.inplace and self.extensions:
            digest = runpy.run_path("_selection.py")["source_digest"](os.getcwd())
            with open("_compiled.json", "w") as record:
                json.dump({"digest": digest}, record)


ext_modules = []
if wants_compiled():
    from mypyc.build import mypycify

    # the shared library goes inside the package (referee/_engine__mypyc.*.so), so that
    # an in-place build imports from the checkout as an installed one does
    ext_modules = mypycify(
        ["--config-file", "_build/mypyc.ini", *COMPILED],
        opt_level="3",
        group_name="referee._engine",
    )

setup(ext_modules=ext_modules, cmdclass={"build_py": BuildPy, "build_ext": BuildExt})
