"""The one rule for bot names, used by every way in: site forms, the API, management
commands, URL converters, services, the database (a check constraint).

ASCII letters, digits, ``-``, ``_`` and ``.``, 1 to 64 of them, not starting with a dot.
ASCII only because names are URL path segments and must look like what they are (``г1``
and ``ｒ１`` are not ``r1``); no leading dot because ``.`` and ``..`` collapse URLs and
dot-names hide as files in bots' log directories.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container

MAX_LENGTH = 64
#: the rule as a regular expression without anchors (URL converters add their own)
PATTERN = r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}"
#: the same for an HTML ``pattern`` attribute (compiled with the ``v`` flag, where a
#: literal ``-`` in a class must be escaped)
HTML_PATTERN = r"[A-Za-z0-9_\-][A-Za-z0-9._\-]{0,63}"
#: the same anchored for both Python and PostgreSQL (``$`` would let a final newline in)
ANCHORED = rf"\A{PATTERN}\Z"
RULE = "1-64 ASCII letters, digits, '-', '_' or '.', not starting with '.'"

_NAME = re.compile(ANCHORED)


class BotNameError(ValueError):
    """A bot name that breaks the rule."""


def is_valid(name: str) -> bool:
    return _NAME.match(name) is not None


def check(name: str) -> None:
    """Raise ``BotNameError`` saying what the rule is unless ``name`` keeps it."""
    if not is_valid(name):
        shown = name if len(name) <= MAX_LENGTH + 16 else name[: MAX_LENGTH + 16] + "..."
        raise BotNameError(f"bad bot name {shown!r}: use {RULE}")


def repaired(name: str, taken: Container[str], salt: str) -> str:
    """A valid name for ``name`` that is not in ``taken``, the same for the same inputs
    (the migration renaming old names uses it; ``salt`` is e.g. the bot's id).

    Compatibility forms fold first (``ｒ１`` -> ``r1``), accents drop (``é`` -> ``e``),
    anything else becomes ``_``; a leading dot goes; a clash gets ``-<salt>`` appended.
    """
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name))
    ascii_only = "".join(c for c in folded if not unicodedata.combining(c))
    base = re.sub(r"[^A-Za-z0-9._-]", "_", ascii_only).lstrip(".") or "bot"
    candidate = base[:MAX_LENGTH]
    n = 0
    while candidate in taken or not is_valid(candidate):
        suffix = f"-{salt}" + (f"-{n}" if n else "")
        candidate = base[: MAX_LENGTH - len(suffix)] + suffix
        n += 1
    return candidate
