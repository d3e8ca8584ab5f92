"""A restructured chapter has the outline of the course plan's chapter template.

Its page ends, in this order, with a Summary (five to eight things to remember),
the Exercises, Further reading and References; it has an appendix page
``<chapter>_pcalib.md`` titled "How pcalib computes it" in the table of contents
under it; and its headings never skip a level, so that the page's table of
contents is the outline of the argument.
"""

import itertools
import re

import pytest
from chapters import BOOK, RESTRUCTURED, lines_outside_fences, section_files


def _headings(path):
    return [
        (len(match[1]), match[2].strip())
        for _, line in lines_outside_fences(path.read_text())
        if (match := re.match(r"^(#{1,6}) (.+)$", line))
    ]


@pytest.mark.parametrize("chapter", RESTRUCTURED)
def test_chapter_ends_with_summary_exercises_further_reading_references(chapter):
    titles = [title for level, title in _headings(BOOK / f"{chapter}.md") if level == 2]
    closing = [t for t in titles if t in ("Summary", "Exercises", "Further reading", "References")]
    assert closing == ["Summary", "Exercises", "Further reading", "References"], titles
    assert titles[-4:] == closing, f"the closing sections are not last: {titles}"


@pytest.mark.parametrize("chapter", RESTRUCTURED)
def test_summary_lists_five_to_eight_points(chapter):
    text = (BOOK / f"{chapter}.md").read_text()
    summary = text.split("\n## Summary\n", 1)[1].split("\n## ", 1)[0]
    points = re.findall(r"^[-*] ", summary, re.M)
    assert 5 <= len(points) <= 8, f"{chapter}: {len(points)} points in the Summary"


@pytest.mark.parametrize("chapter", RESTRUCTURED)
def test_appendix_page_is_under_the_chapter(chapter):
    appendix = f"book/{chapter}_pcalib"
    assert appendix in section_files(chapter), section_files(chapter)
    title = _headings(BOOK.parent / f"{appendix}.md")[0]
    assert title == (1, "How pcalib computes it"), title


@pytest.mark.parametrize("chapter", RESTRUCTURED)
def test_headings_never_skip_a_level(chapter):
    pages = [f"book/{chapter}", *section_files(chapter)]
    for page in pages:
        levels = [level for level, _ in _headings(BOOK.parent / f"{page}.md")]
        assert levels[0] == 1, page
        skips = [(a, b) for a, b in itertools.pairwise(levels) if b > a + 1]
        assert not skips, f"{page}: a heading skips a level: {skips}"
