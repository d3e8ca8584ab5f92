"""Filters for scikit-learn's ``parametrize_with_checks``, each with its reason."""

import pytest

import pcalib.nmf


def _check_name(value):
    """The check's function name in a ``(estimator, check)`` tuple or a ``pytest.param``."""
    check = (value if isinstance(value, tuple) else value.values)[1]
    return getattr(check, "func", check).__name__


def _estimator(value):
    return (value if isinstance(value, tuple) else value.values)[0]


def without_checks(marker, name, where=lambda estimator: True):
    """Drop the check ``name`` from a ``parametrize_with_checks`` marker for estimators ``where``.

    Asserts that something was dropped, so that a renamed check does not leave
    a filter that silently filters nothing.
    """
    argnames, argvalues = marker.mark.args
    argvalues = list(argvalues)
    kept = [v for v in argvalues if not (_check_name(v) == name and where(_estimator(v)))]
    assert len(kept) < len(argvalues), f"{name} was not found"
    return pytest.mark.parametrize(argnames, kept, **marker.mark.kwargs)


def without_array_api_check(marker):
    """Drop ``check_array_api_input``.

    scikit-learn skips that check unless the environment variable
    SCIPY_ARRAY_API is set. pcalib computes with NumPy only and does not
    dispatch on the array API, so the check is out of scope; filtering it out
    by name keeps the suite free of skips.
    """
    return without_checks(marker, "check_array_api_input")


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


def without_n_iter_check_of_direct_solvers(marker):
    """Drop ``check_transformer_n_iter`` for the configurations fitted by a direct solver.

    That check asks every estimator with ``max_iter`` for ``n_iter_ >= 1``,
    while a direct solver (PCA's SVD and eigendecompositions, PPCA's closed
    form) reports ``n_iter_ = 0`` in pcalib (CONTRIBUTING.md, rule 4), which
    tests/pcalib/test_vocabulary.py checks. The iterative configurations keep the
    check.
    """
    return without_checks(marker, "check_transformer_n_iter", is_direct)


def refuses_zeros(estimator):
    """Whether ``estimator`` is an NMF whose β-divergence is infinite at zeros of X (β ≤ 0)."""
    return type(estimator).__name__ == "NMF" and pcalib.nmf.beta_value(estimator.beta_loss) <= 0


def without_checks_of_zero_refusing_configurations(marker):
    """Drop every check of the NMF configurations with β ≤ 0 (Itakura–Saito).

    scikit-learn's checks make non-negative data by subtracting the minimum,
    which puts a zero in X, and d_β(0 | y) is infinite for β ≤ 0: pcalib's
    NMF, like scikit-learn's, refuses such data with a ValueError, so every
    check fails on its data rather than on the estimator. tests/pcalib/test_nmf.py
    and the reliability tests (on strictly positive data) cover these
    configurations.
    """
    argnames, argvalues = marker.mark.args
    argvalues = list(argvalues)
    kept = [v for v in argvalues if not refuses_zeros(_estimator(v))]
    assert len(kept) < len(argvalues), "no configuration with beta <= 0 was found"
    return pytest.mark.parametrize(argnames, kept, **marker.mark.kwargs)
