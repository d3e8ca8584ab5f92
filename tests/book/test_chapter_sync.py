"""Each reference notebook under tests/book/notebooks must match its chapter's .md.

An edit to a chapter without ``make golden`` fails here, before nbval would
compare outputs of stale cells.
"""

import nbformat
import pytest
from golden import chapter_sources, golden_path, notebook_from_markdown

SOURCES = chapter_sources()


def _cell_signature(cell):
    metadata = {k: v for k, v in cell.metadata.items() if k != "execution"}
    return cell.id, cell.cell_type, cell.source, metadata


def test_every_chapter_has_a_reference_notebook_and_vice_versa():
    expected = {golden_path(source).name for source in SOURCES}
    present = {path.name for path in golden_path(SOURCES[0]).parent.glob("*.ipynb")}
    assert SOURCES, "no chapter notebooks found in book/"
    assert present == expected, (
        f"missing reference notebooks: {sorted(expected - present)}; "
        f"reference notebooks without a chapter: {sorted(present - expected)}. "
        "Run 'make golden'."
    )


@pytest.mark.parametrize("source", SOURCES, ids=[s.stem for s in SOURCES])
def test_reference_notebook_matches_chapter(source):
    reference = nbformat.read(golden_path(source), as_version=4)
    expected = notebook_from_markdown(source)
    got = [_cell_signature(c) for c in reference.cells]
    want = [_cell_signature(c) for c in expected.cells]
    for index, (g, w) in enumerate(zip(got, want, strict=False)):
        assert g == w, (
            f"cell {index} of {golden_path(source).name} differs from {source.name}; "
            "run 'make golden' and review the output diff"
        )
    assert len(got) == len(want), (
        f"{golden_path(source).name} has {len(got)} cells, {source.name} has {len(want)}; "
        "run 'make golden'"
    )
    assert reference.metadata.get("kernelspec") == expected.metadata.get("kernelspec")
