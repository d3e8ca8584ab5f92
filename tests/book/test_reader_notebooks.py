"""The reader notebooks say what the rendered book says.

``make book`` writes every page once more as a notebook for JupyterLab and for
the download menu (``book/_ext/reader_notebooks.py``), its MyST resolved from
the doctree Sphinx resolved for the page. These tests read the notebooks it
wrote and hold them against the page's source and against the HTML that
Sphinx, MyST-NB and sphinxcontrib-bibtex wrote in the same build: each role of
the source is found in the notebook by aligning the two (``_resolved``), and
its text is then checked against the page: the glued values in the same order,
every citation and cross-reference with the text the page shows, each equation
with the page's number, the listings with the page's code, each figure with
its caption, the bibliography with the page's entries, the folded cells
collapsed. They need the built book (``make book``).
"""

import html
import json
import re
import sys
import types
from pathlib import Path

import jupytext
import nbformat
import pytest
from docutils import nodes

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "_build"
HTML = BUILD / "html"
NOTEBOOKS = BUILD / "notebooks"
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import reader_notebooks  # noqa: E402

PAGES = sorted(p.stem for p in (ROOT / "book").glob("*.md"))
ROLE = re.compile(r"\{(?P<role>[a-z][\w:-]*)\}`(?P<content>[^`]+)`")
# The directives whose whole block the notebook replaces by what the build made of it,
# and the form of what replaces each.
BUILT = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>literalinclude|bibliography)\}.*?^(?P=fence)$"
    r"|^(?P<mfence>`{3,})\{(?P<math>math)\}\n(?::[\w-]+:.*\n)*?:label:.*?^(?P=mfence)$",
    re.M | re.S,
)
REPLACEMENT = {
    "literalinclude": (
        r"```python\n.*?\n```(?:\n\n:::\{dropdown\} [^\n]*\n```python\n.*?\n```\n:::)?"
    ),
    "bibliography": r"(?:- \[[^\n]*(?:\n|\Z))*?(?:- \[[^\n]*)",
    "math": r"```\{math\}\n.*?\\tag\{[\d.]+\}\n```",
}
FRONT_MATTER = re.compile(r"\A---\nnumbering:\n.*?\n---\n", re.S)


def _require_build():
    if not NOTEBOOKS.is_dir() or not list(NOTEBOOKS.glob("*.ipynb")):
        pytest.fail("the book is not built: run `make book` first")


def _page_text(page):
    """The text of the page's article, tags removed, whitespace collapsed."""
    source = (HTML / "book" / f"{page}.html").read_text()
    article = source[source.index("<article") : source.index("</article>")]
    text = html.unescape(re.sub(r"<[^>]+>", "", article))
    return re.sub(r"\s+", " ", text)


def _page_html(page):
    return (HTML / "book" / f"{page}.html").read_text()


def _pattern(source):
    """A regex that the resolved text of ``source`` matches, one group per role."""
    parts, roles, at = [], [], 0
    spans = [(m.start(), m.end(), m["name"] or m["math"]) for m in BUILT.finditer(source)]
    spans += [
        (m.start(), m.end(), m)
        for m in ROLE.finditer(source)
        if not any(s <= m.start() < e for s, e, _ in spans)
    ]
    for start, end, part in sorted(spans, key=lambda span: span[0]):
        parts.append(re.escape(source[at:start]))
        if isinstance(part, str):
            parts.append(f"(?:{REPLACEMENT[part]})")
        else:
            parts.append("(.*?)")
            roles.append((part["role"], part["content"]))
        at = end
    parts.append(re.escape(source[at:]))
    return re.compile("".join(parts), re.S), roles


def _align(source, resolved, where):
    pattern, roles = _pattern(source)
    match = pattern.fullmatch(resolved)
    assert match, f"{where}: the notebook's text is not the source's with its roles resolved"
    return [
        (role, content, text) for (role, content), text in zip(roles, match.groups(), strict=True)
    ]


def _source(page):
    return jupytext.read(ROOT / "book" / f"{page}.md")


@pytest.fixture(scope="module")
def written():
    _require_build()
    return {page: nbformat.read(NOTEBOOKS / f"{page}.ipynb", as_version=4) for page in PAGES}


def _resolved(written, page):
    """The page's notebook, and every role of its source with the text the notebook gives it."""
    notebook = written[page]
    by_id = {cell.id: cell for cell in notebook.cells}
    calls = []
    for index, cell in enumerate(_source(page).cells):
        cell_id = f"{page}-{index}"
        assert cell_id in by_id, f"{page}: no cell {cell_id} in the notebook"
        if cell.cell_type == "markdown":
            resolved = FRONT_MATTER.sub("", by_id[cell_id].source, count=1)
            calls += _align(cell.source, resolved, cell_id)
        caption = cell.metadata.get("mystnb", {}).get("figure", {}).get("caption")
        if caption is not None:
            name = cell.metadata["mystnb"]["figure"]["name"]
            text = re.sub(r"\A\*\*Fig\. [\d.]+\.\*\* ", "", by_id[f"{name}-caption"].source)
            calls += _align(caption, text, f"{name}-caption")
    return notebook, calls


def _markdown(notebook):
    return "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


@pytest.mark.parametrize("page", PAGES)
def test_lab_and_download_notebooks_are_the_same(written, page):
    download = nbformat.read(HTML / "_sources" / "book" / f"{page}.ipynb", as_version=4)
    assert download == written[page]


@pytest.mark.parametrize("page", PAGES)
def test_code_cells_are_the_executed_notebooks(written, page):
    executed = BUILD / "jupyter_execute" / "book" / f"{page}.ipynb"
    if not executed.exists():
        assert not [c for c in _source(page).cells if c.cell_type == "code"]
        return
    expected = [c for c in nbformat.read(executed, as_version=4).cells if c.cell_type == "code"]
    code = [c for c in written[page].cells if c.cell_type == "code"]
    assert [(c.source, c.outputs) for c in code] == [(c.source, c.outputs) for c in expected]


@pytest.mark.parametrize("page", PAGES)
def test_folded_cells_start_collapsed(written, page):
    """A cell the page folds is collapsed in JupyterLab, and no other cell is."""
    for cell in written[page].cells:
        tags = set(cell.metadata.get("tags", []))
        hidden = cell.metadata.get("jupyter", {})
        source = bool(tags & {"hide-input", "hide-cell"})
        outputs = bool(tags & {"hide-output", "hide-cell"})
        assert hidden.get("source_hidden", False) == source, cell.id
        assert hidden.get("outputs_hidden", False) == outputs, cell.id


@pytest.mark.parametrize("page", PAGES)
def test_no_myst_role_or_source_key_is_left(written, page):
    notebook, _ = _resolved(written, page)
    markdown = _markdown(notebook)
    assert not re.findall(r"\{[a-z:-]+\}`", markdown), "a MyST role is left"
    for name in ("literalinclude", "bibliography"):
        assert f"{{{name}}}" not in markdown
    # jupyterlab-myst would number a labelled equation itself: each carries a \\tag instead.
    assert not re.search(r"\{math\}\n(:[\w-]+:.*\n)*:label:", markdown), "an equation label is left"


@pytest.mark.parametrize("page", PAGES)
def test_glued_values_are_the_pages(written, page):
    """The glued values, in order, are the page's pasted texts."""
    _, calls = _resolved(written, page)
    glued = [text for role, _, text in calls if role.startswith("glue")]
    pasted = [
        html.unescape(value)
        for value in re.findall(r'<span class="pasted-text">([^<]*)</span>', _page_html(page))
    ]
    assert glued == pasted


@pytest.mark.parametrize("page", PAGES)
def test_citations_and_references_read_as_on_the_page(written, page):
    _, calls = _resolved(written, page)
    text = _page_text(page)
    missing = [
        (role, content, resolved)
        for role, content, resolved in calls
        if re.sub(r"\s+", " ", resolved) not in text
    ]
    assert not missing, f"not on the page: {missing[:5]}"
    cited = [resolved for role, _, resolved in calls if role.startswith("cite")]
    if "{cite" in (ROOT / "book" / f"{page}.md").read_text():
        assert cited


@pytest.mark.parametrize("page", PAGES)
def test_cross_references_read_as_their_links(written, page):
    """Each cross-reference has the text of a link of the page to its target."""
    _, calls = _resolved(written, page)
    source = _page_html(page)
    wrong = []
    for role, content, resolved in calls:
        if role not in ("numref", "ref", "prf:ref", "eq"):
            continue
        label = re.search(r"<([^<>]+)>$", content)
        label = label[1] if label else content.strip()
        anchor = nodes.make_id(f"equation-{label}") if role == "eq" else label
        links = re.findall(rf'href="[^"]*#{re.escape(anchor)}"[^>]*>(.*?)</a>', source, re.S)
        texts = [html.unescape(re.sub(r"<[^>]+>", "", link)) for link in links]
        if re.sub(r"\s+", " ", resolved) not in [re.sub(r"\s+", " ", t) for t in texts]:
            wrong.append((role, content, resolved, texts[:2]))
    assert not wrong, f"not the text of a link to the target: {wrong[:5]}"


def test_folds_collapse_what_the_page_folds():
    """hide-input folds the code, hide-output the outputs, hide-cell both."""
    for tag, parts in (
        ("hide-input", {"source_hidden"}),
        ("hide-output", {"outputs_hidden"}),
        ("hide-cell", {"source_hidden", "outputs_hidden"}),
        ("remove-input", set()),
    ):
        cell = nbformat.v4.new_code_cell("1", metadata={"tags": [tag]})
        reader_notebooks._fold(cell)
        assert set(cell.metadata.get("jupyter", {})) == parts, tag


@pytest.mark.parametrize("page", PAGES)
def test_equation_numbers_are_the_pages(written, page):
    notebook, _ = _resolved(written, page)
    tags = re.findall(r"\\tag\{([\d.]+)\}", _markdown(notebook))
    numbers = re.findall(r'<span class="eqno">\(([\d.]+)\)', _page_html(page))
    assert tags == numbers


@pytest.mark.parametrize("page", PAGES)
def test_every_figure_has_the_pages_caption(written, page):
    notebook, _ = _resolved(written, page)
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
def test_listings_are_the_pages_code(written, page):
    """Each listing's whole code (in the notebook's dropdown when long) is on the page."""
    notebook, _ = _resolved(written, page)
    blocks = re.findall(r"```python\n(.*?)\n```", _markdown(notebook), re.S)
    n_includes = (ROOT / "book" / f"{page}.md").read_text().count("{literalinclude}")
    full = [block for block in blocks if block.count("\n") >= 1]
    code_on_page = re.sub(r"<[^>]+>", "", _page_html(page))
    code_on_page = html.unescape(code_on_page)
    shown = [block for block in full if block in code_on_page]
    assert len(shown) >= n_includes, f"{len(shown)} of {n_includes} listings found on the page"


@pytest.mark.parametrize("page", PAGES)
def test_bibliography_lists_the_pages_entries(written, page):
    notebook, _ = _resolved(written, page)
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


def _page(*inlines):
    """A ResolvedPage of a one-paragraph doctree holding ``inlines``."""
    from docutils.frontend import get_default_settings
    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    document = new_document("page.md", get_default_settings(Parser))
    document += nodes.paragraph("", "", *inlines)
    env = types.SimpleNamespace(doc2path=lambda docname: f"/book/{docname}.md", toc_fignumbers={})
    return reader_notebooks.ResolvedPage(document, "page", env)


def _xref(rawsource, text):
    return reader_notebooks.resolved_role(rawsource, "", nodes.Text(text))


def _pasted(text):
    return nodes.inline(text, text, classes=["pasted-text"])


def test_roles_take_the_text_of_their_resolved_nodes():
    page = _page(_xref(":numref:`fig-x`", "Fig. 1.1"), _pasted("3.5"))
    markdown = "See {numref}`fig-x`, {sub}`kept` and {glue:text}`value:.1f`."
    expected = "See Fig. 1.1, {sub}`kept` and 3.5."
    assert reader_notebooks.resolved_markdown(page, markdown) == expected
    page.finish()


def test_a_role_the_doctree_lacks_or_has_left_fails_with_its_name():
    with pytest.raises(reader_notebooks.UnresolvedMyST, match=r"glue:text.*missing"):
        reader_notebooks.resolved_markdown(_page(), "{glue:text}`missing`")
    page = _page(_xref(":eq:`eq-y`", "(2.3)"))
    reader_notebooks.resolved_markdown(page, "no roles here")
    with pytest.raises(reader_notebooks.UnresolvedMyST, match=r"1 roles not placed.*eq-y"):
        page.finish()
