"""The rules are part of the repository (docs/rules.md), every citation of a rules section
in the code and the docs names a section that exists, and the site's Rules page shows the
rules and the rulings with working in-page links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
RULINGS = ROOT / "docs" / "rulings.md"
#: "rules section 6", "spec section 9", "spec 10.2", "Rules section 4" (the spec is rules.md)
CITATION = re.compile(r"\b(?:rules|spec)(?: section)? (\d+)(?:\.(\d+))?\b", re.IGNORECASE)
TEXT_SUFFIXES = {".py", ".md", ".ts", ".proto", ".html", ".js", ".go", ".txt"}
#: installed or built, not ours
SKIP_DIRS = {"node_modules", "__pycache__", "var", "artifacts", "dist", "build", "vendor"}
#: history, not statements about today's files
HISTORY = ("docs/changelog.md", "docs/performance-history.md")


def tracked_text_files() -> list[Path]:
    """The project's own text files (a walk, not git: CI may run from an export)."""
    found = []
    for path in ROOT.rglob("*"):
        rel = path.relative_to(ROOT)
        if rel.parts[0].startswith(".") or set(rel.parts) & SKIP_DIRS:
            continue
        if path.suffix in TEXT_SUFFIXES and path.is_file() and rel.as_posix() not in HISTORY:
            found.append(path)
    assert len(found) > 100, "found too few files: is ROOT the checkout?"
    return found


def sections() -> dict[int, str]:
    """Section number -> its text, from the ``## N. Title`` headings of docs/rules.md."""
    text = RULES.read_text(encoding="utf-8")
    parts = re.split(r"^## (\d+)\. .*$", text, flags=re.MULTILINE)
    return {int(parts[i]): parts[i + 1] for i in range(1, len(parts), 2)}


def test_the_rules_have_the_sections_the_referee_is_built_on() -> None:
    found = sections()
    assert sorted(found) == list(range(1, 11))
    # the card table (section 1) and the Black Market table (section 7) are whole
    assert "| `DOUBLE_AGENT` | Double Agent | Agent Double | 6 | −1 | +6 | −1 |" in found[1]
    assert found[7].count("| instant |") == 7 and found[7].count("| ongoing |") == 8


def test_every_cited_rules_section_exists() -> None:
    found = sections()
    citations: list[tuple[str, int, int | None]] = []
    for path in tracked_text_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in CITATION.finditer(text):
            sub = int(m.group(2)) if m.group(2) else None
            citations.append((str(path.relative_to(ROOT)), int(m.group(1)), sub))
    assert len(citations) > 30, "the pattern no longer finds the code's citations"
    wrong = []
    for where, number, sub in citations:
        if number not in found:
            wrong.append(f"{where}: section {number}")
        elif sub is not None and not re.search(rf"^{sub}\. ", found[number], re.MULTILINE):
            wrong.append(f"{where}: section {number}.{sub} (section {number} has no item {sub})")
    assert not wrong, "citations of rules sections that docs/rules.md does not have:\n" + (
        "\n".join(wrong)
    )


def test_nothing_points_at_rules_outside_the_repository() -> None:
    # `spec/rules.md` lived beside the checkout, not in it: a clone could not follow it
    stale = [
        str(p.relative_to(ROOT))
        for p in tracked_text_files()
        if "spec/rules.md" in p.read_text(encoding="utf-8", errors="replace")
        and p != Path(__file__)
    ]
    assert not stale, f"still pointing at spec/rules.md: {stale}"


def test_every_markdown_link_of_the_rules_resolves() -> None:
    for doc in (RULES, RULINGS):
        for target in re.findall(r"\]\(([^)]+)\)", doc.read_text(encoding="utf-8")):
            name, _, anchor = target.partition("#")
            dest = doc.parent / name if name else doc
            assert dest.is_file(), f"{doc.name}: link to missing {target}"
            if anchor:
                ids = {_github_id(h) for h in re.findall(r"^#+ (.*)$", dest.read_text(), re.M)}
                assert anchor in ids, f"{doc.name}: no heading for #{anchor} in {dest.name}"


def _github_id(title: str) -> str:
    from leaderboard.rules_page import slug

    return slug(title)


@pytest.mark.django_db
def test_the_rules_page_shows_the_rules_and_the_rulings(client: Client) -> None:
    response = client.get("/rules/")
    assert response.status_code == 200
    html = response.content.decode()
    ids = set(re.findall(r'<h[1-6] id="([^"]+)"', html))
    for number in sections():
        title = re.search(rf"^## {number}\. (.*)$", RULES.read_text(), re.M)
        assert title is not None
        assert _github_id(f"{number}. {title.group(1)}") in ids
    assert "rulings" in ids
    # every in-page link (the contents, the cross links between the two files) has a target
    hrefs = re.findall(r'href="#([^"]+)"', html)
    assert len(hrefs) >= 11
    assert not set(hrefs) - ids, f"links without a target: {set(hrefs) - ids}"
    assert 'href="rulings.md' not in html and 'href="rules.md' not in html
    # the tables are tables, and the rulings are there whole
    assert "<td><code>LEADER_OF_THE_PACK</code></td>" in html
    for ruling in re.findall(r"^\| (R\d+) \|", RULINGS.read_text(), re.M):
        assert f"<td>{ruling}</td>" in html
    # the site's navigation leads to it
    assert 'href="/rules/"' in client.get("/leagues/").content.decode()
