"""scikit-learn's estimator checks on every pcalib estimator.

Each estimator is checked in every configuration that runs different code
(solvers, approximations, missing data, losses).

``check_array_api_input`` is left out: pcalib computes with NumPy only (see
:func:`estimator_checks.without_array_api_check`), and so is
``check_transformer_n_iter`` for direct solvers, which report ``n_iter_ = 0``
(see :func:`estimator_checks.without_n_iter_check_of_direct_solvers`).
"""

import pytest
from estimator_checks import without_array_api_check, without_n_iter_check_of_direct_solvers
from sklearn.utils.estimator_checks import parametrize_with_checks

from pcalib import NMF, PCA, PPCA, ElasticNetSPCA, KernelPCA, RobustPCA

CONFIGURATIONS = [
    PCA(),
    PCA(standardize=True),
    PCA(svd_solver="covariance_eigh"),
    PCA(svd_solver="gram"),
    PCA(svd_solver="subspace"),
    PCA(svd_solver="randomized"),
    PCA(n_components=0.9),
    KernelPCA(),
    KernelPCA(kernel="rbf"),
    KernelPCA(kernel="poly"),
    KernelPCA(kernel="rbf", approximation="nystrom", n_landmarks=10, random_state=0),
    KernelPCA(kernel="rbf", approximation="rff", random_state=0),
    PPCA(),
    PPCA(solver="em", random_state=0),
    PPCA(allow_missing=True, random_state=0),
    PPCA(ddof=1),
    ElasticNetSPCA(),
    ElasticNetSPCA(n_nonzero=2),
    ElasticNetSPCA(standardize=True, l1_penalty=0.1),
    NMF(),
    NMF(extrapolate=False),
    NMF(solver="mu"),
    NMF(solver="pg"),
    NMF(solver="mu", beta_loss="kullback-leibler"),
    RobustPCA(random_state=0),
]


def test_every_estimator_is_checked():
    from sklearn.base import BaseEstimator

    import pcalib

    estimators = {
        obj
        for obj in vars(pcalib).values()
        if isinstance(obj, type) and issubclass(obj, BaseEstimator)
    }
    assert {type(estimator) for estimator in CONFIGURATIONS} == estimators


# The checks' small random data leave some sparse components empty at these
# penalties; the warning saying so is the documented behaviour (tested in
# test_sparse_pca.py), not a failure of the check.
@pytest.mark.filterwarnings("ignore:component\\(s\\) .* have no non-zero loading:UserWarning")
@without_n_iter_check_of_direct_solvers(
    without_array_api_check(parametrize_with_checks(CONFIGURATIONS))
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
