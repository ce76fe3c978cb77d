"""Which build of the rules core this process runs: the compiled one (mypyc) where it is
there and current, else the pure Python one, and why (``referee.ENGINE``,
``referee.ENGINE_REASON``).

The compiled modules sit beside their sources (an installed compiled wheel, or the
checkout's in-place build that ``make install`` makes); Python imports an extension module
before the source of the same name, so they win by themselves. Imported first by
``referee/__init__.py``, this module only steps in to make the *sources* win:

* ``AVENUE_ENGINE=pure`` asks for the pure engine (the tests' second pass, a comparison);
* an in-place build older than the sources it was built from (``_compiled.json`` records
  their digest; ``make install`` rebuilds it) is never run: an edit to ``engine.py`` takes
  effect at once, on the pure engine, and says so.

Standard library only, like the rest of the engine.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

HERE = os.path.dirname(os.path.abspath(__file__))
#: the modules mypyc compiles (setup.py builds these): every decision runs through them.
#: actions.py stays pure Python: mypyc turns the ``kind`` ClassVar of its slotted
#: dataclasses into a read-only field the generated __init__ then cannot set; the rest
#: (replays, bots, CLI) is not on the hot path.
COMPILED = (
    "cards",
    "config",
    "events",
    "phases",
    "state",
    "work",
    "effects",
    "legal",
    "direct",
    "engine",
    "turn",
    "observation",
)
#: what an in-place build records: the digest of the sources it compiled
RECORD = os.path.join(HERE, "_compiled.json")


def source_digest(directory: str = HERE) -> str:
    """The digest of the compiled modules' sources in ``directory``."""
    h = hashlib.sha256()
    for name in COMPILED:
        with open(os.path.join(directory, f"{name}.py"), "rb") as source:
            h.update(name.encode() + b"\0" + source.read() + b"\0")
    return h.hexdigest()


def _built() -> bool:
    return any(
        os.path.exists(os.path.join(HERE, f"engine{suffix}"))
        for suffix in importlib.machinery.EXTENSION_SUFFIXES
    )


class _SourcesFirst(importlib.abc.MetaPathFinder):
    """A finder that gives the compiled modules' names their ``.py`` sources."""

    names = {f"referee.{name}" for name in COMPILED}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(
            fullname, os.path.join(HERE, fullname.rsplit(".", 1)[1] + ".py")
        )


def choose() -> tuple[str, str]:
    """("compiled" or "pure", why), having made the sources win where they must."""
    if not _built():
        return "pure", "no compiled build beside the sources"
    reason = ""
    if os.environ.get("AVENUE_ENGINE", "") == "pure":
        reason = "AVENUE_ENGINE=pure"
    elif os.path.exists(RECORD):
        try:
            with open(RECORD) as record:
                built_from = json.load(record).get("digest")
        except (OSError, ValueError):
            built_from = None
        if built_from != source_digest():
            reason = "the compiled build is older than the sources (make install rebuilds it)"
    if reason:
        sys.meta_path.insert(0, _SourcesFirst())
        return "pure", reason
    return "compiled", "mypyc"


#: the build this process runs, chosen once, at the engine's first import
ENGINE, ENGINE_REASON = choose()
