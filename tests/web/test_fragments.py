"""Page sections and rows cached by what they show (``leaderboard.fragments``): a section
is built again only when its key changed, and the others are served as cached."""

from __future__ import annotations

import threading
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


def test_a_section_being_rebuilt_is_served_as_last_built_meanwhile() -> None:
    """A result moves a page's version for every visitor at once: the first request builds
    the new version, and the requests that come while it builds get the last build
    instead of building it too; once built, everyone gets the new one."""
    run = uuid.uuid4().hex
    builds: list[str] = []
    started, release = threading.Event(), threading.Event()

    def section(version: str, wait: bool = False) -> dict[str, tuple[str, Callable[[], str]]]:
        def make() -> str:
            builds.append(version)
            if wait:
                started.set()
                assert release.wait(60)
            return f"<p>{version}</p>"

        return {"page": (f"{run}:page:{version}", make)}

    latest = {"page": f"{run}:page"}
    assert fragments.cached_sections(section("v1"), latest)["page"] == "<p>v1</p>"

    first: dict[str, SafeString] = {}
    builder = threading.Thread(
        target=lambda: first.update(fragments.cached_sections(section("v2", wait=True), latest))
    )
    builder.start()
    try:
        assert started.wait(60)
        # meanwhile: the last build, not a second build of v2
        assert fragments.cached_sections(section("v2"), latest)["page"] == "<p>v1</p>"
        assert builds == ["v1", "v2"]
    finally:
        release.set()
        builder.join(60)
    assert first["page"] == "<p>v2</p>"
    # built: everyone gets it, from the cache
    assert fragments.cached_sections(section("v2"), latest)["page"] == "<p>v2</p>"
    assert builds == ["v1", "v2"]


def test_a_rebuild_that_failed_holds_no_one_back() -> None:
    run = uuid.uuid4().hex
    latest = {"page": f"{run}:page"}
    fragments.cached_sections({"page": (f"{run}:page:v0", lambda: "<p>v0</p>")}, latest)

    def failing() -> str:
        raise RuntimeError("the build failed")

    with pytest.raises(RuntimeError):
        fragments.cached_sections({"page": (f"{run}:page:v1", failing)}, latest)
    # the failed build let go of its claim: the next request builds the same version (a
    # claim still held would have served it v0)
    made = fragments.cached_sections({"page": (f"{run}:page:v1", lambda: "<p>v1</p>")}, latest)
    assert made["page"] == "<p>v1</p>"
