"""Page sections and rows cached by what they show (``leaderboard.fragments``): a section
is built again only when its key changed, and the others are served as cached."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from django.utils.safestring import SafeString

from leaderboard import fragments

pytestmark = pytest.mark.django_db


def test_only_the_sections_whose_key_changed_are_built_again() -> None:
    run = uuid.uuid4().hex  # keys of this test's own
    built: list[str] = []

    def build(name: str, text: str) -> tuple[str, Callable[[], str]]:
        def make() -> str:
            built.append(name)
            return f"<p>{text}</p>"

        return f"{run}:{name}:{text}", make

    first = fragments.cached_sections({"a": build("a", "one"), "b": build("b", "one")})
    assert built == ["a", "b"]
    assert first == {"a": "<p>one</p>", "b": "<p>one</p>"}
    assert all(isinstance(html, SafeString) for html in first.values())

    again = fragments.cached_sections({"a": build("a", "one"), "b": build("b", "one")})
    assert built == ["a", "b"] and again == first

    # the key covers what the section shows: a new one is built, the other still cached
    moved = fragments.cached_sections({"a": build("a", "two"), "b": build("b", "one")})
    assert built == ["a", "b", "a"]
    assert moved == {"a": "<p>two</p>", "b": "<p>one</p>"}


def test_joined_rows_or_the_empty_markup() -> None:
    rows = [(1, "<tr><td>1</td></tr>"), (2, "<tr><td>2</td></tr>")]
    assert fragments.joined(rows, "<tr><td>none</td></tr>") == (
        "<tr><td>1</td></tr>\n<tr><td>2</td></tr>"
    )
    empty = fragments.joined([], "<tr><td>none</td></tr>")
    assert empty == "<tr><td>none</td></tr>" and isinstance(empty, SafeString)


def test_rows_rendered_while_sections_are_built_are_cached_with_them() -> None:
    run = uuid.uuid4().hex
    renders: list[int] = []

    def rows() -> str:
        def render(missing: list[int]) -> dict[int, str]:
            renders.extend(missing)
            return {i: f"<tr><td>{i}</td></tr>" for i in missing}

        keyed = [(i, f"{run}:row:{i}") for i in (1, 2)]
        return fragments.joined(fragments.rows_by_key("test-rows", keyed, render), "")

    first = fragments.cached_sections({"table": (f"{run}:table:1", rows)})
    assert renders == [1, 2]
    # the section is stale, its rows are not: they were written with the first section
    again = fragments.cached_sections({"table": (f"{run}:table:2", rows)})
    assert renders == [1, 2] and again == first
