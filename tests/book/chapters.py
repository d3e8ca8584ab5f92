"""The book's sources as several of its tests read them: the chapter files and their fences."""

import re
from pathlib import Path

BOOK = Path(__file__).resolve().parents[2] / "book"
# Every page of the book but the bibliography, which is only a list of references.
CHAPTERS = sorted(p for p in BOOK.glob("*.md") if p.name != "bibliography.md")

# The chapters restructured under the issue "A page that teaches": main line first,
# checks folded, an appendix "How pcalib computes it", a Summary and Further reading.
# Their pages are held to the page targets (tests/browser/test_rendered_book.py) and
# to the outline (test_chapter_outline.py).
RESTRUCTURED = []

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
