"""docs/configuration.md is what scripts/settings_reference.py writes from config/settings.py
now: a variable added, renamed, re-defaulted or re-bounded in the settings without running
the script fails here, so the reference cannot drift."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "settings_reference", ROOT / "scripts" / "settings_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("settings_reference", module)
    spec.loader.exec_module(module)
    return module


def test_configuration_doc_is_what_the_script_writes() -> None:
    script = _script()
    written = (ROOT / "docs" / "configuration.md").read_text()
    assert written == script.render(script.reads()), (
        "docs/configuration.md is out of date with config/settings.py: "
        "regenerate it with `.venv/bin/python scripts/settings_reference.py` and commit it"
    )


def test_every_variable_has_a_meaning_and_a_known_setting() -> None:
    """Each variable has a comment to show, and the setting it names exists."""
    script = _script()
    reads = script.reads()
    names = {r.name for r in reads}
    assert len(names) >= 60, "the settings read fewer variables than expected"
    assert sorted(names - {r.name for r in reads if r.doc}) == [], "variables with no comment"
    for r in reads:
        if r.setting:
            assert hasattr(settings, r.setting.split("[")[0]), r.setting
