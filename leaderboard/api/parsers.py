"""The API's JSON parser, bounded in nesting depth.

Python's json module recurses once per level: a body of 1,000 nested ``[`` ran out of
stack (``RecursionError``) and answered 500. No request of this API nests more than a few
levels, so anything deeper than ``MAX_DEPTH`` is refused with 400 before it is parsed.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.utils import json

MAX_DEPTH = 32
#: JSON strings (whose brackets do not nest), then the brackets that do
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[\[\]{}]")


def nesting_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text`` (JSON or not)."""
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


class BoundedJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        try:
            text = codecs.getreader(encoding)(stream).read()
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - the body is not {encoding}: {exc}") from None
        if (depth := nesting_depth(text)) > MAX_DEPTH:
            raise ParseError(
                f"JSON parse error - nested {depth} levels deep; this API takes at most {MAX_DEPTH}"
            )
        try:
            parse_constant = json.strict_constant if self.strict else None
            return json.loads(text, parse_constant=parse_constant)
        except (ValueError, RecursionError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
