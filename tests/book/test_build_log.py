"""The log of ``make book`` (``_build/book.log``), read as a newcomer reads it.

``make book`` writes the build's output to the terminal and to this log. A
newcomer takes any "WARNING" in it for a failure, so there must be none, from
Sphinx or from the kernels that execute the chapters; and every chapter must
have been executed by this build (no cached outputs), which the log records
with its execution time.
"""

import re
from pathlib import Path

import chapters
import pytest

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "_build" / "book.log"
CHAPTERS = [p.stem for p in chapters.CHAPTERS]


@pytest.fixture(scope="module")
def log():
    assert LOG.exists(), f"no {LOG.relative_to(ROOT)}: build the book with 'make book'"
    return LOG.read_text()


def test_build_log_has_no_warnings(log):
    # Sphinx writes "WARNING:", the kernels "WARNING |", Python "UserWarning:" and
    # the like; the configuration line that lists suppress_warnings=[] is none of them.
    warnings = [line for line in log.splitlines() if re.search(r"WARNING|Warning\b", line)]
    assert not warnings, "warnings in the build log:\n" + "\n".join(warnings[:10])


def test_build_succeeded(log):
    assert "build succeeded" in log


def test_every_chapter_was_executed_by_the_build(log):
    executed = set(re.findall(r"book/(\w+)\.md: Executed notebook in [\d.]+ seconds", log))
    chapters = {c for c in CHAPTERS if "code-cell" in (ROOT / "book" / f"{c}.md").read_text()}
    assert chapters and chapters <= executed, f"not executed by this build: {chapters - executed}"
