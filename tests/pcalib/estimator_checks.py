"""Which of scikit-learn's estimator checks pcalib's estimators run, and which they fail.

:func:`checked_configurations` is the list of estimators given to
``parametrize_with_checks``, and :func:`expected_failed_checks` its
``expected_failed_checks``: for one estimator, ``{check name: reason}``.
"""

from public_api import estimator_configurations

import pcalib.nmf

DIRECT_SOLVERS = {
    "PCA": ("svd_solver", ("auto", "full", "covariance_eigh", "gram", "arpack", "randomized")),
    "PPCA": ("solver", ("auto", "closed_form")),
}


def is_direct(estimator):
    """Whether ``estimator`` is fitted without a stopping rule on the checks' complete data.

    The randomized range finder counts as direct: it does a fixed amount of
    work (``iterated_power_`` power iterations) and reports ``n_iter_ = 0``;
    so does ARPACK, which runs to machine precision and does not report its
    iteration count.
    """
    parameter, direct = DIRECT_SOLVERS.get(type(estimator).__name__, (None, ()))
    return parameter is not None and getattr(estimator, parameter) in direct


def refuses_zeros(estimator):
    """Whether ``estimator`` is an NMF whose β-divergence is infinite at zeros of X (β ≤ 0)."""
    return type(estimator).__name__ == "NMF" and pcalib.nmf.beta_value(estimator.beta_loss) <= 0


def checked_configurations():
    """Every configuration of public_api.CONFIGURATIONS except those that refuse zeros.

    scikit-learn's checks make non-negative data by subtracting the minimum,
    which puts a zero in X, and d_β(0 | y) is infinite for β ≤ 0: pcalib's
    NMF, like scikit-learn's, refuses such data with a ValueError, so every
    check would fail on its data rather than on the estimator.
    tests/pcalib/test_nmf.py and the reliability tests (on strictly positive
    data) cover these configurations.
    """
    return [estimator for estimator in estimator_configurations() if not refuses_zeros(estimator)]


ARRAY_API = (
    "pcalib computes with NumPy only and does not dispatch on the array API; "
    "scikit-learn skips this check unless SCIPY_ARRAY_API is set"
)
N_ITER_OF_DIRECT_SOLVER = (
    "a direct solver reports n_iter_ = 0 (CONTRIBUTING.md, rule 4, checked by "
    "tests/pcalib/test_vocabulary.py), where the check asks every estimator "
    "with max_iter for n_iter_ >= 1"
)


def expected_failed_checks(estimator):
    """The checks that ``estimator`` is expected to fail: ``{check name: reason}``."""
    expected = {"check_array_api_input": ARRAY_API}
    if is_direct(estimator):
        expected["check_transformer_n_iter"] = N_ITER_OF_DIRECT_SOLVER
    return expected
