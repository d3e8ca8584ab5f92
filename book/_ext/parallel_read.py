"""Let Sphinx read, and so execute, the chapters in parallel processes.

Sphinx reads in parallel only if every extension declares that it is safe
to. Three that Jupyter Book loads do not declare it, and one domain cannot
merge what parallel readers collect. Each is safe, for the reason given, and
this extension says so:

* sphinx-multitoc-numbering replaces ``TocTreeCollector.assign_section_numbers``,
  which Sphinx calls in the main process once every document has been read;
* sphinx-mathjax-offline only copies MathJax into the output when the build
  has finished;
* sphinx-jupyterbook-latex's transforms at reading time only annotate the
  document being read (its other work happens when a LaTeX builder writes);
* sphinx-proof's domain keeps no data per document (the proofs are in
  ``env.proof_list``, which sphinx-proof merges itself), so merging it is a
  no-op, which its class does not define.

``book/_ext/build_book.py`` then asks Sphinx for parallel processes.
"""

READ_SAFE = ("sphinx_multitoc_numbering", "sphinx-mathjax-offline", "sphinx_jupyterbook_latex")


def merge_nothing(self, docnames, otherdata):
    """Merge the data of a domain that keeps none per document."""


def setup(app):
    from sphinx_proof.domain import ProofDomain

    for name in READ_SAFE:
        app.setup_extension(name)
        app.extensions[name].parallel_read_safe = True
    ProofDomain.merge_domaindata = merge_nothing
    return {"parallel_read_safe": True, "parallel_write_safe": True}
