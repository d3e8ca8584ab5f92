"""The Makefile's Python check: 3.11 and newer accepted, older refused, the version printed.

The check is the one-line program that ``make`` runs with ``$(PYTHON)`` before it
creates ``.venv``; here it runs against a stand-in ``sys`` with the version to try,
so the test needs no other interpreter.
"""

import contextlib
import io
import re
import tomllib
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = re.compile(r"^\t@\$\(PYTHON\) -c '(import sys; .+)' *$", re.M)


def _check_code():
    match = CHECK.search((ROOT / "Makefile").read_text())
    assert match, "the Makefile has no '@$(PYTHON) -c \"import sys; ...\"' version check"
    return match.group(1).removeprefix("import sys; ").replace("$(PYTHON)", "python3")


def _run_check(version):
    """What the check prints under Python ``version``; AssertionError if it refuses it."""
    fake_sys = types.SimpleNamespace(
        version_info=version, version=".".join(map(str, version)) + " (stand-in)"
    )
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(_check_code(), {"sys": fake_sys})
    return printed.getvalue()


@pytest.mark.parametrize("version", [(3, 11, 7), (3, 12, 0), (3, 13, 5), (4, 0, 0)])
def test_the_makefile_accepts_311_and_newer_and_prints_the_version(version):
    expected = ".".join(map(str, version))
    assert _run_check(version).startswith(f"Using Python {expected} from python3")


@pytest.mark.parametrize("version", [(3, 10, 14), (3, 9, 0), (2, 7, 18)])
def test_the_makefile_refuses_older_pythons(version):
    with pytest.raises(AssertionError, match=r"Python 3\.11 or newer is required"):
        _run_check(version)


def test_the_makefile_and_pyproject_agree_on_the_minimum():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["requires-python"] == ">=3.11"
    assert "sys.version_info[:2] >= (3, 11)" in _check_code()


def _make_variable(name):
    match = re.search(rf"^{name} := (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert match, f"the Makefile defines no {name}"
    return match.group(1).split()


def test_the_portability_run_leaves_out_the_book_tests_as_make_test_does():
    import portability

    book_tests = _make_variable("BOOK_TESTS") + _make_variable("BROWSER_TESTS")
    assert sorted(portability.BOOK_TESTS) == sorted(book_tests)
    assert all((ROOT / path).is_file() for path in book_tests)
