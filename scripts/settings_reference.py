"""Write docs/configuration.md, the configuration reference, from config/settings.py itself.

Every environment variable the settings read goes through one of ``arena.env``'s readers
(``env_str``, ``env_bool``, ``env_int``, ``env_list``). This script reads the settings'
source (it runs none of it, so the reference does not depend on this machine's
environment or paths) and writes one row per variable: its name, its kind, its default as
the code spells it, its bounds, the setting it feeds and the comment above the read (the
``#:`` or ``#`` lines directly above the call, else above its statement). The sections are
the settings' own ``# ---- name`` headers.

    .venv/bin/python scripts/settings_reference.py          # rewrite docs/configuration.md
    .venv/bin/python scripts/settings_reference.py --check  # exit 1 if it is out of date

``tests/foundation/test_configuration_doc.py`` fails while the file differs from what this
writes, so the reference cannot drift from the settings.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "config" / "settings.py"
OUTPUT = ROOT / "docs" / "configuration.md"
COMMAND = "python scripts/settings_reference.py"

READERS = {"env_str": "string", "env_bool": "boolean", "env_int": "integer", "env_list": "list"}
SECTION = re.compile(r"^# -{8,} (.+)$")


@dataclass
class Read:
    """One read of a variable in the settings."""

    name: str
    kind: str
    default: str
    bounds: str
    setting: str
    doc: str
    section: str


def _comment_above(lines: list[str], lineno: int) -> list[str]:
    """The comment lines directly above line ``lineno`` (1-based), without their ``#``."""
    out: list[str] = []
    i = lineno - 2
    while i >= 0:
        text = lines[i].strip()
        if not text.startswith("#") or SECTION.match(text):
            break
        out.append(re.sub(r"^#:? ?", "", text))
        i -= 1
    return out[::-1]


def _constant(node: ast.expr) -> object:
    """The value of a literal, or of arithmetic on literals; ``ValueError`` otherwise."""
    if isinstance(node, ast.BinOp):
        left, right = _constant(node.left), _constant(node.right)
        if isinstance(left, int) and isinstance(right, int):
            ops = {ast.Mult: left * right, ast.Add: left + right, ast.Sub: left - right}
            for op, value in ops.items():
                if isinstance(node.op, op):
                    return value
        raise ValueError("not constant")
    return ast.literal_eval(node)


def _default(call: ast.Call, source: str) -> str:
    node = next((k.value for k in call.keywords if k.arg == "default"), None)
    if node is None:
        node = call.args[1] if len(call.args) > 1 else None
    if node is None:
        return "**required**"
    try:
        value = _constant(node)
    except ValueError:
        return f"`{ast.get_source_segment(source, node)}`"
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "`1`" if value else "`0`"
    if isinstance(value, list):
        return f"`{','.join(map(str, value))}`" if value else "none"
    if value == "":
        return "empty"
    return f"`{value}`"


def _bounds(call: ast.Call) -> str:
    found = {k.arg: _constant(k.value) for k in call.keywords if k.arg in ("minimum", "maximum")}
    low, high = found.get("minimum"), found.get("maximum")
    if low is not None and high is not None:
        return f"{low} to {high}"
    if low is not None:
        return f"≥ {low}"
    if high is not None:
        return f"≤ {high}"
    return ""


def _setting(statement: ast.stmt, call: ast.Call) -> str:
    """The setting a read feeds: the assigned name, with the key or index it sits under."""
    if not isinstance(statement, ast.Assign | ast.AnnAssign):
        return ""
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
    if not isinstance(target, ast.Name):
        return ""
    value = statement.value
    if isinstance(value, ast.Dict):
        for key, item in zip(value.keys, value.values, strict=True):
            if isinstance(key, ast.Constant) and any(n is call for n in ast.walk(item)):
                return f'{target.id}["{key.value!s}"]'
    if isinstance(value, ast.Tuple):
        for i, item in enumerate(value.elts):
            if any(n is call for n in ast.walk(item)):
                return f"{target.id}[{i}]"
    return target.id


def _statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements in source order, those inside a top-level ``if`` or ``try`` in their place
    (an ``if`` stands for its test, which may read a variable too)."""
    out: list[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If):
            out.append(statement)
            out.extend(_statements([*statement.body, *statement.orelse]))
        elif isinstance(statement, ast.Try):
            out.extend(_statements([*statement.body, *statement.orelse, *statement.finalbody]))
        else:
            out.append(statement)
    return out


def reads(path: Path = SETTINGS) -> list[Read]:
    """Every read of an environment variable in the settings, in source order."""
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    sections = [(i + 1, m.group(1)) for i, line in enumerate(lines) if (m := SECTION.match(line))]
    found: list[Read] = []
    for statement in _statements(tree.body):
        scope = statement.test if isinstance(statement, ast.If) else statement
        calls = [
            n
            for n in ast.walk(scope)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in READERS
        ]
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            name, reader = call.args[0], call.func
            assert isinstance(name, ast.Constant) and isinstance(name.value, str), ast.dump(call)
            assert isinstance(reader, ast.Name)
            doc = _comment_above(lines, call.lineno) or _comment_above(lines, statement.lineno)
            section = next((s for line, s in reversed(sections) if line < call.lineno), "")
            found.append(
                Read(
                    name=name.value,
                    kind=READERS[reader.id],
                    default=_default(call, source),
                    bounds=_bounds(call),
                    setting=_setting(statement, call),
                    doc=" ".join(doc),
                    section=section,
                )
            )
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render(found: list[Read]) -> str:
    """docs/configuration.md: a table per section of the settings, a row per variable (a
    variable read in more than one place has one row, its defaults side by side)."""
    by_name: dict[str, list[Read]] = {}
    for read in found:
        by_name.setdefault(read.name, []).append(read)
    sections: dict[str, list[str]] = {}
    for name, group in by_name.items():
        defaults = "; ".join(dict.fromkeys(r.default for r in group))
        settings = ", ".join(dict.fromkeys(f"`{r.setting}`" for r in group if r.setting))
        doc = " ".join(dict.fromkeys(r.doc for r in group if r.doc))
        cells = [f"`{name}`", group[0].kind, defaults, group[0].bounds, settings, doc]
        row = "| " + " | ".join(_cell(c) for c in cells) + " |"
        sections.setdefault(group[0].section, []).append(row)
    out = [
        "# Configuration reference",
        "",
        f"<!-- Generated by `{COMMAND}` from config/settings.py: do not edit by hand. -->",
        "",
        "Every environment variable the arena's settings (`config/settings.py`) read, written by",
        f"`{COMMAND}` from the settings' source, so it cannot drift from them:",
        "`tests/foundation/test_configuration_doc.py` fails while this page differs from what",
        "the script writes. Each is read by a strict reader of `arena/env.py`: a value of the",
        "wrong kind or out of bounds stops the process at start with `ImproperlyConfigured`",
        "naming the variable; an empty value counts as unset. Booleans are spelled `1`/`0`,",
        "`true`/`false`, `yes`/`no` or `on`/`off`; lists are comma-separated. A default in",
        "code form is the settings' own expression. `.env.example` is a commented starting",
        "point for a deployment's environment; how to run and tune one is in",
        "[operations.md](operations.md).",
    ]
    for section, rows in sections.items():
        out += [
            "",
            f"## {section if section[1:2].isupper() else section[:1].upper() + section[1:]}",
            "",
            "| variable | kind | default | bounds | setting | meaning |",
            "|---|---|---|---|---|---|",
            *rows,
        ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render(reads())
    if args.check:
        if not OUTPUT.exists() or OUTPUT.read_text() != text:
            print(f"{OUTPUT.relative_to(ROOT)} is out of date: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text)
    print(f"wrote {OUTPUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
