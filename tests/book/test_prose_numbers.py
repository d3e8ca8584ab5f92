"""No hand-typed result in the book's prose.

A number that a chapter computes must reach its text through a cell output
(myst-nb's ``{glue:text}`` role, or an f-string in a printed sentence), so
that nbval compares it with the reference notebook. This guard reads the
prose of every chapter, with code, maths, roles and directive options removed,
and fails on any decimal with three or more significant digits (``12.09``,
``0.0273``, ``4.08``) that is not on the allow-list below, each entry of
which says why the number is typed rather than computed.
"""

import re

import pytest
from chapters import BOOK, CHAPTERS, lines_outside_fences

# (chapter file, number) -> why it is typed in the prose and not computed.
ALLOWED = {
    ("intro.md", "3.11"): "the Python version the course requires, not a result",
}

DOLLAR_MATH = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
ROLE = re.compile(r"\{[\w:.-]+\}`[^`]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
DIRECTIVE_OPTION = re.compile(r"^\s*:[\w-]+:.*$", re.MULTILINE)
VERSION = re.compile(r"\d+\.\d+\.\d+")
DECIMAL = re.compile(r"(?<![\w.])\d*\.\d+(?![\w.])")


def prose(text):
    """The chapter's text without code, maths, roles, links and directive options."""
    text = "\n".join(line for _, line in lines_outside_fences(text))
    for pattern in (DOLLAR_MATH, ROLE, INLINE_CODE, LINK_TARGET, DIRECTIVE_OPTION, VERSION):
        text = pattern.sub(" ", text)
    return text


def significant_digits(number):
    return len(number.replace(".", "").lstrip("0"))


def typed_numbers(text):
    """Decimals with three or more significant digits in the prose of ``text``."""
    return [m for m in DECIMAL.findall(prose(text)) if significant_digits(m) >= 3]


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.name)
def test_no_hand_typed_results_in_the_prose(chapter):
    found = [n for n in typed_numbers(chapter.read_text()) if (chapter.name, n) not in ALLOWED]
    assert not found, (
        f"{chapter.name}: decimals typed in the prose: {found}. Glue the computed value "
        "({glue:text}`name:.3g`) or print it from a cell; a number that is not computed "
        "(a published value, a constant) goes on ALLOWED in this file with its reason."
    )


def test_every_allowed_number_is_still_in_its_chapter():
    for chapter, number in ALLOWED:
        assert number in typed_numbers((BOOK / chapter).read_text()), (chapter, number)


def test_the_guard_sees_a_planted_number():
    text = "Some prose.\n\nThe ratio is 21.93, as the cell above prints.\n"
    assert typed_numbers(text) == ["21.93"]


@pytest.mark.parametrize(
    "text",
    [
        "```{code-cell} ipython3\nprint(21.93)\n```\n",
        "The value $\\lambda = 21.93$ in maths.",
        "$$\nx = 21.93\n$$",
        "glued: {glue:text}`ratio:.2f` and `21.93` in code",
        "scikit-learn 1.9.1 and a decimal with two digits, 0.27",
        ":::{figure} a.png\n:width: 80.5%\n:::\n",
    ],
)
def test_the_guard_ignores_code_maths_roles_and_short_decimals(text):
    assert typed_numbers(text) == []
