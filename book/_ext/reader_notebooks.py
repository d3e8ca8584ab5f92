r"""Each page of the book as a notebook that JupyterLab shows as the book does.

jupyterlab-myst renders a chapter's MyST in the browser, without Sphinx: it
would show a glued number, a citation, a cross-reference or an equation label
as its key, and a ``literalinclude`` as a path. After the HTML build, this
extension writes every page once more as a notebook whose markdown has those
parts replaced by what the page shows, taken from the doctree Sphinx resolved
for the page (the one the HTML is written from):

* a role that Sphinx resolves as a cross-reference (``{numref}``, ``{eq}``,
  ``{cite:p}``, ...) is replaced by the text of its resolved node, found by its
  source text; one that MyST-NB pastes (``{glue:text}``) by its pasted text;
* the three directives whose content comes from the build, ``literalinclude``
  (a file), ``bibliography`` (the references) and a labelled ``math`` (its
  number in the book), by the listing, the list and a ``\tag``.

Every other role and directive is left to jupyterlab-myst. The code cells and
their outputs are the executed notebook's; a figure's caption, which MyST-NB
takes from the cell's metadata, follows its cell as a markdown cell; a cell the
page folds (``hide-input``, ``hide-output``, ``hide-cell``) starts collapsed.
The notebooks go to ``_build/notebooks`` (``make lab`` opens them) and, for the
download menu of each page, next to the page's source in ``_sources``.
"""

import ast
import re
import textwrap
from pathlib import Path

import jupytext
import nbformat
from docutils import nodes
from sphinx import addnodes
from sphinx.transforms.post_transforms import ReferencesResolver, SphinxPostTransform

ROLE = re.compile(r"\{(?P<name>[a-z][\w:-]*)\}`(?P<content>[^`]+)`")
# MyST-Parser hands a role ``{name}`content``` to docutils as ``:name:`content```.
DOCUTILS_ROLE = re.compile(r":(?P<name>[a-z][\w:-]*):`(?P<content>[^`]+)`")
# A directive whose content comes from the build: its argument, options and body.
DIRECTIVE = re.compile(
    r"^(?P<fence>`{3,}|:{3,})\{(?P<name>literalinclude|bibliography|math)\}(?P<argument>[^\n]*)\n"
    r"(?P<options>(?::[\w-]+:[^\n]*\n)*)(?P<body>.*?)^(?P=fence)$",
    re.M | re.S,
)
OPTION = re.compile(r"^:([\w-]+):[ \t]*(.*)$", re.M)
# A listing longer than this shows its code without docstrings, and the whole
# listing in a dropdown below it (the book folds the docstrings, _static/pcalib-book.js).
FOLD_LINES = 30
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
# The cell tags that fold a cell on the page, and the parts they collapse in JupyterLab.
FOLDS = {
    "hide-input": ("source_hidden",),
    "hide-output": ("outputs_hidden",),
    "hide-cell": ("source_hidden", "outputs_hidden"),
}


class UnresolvedMyST(ValueError):
    """A part of the page's MyST that the resolved doctree does not account for."""


class resolved_role(nodes.inline):
    """Holds a cross-reference while Sphinx resolves it, so that its source stays known."""


class MarkCrossReferences(SphinxPostTransform):
    """Wrap each cross-reference in a node that remembers the role's source text.

    Sphinx replaces a ``pending_xref`` by the node it resolves to, which no longer
    says which role it came from; the wrapper does. ``_record`` takes it off again.
    """

    default_priority = ReferencesResolver.default_priority - 1

    def run(self, **kwargs):
        """Wrap every ``pending_xref`` of the document."""
        for xref in list(self.document.findall(addnodes.pending_xref)):
            wrapper = resolved_role(rawsource=xref.rawsource)
            xref.replace_self(wrapper)
            wrapper += xref


class ResolvedPage:
    """What the resolved doctree of one page says about its MyST, in page order.

    ``roles`` are (source text or None for glue, text shown) pairs, ``listings``
    the code of each ``literalinclude``, ``bibliographies`` the entries of each
    ``bibliography``, ``equations`` label -> number, ``figures`` name -> "Fig. 4.1".
    """

    def __init__(self, doctree, docname, env):
        self.docname = docname
        self.roles = []
        self.listings = []
        self.bibliographies = []
        self.equations = {}
        self.figures = {}
        own_source = str(Path(env.doc2path(docname)).resolve())
        seen_lists = []
        numbers = env.toc_fignumbers.get(docname, {})
        for node in doctree.findall(nodes.Element):
            if isinstance(node, resolved_role) and DOCUTILS_ROLE.fullmatch(node.rawsource):
                self.roles.append((node.rawsource, node.astext()))
            elif isinstance(node, nodes.inline) and "pasted-text" in node["classes"]:
                self.roles.append((None, node.astext()))
            elif (
                isinstance(node, nodes.literal_block)
                and node.get("source", own_source) != own_source
            ):
                self.listings.append((Path(node["source"]).name, node.astext()))
            elif isinstance(node, nodes.math_block) and node.get("label"):
                self.equations[node["label"]] = _number(numbers["displaymath"][node["ids"][0]])
            elif isinstance(node, nodes.citation) and node.parent not in seen_lists:
                seen_lists.append(node.parent)
                self.bibliographies.append(_citation_list(node.parent))
        for name, number in numbers.get("figure", {}).items():
            self.figures[name] = f"Fig. {_number(number)}"

    def take_role(self, match):
        """The text the page shows for the role ``match``, or the role itself if left to the lab."""
        is_glue = match["name"].startswith("glue")
        if not self.roles:
            if is_glue:
                raise UnresolvedMyST(f"{self.docname}: nothing pasted for {match[0]}")
            return match[0]
        source, text = self.roles[0]
        if (is_glue and source is None) or source == f":{match['name']}:`{match['content']}`":
            self.roles.pop(0)
            return text
        if is_glue:
            raise UnresolvedMyST(
                f"{self.docname}: {match[0]} is not where a value was pasted;"
                f" the next resolved role is {source!r}"
            )
        return match[0]

    def finish(self):
        """Fail if a resolved part of the page found no place in its markdown."""
        for kind, left in (
            ("roles", self.roles),
            ("listings", self.listings),
            ("bibliographies", self.bibliographies),
        ):
            if left:
                raise UnresolvedMyST(f"{self.docname}: {len(left)} {kind} not placed: {left[:3]}")


def _number(numbers):
    return ".".join(str(n) for n in numbers)


def _citation_list(parent):
    """The bibliography under ``parent`` as a markdown list, ``- [label] entry``."""
    lines = []
    for citation in parent.findall(nodes.citation):
        label = citation.next_node(nodes.label).astext()
        entry = " ".join(_inline_markdown(p) for p in citation.findall(nodes.paragraph))
        lines.append(f"- [{label}] {entry}")
    return "\n".join(lines)


def _inline_markdown(node):
    """The text of an inline doctree node as markdown: emphasis, strong, links, code."""
    if isinstance(node, nodes.Text):
        return node.astext()
    inner = "".join(_inline_markdown(child) for child in node.children)
    if isinstance(node, nodes.emphasis):
        return f"*{inner}*"
    if isinstance(node, nodes.strong):
        return f"**{inner}**"
    if isinstance(node, nodes.literal):
        return f"`{inner}`"
    if isinstance(node, nodes.reference) and node.get("refuri", "").startswith("http"):
        return f"[{inner}]({node['refuri']})"
    return inner


def _record(app, doctree, docname):
    """Keep what the resolved doctree says of the page, then unwrap the cross-references."""
    if app.builder.format == "html" and Path(app.srcdir, f"{docname}.md").exists():
        app.reader_pages[docname] = ResolvedPage(doctree, docname, app.env)
    for wrapper in list(doctree.findall(resolved_role)):
        wrapper.replace_self(wrapper.children)


# The markdown of one cell ----------------------------------------------------


def _listing(page, argument, options):
    path = Path(argument.strip())
    name, code = page.listings.pop(0)
    if name != path.name:
        raise UnresolvedMyST(f"{page.docname}: the listing of {path} is {name}'s")
    where = f"`{options.get('pyobject', path.name)}` in `{path.parent.name}/{path.name}`"
    listing = f"```python\n{code.rstrip()}\n```"
    if code.count("\n") <= FOLD_LINES:
        return listing
    return (
        f"```python\n{_without_docstrings(code).rstrip()}\n```\n\n"
        f":::{{dropdown}} {where}, with its docstrings\n{listing}\n:::"
    )


def _math(page, options, body):
    label = options.pop("label")
    if label not in page.equations:
        raise UnresolvedMyST(f"{page.docname}: no number for the equation {label!r}")
    lines = [f":{key}: {value}" for key, value in options.items()]
    return "\n".join(
        ["```{math}", *lines, body.rstrip(), rf"\tag{{{page.equations[label]}}}", "```"]
    )


def _directive(page, match):
    """The markdown that replaces a directive whose content comes from the build."""
    options = dict(OPTION.findall(match["options"]))
    if match["name"] == "literalinclude":
        return _listing(page, match["argument"], options)
    if match["name"] == "bibliography":
        return page.bibliographies.pop(0)
    if "label" in options:
        return _math(page, options, match["body"])
    return match[0]


def resolved_markdown(page, source):
    """``source`` with the build's directives, then its roles, as the page shows them."""
    return ROLE.sub(page.take_role, DIRECTIVE.sub(lambda match: _directive(page, match), source))


def _without_docstrings(code):
    """``code`` less the lines of its docstrings (module, class and function)."""
    tree = ast.parse(textwrap.dedent(code))
    drop = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            first = node.body[0] if node.body else None
            if _is_docstring(first):
                drop.update(range(first.lineno, first.end_lineno + 1))
    return "\n".join(line for number, line in enumerate(code.split("\n"), 1) if number not in drop)


def _is_docstring(statement):
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


# The notebook ----------------------------------------------------------------


def _caption_cell(page, cell):
    """A markdown cell with the figure caption MyST-NB takes from ``cell``'s metadata, or None."""
    figure = cell.metadata.get("mystnb", {}).get("figure")
    if not figure or "caption" not in figure:
        return None
    caption = resolved_markdown(page, figure["caption"])
    cell = nbformat.v4.new_markdown_cell(f"**{page.figures[figure['name']]}.** {caption}")
    cell.id = f"{figure['name']}-caption"
    return cell


def _fold(cell):
    """Collapse in JupyterLab what the page folds."""
    for tag in cell.metadata.get("tags", []):
        for part in FOLDS.get(tag, ()):
            cell.metadata.setdefault("jupyter", {})[part] = True


def _add_numbering(notebook, chapter):
    r"""Number as the book does: jupyterlab-myst reads the first cell's front matter.

    Exercises, theorems and algorithms are numbered "4.1", "4.2"... in chapter 4;
    equations are not numbered by jupyterlab-myst, which would number every display,
    but carry the book's number as a ``\tag`` (``_math``).
    """
    if chapter is None:
        return
    enumerator = _number(chapter) + ".%s"
    front_matter = f'---\nnumbering:\n  enumerator: "{enumerator}"\n  equation: false\n---\n'
    first = next(cell for cell in notebook.cells if cell.cell_type == "markdown")
    first.source = front_matter + first.source


def reader_notebook(app, docname, page):
    """The page ``docname`` as a notebook whose markdown JupyterLab shows as the book does."""
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{docname}.ipynb"
    if executed.exists():
        notebook = nbformat.read(executed, as_version=4)
    else:
        # A page without code (the introduction, the bibliography): its markdown.
        notebook = jupytext.read(Path(app.srcdir, f"{docname}.md"))
    cells = []
    for index, cell in enumerate(notebook.cells):
        cell.id = f"{Path(docname).name}-{index}"
        if cell.cell_type == "markdown":
            cell.source = resolved_markdown(page, cell.source)
        _fold(cell)
        cells.append(cell)
        caption = _caption_cell(page, cell) if cell.cell_type == "code" else None
        if caption is not None:
            cells.append(caption)
    page.finish()
    notebook.cells = cells
    _add_numbering(notebook, app.env.toc_secnumbers.get(docname, {}).get(""))
    notebook.metadata = {"kernelspec": KERNELSPEC, "language_info": {"name": "python"}}
    nbformat.validate(notebook)
    return notebook


def _name_notebook(app, pagename, templatename, context, doctree):
    """Offer the page's notebook in sphinx-book-theme's download menu."""
    if pagename in app.env.found_docs and Path(app.srcdir, f"{pagename}.md").exists():
        context["ipynb_source"] = f"{pagename}.ipynb"


def _write_notebooks(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    lab = Path(app.outdir).parent / "notebooks"
    lab.mkdir(parents=True, exist_ok=True)
    for docname, page in sorted(app.reader_pages.items()):
        notebook = reader_notebook(app, docname, page)
        download = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
        download.parent.mkdir(parents=True, exist_ok=True)
        for target in (download, lab / f"{Path(docname).name}.ipynb"):
            nbformat.write(notebook, target)


def _start(app):
    app.reader_pages = {}


def setup(app):
    app.connect("builder-inited", _start)
    app.add_post_transform(MarkCrossReferences)
    app.connect("doctree-resolved", _record)
    # Before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", _name_notebook, priority=400)
    app.connect("build-finished", _write_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
