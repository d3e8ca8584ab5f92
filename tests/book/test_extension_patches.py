"""The book's patches of third-party internals still apply, and are still needed.

``book/_ext/build_book.py`` passes Sphinx's ``jobs`` through Jupyter Book's
``build_sphinx``, and ``book/_ext/parallel_read.py`` declares three
extensions parallel-read safe and gives sphinx-proof's domain a no-op
``merge_domaindata``; ``book/_ext/reader_notebooks.py`` finds each role's
resolved node by the source text MyST-Parser gives it. Each rests on an
internal of a package that an upgrade can move. These tests check each
premise without building the book, and fail with a message saying which
patch to revisit: one that no longer applies (the internal moved) or one that
is no longer needed (the package now does it itself).
"""

import importlib
import inspect
import sys
from pathlib import Path
from unittest.mock import MagicMock

import pytest

EXT = Path(__file__).resolve().parents[2] / "book" / "_ext"
sys.path.insert(0, str(EXT))

import parallel_read  # noqa: E402


def test_jupyter_book_builds_through_a_build_sphinx_that_takes_jobs():
    import jupyter_book.cli.main
    import jupyter_book.sphinx

    assert callable(getattr(jupyter_book.cli.main, "main", None)), (
        "jupyter_book.cli.main.main is gone: book/_ext/build_book.py runs it as "
        "the jupyter-book command; adapt it to the installed Jupyter Book."
    )
    parameters = inspect.signature(jupyter_book.sphinx.build_sphinx).parameters
    assert "jobs" in parameters and parameters["jobs"].kind is inspect.Parameter.KEYWORD_ONLY, (
        "jupyter_book.sphinx.build_sphinx no longer takes the keyword jobs, which "
        "book/_ext/build_book.py sets to read the chapters in parallel; its "
        f"signature is now {inspect.signature(jupyter_book.sphinx.build_sphinx)}."
    )


@pytest.mark.parametrize("name", parallel_read.READ_SAFE)
def test_an_extension_declared_read_safe_does_not_declare_it_itself(name):
    module = importlib.import_module(name)
    metadata = module.setup(MagicMock()) or {}
    assert "parallel_read_safe" not in metadata, (
        f"{name} now declares parallel_read_safe={metadata['parallel_read_safe']} "
        "itself: remove it from READ_SAFE in book/_ext/parallel_read.py."
    )


def test_sphinx_multitoc_numbering_numbers_sections_after_reading():
    import sphinx.environment.collectors.toctree as toctree
    import sphinx_multitoc_numbering

    # parallel_read.py's reason for declaring it safe: it replaces a method that
    # Sphinx calls in the main process once every document has been read
    assert hasattr(toctree.TocTreeCollector, "assign_section_numbers")
    assert callable(sphinx_multitoc_numbering.assign_section_numbers), (
        "sphinx_multitoc_numbering no longer defines assign_section_numbers: "
        "re-check why book/_ext/parallel_read.py declares it parallel-read safe."
    )


def test_sphinx_proof_still_lacks_a_merge_and_keeps_no_data_per_document():
    from sphinx.domains import Domain
    from sphinx_proof.domain import ProofDomain

    own = vars(ProofDomain).get("merge_domaindata")
    assert own is None or own is parallel_read.merge_nothing, (
        "sphinx-proof's ProofDomain now defines merge_domaindata itself: remove "
        "the no-op that book/_ext/parallel_read.py puts in its place."
    )
    assert Domain.merge_domaindata is not parallel_read.merge_nothing
    assert ProofDomain.initial_data == {}, (
        "ProofDomain now keeps data per document (initial_data = "
        f"{ProofDomain.initial_data!r}): a merge that does nothing would lose it "
        "in a parallel build; write a real merge in book/_ext/parallel_read.py."
    )


def test_myst_parser_gives_a_role_its_source_as_docutils_writes_roles():
    """reader_notebooks finds ``{name}`content``` as a node of rawsource ``:name:`content```."""
    import reader_notebooks
    from docutils.frontend import get_default_settings
    from docutils.utils import new_document
    from myst_parser.parsers.docutils_ import Parser

    document = new_document("page.md", get_default_settings(Parser))
    Parser().parse("See {emphasis}`this`.", document)
    raw = [node.rawsource for node in document.findall() if getattr(node, "rawsource", "")]
    assert ":emphasis:`this`" in raw, (
        "MyST-Parser no longer gives a role the rawsource :name:`content` "
        f"(it gave {raw}); book/_ext/reader_notebooks.py's DOCUTILS_ROLE must follow."
    )
    assert reader_notebooks.DOCUTILS_ROLE.fullmatch(":emphasis:`this`")
