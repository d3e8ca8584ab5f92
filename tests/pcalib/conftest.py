"""Set-up of pcalib's tests: this folder's modules importable, and the shared fixtures.

The shared functions are in ``helpers.py``; ``public_api.py`` enumerates what
is public, and ``estimator_checks.py`` says which of scikit-learn's checks
each estimator is expected to fail.
"""

import sys
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="module")
def single_threaded_blas():
    """One BLAS thread for a module whose fits make hundreds of small SVDs and products.

    OpenBLAS's threads only add synchronisation to them; on a loaded two-core
    machine they made test_robust_pca.py ten times slower (measured: 105 s
    against 10 s).
    """
    with threadpool_limits(limits=1, user_api="blas"):
        yield
