"""What the reader reads in the chapters' code and printed output.

Labels such as ``eq-ppca-loglik`` or ``alg-rpca`` are names in the MyST source;
the page shows equations, propositions and algorithms by number, "(4.7)". A code
comment or a printed line that says "eq. (ppca-loglik)" points the reader at a
name they cannot find on the page, so code cells and outputs name them in words,
or not at all.
"""

import ast
import json
import re
from pathlib import Path

import pytest
from chapters import CODE_CELL, lines_outside_fences

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted(p for p in (ROOT / "book").glob("*.md") if "code-cell" in p.read_text())
LABEL_TARGET = re.compile(r"^:label: (\S+)$", re.M)


def _labels(text):
    """Every label the chapter defines (equations, propositions, algorithms...)."""
    return set(LABEL_TARGET.findall(text))


def _mentions(text, labels):
    """The labels ``text`` names: the label itself, or "(name)" without its ``eq-``."""
    found = set()
    for label in labels:
        whole = rf"(?<![\w-]){re.escape(label)}(?![\w-])"
        short = rf"\({re.escape(label.removeprefix('eq-'))}\)"
        if re.search(whole, text) or re.search(short, text):
            found.add(label)
    return sorted(found)


def test_label_pattern_finds_a_label_in_a_comment():
    labels = _labels(":label: eq-ppca-loglik\n:label: prop-pca-centring\n")
    assert _mentions("ell = f(C)  # eq. (ppca-loglik)", labels) == ["eq-ppca-loglik"]
    assert _mentions("# prop-pca-centring: distances", labels) == ["prop-pca-centring"]
    assert _mentions("ell = f(C)  # the log-likelihood", labels) == []
    assert _mentions('glue("ppca-loglik-gap", gap)', labels) == []


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_code_cells_do_not_name_equations_by_label(chapter):
    text = chapter.read_text()
    code = "\n".join(CODE_CELL.findall(text))
    found = _mentions(code, _labels(text))
    assert not found, f"{chapter.name}: code cells cite labels {found}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_printed_output_does_not_name_equations_by_label(chapter):
    notebook = json.loads(
        (ROOT / "tests" / "book" / "notebooks" / f"{chapter.stem}.ipynb").read_text()
    )
    printed = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            printed.append("".join(text) if isinstance(text, list) else text)
    found = _mentions("\n".join(printed), _labels(chapter.read_text()))
    assert not found, f"{chapter.name}: printed output cites labels {found}"


LIST_START = re.compile(r"^([-+*]|\d+[.)]) ")


def _broken_wraps(text):
    """Prose lines that Markdown turns into a list item in mid-paragraph.

    A wrapped line that begins with "+ ", "- ", "* " or "1. " directly under a
    line of ordinary prose starts a list there, and any ``$...$`` maths split
    across the break shows as TeX source.
    """
    found, in_math, previous = [], False, (0, "")
    for number, line in lines_outside_fences(text):
        if line.strip() == "$$":
            in_math = not in_math
        elif not in_math and LIST_START.match(line):
            above = previous[1] if previous[0] == number - 1 else ""
            if above.strip() and not LIST_START.match(above) and not above.startswith(" "):
                found.append(f"line {number}: {line[:60]}")
        previous = (number, line)
    return found


def test_broken_wrap_pattern_finds_a_plus_at_a_line_start():
    prose = "returns $Wz + \\mu\n+ \\varepsilon$.\n\n- a real list\n- item\n"
    assert _broken_wraps(prose) == ["line 2: + \\varepsilon$."]


@pytest.mark.parametrize("chapter", sorted((ROOT / "book").glob("*.md")), ids=lambda p: p.stem)
def test_no_wrapped_line_starts_a_list(chapter):
    found = _broken_wraps(chapter.read_text())
    assert not found, f"{chapter.name}: a wrapped line starts a list item: {found}"


def _printed_constants(code):
    """``print`` calls in ``code`` that print a literal True, False or None.

    Printed after an assert, a typed-in ``True`` reads like faked output: a printed
    verdict is computed (``bool(error < 1e-10)``) or the measured value is printed.
    """
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
            for argument in node.args:
                value = argument.value if isinstance(argument, ast.Constant) else 0
                if value is None or isinstance(value, bool):
                    found.append(f"line {node.lineno}: {ast.unparse(node)[:70]}")
    return found


def _python(cell):
    """A code cell's Python: without its YAML header and IPython magics."""
    cell = re.sub(r"\A---\n.*?^---\n", "", cell, flags=re.M | re.S)
    return "\n".join(line for line in cell.splitlines() if not line.startswith(("%", "!")))


def test_printed_constant_pattern_finds_a_typed_in_true():
    code = 'assert ok\nprint("symmetric:", True)\nprint("symmetric:", bool(e < 1e-10), 1)\n'
    assert _printed_constants(code) == ["line 2: print('symmetric:', True)"]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_printed_verdicts_are_computed(chapter):
    cells = CODE_CELL.findall(chapter.read_text())
    found = [problem for cell in cells for problem in _printed_constants(_python(cell))]
    assert not found, f"{chapter.name}: print() of a typed-in True/False/None: {found}"
