"""Every glued number is stored as the text shows it, and every glued value is shown.

A value glued at full precision (``4.419e-13``) is compared by nbval digit for
digit, although the text shows two digits of it: the last digits differ from one
BLAS kernel to the next, and the test fails on a reader's machine for digits no
reader sees. So a value that the prose formats (``{glue:text}`key:.1f```) must be
stored rounded to that format, ``round(x, 1)`` here; a ``%`` format keeps two
more decimals, an ``e`` format its significant digits.

The names come from the reference notebooks, which keep each glued output's
``scrapbook`` metadata (tests/book/golden.py).
"""

import ast
import re

import nbformat
import pytest
from golden import chapter_sources, golden_path

SOURCES = chapter_sources()
ROLE = re.compile(r"\{glue(?::text)?\}`([\w.-]+)(?::([^`]+))?`")
NUMERIC_FORMAT = re.compile(r"^[+,]*\.(\d+)([fe%])$")
RECORD = "application/papermill.record/"


def displayed_formats(text):
    """``{name: {format, ...}}`` of the ``{glue:text}`` roles in a chapter's text."""
    formats = {}
    for match in ROLE.finditer(text):
        formats.setdefault(match.group(1), set()).add(match.group(2))
    return formats


def glued_values(notebook):
    """``{name: text/plain}`` of the glued outputs of a reference notebook."""
    values = {}
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                data = output.get("data", {})
                values[name] = data.get(RECORD + "text/plain", data.get("text/plain"))
    return values


def rounded_as_shown(value, spec):
    """``value`` rounded to what ``format(value, spec)`` shows."""
    decimals, kind = NUMERIC_FORMAT.match(spec).groups()
    decimals = int(decimals)
    if kind == "f":
        return round(value, decimals)
    if kind == "%":
        return round(value, decimals + 2)
    return float(f"{value:.{decimals}e}")


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_glued_numbers_are_stored_as_shown(source):
    formats = displayed_formats(source.read_text())
    values = glued_values(nbformat.read(golden_path(source), as_version=4))
    assert values, f"{golden_path(source).name} keeps no glue names: run 'make golden'"
    too_precise = []
    for name, specs in formats.items():
        numeric = [s for s in specs if s and NUMERIC_FORMAT.match(s)]
        if not numeric or name not in values:
            continue
        value = ast.literal_eval(values[name])
        finest = max(rounded_as_shown(value, spec) == value for spec in numeric)
        if not finest:
            too_precise.append(f"{name} = {values[name]} shown as {sorted(numeric)}")
    assert not too_precise, (
        f"{source.name}: glued values stored with digits the text does not show "
        f"(glue the value rounded as shown): {too_precise}"
    )


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_every_glued_value_is_shown(source):
    shown = set(displayed_formats(source.read_text()))
    values = glued_values(nbformat.read(golden_path(source), as_version=4))
    unused = sorted(set(values) - shown)
    assert not unused, f"{source.name} glues values that no page shows: {unused}"


def test_the_checks_see_a_value_stored_too_precisely():
    text = "λ is {glue:text}`x:.2f` and p is {glue:text}`p:.0%`"
    formats = displayed_formats(text)
    assert formats == {"x": {".2f"}, "p": {".0%"}}
    assert rounded_as_shown(0.12, ".2f") == 0.12
    assert rounded_as_shown(0.1234, ".2f") != 0.1234
    assert rounded_as_shown(0.19, ".0%") == 0.19 and rounded_as_shown(0.194, ".0%") != 0.194
    assert rounded_as_shown(4.4e-13, ".1e") == 4.4e-13
    assert rounded_as_shown(4.419e-13, ".1e") != 4.419e-13
    output = {
        "output_type": "display_data",
        "data": {RECORD + "text/plain": "0.5"},
        "metadata": {"scrapbook": {"name": "x"}},
    }
    notebook = nbformat.from_dict({"cells": [{"cell_type": "code", "outputs": [output]}]})
    assert glued_values(notebook) == {"x": "0.5"}
