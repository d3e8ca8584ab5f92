"""scikit-learn's own tests of PCA, KernelPCA and NMF, run against pcalib.

The three test files are copied from the installed scikit-learn. Only the line
that imports the estimator changes, so that ``PCA``, ``KernelPCA`` and ``NMF``
are pcalib's; every other import (MiniBatchNMF, non_negative_factorization,
private helpers) stays scikit-learn's. The copies run in one subprocess with
scikit-learn's conftest as a plugin (its ``global_random_seed`` and
``global_dtype`` fixtures), and their outcome is compared with
``tests/pcalib/sklearn_suite_expected_failures.txt``: a failure outside that list fails
here, and so does a listed test that passes, so the list can only shrink.

Run ``python tests/pcalib/test_sklearn_suite.py [test_pca.py ...]`` to print the
outcome of one or more files without the comparison.
"""

import fnmatch
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "sklearn_suite_expected_failures.txt"

# file name -> (scikit-learn's import line, the line that replaces it)
IMPORTS = {
    "test_pca.py": (
        "from sklearn.decomposition import PCA\n",
        "from pcalib import PCA\n",
    ),
    "test_kernel_pca.py": (
        "from sklearn.decomposition import PCA, KernelPCA\n",
        "from pcalib import PCA, KernelPCA\n",
    ),
    "test_nmf.py": (
        "from sklearn.decomposition import NMF, MiniBatchNMF, non_negative_factorization\n",
        "from sklearn.decomposition import MiniBatchNMF, non_negative_factorization\n"
        "from pcalib import NMF\n",
    ),
}


def copy_suite(directory, names=tuple(IMPORTS)):
    """Copy scikit-learn's test files into ``directory`` with pcalib's estimators.

    Raises ``RuntimeError`` when the import line to replace is not found, so a
    new scikit-learn that reorders its imports cannot silently test itself.
    """
    import sklearn.decomposition.tests as suite

    source = Path(suite.__file__).parent
    for name in names:
        old, new = IMPORTS[name]
        text = (source / name).read_text()
        if text.count(old) != 1:
            raise RuntimeError(f"{name}: expected one line {old.strip()!r} to replace")
        (Path(directory) / name).write_text(text.replace(old, new))


def run_suite(names=tuple(IMPORTS)):
    """Run the copied files; return {node id: 'passed' | 'failed' | 'skipped'}."""
    with tempfile.TemporaryDirectory() as directory:
        copy_suite(directory, names)
        report = Path(directory) / "report.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "sklearn.conftest",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            "-W",
            "ignore",
            "--continue-on-collection-errors",
            f"--junitxml={report}",
            *names,
        ]
        # An empty rootdir-level ini file keeps pcalib's pytest options
        # (nbval, doctests) away from the copied files.
        (Path(directory) / "pytest.ini").write_text("[pytest]\n")
        # scikit-learn skips its float32 variants unless asked: pcalib keeps float32.
        env = {**os.environ, "SKLEARN_RUN_FLOAT32_TESTS": "1"}
        subprocess.run(command, cwd=directory, env=env, capture_output=True, text=True, check=False)
        if not report.exists():
            raise RuntimeError("scikit-learn's suite did not produce a report")
        return parse_report(report)


def parse_report(report):
    """Outcome of each test case in a JUnit XML report, keyed by node id."""
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname").split(".")[-1]
        # A file that fails to import is reported with an empty class name.
        node = f"{module}.py::{case.get('name')}" if module else f"{case.get('name')}.py"
        if case.find("failure") is not None or case.find("error") is not None:
            outcomes[node] = "failed"
        elif case.find("skipped") is not None:
            outcomes[node] = "skipped"
        else:
            outcomes[node] = "passed"
    return outcomes


def read_expected(path=EXPECTED):
    """Patterns of tests expected to fail, each with the reason of its group.

    The file holds groups: a line ``## reason`` followed by one node id or
    ``fnmatch`` pattern per line. Blank lines and ``#`` comments are ignored.
    A reason that starts with ``either:`` marks tests whose outcome is random
    by construction (they compare two equal numbers with a strict inequality
    on unseeded data, or two fits that rounding alone tells apart): they may
    pass or fail.
    """
    patterns = {}
    reason = None
    for line in path.read_text().splitlines():
        line = line.strip()
        if line.startswith("## "):
            reason = line[3:]
        elif line and not line.startswith("#"):
            if reason is None:
                raise ValueError(f"{path.name}: pattern {line!r} has no '## reason' above it")
            patterns[line] = reason
    return patterns


def matches(node, pattern):
    """Whether ``node`` matches ``pattern``, where ``*`` and ``?`` are the wildcards.

    Brackets are literal, as in pytest's parameter ids (``test_x[42-full]``).
    """
    return fnmatch.fnmatchcase(node, pattern.replace("[", "[[]"))


@pytest.fixture(scope="module")
def outcomes():
    return run_suite()


@pytest.fixture(scope="module")
def expected():
    return read_expected()


def test_every_file_ran(outcomes):
    for name in IMPORTS:
        ran = [node for node, outcome in outcomes.items() if node.startswith(name)]
        assert len(ran) > 10, f"{name}: only {len(ran)} tests ran"


def test_only_the_array_api_tests_skip(outcomes):
    """Only scikit-learn's array-API tests skip; every other test runs.

    scikit-learn skips them unless SCIPY_ARRAY_API is set and an array library
    other than NumPy is installed; pcalib computes with NumPy only. The
    float32 variants run (see ``run_suite``).
    """
    skipped = [node for node, outcome in outcomes.items() if outcome == "skipped"]
    assert all("array_api" in node for node in skipped), [
        node for node in skipped if "array_api" not in node
    ]


def test_no_unexpected_failure(outcomes, expected):
    unexpected = [
        node
        for node, outcome in outcomes.items()
        if outcome == "failed" and not any(matches(node, p) for p in expected)
    ]
    assert not unexpected, "scikit-learn's tests failing on pcalib:\n" + "\n".join(unexpected)


def test_listed_failures_still_fail(outcomes, expected):
    passing = [
        f"{node}  (listed as {pattern!r})"
        for pattern, reason in expected.items()
        if not reason.startswith("either:")
        for node, outcome in outcomes.items()
        if outcome == "passed" and matches(node, pattern)
    ]
    assert not passing, "listed as failing but passes; remove it from the list:\n" + "\n".join(
        passing
    )


def test_every_pattern_matches_a_test(outcomes, expected):
    stale = [p for p in expected if not any(matches(n, p) for n in outcomes)]
    assert not stale, "patterns that match no test:\n" + "\n".join(stale)


def test_matches_takes_brackets_literally():
    assert matches("test_pca.py::test_x[42-full]", "test_pca.py::test_x[42-full]")
    assert matches("test_pca.py::test_x[42-full]", "test_pca.py::test_x[*]")
    assert not matches("test_pca.py::test_x[f]", "test_pca.py::test_x[full]")
    assert not matches("test_pca.py::test_xy[1]", "test_pca.py::test_x[*]")


def test_read_expected_requires_a_reason(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text("test_pca.py::test_x\n")
    with pytest.raises(ValueError, match="no '## reason'"):
        read_expected(path)
    path.write_text("## a reason\ntest_pca.py::test_x[*]\n")
    assert read_expected(path) == {"test_pca.py::test_x[*]": "a reason"}


if __name__ == "__main__":
    names = tuple(sys.argv[1:]) or tuple(IMPORTS)
    results = run_suite(names)
    for node, outcome in sorted(results.items()):
        if outcome != "passed":
            print(outcome, node)
    counts = {o: sum(v == o for v in results.values()) for o in ("passed", "failed", "skipped")}
    print(counts)
