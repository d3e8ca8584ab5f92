"""Each page of the book as a notebook that JupyterLab shows as the book does.

A chapter's MyST needs Sphinx to become what the book shows: a glued number
is a key until MyST-NB pastes the value, a citation a key until
sphinxcontrib-bibtex formats it, ``{numref}`` and ``{eq}`` labels until Sphinx
numbers the figures and equations of the whole book, ``literalinclude`` a path
until Sphinx reads the file. jupyterlab-myst renders MyST in the browser,
without those steps, so in JupyterLab the reader would see the keys.

After the HTML build, this extension writes every page once more as a
notebook, its markdown with those steps already done, from what the build
knows: the glued values of the executed notebook, the numbers Sphinx gave
(``env.toc_fignumbers``), the bibliography file formatted by the book's own
author-year style, the listed code read as Sphinx reads it. The code cells and
their outputs are the executed notebook's; a figure's caption, which MyST-NB
takes from the cell's metadata, follows its cell as a markdown cell. The
notebooks go to ``_build/notebooks`` (``make lab`` opens them) and, for the
download menu of each page, next to the page's source in ``_sources``.
"""

import ast
import json
import re
import textwrap
from pathlib import Path

import jupytext
import nbformat
import pybtex.database
import pybtex.plugin
from docutils.nodes import make_id
from myst_nb.core.variables import format_plain_text
from sphinx.directives.code import LiteralIncludeReader

ROLE = re.compile(
    r"\{(?P<role>glue:text|glue|eq|numref|ref|prf:ref|cite:p|cite:t|cite)\}`(?P<content>[^`]+)`"
)
FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:-]+)\}(?P<argument>.*)$")
CITE_TARGET = re.compile(r"^(?P<key>[^{}\s]+)(?:\{(?P<post>[^{}]*)\})?$")
OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
EXPLICIT_TITLE = re.compile(r"^(?P<title>.*?)\s*<(?P<label>[^<>]+)>$", re.DOTALL)
# A listing longer than this shows its code without docstrings, and the whole
# listing in a dropdown below it (the book folds the docstrings, _static/pcalib-book.js).
FOLD_LINES = 30
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


class UnresolvedMyST(ValueError):
    """A role or directive of the page that the reader notebook cannot resolve."""


def _number(numbers):
    return ".".join(str(n) for n in numbers)


def _numbered_name(config, kind, number):
    """The name of a numbered target as the page prints it ("Fig. 4.1", "Theorem 7.1").

    numfig's format, capitalised: sphinx-proof's formats are lower case ("theorem %s").
    """
    text = config.numfig_format.get(kind, kind + " %s") % number
    return text[0].upper() + text[1:]


def _split_target(content):
    """``"title <label>"`` -> (title, label); ``"label"`` -> (None, label)."""
    match = EXPLICIT_TITLE.match(content)
    if match:
        return match["title"], match["label"]
    return None, content.strip()


class Bibliography:
    """The book's references.bib, labelled and ordered by the book's style."""

    def __init__(self, bibfile):
        data = pybtex.database.parse_file(bibfile)
        style = pybtex.plugin.find_plugin("pybtex.style.formatting", "author_year")()
        formatted = list(style.format_entries(data.entries.values()))
        self.entries = {entry.key: entry for entry in formatted}
        self.order = {entry.key: i for i, entry in enumerate(formatted)}
        self.data = data

    def _author_year(self, key):
        if key not in self.entries:
            raise UnresolvedMyST(f"no entry {key!r} in the bibliography")
        entry = self.data.entries[key]
        label = self.entries[key].label
        author = label.rsplit(", ", 1)[0]
        return author, entry.fields.get("year", "n.d.")

    def cite(self, role, targets):
        """The text of a citation as the book prints it: ``[A, 1999, B, 2000]`` or ``A [1999]``.

        ``targets`` are (key, post-text) pairs, the post-text ("Theorem 10.6") or "".
        """
        targets = sorted(targets, key=lambda target: self.order.get(target[0], -1))
        cited = []
        for key, post in targets:
            author, year = self._author_year(key)
            cited.append((author, year + (f", {post}" if post else "")))
        if role == "cite:t":
            return ", ".join(f"{author} [{year}]" for author, year in cited)
        return "[" + ", ".join(f"{author}, {year}" for author, year in cited) + "]"

    def listing(self, keys):
        """A markdown list of the entries, in the book's order, each with its label."""
        keys = sorted(keys, key=lambda key: self.order[key])
        return "\n".join(
            f"- [{self.entries[key].label}] {self.entries[key].text.render_as('markdown')}"
            for key in keys
        )


class PageResolver:
    """Resolves one page's roles and directives from what the build knows."""

    def __init__(self, app, docname, glue, bibliography, keyprefix):
        self.env = app.env
        self.config = app.config
        self.docname = docname
        self.glue = glue
        self.bibliography = bibliography
        self.source_dir = Path(app.srcdir, docname).parent
        self.keyprefix = keyprefix  # the page bibliography's :keyprefix:, "" without one
        self.cited = set()

    # Roles ------------------------------------------------------------------

    def _glue(self, content):
        key, _, fmt = content.partition(":")
        if key not in self.glue:
            raise UnresolvedMyST(f"{self.docname}: nothing glued under {key!r}")
        return format_plain_text(self.glue[key]["data"]["text/plain"], fmt or "s")

    def enumerated(self, node_id):
        """(kind, number) of an enumerated target (figure, exercise, theorem...), or None."""
        for numbers in self.env.toc_fignumbers.values():
            for kind, ids in numbers.items():
                if node_id in ids:
                    return kind, _number(ids[node_id])
        return None

    def _equation(self, label):
        equations = self.env.domaindata["math"]["objects"]
        if label not in equations:
            raise UnresolvedMyST(f"{self.docname}: no equation {label!r}")
        docname = equations[label][0]
        return _number(
            self.env.toc_fignumbers[docname]["displaymath"][make_id(f"equation-{label}")]
        )

    def _reference(self, role, content):
        title, label = _split_target(content)
        enumerated = self.enumerated(label)
        if enumerated:
            kind, number = enumerated
            text = _numbered_name(self.config, kind, number)
        else:
            labels = self.env.domaindata["std"]["labels"]
            if label not in labels:
                raise UnresolvedMyST(f"{self.docname}: no target {label!r} for {{{role}}}")
            text = labels[label][2]
        if title is None:
            return text
        if role == "numref" and "%s" in title:
            return title % text.split()[-1]
        return title

    def _cite(self, role, content):
        targets = []
        for target in content.split(","):
            match = CITE_TARGET.match(target.strip())
            if not match:
                raise UnresolvedMyST(f"{self.docname}: citation {target!r} not understood")
            key = match["key"].removeprefix(self.keyprefix)
            targets.append((key, match["post"] or ""))
            self.cited.add(key)
        return self.bibliography.cite(role, targets)

    def role(self, match):
        role, content = match["role"], match["content"]
        if role in ("glue:text", "glue"):
            return self._glue(content)
        if role == "eq":
            return f"({self._equation(content.strip())})"
        if role.startswith("cite"):
            return self._cite(role, content)
        return self._reference(role, content)

    # Directives -------------------------------------------------------------

    def _literalinclude(self, argument, options):
        path = (self.source_dir / argument.strip()).resolve()
        code, _ = LiteralIncludeReader(str(path), options, self.config).read()
        name = options.get("pyobject") or path.name
        where = f"`{name}` in `{path.parent.name}/{path.name}`"
        listing = f"```python\n{code.rstrip()}\n```"
        if code.count("\n") <= FOLD_LINES:
            return listing
        return (
            f"```python\n{_without_docstrings(code).rstrip()}\n```\n\n"
            f":::{{dropdown}} {where}, with its docstrings\n{listing}\n:::"
        )

    def _bibliography(self, options):
        if "all" in options:
            keys = self.bibliography.entries.keys()
        elif options.get("filter") == "docname in docnames":
            keys = self.cited
        else:
            raise UnresolvedMyST(f"{self.docname}: bibliography options {options} not handled")
        return self.bibliography.listing(keys)

    def _math(self, options, body):
        label = options.pop("label", None)
        if label is None:
            return None
        lines = [f":{key}: {value}" for key, value in options.items()]
        return "\n".join(
            ["```{math}", *lines, body.rstrip(), rf"\tag{{{self._equation(label)}}}", "```"]
        )

    def directive(self, name, argument, options, body):
        """The markdown that replaces the directive, or None to keep it as it is."""
        if name == "literalinclude":
            return self._literalinclude(argument, options)
        if name == "bibliography":
            return self._bibliography(options)
        if name == "math":
            return self._math(options, body)
        return None

    # A markdown cell ---------------------------------------------------------

    def markdown(self, source):
        """The cell's source with every directive, then every role, resolved."""
        return ROLE.sub(self.role, self._directives(source))

    def _directives(self, source):
        lines = source.split("\n")
        out, i = [], 0
        while i < len(lines):
            match = FENCE.match(lines[i])
            if not match:
                out.append(lines[i])
                i += 1
                continue
            fence, name = match["fence"], match["name"]
            end = i + 1
            while end < len(lines) and not _closes(lines[end], fence):
                end += 1
            options, j = {}, i + 1
            while j < end and OPTION.match(lines[j]):
                option = OPTION.match(lines[j])
                options[option["key"]] = option["value"]
                j += 1
            body = "\n".join(lines[j:end])
            replacement = self.directive(name, match["argument"], dict(options), body)
            if replacement is None:
                out.append(lines[i])
                i += 1
            else:
                out.append(replacement)
                i = end + 1
        return "\n".join(out)


def _closes(line, fence):
    """Whether ``line`` closes a directive opened by ``fence`` (```` ``` ```` or ``:::``)."""
    stripped = line.strip()
    return len(stripped) >= len(fence) and set(stripped) == {fence[0]}


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


def _caption_cell(resolver, cell):
    """A markdown cell with the figure caption MyST-NB takes from ``cell``'s metadata, or None."""
    figure = cell.metadata.get("mystnb", {}).get("figure")
    if not figure or "caption" not in figure:
        return None
    label = _numbered_name(resolver.config, *resolver.enumerated(figure["name"]))
    caption = nbformat.v4.new_markdown_cell(f"**{label}.** {resolver.markdown(figure['caption'])}")
    caption.id = f"{figure['name']}-caption"
    return caption


def _add_numbering(notebook, chapter):
    """Number as the book does: jupyterlab-myst reads the first cell's front matter.

    Exercises, theorems and algorithms are numbered "4.1", "4.2"... in chapter 4;
    equations are not numbered by jupyterlab-myst, which would number every display,
    but carry the book's number as a ``\\tag`` (``PageResolver._math``).
    """
    if chapter is None:
        return
    enumerator = _number(chapter) + ".%s"
    front_matter = f'---\nnumbering:\n  enumerator: "{enumerator}"\n  equation: false\n---\n'
    first = next(cell for cell in notebook.cells if cell.cell_type == "markdown")
    first.source = front_matter + first.source


def reader_notebook(app, docname, bibliography):
    """The page ``docname`` as a notebook whose markdown JupyterLab shows as the book does."""
    executed = Path(app.outdir).parent / "jupyter_execute" / f"{docname}.ipynb"
    glue_file = executed.with_suffix(".glue.json")
    if executed.exists():
        notebook = nbformat.read(executed, as_version=4)
    else:
        # A page without code (the introduction, the bibliography): its markdown.
        notebook = jupytext.read(Path(app.srcdir, f"{docname}.md"))
    glue = json.loads(glue_file.read_text()) if glue_file.exists() else {}
    prefix = re.search(r"^:keyprefix:\s*(\S+)", "\n".join(c.source for c in notebook.cells), re.M)
    resolver = PageResolver(app, docname, glue, bibliography, prefix[1] if prefix else "")
    cells = []
    for index, cell in enumerate(notebook.cells):
        cell.id = f"{Path(docname).name}-{index}"
        if cell.cell_type == "markdown":
            cell.source = resolver.markdown(cell.source)
        cells.append(cell)
        caption = _caption_cell(resolver, cell) if cell.cell_type == "code" else None
        if caption is not None:
            cells.append(caption)
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
    bibliography = Bibliography(Path(app.srcdir, app.config.bibtex_bibfiles[0]))
    lab = Path(app.outdir).parent / "notebooks"
    lab.mkdir(parents=True, exist_ok=True)
    for docname in sorted(app.env.found_docs):
        if not Path(app.srcdir, f"{docname}.md").exists():
            continue
        notebook = reader_notebook(app, docname, bibliography)
        download = Path(app.outdir) / "_sources" / f"{docname}.ipynb"
        download.parent.mkdir(parents=True, exist_ok=True)
        for target in (download, lab / f"{Path(docname).name}.ipynb"):
            nbformat.write(notebook, target)


def setup(app):
    # Before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", _name_notebook, priority=400)
    app.connect("build-finished", _write_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
