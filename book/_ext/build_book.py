"""``jupyter-book build`` with the chapters read, and so executed, in parallel.

Jupyter Book 1 gives Sphinx no ``-j`` option: this runs its command line
with Sphinx's number of parallel processes set to ``BOOK_JOBS`` (default 2,
the cores of the machines the book is built on). The extension
``parallel_read`` (``_config.yml``) declares the extensions that allow it.
The arguments are those of ``jupyter-book``, for example
``python book/_ext/build_book.py build . --all -W -n --keep-going``.
"""

import functools
import os
import sys

import jupyter_book.cli.main
import jupyter_book.sphinx

if __name__ == "__main__":
    jobs = int(os.environ.get("BOOK_JOBS", "2"))
    jupyter_book.sphinx.build_sphinx = functools.partial(
        jupyter_book.sphinx.build_sphinx, jobs=jobs
    )
    sys.argv[0] = "jupyter-book"
    jupyter_book.cli.main.main()
