"""Set-up of the book's tests: this folder's modules importable, nbval's kernels checking figures.

Every kernel that nbval starts for a reference notebook (``notebooks/``)
executes, at start, an IPython startup file that installs ``figure_checks``
(the figure rules of CONTRIBUTING.md): it gets the environment of this
process, whose ``IPYTHONDIR`` points to a temporary profile holding that file,
and whose ``PYTHONPATH`` has this folder.

The helpers that several of these tests share are importable modules here:
``chapters`` (the chapter files, their code cells and fences), ``golden``
(the reference notebooks), ``figure_checks`` and ``portability``.
"""

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

STARTUP = "import figure_checks\nfigure_checks.install()\n"


def pytest_configure(config):
    ipython_dir = Path(tempfile.mkdtemp(prefix="pcalib-ipython-"))
    startup = ipython_dir / "profile_default" / "startup"
    startup.mkdir(parents=True)
    (startup / "00-figure-checks.py").write_text(STARTUP)
    os.environ["IPYTHONDIR"] = str(ipython_dir)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(HERE), os.environ.get("PYTHONPATH")])
    )
