"""The documents' links hold: every relative link and anchor in README.md and docs/*.md leads to a file of the
repository, and to a heading of it (as GitHub names a heading's anchor), so moving a section between the
README and docs/ cannot leave a reader at a dead link."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+).+?\1", re.DOTALL)
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]+)\"", re.IGNORECASE)
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
HTML_ANCHOR = re.compile(r"<a\b[^>]*\b(?:id|name)=\"([^\"]+)\"", re.IGNORECASE)


def prose(text: str) -> str:
    """The text with its code blocks and code spans taken out: a link written inside code is an example."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def anchors(path: Path) -> set[str]:
    """The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces to hyphens,
    a repeated one numbered (``-1``, ``-2``...); and the ``<a id>`` / ``<a name>`` written in it."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    found = set(HTML_ANCHOR.findall(text))
    for title in HEADING.findall(text):
        title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link in a heading: its text
        slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def links(path: Path) -> list[str]:
    text = prose(path.read_text(encoding="utf-8"))
    return LINK.findall(text) + HTML_LINK.findall(text)


def relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE)  # http:, https:, mailto:...


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_and_anchor_resolves(document):
    broken = []
    for target in links(document):
        if not relative(target):
            continue
        file, _, anchor = target.partition("#")
        where = (document.parent / file).resolve() if file else document
        if not where.exists():
            broken.append(f"{target}: no file {where.relative_to(REPO) if where.is_relative_to(REPO) else where}")
        elif REPO not in where.parents and where != REPO:
            broken.append(f"{target}: outside the repository")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no heading '{anchor}' in {where.relative_to(REPO)}")
    assert not broken, f"{document.relative_to(REPO)}: " + "; ".join(broken)


def test_the_anchors_follow_githubs_rule():
    """A check that would pass any anchor would prove nothing: a few headings as GitHub names them."""
    page = REPO / "docs" / "HOSTING.md"
    found = anchors(page)
    assert {"serving-addresses-data-and-options", "behind-a-reverse-proxy", "running-several-processes"} <= found
    assert "serving:-addresses,-data-and-options" not in found
