"""The key of a build of the book changes with every input of the build, and only with those."""

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "book" / "_ext"))
import build_key

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree(tmp_path):
    """A small copy of the project's layout: every file the key reads, and some it does not."""
    for name in build_key.FILES:
        (tmp_path / name).write_text(f"{name}\n")
    for folder in build_key.FOLDERS:
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.md").write_text("a\n")
    (tmp_path / "book" / "_ext").mkdir()
    (tmp_path / "book" / "_ext" / "ext.py").write_text("x = 1\n")
    (tmp_path / "pcalib" / "__pycache__").mkdir()
    (tmp_path / "pcalib" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\0")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    (tmp_path / "_build").mkdir()
    (tmp_path / "_build" / "index.html").write_text("")
    return tmp_path


def test_the_key_reads_the_inputs_and_nothing_else(tree):
    inputs = {path.as_posix() for path in build_key.build_inputs(tree)}
    assert inputs == {
        *build_key.FILES,
        "book/a.md",
        "pcalib/a.md",
        "_static/a.md",
        "book/_ext/ext.py",
    }


@pytest.mark.parametrize(
    "change",
    [
        "edit a chapter",
        "edit an extension",
        "edit pcalib",
        "edit requirements",
        "add a file",
        "rename a file",
        "remove a file",
    ],
)
def test_every_change_of_an_input_changes_the_key(tree, change):
    before = build_key.build_key(tree)
    if change == "edit a chapter":
        (tree / "book" / "a.md").write_text("b\n")
    elif change == "edit an extension":
        (tree / "book" / "_ext" / "ext.py").write_text("x = 2\n")
    elif change == "edit pcalib":
        (tree / "pcalib" / "a.md").write_text("a \n")
    elif change == "edit requirements":
        (tree / "requirements.txt").write_text("numpy==2\n")
    elif change == "add a file":
        (tree / "book" / "data.csv").write_text("1\n")
    elif change == "rename a file":
        shutil.move(tree / "_static" / "a.md", tree / "_static" / "b.md")
    else:
        (tree / "pcalib" / "a.md").unlink()
    assert build_key.build_key(tree) != before


def test_what_the_build_does_not_read_leaves_the_key(tree):
    before = build_key.build_key(tree)
    (tree / "tests" / "test_x.py").write_text("assert False\n")
    (tree / "_build" / "index.html").write_text("changed")
    (tree / "pcalib" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"\1")
    assert build_key.build_key(tree) == before


def test_check_accepts_the_current_key_and_refuses_another(tmp_path, capsys):
    recorded = tmp_path / "key.txt"
    assert build_key.main(["--check", str(recorded)]) == 1
    assert "no finished build" in capsys.readouterr().out
    recorded.write_text(build_key.build_key() + "\n")
    assert build_key.main(["--check", str(recorded)]) == 0
    recorded.write_text("0" * 64 + "\n")
    assert build_key.main(["--check", str(recorded)]) == 1
    assert "sources changed" in capsys.readouterr().out


def test_the_project_key_covers_chapters_pcalib_and_configuration():
    inputs = {path.as_posix() for path in build_key.build_inputs(ROOT)}
    for expected in (
        "book/pca.md",
        "book/references.bib",
        "book/_ext/build_book.py",
        "pcalib/pca.py",
        "_config.yml",
        "_toc.yml",
        "requirements.txt",
    ):
        assert expected in inputs
    assert not any(path.startswith(("tests/", "_build/", ".venv/")) for path in inputs)
