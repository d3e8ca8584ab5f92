"""The Makefile's Python check and its lists of tests, read from ``make`` itself.

``make -n`` prints the commands a target runs, with the variables expanded. The
Python check, the first command of ``make venv``, runs here as printed, under a
stand-in version: a ``sitecustomize`` module on ``PYTHONPATH`` sets
``sys.version_info`` before the check reads it, so the test needs no other
interpreter.
"""

import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make(*arguments):
    """The output of ``make arguments`` in the repository, one line per command."""
    command = ["make", "--no-print-directory", *arguments]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout


def version_check():
    """The first command of ``make venv`` (the Python check), as make would run it."""
    first = make("-n", "-B", "venv", f"PYTHON={sys.executable}").splitlines()[0]
    assert "sys.version_info" in first, f"make venv does not start with the Python check: {first}"
    return first


def run_check(version, tmp_path):
    """The outcome of the Makefile's Python check when Python reports ``version``."""
    (tmp_path / "sitecustomize.py").write_text(
        f"import sys\nsys.version_info = {tuple(version)}\n"
        f"sys.version = {'.'.join(map(str, version)) + ' (stand-in)'!r}\n"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    return subprocess.run(
        version_check(), shell=True, env=env, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("version", [(3, 11, 7), (3, 12, 0), (3, 13, 5), (4, 0, 0)])
def test_the_makefile_accepts_311_and_newer_and_prints_the_version(version, tmp_path):
    result = run_check(version, tmp_path)
    expected = ".".join(map(str, version))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"Using Python {expected} from {sys.executable}\n"


@pytest.mark.parametrize("version", [(3, 10, 14), (3, 9, 0), (2, 7, 18)])
def test_the_makefile_refuses_older_pythons(version, tmp_path):
    result = run_check(version, tmp_path)
    assert result.returncode != 0
    assert "Python 3.11 or newer is required, found " + ".".join(map(str, version)) in result.stderr


def test_the_makefile_and_pyproject_agree_on_the_minimum():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert pyproject["project"]["requires-python"] == ">=3.11"
    assert "sys.version_info[:2] >= (3, 11)" in version_check()


def make_variable(name):
    """The value of the Makefile's variable ``name``, expanded by make, as a list of words."""
    return make("-s", "--eval", f"print-variable: ; @echo $({name})", "print-variable").split()


def test_the_portability_run_leaves_out_the_book_tests_as_make_test_does():
    import portability

    book_tests = make_variable("BOOK_TESTS") + make_variable("BROWSER_TESTS")
    assert sorted(portability.BOOK_TESTS) == sorted(book_tests)
    assert all((ROOT / path).is_file() for path in book_tests)
    # make unit runs pytest on everything else: the reference notebooks (nbval)
    # and the tests of the built book and of the browser are left out
    unit = next(line for line in make("-n", "unit").splitlines() if " -m pytest " in line)
    ignored = [word.removeprefix("--ignore=") for word in shlex.split(unit) if "--ignore=" in word]
    needs_book = make_variable("NEEDS_BOOK")
    assert sorted(ignored) == sorted(needs_book)
    assert sorted(needs_book) == sorted([*book_tests, "tests/book/notebooks"])
    assert (ROOT / "tests" / "book" / "notebooks").is_dir()
