"""What the reader reads in the chapters' code and printed output.

Equation labels such as ``eq-ppca-loglik`` are names in the MyST source; the
page shows equations by number, "(4.7)". A code comment or a printed line that
says "eq. (ppca-loglik)" points the reader at a name they cannot find on the
page, so code cells and outputs name equations in words, or not at all.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(p for p in (ROOT / "book").glob("*.md") if "code-cell" in p.read_text())
CODE_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```$", re.M | re.S)
LABEL_TARGET = re.compile(r"^:label: (\S+)$", re.M)


def _labels(text):
    """Every label the chapter defines, with and without its ``eq-`` prefix."""
    labels = set(LABEL_TARGET.findall(text))
    return labels | {label.removeprefix("eq-") for label in labels}


def _mentions(text, labels):
    return sorted({label for label in labels if re.search(rf"\({re.escape(label)}\)", text)})


def test_label_pattern_finds_a_label_in_a_comment():
    labels = _labels(":label: eq-ppca-loglik\n")
    assert _mentions("ell = f(C)  # eq. (ppca-loglik)", labels) == ["ppca-loglik"]
    assert _mentions("ell = f(C)  # the log-likelihood", labels) == []


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_code_cells_do_not_name_equations_by_label(chapter):
    text = chapter.read_text()
    code = "\n".join(CODE_CELL.findall(text))
    found = _mentions(code, _labels(text))
    assert not found, f"{chapter.name}: code cells cite equation labels {found}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_printed_output_does_not_name_equations_by_label(chapter):
    notebook = json.loads((ROOT / "tests" / "notebooks" / f"{chapter.stem}.ipynb").read_text())
    printed = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            printed.append("".join(text) if isinstance(text, list) else text)
    found = _mentions("\n".join(printed), _labels(chapter.read_text()))
    assert not found, f"{chapter.name}: printed output cites equation labels {found}"


FENCE = re.compile(r"^(`{3,}|:{3,})")
LIST_START = re.compile(r"^([-+*]|\d+[.)]) ")


def _broken_wraps(text):
    """Prose lines that Markdown turns into a list item in mid-paragraph.

    A wrapped line that begins with "+ ", "- ", "* " or "1. " directly under a
    line of ordinary prose starts a list there, and any ``$...$`` maths split
    across the break shows as TeX source.
    """
    found, fence, in_math, previous = [], None, False, ""
    for number, line in enumerate(text.splitlines(), 1):
        marker = FENCE.match(line)
        if fence is None and marker:
            fence = marker.group(1)[0] * 3
        elif fence is not None and line.startswith(fence) and not line.strip(fence[0]).strip():
            fence = None
        elif fence is None:
            if line.strip() == "$$":
                in_math = not in_math
            elif not in_math and LIST_START.match(line) and previous.strip():
                if not LIST_START.match(previous) and not previous.startswith(" "):
                    found.append(f"line {number}: {line[:60]}")
        previous = line
    return found


def test_broken_wrap_pattern_finds_a_plus_at_a_line_start():
    prose = "returns $Wz + \\mu\n+ \\varepsilon$.\n\n- a real list\n- item\n"
    assert _broken_wraps(prose) == ["line 2: + \\varepsilon$."]


@pytest.mark.parametrize("chapter", sorted((ROOT / "book").glob("*.md")), ids=lambda p: p.stem)
def test_no_wrapped_line_starts_a_list(chapter):
    found = _broken_wraps(chapter.read_text())
    assert not found, f"{chapter.name}: a wrapped line starts a list item: {found}"
