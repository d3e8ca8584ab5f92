"""Drop inline scripts that a page would otherwise include twice.

With Sphinx 7.4, an inline script (``app.add_js_file(None, body=...)``) added
during ``builder-inited`` is registered both with the builder (as filename
``None``) and in the registry (as filename ``''``), so it is written twice into
every page. sphinx-thebe declares ``const THEBE_JS_URL`` that way, and the
second declaration is a JavaScript error ("Identifier 'THEBE_JS_URL' has
already been declared"). This extension keeps the first copy of each script;
``tests/browser/test_rendered_book.py`` checks that no page logs an error.
"""


def _script_key(script):
    filename = getattr(script, "filename", script) or None
    attributes = tuple(sorted(getattr(script, "attributes", {}).items()))
    return filename, attributes


def _drop_duplicate_scripts(app, pagename, templatename, context, doctree):
    seen = set()
    unique = []
    for script in context.get("script_files", []):
        key = _script_key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


def setup(app):
    app.connect("html-page-context", _drop_duplicate_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
