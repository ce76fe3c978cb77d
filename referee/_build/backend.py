"""setuptools' build backend, plus mypy (which carries mypyc) as a build requirement when
AVENUE_ENGINE_COMPILE=1 asks for the compiled engine (setup.py); a plain build needs only
setuptools."""

from __future__ import annotations

import os

from setuptools.build_meta import *  # noqa: F403 - this module is that backend, extended

#: the range of the project's own mypy (pyproject.toml [dev]); mypyc ships inside mypy
MYPYC = ["mypy>=1.13,<2"]


def _extra() -> list[str]:
    return MYPYC if os.environ.get("AVENUE_ENGINE_COMPILE", "") not in ("", "0") else []


# setuptools' own get_requires_* run setup.py to collect setup_requires (there are none),
# which would import mypyc before it is installed: answer without running it.


def get_requires_for_build_wheel(config_settings=None):  # type: ignore[no-untyped-def]
    return _extra()


def get_requires_for_build_editable(config_settings=None):  # type: ignore[no-untyped-def]
    return _extra()
