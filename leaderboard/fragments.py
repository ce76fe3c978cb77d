"""Table rows cached one by one, by what they show, read in one cache round trip.

After a result a table is rebuilt, but most of its rows show what they showed before:
each row's HTML is cached under a key made of everything it shows (``key``), all of a
table's rows are read with one ``get_many`` (one Redis round trip, not one per row), and
only the missing ones are rendered (and written back with one ``set_many``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

T = TypeVar("T")
#: a row's HTML lives this long unless evicted (its key changes when what it shows does)
ROW_TIMEOUT_S = 86400


def cached_rows(
    items: Iterable[T],
    key: Callable[[T], str],
    template: str,
    context: Mapping[str, Any],
    name: str = "r",
) -> list[tuple[T, SafeString]]:
    """Each item with its row, rendered from ``template`` with ``context`` plus the item
    as ``name`` unless cached under ``key(item)`` (which must cover the context's part in
    the row too)."""
    rows = list(items)
    keys = [f"row:v1:{template}:{hashlib.sha1(key(item).encode()).hexdigest()}" for item in rows]
    found = cache.get_many(keys)
    missing: dict[str, str] = {}
    out = []
    for item, k in zip(rows, keys, strict=True):
        html = found.get(k)
        if not isinstance(html, str):
            html = render_to_string(template, {**context, name: item})
            missing[k] = html
        out.append((item, mark_safe(html)))  # noqa: S308 - our template's own output
    if missing:
        cache.set_many(missing, timeout=ROW_TIMEOUT_S)
    return out
