"""benchmarks/README.md's figures are what a run wrote (``benchmarks/run.py --write-readme``).

The README's generated section must say when and on which machine and versions
it was generated, and hold the case table in the columns the run prints.
"""

import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import harness
import readme
import run


def split_row(line):
    """The cells of one Markdown table row, an escaped bar kept inside its cell."""
    assert line.startswith("| ") and line.endswith(" |"), line
    cells = line[2:-2].replace("\\|", "\0").split(" | ")
    return [cell.replace("\0", "|") for cell in cells]


def parts(lines):
    """``(stamp, environment lines, case table lines, reports lines)`` of a generated section."""
    assert lines, "the generated section is empty: run benchmarks/run.py --write-readme"
    stamp = readme.STAMP.match(lines[0])
    assert stamp, f"the section starts with {lines[0]!r}, not with when it was generated"
    start = lines.index("```text") + 1
    end = lines.index("```", start)
    environment = lines[start:end]
    table_end = lines.index("", end + 2)
    table = lines[end + 2 : table_end]
    reports_start = lines.index("```text", table_end) + 1
    reports = lines[reports_start : len(lines) - 1 - lines[::-1].index("```")]
    return stamp, environment, table, reports


def test_the_readme_says_when_and_where_its_figures_were_generated():
    stamp, environment, _, _ = parts(readme.section_of(readme.README.read_text()))
    datetime.strptime(stamp["date"], "%Y-%m-%d %H:%M")
    assert environment[0].startswith("python ") and " on " in environment[0]
    assert environment[1].startswith("cpu: ") and "os.cpu_count()=" in environment[1]
    assert "load average" in environment[1]
    versions = environment[2]
    for package in ("numpy", "scipy", "scikit-learn", "pcalib"):
        assert f"{package} " in versions, f"the README's figures do not say which {package}"
    assert environment[3] == "threadpoolctl.threadpool_info():" and len(environment) > 4


def test_the_readme_case_table_has_the_columns_the_run_prints():
    _, _, table, reports = parts(readme.section_of(readme.README.read_text()))
    assert split_row(table[0]) == harness.CASE_HEADERS
    assert split_row(table[1]) == ["---"] * len(harness.CASE_HEADERS)
    rows = [split_row(line) for line in table[2:]]
    assert rows, "the README's case table has no rows"
    for row in rows:
        assert len(row) == len(harness.CASE_HEADERS), row
        assert all(float(row[i]) > 0 for i in (2, 3, 4)) and int(row[6]) >= 1, row
        assert row[5] == "-" or row[5].endswith((" met", " missed")), row
    assert reports, "the README has no reports"


def fake_timing(name, target):
    case = harness.Case(name, "reference | floor", None, None, None, target=target)
    return harness.Timing(case, [0.010, 0.012, 0.011], [0.020, 0.021, 0.019], "angle 1e-12")


def test_a_written_section_is_read_back_by_these_checks():
    timings = [fake_timing("PCA.fit", 1.0), fake_timing("PPCA.fit", None)]
    when = datetime(2026, 12, 4, 3, 30, tzinfo=UTC)
    environment = harness.environment_lines(None)
    reports = "report\n a | b\n"
    section = readme.generated_section(" --repeat 3", environment, timings, reports, when)
    text = readme.replace_section(f"intro\n{readme.BEGIN}\nold\n{readme.END}\nafter\n", section)
    assert text.startswith("intro\n") and text.endswith("\nafter\n") and "old" not in text
    stamp, read_environment, table, reports = parts(readme.section_of(text))
    assert stamp["date"] == "2026-12-04 03:30" and stamp["options"] == " --repeat 3"
    assert read_environment == environment
    assert [split_row(line) for line in table[2:]] == harness.case_rows(timings)
    assert reports == ["report", " a | b"]


@pytest.mark.parametrize("option", ["--quick", "--profile", "--only=nmf_fit"])
def test_only_a_full_run_writes_the_readme(option):
    with pytest.raises(SystemExit):
        run.parse_args(["--write-readme", option])
