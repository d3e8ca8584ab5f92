"""The book's sources as several of its tests read them: the chapter files and their fences."""

import re
from pathlib import Path

import yaml

BOOK = Path(__file__).resolve().parents[2] / "book"
# Every page of the book but the bibliography, which is only a list of references.
CHAPTERS = sorted(p for p in BOOK.glob("*.md") if p.name != "bibliography.md")

# The chapters restructured under the issue "A page that teaches": main line first,
# checks folded, an appendix "How pcalib computes it", a Summary and Further reading.
# Their pages are held to the page targets (tests/browser/test_rendered_book.py) and
# to the outline (test_chapter_outline.py).
RESTRUCTURED = []

# The chapters whose results and cited works are all in the register of results,
# book/register.md (test_register.py).
REGISTERED = ["pca"]

TOC = yaml.safe_load((BOOK.parent / "_toc.yml").read_text())


def section_files(chapter):
    """The ``book/…`` names of the section pages under ``chapter`` in ``_toc.yml``."""
    for part in TOC["parts"]:
        for entry in part["chapters"]:
            if entry["file"] == f"book/{chapter}":
                return [section["file"] for section in entry.get("sections", [])]
    raise AssertionError(f"book/{chapter} is not in _toc.yml")


def chapter_pages(chapter):
    """The source files of ``chapter``: its own page, then its section pages."""
    sections = [BOOK.parent / f"{name}.md" for name in section_files(chapter)]
    return [BOOK / f"{chapter}.md", *sections]


CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)
FENCE = re.compile(r"^(`{3,}|:{3,})")


def lines_outside_fences(text):
    """``(number, line)`` for each line of ``text`` outside fenced blocks (cells, directives)."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        marker = FENCE.match(line.strip())
        if fence is None and marker:
            fence = marker.group(1)[0] * len(marker.group(1))
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        yield number, line
