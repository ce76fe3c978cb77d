"""The Rules page: docs/rules.md and docs/rulings.md, the files the referee is held to,
rendered once per process (they change only with a deploy).

Headings get the ids GitHub gives them (a file's title is ``#rules`` / ``#rulings``), so
the contents line and every "rules section N" link work the same on the site and in the
repository; links between the two files become links within the page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from django.conf import settings
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.token import Token

DOCS = Path(settings.BASE_DIR) / "docs"
FILES = ("rules.md", "rulings.md")
#: a link from one file to the other, e.g. ``rulings.md`` or ``rules.md#7-advanced-mode``
_CROSS = re.compile(r"^(rules|rulings)\.md(#.*)?$")


def slug(text: str) -> str:
    """GitHub's heading id: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


@dataclass(frozen=True)
class Section:
    id: str
    title: str


@dataclass(frozen=True)
class RulesPage:
    html: SafeString
    sections: tuple[Section, ...]


def _md() -> MarkdownIt:
    # commonmark escapes raw HTML in the files (html=False): the page shows text only
    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _annotate(tokens: list[Token], stem: str, sections: list[Section]) -> None:
    """Heading ids (a file's title is ``#rules`` / ``#rulings``), the h2s and the rulings'
    title as the contents, and links between the two files turned into in-page links."""
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            title = tokens[i + 1].content
            token.attrSet("id", stem if token.tag == "h1" else slug(title))
            if token.tag == "h2" or (token.tag == "h1" and stem == "rulings"):
                sections.append(Section(str(token.attrGet("id")), title))
        elif token.type == "inline" and token.children:
            for child in token.children:
                href = child.attrGet("href") if child.type == "link_open" else None
                if isinstance(href, str) and (m := _CROSS.match(href)):
                    child.attrSet("href", m.group(2) or f"#{m.group(1)}")


@cache
def rules_page() -> RulesPage:
    md = _md()
    sections: list[Section] = []
    parts = []
    for name in FILES:
        tokens = md.parse((DOCS / name).read_text(encoding="utf-8"))
        _annotate(tokens, name.removesuffix(".md"), sections)
        parts.append(md.renderer.render(tokens, md.options, {}))
    body = '<hr class="rules-split">'.join(parts)
    return RulesPage(mark_safe(body), tuple(sections))  # noqa: S308 (html=False above)
