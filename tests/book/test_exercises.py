"""Every exercise checks itself: its solution ends with asserts.

A reader who changes a number in a solution should get a pass or a failure,
not a printout to compare by eye. This guard reads each chapter's
``solution-start`` ... ``solution-end`` blocks and fails when a solution has
no code cell, or when its last code cell asserts nothing.
"""

import re

import pytest
from chapters import CHAPTERS, CODE_CELL

SOLUTION = re.compile(r"^`{3,}\{solution-start\} (\S+)\n(.*?)^`{3,}\{solution-end\}", re.M | re.S)
ASSERTION = re.compile(r"^\s*(assert\b|np\.testing\.assert_\w+\()", re.M)


def solutions(text):
    """``(label, [code of each cell])`` for every solution block in ``text``."""
    return [(m.group(1), CODE_CELL.findall(m.group(2))) for m in SOLUTION.finditer(text)]


def unchecked(text):
    """Labels of the solutions whose last code cell has no assertion."""
    return [
        label for label, cells in solutions(text) if not cells or not ASSERTION.search(cells[-1])
    ]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_every_solution_ends_with_asserts(chapter):
    missing = unchecked(chapter.read_text())
    assert not missing, f"{chapter.name}: solutions without a closing assert: {missing}"


def test_every_chapter_with_exercises_has_solutions():
    counts = {p.name: len(solutions(p.read_text())) for p in CHAPTERS}
    exercises = {p.name: p.read_text().count("```{exercise}") for p in CHAPTERS}
    assert counts == exercises


SOLVED = """````{solution-start} ex-a
````
```{code-cell} ipython3
x = 1 + 1
%s
```
````{solution-end}
````
"""


@pytest.mark.parametrize(
    ("last_line", "flagged"),
    [
        ("assert x == 2", []),
        ("np.testing.assert_allclose(x, 2)", []),
        ("print(x)", ["ex-a"]),
        ("# assert x == 2", ["ex-a"]),
    ],
)
def test_the_guard_sees_a_solution_that_only_prints(last_line, flagged):
    assert unchecked(SOLVED % last_line) == flagged
