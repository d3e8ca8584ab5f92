"""The reader notebooks say what the rendered book says.

``make book`` writes every page once more as a notebook for JupyterLab and for
the download menu (``book/_ext/reader_notebooks.py``), its MyST resolved from
the build. These tests hold those notebooks against the HTML that Sphinx,
MyST-NB and sphinxcontrib-bibtex wrote in the same build, which the extension
does not read: the glued values in the same order, every citation and
cross-reference with the text the page shows, each equation with the page's
number, the listings with the page's code, each figure with its caption, the
bibliography with the page's entries. They need the built book (``make book``).
"""

import html
import json
import pickle
import re
import sys
import types
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "_build"
HTML = BUILD / "html"
NOTEBOOKS = BUILD / "notebooks"
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import reader_notebooks  # noqa: E402

PAGES = sorted(p.stem for p in (ROOT / "book").glob("*.md"))


def _require_build():
    if not (BUILD / ".doctrees" / "environment.pickle").exists() or not NOTEBOOKS.is_dir():
        pytest.fail("the book is not built: run `make book` first")


@pytest.fixture(scope="module")
def build():
    """The build's environment and configuration, as the extension saw them."""
    _require_build()
    with open(BUILD / ".doctrees" / "environment.pickle", "rb") as file:
        env = pickle.load(file)
    app = types.SimpleNamespace(env=env, config=env.config, srcdir=str(ROOT), outdir=str(HTML))
    __import__("author_year_labels").setup(None)
    bibliography = reader_notebooks.Bibliography(ROOT / env.config.bibtex_bibfiles[0])
    return app, bibliography


def _page_text(page):
    """The text of the page's article, tags removed, whitespace collapsed."""
    source = (HTML / "book" / f"{page}.html").read_text()
    article = source[source.index("<article") : source.index("</article>")]
    text = html.unescape(re.sub(r"<[^>]+>", "", article))
    return re.sub(r"\s+", " ", text)


def _page_html(page):
    return (HTML / "book" / f"{page}.html").read_text()


def _resolved(build, page):
    """Every role of the page with the text the extension gave it, in order."""
    app, bibliography = build
    calls = []
    original = reader_notebooks.PageResolver.role

    def recording(self, match):
        text = original(self, match)
        calls.append((match["role"], match["content"], text))
        return text

    reader_notebooks.PageResolver.role = recording
    try:
        notebook = reader_notebooks.reader_notebook(app, f"book/{page}", bibliography)
    finally:
        reader_notebooks.PageResolver.role = original
    return notebook, calls


def _markdown(notebook):
    return "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


@pytest.mark.parametrize("page", PAGES)
def test_written_notebook_is_the_resolved_page(build, page):
    """The notebooks `make book` wrote, for the lab and the download, are the resolved page."""
    notebook, _ = _resolved(build, page)
    for path in (NOTEBOOKS / f"{page}.ipynb", HTML / "_sources" / "book" / f"{page}.ipynb"):
        written = nbformat.read(path, as_version=4)
        assert [c.source for c in written.cells] == [c.source for c in notebook.cells], path


@pytest.mark.parametrize("page", PAGES)
def test_no_myst_role_or_source_key_is_left(build, page):
    notebook, _ = _resolved(build, page)
    markdown = _markdown(notebook)
    assert not re.findall(r"\{[a-z:-]+\}`", markdown), "a MyST role is left"
    for name in ("literalinclude", "bibliography"):
        assert f"{{{name}}}" not in markdown
    # jupyterlab-myst would number a labelled equation itself: each carries a \\tag instead.
    assert not re.search(r"\{math\}\n(:[\w-]+:.*\n)*:label:", markdown), "an equation label is left"


@pytest.mark.parametrize("page", PAGES)
def test_glued_values_are_the_pages(build, page):
    """The glued values, in order, are the page's pasted texts."""
    _, calls = _resolved(build, page)
    glued = [text for role, _, text in calls if role.startswith("glue")]
    pasted = [
        html.unescape(value)
        for value in re.findall(r'<span class="pasted-text">([^<]*)</span>', _page_html(page))
    ]
    assert glued == pasted


@pytest.mark.parametrize("page", PAGES)
def test_citations_and_references_read_as_on_the_page(build, page):
    _, calls = _resolved(build, page)
    text = _page_text(page)
    missing = [
        (role, content, resolved) for role, content, resolved in calls if resolved not in text
    ]
    assert not missing, f"not on the page: {missing[:5]}"
    cited = [resolved for role, _, resolved in calls if role.startswith("cite")]
    if "{cite" in (ROOT / "book" / f"{page}.md").read_text():
        assert cited


@pytest.mark.parametrize("page", PAGES)
def test_equation_numbers_are_the_pages(build, page):
    notebook, _ = _resolved(build, page)
    tags = re.findall(r"\\tag\{([\d.]+)\}", _markdown(notebook))
    numbers = re.findall(r'<span class="eqno">\(([\d.]+)\)', _page_html(page))
    assert tags == numbers


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_has_the_pages_caption(build, page):
    notebook, _ = _resolved(build, page)
    captions = [
        re.match(r"\*\*(Fig\. [\d.]+)\.\*\*", cell.source)[1]
        for cell in notebook.cells
        if cell.cell_type == "markdown" and cell.source.startswith("**Fig. ")
    ]
    on_page = [
        number.strip()
        for number in re.findall(
            r'<span class="caption-number">(Fig\. [\d.]+) </span>', _page_html(page)
        )
    ]
    assert captions == on_page


@pytest.mark.parametrize("page", PAGES)
def test_listings_are_the_pages_code(build, page):
    """Each listing's whole code (in the notebook's dropdown when long) is on the page."""
    notebook, _ = _resolved(build, page)
    blocks = re.findall(r"```python\n(.*?)\n```", _markdown(notebook), re.S)
    n_includes = (ROOT / "book" / f"{page}.md").read_text().count("{literalinclude}")
    full = [block for block in blocks if block.count("\n") >= 1]
    code_on_page = re.sub(r"<[^>]+>", "", _page_html(page))
    code_on_page = html.unescape(code_on_page)
    shown = [block for block in full if block in code_on_page]
    assert len(shown) >= n_includes, f"{len(shown)} of {n_includes} listings found on the page"


@pytest.mark.parametrize("page", PAGES)
def test_bibliography_lists_the_pages_entries(build, page):
    notebook, _ = _resolved(build, page)
    labels = re.findall(r"^- \[([^\]]+)\]", _markdown(notebook), re.M)
    on_page = [
        html.unescape(re.sub(r"<[^>]+>", "", label))
        for label in re.findall(
            r'<span class="label"><span class="fn-bracket">\[</span>(.*?)<span class="fn-bracket">',
            _page_html(page),
        )
    ]
    assert labels == on_page
    if "{bibliography}" in (ROOT / "book" / f"{page}.md").read_text():
        assert labels, "the page has a bibliography and the notebook lists nothing"


def test_notebooks_are_valid_and_named_after_the_pages():
    _require_build()
    names = sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb"))
    assert names == PAGES
    for name in names:
        notebook = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())
        nbformat.validate(nbformat.from_dict(notebook))
        assert notebook["metadata"]["kernelspec"]["name"] == "python3"
