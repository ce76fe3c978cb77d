"""Table rows and page sections cached one by one, by what they show, read in one cache
round trip.

After a result a table is rebuilt, but most of its rows show what they showed before:
each row's HTML is cached under a key made of everything it shows, all of a table's rows
are read with one ``get_many`` (one Redis round trip, not one per row), and only the
missing ones are rendered (and written back with one ``set_many``).

``rows_by_key`` needs only each row's key to start with: what a row needs to be rendered
(model instances with their related rows, say) is loaded for the missing rows alone, so a
table most of whose rows are cached costs the lean read of its keys and one ``get_many``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, TypeVar

from django.core.cache import cache
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
#: a row's HTML lives this long unless evicted (its key changes when what it shows does)
ROW_TIMEOUT_S = 86400


def rows_by_key(
    template: str,
    keyed: Sequence[tuple[K, str]],
    render: Callable[[list[K]], Mapping[K, str]],
) -> list[tuple[K, SafeString]]:
    """Each ``(ident, key)`` with its row: cached under ``key`` (which must cover all the
    row shows), else rendered by ``render(missing idents) -> {ident: html}``."""
    keys = [f"row:v1:{template}:{hashlib.sha1(key.encode()).hexdigest()}" for _, key in keyed]
    found = cache.get_many(keys)
    missing = [
        ident
        for (ident, _), k in zip(keyed, keys, strict=True)
        if not isinstance(found.get(k), str)
    ]
    made = render(missing) if missing else {}
    out: list[tuple[K, SafeString]] = []
    fresh: dict[str, str] = {}
    for (ident, _), k in zip(keyed, keys, strict=True):
        html = found.get(k)
        if not isinstance(html, str):
            html = fresh[k] = made[ident]
        out.append((ident, mark_safe(html)))  # noqa: S308 - our template's own output
    _store(fresh)
    return out


#: rows rendered while a page's sections are built, written with the sections in one
#: ``set_many`` (``cached_sections``) instead of one per table
_pending: ContextVar[dict[str, str] | None] = ContextVar("fragments_pending", default=None)


def _store(fresh: dict[str, str]) -> None:
    if not fresh:
        return
    pending = _pending.get()
    if pending is None:
        cache.set_many(fresh, timeout=ROW_TIMEOUT_S)
    else:
        pending.update(fresh)


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

    def render(missing: list[int]) -> dict[int, str]:
        return {i: render_to_string(template, {**context, name: rows[i]}) for i in missing}

    found = rows_by_key(template, [(i, key(item)) for i, item in enumerate(rows)], render)
    return [(rows[i], html) for i, html in found]


#: a section being rebuilt is claimed for this long at most (its builder died: the next
#: request builds it)
REBUILD_CLAIM_S = 10


def cached_sections(
    sections: Mapping[str, tuple[str, Callable[[], str]]],
    latest: Mapping[str, str] | None = None,
) -> dict[str, SafeString]:
    """A page's sections, each ``name: (key, build)`` cached whole under ``key`` (which
    must cover all it shows): one ``get_many`` for all of them, ``build()`` only for the
    missing ones, one ``set_many`` back. The page joins the strings: a ``{% cache %}``
    tag per section would cost a cache round trip each and a template walk around them.

    ``latest[name]`` names what a section is of, without its version (a league's
    standings as sorted, a bot's body for a league): its last build is kept under that
    name too, and while one request rebuilds a section whose key moved (it claims the
    build with ``cache.add``), the requests that come meanwhile are served that last
    build instead of building it again each (a result made the key move for every
    visitor at once: 50 clients rebuilt the same bot page together). Such a page is at
    most one build behind, for the time of that build; a request with nothing built
    before, or whose builder is gone (``REBUILD_CLAIM_S``), builds it."""
    latest = latest or {}
    keys = {
        name: f"section:v1:{name}:{hashlib.sha1(key.encode()).hexdigest()}"
        for name, (key, _) in sections.items()
    }
    last = {
        name: f"section:latest:{name}:{hashlib.sha1(ident.encode()).hexdigest()}"
        for name, ident in latest.items()
        if name in sections
    }
    found = cache.get_many([*keys.values(), *last.values()])
    out: dict[str, SafeString] = {}
    fresh: dict[str, str] = {}
    claims: list[str] = []
    token = _pending.set({})
    try:
        for name, (_, build) in sections.items():
            html = found.get(keys[name])
            if not isinstance(html, str) and name in last:
                claim = f"section:building:{keys[name]}"
                before = found.get(last[name])
                if cache.add(claim, 1, timeout=REBUILD_CLAIM_S):
                    claims.append(claim)
                elif isinstance(before, str):
                    html = before  # another request is building this version
            if not isinstance(html, str):
                html = fresh[keys[name]] = build()
                if name in last:
                    fresh[last[name]] = html
            out[name] = mark_safe(html)  # noqa: S308 - our templates' own output
        rows = _pending.get() or {}
    except BaseException:
        _pending.reset(token)
        if claims:  # a build that raised lets go of its claims
            cache.delete_many(claims)
        raise
    _pending.reset(token)
    # the rows the builds rendered and the sections, in one round trip; then the claims
    # let go
    _store({**rows, **fresh})
    if claims:
        cache.delete_many(claims)
    return out


def joined(rows: Iterable[tuple[Any, str]], empty: str) -> SafeString:
    """A table body of cached rows joined here (a template loop over them costs a context
    push and lookups per row), or ``empty`` (our own markup) when there is none."""
    parts = [html for _, html in rows]
    return mark_safe("\n".join(parts) if parts else empty)  # noqa: S308 - our rows' HTML
