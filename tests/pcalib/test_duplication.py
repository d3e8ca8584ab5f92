"""pcalib's repeated code is what CONTRIBUTING.md's "Duplicated on purpose" table lists.

A *pair* is two places in pcalib (a module and the function, method or class
around the lines, ``<module>`` outside any) that share a run of six or more
identical lines, compared without their indentation, blank lines and comments.
Every pair found must be a row of the table, and every row must still be found,
so the table is neither incomplete nor stale.
"""

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PCALIB = ROOT / "pcalib"
RUN = 6


def code_lines(path):
    """The significant lines of a module: (stripped text, enclosing qualified name)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    owner = ["<module>"] * (len(lines) + 1)

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                owner[child.lineno : child.end_lineno + 1] = [name] * (
                    child.end_lineno - child.lineno + 1
                )
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return [
        (line.strip(), owner[number])
        for number, line in enumerate(lines, 1)
        if line.strip() and not line.strip().startswith("#")
    ]


def repeated_pairs(package=PCALIB):
    """The set of pairs of places sharing a run of ``RUN`` identical lines."""
    modules = {
        path.relative_to(package).as_posix(): code_lines(path)
        for path in sorted(package.rglob("*.py"))
    }
    starts = defaultdict(list)
    for module, lines in modules.items():
        for start in range(len(lines) - RUN + 1):
            window = tuple(text for text, _ in lines[start : start + RUN])
            starts[window].append((module, start))
    pairs = set()
    for places in starts.values():
        for i, (module_a, start_a) in enumerate(places):
            for module_b, start_b in places[i + 1 :]:
                if module_a == module_b and abs(start_a - start_b) < RUN:
                    continue  # a run that overlaps itself
                a = f"{module_a}:{modules[module_a][start_a][1]}"
                b = f"{module_b}:{modules[module_b][start_b][1]}"
                pairs.add(tuple(sorted((a, b))))
    return pairs


def listed_pairs():
    """The rows of CONTRIBUTING.md's table: (place, place) from `| `a` | `b` | ... |`."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("### Duplicated on purpose", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|", section, flags=re.M)
    return {tuple(sorted(row)) for row in rows}


def test_the_finder_finds_a_planted_run_and_nothing_shorter(tmp_path):
    run = [f"x{i} = {i}" for i in range(RUN)]
    indented = "".join(f"    {line}\n" for line in run)
    (tmp_path / "a.py").write_text(
        f"def f():\n{indented}\n\nclass C:\n    def g(self):\n"
        + "".join(f"        {line}  \n        # a comment\n\n" for line in run)
    )
    shorter = "".join(f"    {line}\n" for line in run[:-1])
    (tmp_path / "b.py").write_text(f"def h():\n{shorter}")
    assert repeated_pairs(tmp_path) == {("a.py:C.g", "a.py:f")}


def test_every_repeated_run_is_listed_and_every_listed_one_still_repeats():
    found, listed = repeated_pairs(), listed_pairs()
    assert found - listed == set(), (
        "pairs of places in pcalib that share six or more lines and that "
        "CONTRIBUTING.md's 'Duplicated on purpose' table does not list (merge them "
        f"into a helper, or add a row with the reason): {sorted(found - listed)}"
    )
    assert listed - found == set(), (
        f"rows of the table that no longer repeat (remove them): {sorted(listed - found)}"
    )
