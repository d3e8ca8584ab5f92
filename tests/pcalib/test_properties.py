"""Property-based tests of :class:`pcalib.PCA`, and of every estimator (hypothesis).

The data are small matrices (2..12 samples × 1..8 features) with bounded
entries. Every expected value is computed here with NumPy (``np.var``,
``np.cov``, ``np.linalg.eigvalsh``), independently of pcalib.

Tolerances
----------
Two computations of the same variance differ through

* the backward error of the SVD / symmetric eigensolver: a few ``eps`` times
  the largest variance (at most the total variance ``T``), times a small
  factor in the dimension — ``1e-9 · T`` leaves a margin of about 10⁵;
* the rounding of the centring ``X - mean``: each centred entry is off by a
  few ``eps · max|X|``, which moves a variance by up to about
  ``16 eps · max|X|²`` (≈ 4e-15 · max|X|²) — ``1e-12 · max|X|²`` leaves a margin
  of a few hundred. This term matters only when the spread of the data is
  tiny compared with its magnitude (large mean, small variance).

Eigenvectors are only determined up to an error of about
``(variance error) / gap`` (Davis–Kahan), so components are compared only
where the eigengap makes that bound small.
"""

import warnings

import numpy as np
import pytest
from helpers import reference_spectrum, spectral_gaps
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from public_api import configuration_id, data_for, estimator_configurations
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from pcalib import NMF, PCA, FactorAnalysis, KernelPCA, RobustPCA

SETTINGS = settings(deadline=None, max_examples=60, database=None)
SOLVERS = ["full", "covariance_eigh"]

ELEMENTS = st.floats(
    min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False
)


@st.composite
def data_matrices(draw, min_samples=2, max_samples=12, min_features=1, max_features=8):
    n = draw(st.integers(min_samples, max_samples))
    d = draw(st.integers(min_features, max_features))
    X = draw(arrays(np.float64, (n, d), elements=ELEMENTS))
    assume_not_degenerate(X)
    return X


def assume_not_degenerate(X):
    """Discard inputs PCA cannot or need not handle.

    * all rows equal: zero variance, PCA raises (tested in test_validation);
    * entries so tiny (below 1e-100 in magnitude at most) that the squares of
      the centred data would leave the normal float range: underflow is not a
      property of PCA;
    * a total variance below 1e-12 · max|X|²: the spread is then comparable
      with the rounding of the centring and every comparison below would be
      within its tolerance anyway.
    """
    assume(not np.all(X == X[0]))
    scale = np.abs(X).max()
    assume(scale >= 1e-100)
    assume(total_variance(X) >= 1e-12 * scale**2)


def total_variance(X):
    return float(np.var(X, axis=0, ddof=1).sum())


def variance_atol(*matrices):
    """Absolute tolerance for variances of the given data (see module docstring)."""
    scale = max(np.abs(M).max() for M in matrices)
    total = max(total_variance(M) for M in matrices)
    return 1e-9 * total + 1e-12 * scale**2


def assert_components_match_where_identified(A, B, eigenvalues, atol):
    """Compare rows of A and B up to sign where the eigengap identifies them.

    Component i is determined to about ``atol / gap_i``; rows with a bound
    above 1e-3 (near-repeated eigenvalues, where any rotation is as good) are
    not compared. Returns how many rows were compared.
    """
    gaps = spectral_gaps(eigenvalues)[: A.shape[0]]
    compared = 0
    for i, gap in enumerate(gaps):
        if gap <= 1e5 * atol:  # the bound 100·atol/gap would exceed 1e-3
            continue
        bound = 100 * atol / gap
        sign = np.sign(A[i] @ B[i])
        assert sign != 0
        np.testing.assert_allclose(sign * A[i], B[i], rtol=0, atol=bound + 1e-12)
        compared += 1
    return compared


# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
@SETTINGS
@given(X=data_matrices(), data=st.data())
def test_components_orthonormal_with_sign_convention(solver, X, data):
    n, d = X.shape
    k = data.draw(st.integers(1, min(n, d)), label="k")
    pca = PCA(n_components=k, svd_solver=solver).fit(X)
    V = pca.components_
    assert V.shape == (k, d)
    np.testing.assert_allclose(V @ V.T, np.eye(k), rtol=0, atol=1e-10)
    largest = np.argmax(np.abs(V), axis=1)
    assert np.all(V[np.arange(k), largest] > 0)


@pytest.mark.parametrize("solver", SOLVERS)
@SETTINGS
@given(X=data_matrices())
def test_explained_variance_sorted_and_complete(solver, X):
    pca = PCA(svd_solver=solver).fit(X)  # k = min(n, d)
    ev = pca.explained_variance_
    assert ev.shape == (min(X.shape),)
    assert np.all(ev >= 0)
    assert np.all(np.diff(ev) <= 0)
    # all components together carry the whole variance
    total = total_variance(X)
    assert abs(ev.sum() - total) <= variance_atol(X)
    # ratios are relative to pcalib's own total: they add up to 1 to rounding
    assert pca.explained_variance_ratio_.sum() == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(
        pca.explained_variance_ratio_ * total, ev, rtol=0, atol=variance_atol(X)
    )
    # and agree with NumPy's eigenvalues of the sample covariance
    np.testing.assert_allclose(ev, reference_spectrum(X)[: ev.size], rtol=0, atol=variance_atol(X))


@pytest.mark.parametrize("solver", SOLVERS)
@SETTINGS
@given(X=data_matrices(), data=st.data())
def test_reconstruction_error_is_sum_of_discarded_eigenvalues(solver, X, data):
    n, d = X.shape
    k = data.draw(st.integers(1, min(n, d)), label="k")
    pca = PCA(n_components=k, svd_solver=solver).fit(X)
    V = pca.components_
    Xc = X - X.mean(axis=0)
    error = np.sum((Xc - Xc @ V.T @ V) ** 2) / (n - 1)
    discarded = reference_spectrum(X)[k:].sum()
    assert abs(error - discarded) <= variance_atol(X)
    # inverse_transform(transform(X)) is that same rank-k reconstruction
    X_hat = pca.inverse_transform(pca.transform(X))
    error_pcalib = np.sum((X - X_hat) ** 2) / (n - 1)
    assert abs(error_pcalib - discarded) <= variance_atol(X)


@pytest.mark.parametrize("solver", SOLVERS)
@SETTINGS
@given(X=data_matrices(), data=st.data())
def test_invariant_to_row_permutation(solver, X, data):
    permutation = np.array(data.draw(st.permutations(range(X.shape[0])), label="permutation"))
    a = PCA(svd_solver=solver).fit(X)
    b = PCA(svd_solver=solver).fit(X[permutation])
    atol = variance_atol(X)
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=0, atol=atol)
    np.testing.assert_allclose(b.mean_, a.mean_, rtol=1e-12, atol=1e-14 * np.abs(X).max())
    assert_components_match_where_identified(
        b.components_, a.components_, reference_spectrum(X), atol
    )


@pytest.mark.parametrize("solver", SOLVERS)
@SETTINGS
@given(X=data_matrices(), data=st.data())
def test_invariant_to_translation(solver, X, data):
    c = data.draw(arrays(np.float64, (X.shape[1],), elements=ELEMENTS), label="c")
    X_shifted = X + c
    # adding c can round a small spread away (e.g. 2e-16 + 2 == 2)
    assume_not_degenerate(X_shifted)
    a = PCA(svd_solver=solver).fit(X)
    b = PCA(svd_solver=solver).fit(X_shifted)
    # both contain the rounding of X + c, hence the tolerance on both scales
    atol = variance_atol(X, X_shifted)
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=0, atol=atol)
    scale = max(np.abs(X).max(), np.abs(X_shifted).max())
    np.testing.assert_allclose(b.mean_, a.mean_ + c, rtol=0, atol=1e-13 * scale)
    assert_components_match_where_identified(
        b.components_, a.components_, reference_spectrum(X), atol
    )


@pytest.mark.parametrize("solver", SOLVERS)
@SETTINGS
@given(X=data_matrices(), data=st.data())
def test_scores_have_the_explained_variances(solver, X, data):
    n, d = X.shape
    k = data.draw(st.integers(1, min(n, d)), label="k")
    pca = PCA(n_components=k, svd_solver=solver).fit(X)
    for Z in (pca.transform(X), PCA(n_components=k, svd_solver=solver).fit_transform(X)):
        assert Z.shape == (n, k)
        # the scores are centred and uncorrelated, with variances explained_variance_
        np.testing.assert_allclose(
            np.var(Z, axis=0, ddof=1), pca.explained_variance_, rtol=0, atol=variance_atol(X)
        )
        np.testing.assert_allclose(
            np.atleast_2d(np.cov(Z, rowvar=False)),
            np.diag(pca.explained_variance_),
            rtol=0,
            atol=variance_atol(X),
        )
        # centring error of the scores: a few eps·max|X| per entry, times sqrt(d)
        np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12 * np.abs(X).max())


# ---------------------------------------------------------------------------
# Every public estimator, in every configuration (public_api.py)

CONFIGURATIONS = estimator_configurations()
POSITIVE_ELEMENTS = st.floats(min_value=0.01, max_value=100.0, allow_nan=False)


@st.composite
def positive_matrices(draw):
    """Small matrices with entries in [0.01, 100], valid input for every estimator."""
    n = draw(st.integers(8, 15))
    d = draw(st.integers(2, 5))
    X = draw(arrays(np.float64, (n, d), elements=POSITIVE_ELEMENTS))
    assume_well_posed(X)
    return X


def assume_well_posed(X):
    """Well-posed for every estimator: centred data of full rank d.

    A constant column is refused by the standardizing estimators, and data in
    a subspace of dimension ≤ k make PPCA's noise variance 0 (both tested in
    test_validation.py). With missing entries, the complete rows must qualify.
    """
    complete = X[~np.isnan(X).any(axis=1)]
    assume(complete.shape[0] > X.shape[1])
    singular_values = np.linalg.svd(complete - complete.mean(axis=0), compute_uv=False)
    assume(singular_values[0] > 1e-3 * np.abs(complete).max())
    assume(singular_values[-1] >= 1e-3 * singular_values[0])


def fit_quietly(estimator, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        return clone(estimator).fit(X)


def n_outputs(fitted):
    """Number of columns of ``transform``: ``n_components_``, or ``rank_`` (RobustPCA)."""
    return getattr(fitted, "n_components_", None) or fitted.rank_


@pytest.mark.parametrize("estimator", CONFIGURATIONS, ids=configuration_id)
@settings(deadline=None, max_examples=15, database=None)
@given(X=positive_matrices())
def test_every_estimator_is_deterministic_with_consistent_scores(estimator, X):
    X = data_for(estimator, X)
    assume_well_posed(X)
    a, b = fit_quietly(estimator, X), fit_quietly(estimator, X)
    Z = a.transform(X)
    # the same seed gives the same fit, to the last bit; except through ARPACK,
    # whose restarts draw from a generator of its own (the seed saved in
    # ARPACK's dgetv0): two fits then agree on the eigenvalues to rounding, and
    # on the scores only where the eigenvalues are distinct
    if "arpack" in (getattr(a, "eigen_solver_", None), getattr(a, "svd_solver_", None)):
        values = "eigenvalues_" if isinstance(a, KernelPCA) else "explained_variance_"
        a_values, b_values = getattr(a, values), getattr(b, values)
        np.testing.assert_allclose(b_values, a_values, rtol=0, atol=1e-12 * a_values.max())
    else:
        np.testing.assert_array_equal(b.transform(X), Z)
    assert Z.shape == (X.shape[0], n_outputs(a))
    assert np.all(np.isfinite(Z))
    nonlinear = isinstance(estimator, KernelPCA) and estimator.kernel != "linear"
    assert n_outputs(a) <= (X.shape[0] if nonlinear else min(X.shape))
    # fit_transform returns the scores that transform gives on the training data;
    # not NMF's, whose transform solves a new non-negative regression for the
    # scores, iteratively to its tol (test_nmf.py compares the two)
    if isinstance(estimator, NMF):
        return
    refitted = clone(estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        Z_fit = refitted.fit_transform(X)
    scale = max(np.abs(Z_fit).max(initial=0.0), 1e-300)
    np.testing.assert_allclose(refitted.transform(X), Z_fit, rtol=0, atol=1e-6 * scale)


# The fits that depend on the order of the rows only through rounding: not
# NMF and RobustPCA (no spectrum), nor Nyström (its landmarks are rows). Nor
# factor analysis: on data with an exact symmetry (exchangeable columns, which
# these strategies draw often) its likelihood has saddle points, and the row
# order decides, through rounding, whether EM stays on one (measured: on a
# 10 x 4 draw, 58 iterations to a log-likelihood 0.14 below the 41 600 of the
# other orders, at tol=1e-10). test_factor_analysis.py checks its row order on
# generic data.
WITH_SPECTRUM = [
    e
    for e in CONFIGURATIONS
    if not isinstance(e, (NMF, RobustPCA, FactorAnalysis))
    and getattr(e, "approximation", "") != "nystrom"
]


@pytest.mark.parametrize("estimator", WITH_SPECTRUM, ids=configuration_id)
@settings(deadline=None, max_examples=15, database=None)
@given(X=positive_matrices(), data=st.data())
def test_explained_variance_does_not_depend_on_row_order(estimator, X, data):
    X = data_for(estimator, X)
    assume_well_posed(X)
    permutation = np.array(data.draw(st.permutations(range(X.shape[0])), label="permutation"))
    a, b = fit_quietly(estimator, X), fit_quietly(estimator, X[permutation])
    # a direct solver's eigenvalues move by the rounding of the matrix they come
    # from; an iterative one stops where its criterion changes by less than
    # tol, which leaves the eigenvalues off by up to about √tol relative
    rtol = 10 * np.sqrt(a.tol) if getattr(a, "n_iter_", 0) > 0 else 0.0
    atol = 1e-8 * max(np.abs(a.explained_variance_).sum(), 1e-300)
    np.testing.assert_allclose(b.explained_variance_, a.explained_variance_, rtol=rtol, atol=atol)
