"""Reference ("golden") notebooks of the chapters, for the nbval regression test.

Each chapter has one source, its MyST Markdown notebook ``book/<name>.md``.
``python tests/book/golden.py`` (``make golden``) converts every chapter with jupytext,
executes it and writes ``tests/book/notebooks/<name>.ipynb`` with:

* stable cell ids (``<name>-<index>``), so regenerating gives no diff;
* no timing or other run-dependent metadata;
* images removed from the outputs (nbval never compares them), their text
  representation kept;
* output metadata removed, except the name of each glued value.

``tests/book/test_chapter_sync.py`` fails when a reference notebook no longer
matches its ``.md``; nbval (``pytest --nbval``) re-executes every reference
notebook and compares its text outputs.
"""

import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
GOLDEN = ROOT / "tests" / "book" / "notebooks"
IMAGE_TYPES = ("image/png", "image/jpeg", "image/svg+xml", "application/pdf")
TIMEOUT = 600


def chapter_sources():
    """The chapter notebooks: ``book/*.md`` files with a Jupyter kernel in their header."""
    return sorted(p for p in BOOK.glob("*.md") if _is_notebook(p))


def _is_notebook(path):
    """Whether ``path`` has a YAML header naming a kernel."""
    text = path.read_text()
    if not text.startswith("---"):
        return False
    header = text.split("---", 2)[1]
    return "kernelspec:" in header


def golden_path(source):
    """Path of the reference notebook of chapter ``source``."""
    return GOLDEN / f"{source.stem}.ipynb"


def notebook_from_markdown(source):
    """Convert ``source`` with jupytext and give its cells stable ids."""
    notebook = jupytext.read(source)
    for index, cell in enumerate(notebook.cells):
        cell.id = f"{source.stem}-{index:03d}"
    notebook.metadata.pop("language_info", None)
    return notebook


def execute(notebook):
    """Run every cell with the book's folder as working directory."""
    client = NotebookClient(
        notebook,
        timeout=TIMEOUT,
        kernel_name="python3",
        resources={"metadata": {"path": str(BOOK)}},
    )
    client.execute()
    return notebook


def merge_streams(outputs):
    """Join consecutive outputs of the same stream.

    How a cell's printing is split into stream messages depends on timing; the
    joined text does not.
    """
    merged = []
    for output in outputs:
        previous = merged[-1] if merged else None
        if (
            output.get("output_type") == "stream"
            and previous is not None
            and previous.get("output_type") == "stream"
            and previous.get("name") == output.get("name")
        ):
            previous["text"] += output["text"]
        else:
            merged.append(output)
    return merged


def strip_volatile(notebook):
    """Remove what changes from run to run or is never compared."""
    notebook.metadata.pop("language_info", None)
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)
        if "outputs" in cell:
            cell.outputs = merge_streams(cell.outputs)
        for output in cell.get("outputs", []):
            if "data" in output:
                for mime in IMAGE_TYPES:
                    output["data"].pop(mime, None)
                # a glued value keeps its name, for tests/book/test_glue_precision.py
                output["metadata"] = {
                    key: value for key, value in output["metadata"].items() if key == "scrapbook"
                }
    return notebook


def regenerate(sources=None):
    """Execute the chapters and write their reference notebooks."""
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for source in sources or chapter_sources():
        print(f"executing {source.relative_to(ROOT)} ...", flush=True)
        notebook = strip_volatile(execute(notebook_from_markdown(source)))
        nbformat.validate(notebook)
        nbformat.write(notebook, golden_path(source))
        print(f"wrote {golden_path(source).relative_to(ROOT)}", flush=True)


if __name__ == "__main__":
    regenerate([Path(arg).resolve() for arg in sys.argv[1:]] or None)
