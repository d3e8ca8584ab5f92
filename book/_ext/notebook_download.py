"""Offer each chapter as an executed notebook from its page.

The chapters are MyST markdown, so sphinx-book-theme's download menu offers the
``.md`` source and the PDF only; it adds an ``.ipynb`` entry when a page names
one in ``ipynb_source``. This extension names, for every executed chapter,
the notebook MyST-NB wrote when it ran it (``_build/jupyter_execute``, the
outputs the page shows) and copies it next to the page's source in
``_sources``, where the menu's link points. A reader without a clone can then
open the chapter, outputs included, in JupyterLab.
"""

import shutil
from pathlib import Path


def _executed_notebook(app, pagename):
    return Path(app.outdir).parent / "jupyter_execute" / f"{pagename}.ipynb"


def _name_notebook(app, pagename, templatename, context, doctree):
    if _executed_notebook(app, pagename).exists():
        context["ipynb_source"] = f"{pagename}.ipynb"


def _copy_notebooks(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for pagename in app.env.found_docs:
        notebook = _executed_notebook(app, pagename)
        if notebook.exists():
            target = Path(app.outdir) / "_sources" / f"{pagename}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(notebook, target)


def setup(app):
    # Before sphinx-book-theme builds its header buttons (priority 501).
    app.connect("html-page-context", _name_notebook, priority=400)
    app.connect("build-finished", _copy_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
