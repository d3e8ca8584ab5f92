"""Tests of the PCA solvers of chapter 2 (:mod:`pcalib.high_dim`).

``PCA(svd_solver=...)`` selects the covariance eigendecomposition, the SVD of
the centred data, the Gram-matrix trick, subspace iteration or the randomized
SVD; ``svd_solver="auto"`` chooses by shape. All solvers must return the same
components, *with the same signs* (pcalib's convention: the entry of largest
absolute value of each component is positive), and the same variances.

Expected values come from independent sources only: NumPy's SVD and
eigendecompositions computed here, data built with a known spectrum, and
scikit-learn's PCA. The sign convention is re-implemented in this file
(:func:`convention`), so that the reference components are not pcalib's.
"""

import warnings
from itertools import pairwise

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.exceptions import ConvergenceWarning

from pcalib import PCA
from pcalib.datasets import make_low_rank, make_spectrum
from pcalib.high_dim import (
    adaptive_range_finder,
    centered_operator,
    principal_axes_gram,
    principal_axes_randomized,
    principal_axes_sparse,
    range_error_bound,
    sparse_column_moments,
    subspace_iteration,
)

SOLVERS = ("full", "covariance_eigh", "gram", "subspace", "randomized")
DIRECT_SOLVERS = ("full", "covariance_eigh", "gram")
SHAPES = {"tall": (400, 30), "wide": (30, 400), "square": (60, 60)}

# Power iterations for the randomized solver on the geometric spectra below.
# The range finder's error on the k-th axis shrinks like
# (σ_{k+p+1} / σ_k)^(2q+1) with p = 10 oversamples and q power iterations
# (Halko, Martinsson & Tropp 2011, thm. 9.2 and §10.4). The variances decay
# like 2^-j, so σ_{k+p+1} / σ_k ≈ 2^-(p+1)/2 ≈ 0.02; the sample spectra of the
# wide data are rougher, with ratios up to about 0.86 per step (see
# `assert_well_separated`), i.e. ≈ 0.86^11 ≈ 0.2 over eleven steps in the
# worst case. q = 10 gives 0.2^21 ≈ 1e-15: the subspace is exact to rounding,
# far below the 1e-8 of the comparison, even with a prefactor of 1e4.
Q_RANDOMIZED = 10


# ---------------------------------------------------------------------------
# Independent references
# ---------------------------------------------------------------------------


def convention(components):
    """Re-implement pcalib's sign convention: the largest |entry| of each row is > 0."""
    components = np.array(components, dtype=float)
    largest = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(len(components)), largest])
    return components * signs[:, None]


def reference_pca(X):
    """Components (sign convention applied), singular values and total variance, by NumPy."""
    X_c = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(X_c, full_matrices=False)
    return convention(Vt), s, X.var(axis=0, ddof=1).sum()


def assert_well_separated(singular_values, k, max_ratio=0.9):
    """Check the premise of a comparison: λ_{i+1}/λ_i ≤ max_ratio for i = 1..k.

    With such gaps every one of the first k axes (and the top-k subspace) is
    well conditioned, so all solvers must agree on it to 1e-8.
    """
    lam = singular_values**2
    ratios = lam[1 : k + 1] / lam[:k]
    assert np.all(ratios <= max_ratio), ratios


def assert_sign_is_decidable(components, margin=1e-6):
    """Check that the largest |entry| of each row beats the second by ``margin``.

    Otherwise an error of 1e-8 could move the entry that decides the sign, and
    an entry-by-entry comparison would test luck, not the convention.
    """
    top_two = np.sort(np.abs(components), axis=1)[:, -2:]
    assert np.all(top_two[:, 1] - top_two[:, 0] > margin), top_two


def geometric_data(n_samples, n_features, seed):
    """Data with population variances 2^-j and a non-zero mean."""
    X, _ = make_spectrum(n_samples, n_features, 2.0 ** -np.arange(n_features), random_state=seed)
    offsets = np.random.default_rng(seed + 100).uniform(-5.0, 5.0, n_features)
    return X + offsets


def known_spectrum(n_samples, n_features, singular_values, seed, mean=3.0):
    """``X = U diag(s) Vᵀ + mean`` with U orthonormal and orthogonal to the ones vector.

    Centring removes exactly the mean, so the centred data is ``U S Vᵀ``: its
    singular values are ``s`` and its principal axes the columns of ``V`` (up
    to rounding), known without running any PCA.
    """
    rng = np.random.default_rng(seed)
    s = np.asarray(singular_values, dtype=float)
    r = s.size
    A = rng.standard_normal((n_samples, r))
    A -= A.mean(axis=0)
    U, _ = np.linalg.qr(A)
    V, _ = np.linalg.qr(rng.standard_normal((n_features, r)))
    X = (U * s) @ V.T + mean * rng.uniform(-1.0, 1.0, n_features)
    return X, V


def sin_largest_angle(A, B):
    """Sine of the largest principal angle between the row spaces of A and B."""
    return np.sin(scipy.linalg.subspace_angles(A.T, B.T).max())


def fit(X, k, solver, **params):
    params.setdefault("random_state", 0)
    if solver == "randomized":
        params.setdefault("iterated_power", Q_RANDOMIZED)
    return PCA(n_components=k, svd_solver=solver, **params).fit(X)


# ---------------------------------------------------------------------------
# 1. All solvers agree, signs included, on well-separated spectra
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 4, 10])
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_solvers_agree_entry_by_entry(shape, k):
    n, d = shape
    X = geometric_data(n, d, seed=0)
    X_new = geometric_data(20, d, seed=1) * 2.0 - 1.0  # other mean and scale
    components, s, total = reference_pca(X)
    assert_well_separated(s, k)
    assert_sign_is_decidable(components[:k])
    variances = s[:k] ** 2 / (n - 1)
    Z_ref = (X - X.mean(axis=0)) @ components[:k].T

    models = {solver: fit(X, k, solver) for solver in SOLVERS}
    for solver, model in models.items():
        assert model.svd_solver_ == solver
        assert model.components_.shape == (k, d)
        # entry by entry, without any sign alignment: the point of the convention
        np.testing.assert_allclose(
            model.components_, components[:k], rtol=0, atol=1e-8, err_msg=solver
        )
        np.testing.assert_allclose(model.explained_variance_, variances, rtol=1e-8, err_msg=solver)
        np.testing.assert_allclose(
            model.explained_variance_ratio_, variances / total, rtol=1e-8, err_msg=solver
        )
        np.testing.assert_allclose(model.singular_values_, s[:k], rtol=1e-8, err_msg=solver)
        Z = model.transform(X)
        np.testing.assert_allclose(
            Z, Z_ref, rtol=0, atol=1e-8 * np.abs(Z_ref).max(), err_msg=solver
        )

    # and with each other: every solver against the SVD, on training and new data
    svd = models["full"]
    for solver, model in models.items():
        np.testing.assert_allclose(
            model.components_, svd.components_, rtol=0, atol=1e-8, err_msg=solver
        )
        np.testing.assert_allclose(
            model.explained_variance_, svd.explained_variance_, rtol=1e-8, err_msg=solver
        )
        np.testing.assert_allclose(
            model.explained_variance_ratio_,
            svd.explained_variance_ratio_,
            rtol=1e-8,
            err_msg=solver,
        )
        for data in (X, X_new):
            Z_svd = svd.transform(data)
            np.testing.assert_allclose(
                model.transform(data),
                Z_svd,
                rtol=0,
                atol=1e-8 * np.abs(Z_svd).max(),
                err_msg=solver,
            )


# ---------------------------------------------------------------------------
# 2. Rank-deficient data: rank r < k
# ---------------------------------------------------------------------------

RANK_DEFICIENT = {
    # (n, d, rank of the signal before centring, k)
    "tall": (400, 30, 5, 8),
    "wide": (30, 400, 5, 8),
    "square": (60, 60, 5, 8),
    # n < d, full rank before centring: centring removes one dimension, so
    # the n-th component has zero variance (the Gram path, chosen by "auto")
    "wide-centring": (12, 60, 12, 12),
}


@pytest.mark.parametrize("case", RANK_DEFICIENT.values(), ids=RANK_DEFICIENT.keys())
def test_rank_deficient(case):
    n, d, signal_rank, k = case
    X, _ = make_low_rank(n, d, signal_rank, noise=0, random_state=3)
    X = X + np.random.default_rng(4).uniform(-5.0, 5.0, d)
    components, s, _ = reference_pca(X)
    r = np.linalg.matrix_rank(X - X.mean(axis=0))  # independent of pcalib
    assert r == min(signal_rank, n - 1) < k
    # the first r axes are well defined (make_low_rank's variances r, ..., 1
    # leave gaps of 5 % or more between consecutive sample variances here)
    assert_well_separated(s, r - 1, max_ratio=0.95)
    assert_sign_is_decidable(components[:r])

    models = {solver: fit(X, k, solver) for solver in SOLVERS}
    if d >= 2 * n:
        assert PCA(k).fit(X).svd_solver_ == "gram"
    for solver, model in models.items():
        for name in (
            "components_",
            "explained_variance_",
            "explained_variance_ratio_",
            "singular_values_",
        ):
            assert np.all(np.isfinite(getattr(model, name))), (solver, name)
        C = model.components_
        assert C.shape == (k, d)
        # the first r components are unique and agree, signs included
        np.testing.assert_allclose(C[:r], components[:r], rtol=0, atol=1e-8, err_msg=solver)
        np.testing.assert_allclose(
            model.explained_variance_[:r], s[:r] ** 2 / (n - 1), rtol=1e-8, err_msg=solver
        )
        # beyond the rank: numerically zero variance...
        lam_max = model.explained_variance_[0]
        np.testing.assert_allclose(
            model.explained_variance_[r:], 0.0, atol=1e-12 * lam_max, err_msg=solver
        )
        np.testing.assert_allclose(
            model.explained_variance_ratio_[r:], 0.0, atol=1e-12, err_msg=solver
        )
        # ... and still an orthonormal set, orthogonal to the signal subspace
        np.testing.assert_allclose(C @ C.T, np.eye(k), rtol=0, atol=1e-10, err_msg=solver)
        np.testing.assert_allclose(C[r:] @ components[:r].T, 0.0, atol=1e-8, err_msg=solver)
        # k ≥ r: the projection loses nothing, the round trip is exact
        Z = model.transform(X)
        assert np.all(np.isfinite(Z))
        np.testing.assert_allclose(Z[:, r:], 0.0, atol=1e-10 * np.abs(Z).max(), err_msg=solver)
        X_hat = model.inverse_transform(Z)
        np.testing.assert_allclose(X_hat, X, rtol=0, atol=1e-10 * np.abs(X).max(), err_msg=solver)


def test_subspace_iteration_stops_when_k_exceeds_the_rank():
    """Beyond the rank the block is rounding noise: it must not block convergence."""
    X, _ = make_low_rank(40, 100, 3, noise=0, random_state=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = PCA(6, svd_solver="subspace", random_state=0).fit(X)
    # the range of X_c (dimension 3) is found by the first power step, and
    # confirmed by the second; 1000 steps would mean the noise was tracked
    assert model.n_iter_ <= 5


# ---------------------------------------------------------------------------
# 3. Against scikit-learn's PCA, for each of its solvers
# ---------------------------------------------------------------------------

# scikit-learn's svd_solver -> pcalib's corresponding solver (the same name
# where scikit-learn has the same algorithm)
SKLEARN_SOLVERS = {
    "full": "full",
    "covariance_eigh": "covariance_eigh",
    "arpack": "subspace",
    "randomized": "randomized",
}


def test_sklearn_has_the_solvers_compared_here():
    options = SklearnPCA._parameter_constraints["svd_solver"][0].options
    assert set(SKLEARN_SOLVERS) <= set(options)


@pytest.mark.parametrize("svd_solver", SKLEARN_SOLVERS)
@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_agrees_with_sklearn(shape, svd_solver):
    n, d = shape
    k = 5  # arpack needs k < min(n, d)
    X = geometric_data(n, d, seed=2)
    X_new = geometric_data(10, d, seed=3)
    _, s, _ = reference_pca(X)
    assert_well_separated(s, k)
    # scikit-learn's randomized solver: same reasoning as Q_RANDOMIZED
    ref = SklearnPCA(k, svd_solver=svd_solver, iterated_power=Q_RANDOMIZED, random_state=0)
    ref.fit(X)
    for solver in (SKLEARN_SOLVERS[svd_solver], "auto"):
        model = fit(X, k, solver)
        # up to sign: scikit-learn's convention is its own business
        signs = np.sign(np.sum(model.components_ * ref.components_, axis=1))
        assert np.all(signs != 0)
        np.testing.assert_allclose(
            model.components_ * signs[:, None], ref.components_, rtol=0, atol=1e-8, err_msg=solver
        )
        np.testing.assert_allclose(model.explained_variance_, ref.explained_variance_, rtol=1e-8)
        np.testing.assert_allclose(
            model.explained_variance_ratio_, ref.explained_variance_ratio_, rtol=1e-8
        )
        np.testing.assert_allclose(model.singular_values_, ref.singular_values_, rtol=1e-8)
        for data in (X, X_new):
            Z_ref = ref.transform(data)
            np.testing.assert_allclose(
                model.transform(data) * signs, Z_ref, rtol=0, atol=1e-8 * np.abs(Z_ref).max()
            )


# ---------------------------------------------------------------------------
# 4. The Gram trick's normalisation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(30, 400), (60, 60), (50, 20)], ids=["wide", "square", "tall"])
def test_gram_axes_are_the_mapped_gram_eigenvectors(shape):
    n, d = shape
    k = 8
    X = geometric_data(n, d, seed=6)
    X_c = X - X.mean(axis=0)
    # the formula, computed here: λ and v from X_c X_cᵀ / n, then
    # u_i = X_cᵀ v_i / sqrt(n λ_i)
    lam, V = np.linalg.eigh(X_c @ X_c.T / n)
    lam, V = lam[::-1][:k], V[:, ::-1][:, :k]
    assert_well_separated(np.sqrt(lam), k - 1)
    U = X_c.T @ V / np.sqrt(n * lam)
    expected = convention(U.T)
    assert_sign_is_decidable(expected)

    components, singular_values = principal_axes_gram(X_c.copy(), k)
    np.testing.assert_allclose(np.linalg.norm(components, axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(components, expected, rtol=0, atol=1e-10)
    # the singular values of X_c are the square roots of the eigenvalues of X_c X_cᵀ
    np.testing.assert_allclose(singular_values**2, n * lam, rtol=1e-10)
    np.testing.assert_allclose(
        singular_values, np.linalg.svd(X_c, compute_uv=False)[:k], rtol=1e-10
    )


def test_gram_axes_beyond_the_rank_are_unit_and_orthogonal():
    X, W = make_low_rank(20, 80, 4, noise=0, random_state=7)
    X_c = X - X.mean(axis=0)
    components, singular_values = principal_axes_gram(X_c, 7)
    assert np.all(np.isfinite(components)) and np.all(np.isfinite(singular_values))
    np.testing.assert_allclose(np.linalg.norm(components, axis=1), 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(components @ components.T, np.eye(7), rtol=0, atol=1e-12)
    # the first 4 span the signal subspace, the other 3 are orthogonal to it
    assert sin_largest_angle(components[:4], W.T) < 1e-10
    np.testing.assert_allclose(components[4:] @ W, 0.0, atol=1e-12)
    s_ref = np.linalg.svd(X_c, compute_uv=False)
    np.testing.assert_allclose(singular_values[:4], s_ref[:4], rtol=1e-10)
    assert np.all(singular_values[4:] <= 1e-6 * s_ref[0])  # sqrt of a rounding-level λ


# ---------------------------------------------------------------------------
# 5. Subspace iteration
# ---------------------------------------------------------------------------


def gap_data(ratio, seed=0):
    """Variances 8, 4, 2 then 2·ratio, 2·ratio², ...: the gap λ_4/λ_3 is ``ratio``."""
    n, d, k = 300, 40, 3
    lam = np.r_[8.0, 4.0, 2.0, 2.0 * ratio ** np.arange(1, d - 2)]
    X, V = known_spectrum(n, d, np.sqrt(lam * (n - 1)), seed=seed)
    return X, V, k


def test_subspace_iterations_grow_as_the_gap_closes():
    tol = 1e-10
    n_iter = {}
    for ratio in (0.2, 0.8):
        X, V, k = gap_data(ratio)
        lam = np.linalg.svd(X - X.mean(axis=0), compute_uv=False) ** 2
        np.testing.assert_allclose(lam[k] / lam[k - 1], ratio, rtol=1e-10)  # the premise
        model = PCA(k, svd_solver="subspace", tol=tol, random_state=0).fit(X)
        n_iter[ratio] = model.n_iter_
        # the error shrinks by `ratio` per step, from O(1) to `tol`: about
        # log(tol) / log(ratio) steps (14 and 103), give or take the start
        predicted = np.log(tol) / np.log(ratio)
        assert 0.7 * predicted <= model.n_iter_ <= 1.3 * predicted + 10, (ratio, model.n_iter_)
        assert sin_largest_angle(model.components_, V[:, :k].T) < 1e-8
    assert n_iter[0.8] > 3 * n_iter[0.2], n_iter


def test_subspace_warns_when_max_iter_is_too_small():
    X, _, k = gap_data(0.8)
    with pytest.warns(
        ConvergenceWarning, match=r"subspace_iteration stopped after max_iter=5 iterations"
    ):
        model = PCA(k, svd_solver="subspace", max_iter=5, random_state=0).fit(X)
    assert model.n_iter_ == 5
    assert model.converged_ is False
    assert model.objective_history_.shape == (6,)
    # still a valid (if inaccurate) set of orthonormal axes
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(k), atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        PCA(k, svd_solver="subspace", random_state=0).fit(X)


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_subspace_finds_the_top_k_subspace(shape):
    X = geometric_data(*shape, seed=8)
    k = 6
    components, s, _ = reference_pca(X)
    assert_well_separated(s, k)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = PCA(k, svd_solver="subspace", random_state=0).fit(X)
    assert model.converged_ is True
    assert sin_largest_angle(model.components_, components[:k]) < 1e-8
    assert 1 < model.n_iter_ < 1000


# ---------------------------------------------------------------------------
# 6. Randomized SVD
# ---------------------------------------------------------------------------


def test_randomized_is_reproducible_and_seed_independent():
    X = geometric_data(200, 100, seed=9)
    k = 8
    first = fit(X, k, "randomized", random_state=1)
    again = fit(X, k, "randomized", random_state=1)
    np.testing.assert_array_equal(first.components_, again.components_)
    np.testing.assert_array_equal(first.explained_variance_, again.explained_variance_)
    # a Generator seeded alike draws the same test matrix
    generator = fit(X, k, "randomized", random_state=np.random.default_rng(1))
    np.testing.assert_array_equal(first.components_, generator.components_)
    for seed in (2, 3):
        other = fit(X, k, "randomized", random_state=seed)
        assert not np.array_equal(other.components_, first.components_)  # another Ω
        np.testing.assert_allclose(other.components_, first.components_, rtol=0, atol=1e-8)
        np.testing.assert_allclose(other.explained_variance_, first.explained_variance_, rtol=1e-8)


# A slowly decaying spectrum, σ_j = j^-1/2: the range finder is far from exact
# for every setting below, so the error is large enough to be compared.
SLOW_N, SLOW_D, SLOW_K = 300, 150, 10
N_SEEDS = 20


@pytest.fixture(scope="module")
def slow_spectrum():
    s = 1.0 / np.sqrt(np.arange(1, SLOW_D + 1))
    X, V = known_spectrum(SLOW_N, SLOW_D, s, seed=10)
    return X, V[:, :SLOW_K].T


def mean_randomized_error(X, V_top, **params):
    """Mean over N_SEEDS test matrices of the sine of the largest angle to the exact subspace.

    For a fixed setting the error is a random variable, a function of the
    Gaussian test matrix Ω. The bounds on its expectation decrease with the
    oversampling p and the power iterations q (Halko, Martinsson & Tropp 2011,
    thm. 10.5 and cor. 10.10), but a single draw can buck the trend. The mean
    of 20 draws has a standard error 20^-1/2 ≈ 0.22 times the spread of one
    draw. Measured here: means 0.96, 0.70, 0.19 for p = 0, 5, 20 (q = 1) and
    0.97, 0.70, 0.41, 0.17 for q = 0, 1, 2, 4 (p = 5), with spreads ≤ 0.17, so
    standard errors ≤ 0.04: far smaller than the steps, and than the 10 %
    margin each step is asserted with. The seeds are fixed, so the test is
    deterministic; the averaging makes it insensitive to changing them.
    """
    errors = [
        sin_largest_angle(
            PCA(SLOW_K, svd_solver="randomized", random_state=seed, **params).fit(X).components_,
            V_top,
        )
        for seed in range(N_SEEDS)
    ]
    return float(np.mean(errors))


def test_randomized_error_decreases_with_oversampling(slow_spectrum):
    X, V_top = slow_spectrum
    errors = [
        mean_randomized_error(X, V_top, n_oversamples=p, iterated_power=1) for p in (0, 5, 20)
    ]
    assert all(later < 0.9 * earlier for earlier, later in pairwise(errors)), errors
    assert errors[-1] < 0.5 * errors[0], errors


def test_randomized_error_decreases_with_power_iterations(slow_spectrum):
    X, V_top = slow_spectrum
    errors = [
        mean_randomized_error(X, V_top, n_oversamples=5, iterated_power=q) for q in (0, 1, 2, 4)
    ]
    assert all(later < 0.9 * earlier for earlier, later in pairwise(errors)), errors
    assert errors[-1] < 0.5 * errors[0], errors


# ---------------------------------------------------------------------------
# 7. Automatic choice and what the fit records
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape, expected",
    [
        ((10, 20), "gram"),
        ((10, 19), "full"),
        ((10, 10), "full"),
        ((40, 10), "full"),
        ((5, 200), "gram"),
    ],
)
def test_auto_chooses_gram_for_wide_data(shape, expected):
    X = np.random.default_rng(12).standard_normal(shape)
    model = PCA().fit(X)
    assert model.svd_solver == "auto"  # the parameter is left as given
    assert model.svd_solver_ == expected
    assert model.n_iter_ == 0
    assert model.converged_ is True
    assert model.objective_history_.shape == (1,)
    assert PCA(svd_solver="auto").fit(X).svd_solver_ == expected
    # "auto" gives exactly what the solver it chose gives
    chosen = PCA(svd_solver=expected).fit(X)
    np.testing.assert_array_equal(model.components_, chosen.components_)
    np.testing.assert_array_equal(model.explained_variance_, chosen.explained_variance_)


def test_n_iter_and_iterated_power():
    X = geometric_data(80, 40, seed=13)
    for solver in DIRECT_SOLVERS:
        model = PCA(5, svd_solver=solver).fit(X)
        assert (model.n_iter_, model.converged_, model.iterated_power_) == (0, True, 0)
    # randomized: a fixed number of power iterations, with no stopping rule;
    # "auto" follows scikit-learn's rule, 7 when k < 0.1 min(n, d) and 4
    # otherwise, and iterated_power_ records the choice
    for k, iterated_power, expected in [(5, 3, 3), (5, 0, 0), (3, "auto", 7), (4, "auto", 4)]:
        model = PCA(k, svd_solver="randomized", iterated_power=iterated_power, random_state=0).fit(
            X
        )
        assert model.iterated_power_ == expected  # 3 < 0.1 · 40 ≤ 4
        assert model.n_iter_ == 0
        assert model.converged_ is True
        # the power iterations are not monitored: one value, the final one
        np.testing.assert_allclose(
            model.objective_history_, [model.explained_variance_.sum()], rtol=1e-12
        )
    # subspace: the steps actually taken; one fewer is not enough
    model = PCA(5, svd_solver="subspace", random_state=0).fit(X)
    steps = model.n_iter_
    assert 1 < steps < 1000
    assert model.converged_ is True and model.iterated_power_ == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        capped = PCA(5, svd_solver="subspace", max_iter=steps, random_state=0).fit(X)
    assert capped.converged_ is True
    np.testing.assert_array_equal(capped.components_, model.components_)
    with pytest.warns(ConvergenceWarning):
        short = PCA(5, svd_solver="subspace", max_iter=steps - 1, random_state=0).fit(X)
    assert short.n_iter_ == steps - 1
    assert short.converged_ is False


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_subspace_objective_history_is_the_captured_variance(shape):
    n, d = shape
    k = 4
    X = geometric_data(n, d, seed=18)
    _, s, _ = reference_pca(X)
    model = PCA(k, svd_solver="subspace", random_state=0).fit(X)
    history = model.objective_history_
    # the length rule: the random start, then one value per power step
    assert history.shape == (model.n_iter_ + 1,)
    # the start: ‖X_c Q‖²_F / (n - 1) for the random orthonormal Q drawn from
    # the same seed, recomputed here
    X_c = X - X.mean(axis=0)
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((d, k)))
    np.testing.assert_allclose(history[0], np.sum((X_c @ Q) ** 2) / (n - 1), rtol=1e-12)
    # a power step never loses captured variance (up to rounding)...
    assert np.all(np.diff(history) >= -1e-12 * history[-1])
    # ...and the end is the maximum, λ_1 + ... + λ_k (theorem
    # thm-pca-max-variance), also the sum of the explained variances
    np.testing.assert_allclose(history[-1], np.sum(s[:k] ** 2) / (n - 1), rtol=1e-10)
    np.testing.assert_allclose(history[-1], model.explained_variance_.sum(), rtol=1e-12)
    assert history[0] < 0.9 * history[-1]  # a random start is far from it


@pytest.mark.parametrize("max_iter", [1, 3, 40])
def test_subspace_tol_zero_runs_exactly_max_iter(max_iter):
    # exactly low-rank data: with tol > 0 the subspace is found in a couple of
    # steps, so only tol = 0 can keep the iteration going
    X, _ = make_low_rank(40, 30, 3, noise=0, random_state=19)
    assert PCA(3, svd_solver="subspace", random_state=0).fit(X).n_iter_ < 10
    with pytest.warns(
        ConvergenceWarning, match=rf"stopped after max_iter={max_iter} iterations .* tol=0"
    ):
        model = PCA(3, svd_solver="subspace", tol=0, max_iter=max_iter, random_state=0).fit(X)
    assert model.n_iter_ == max_iter
    assert model.converged_ is False
    assert model.objective_history_.shape == (max_iter + 1,)
    # the function itself follows the same rule
    with pytest.warns(ConvergenceWarning):
        _, _, history, converged = subspace_iteration(
            X - X.mean(axis=0), 3, tol=0, max_iter=max_iter, random_state=0
        )
    assert history.shape == (max_iter + 1,) and converged is False


@pytest.mark.parametrize("solver", ["subspace", "randomized"])
def test_fraction_of_variance_needs_a_full_solver(solver):
    X = geometric_data(50, 10, seed=14)
    with pytest.raises(ValueError, match="n_components"):
        PCA(0.9, svd_solver=solver).fit(X)
    # the full solvers accept it (the same data, so the error is about the solver)
    assert PCA(0.9, svd_solver="full").fit(X).n_components_ >= 1


@pytest.mark.parametrize("solver", ["subspace", "randomized"])
@pytest.mark.parametrize(
    "params, error",
    [
        ({"max_iter": 0}, ValueError),
        ({"max_iter": -3}, ValueError),
        ({"max_iter": 2.5}, TypeError),
        ({"max_iter": True}, TypeError),
        ({"tol": -1e-3}, ValueError),
        ({"tol": np.nan}, ValueError),
        ({"tol": np.inf}, ValueError),
        ({"tol": "small"}, TypeError),
        ({"n_oversamples": -1}, ValueError),
        ({"n_oversamples": 2.5}, TypeError),
        ({"n_oversamples": 0.0}, TypeError),
        ({"n_oversamples": False}, TypeError),
        ({"n_oversamples": None}, TypeError),
        ({"iterated_power": -1}, ValueError),
        ({"iterated_power": "many"}, ValueError),
        ({"iterated_power": 1.5}, TypeError),
        ({"iterated_power": 0.0}, TypeError),
        ({"iterated_power": True}, TypeError),
        ({"iterated_power": None}, TypeError),
        ({"random_state": -1}, ValueError),
        ({"random_state": 1.5}, TypeError),
        ({"random_state": "seed"}, TypeError),
    ],
    ids=lambda value: repr(value) if isinstance(value, dict) else value.__name__,
)
def test_invalid_parameters_are_named(params, error, solver):
    X = geometric_data(30, 8, seed=15)
    (name,) = params
    with pytest.raises(error, match=name):
        PCA(3, svd_solver=solver, **params).fit(X)


@pytest.mark.parametrize("params", [{"n_oversamples": 0}, {"iterated_power": 0}])
def test_zero_oversamples_and_power_iterations_are_valid(params):
    X = geometric_data(60, 8, seed=16)
    _, s, _ = reference_pca(X)
    # k = 8 = d: the range finder spans everything, whatever p and q
    model = PCA(8, svd_solver="randomized", random_state=0, **params).fit(X)
    np.testing.assert_allclose(model.singular_values_, s, rtol=1e-10)


def test_invalid_solver_is_named():
    with pytest.raises(ValueError, match="svd_solver must be one of"):
        PCA(svd_solver="lanczos").fit(np.eye(4))
    # the names that scikit-learn does not use are not accepted either
    for old in ("svd", "covariance"):
        with pytest.raises(ValueError, match="svd_solver must be one of"):
            PCA(svd_solver=old).fit(np.eye(4))


# ---------------------------------------------------------------------------
# 8. Determinism
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", SOLVERS)
def test_same_random_state_gives_identical_results(solver):
    X = geometric_data(70, 50, seed=17)
    first = PCA(6, svd_solver=solver, random_state=42).fit(X)
    second = PCA(6, svd_solver=solver, random_state=42).fit(X)
    for name in (
        "components_",
        "singular_values_",
        "explained_variance_",
        "explained_variance_ratio_",
        "objective_history_",
    ):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name), err_msg=name)
    np.testing.assert_array_equal(first.transform(X), second.transform(X))
    assert first.n_iter_ == second.n_iter_


@pytest.mark.parametrize("solver", ["subspace", "randomized"])
def test_legacy_random_state_is_accepted(solver):
    # scikit-learn's own tests pass a numpy.random.RandomState
    X = geometric_data(70, 50, seed=20)
    first = PCA(6, svd_solver=solver, random_state=np.random.RandomState(3)).fit(X)
    second = PCA(6, svd_solver=solver, random_state=np.random.RandomState(3)).fit(X)
    np.testing.assert_array_equal(first.components_, second.components_)
    reference = PCA(6, svd_solver="full").fit(X)
    np.testing.assert_allclose(first.components_, reference.components_, rtol=0, atol=1e-8)


# ---------------------------------------------------------------------------
# 9. Data of extreme scale
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("c", [1e-160, 1e150], ids=lambda c: f"{c:g}")
@pytest.mark.parametrize("shape", [SHAPES["tall"], SHAPES["wide"]], ids=["tall", "wide"])
@pytest.mark.parametrize("solver", SOLVERS)
def test_every_solver_finds_the_known_axes_at_extreme_scales(solver, shape, c):
    """At 1e-160 the squares of the data are subnormal; at 1e150 they approach overflow.

    The data are built with known axes and singular values (times c) and a
    sum of squares near 22, so that 1e150 times them passes the overflow
    check. The Gram and covariance solvers and subspace iteration square the
    data; all must still agree with the construction to 1e-8.
    """
    s = np.array([4.0, 2.0, 1.0, 0.5, 0.25])
    X, V = known_spectrum(*shape, s, seed=21, mean=0.01)
    pca = fit(c * X, 3, solver)
    np.testing.assert_allclose(pca.components_, convention(V[:, :3].T), atol=1e-8)
    np.testing.assert_allclose(pca.singular_values_ / c, s[:3], rtol=1e-8)
    np.testing.assert_allclose(pca.explained_variance_ratio_, s[:3] ** 2 / np.sum(s**2), rtol=1e-8)


# ---------------------------------------------------------------------------
# 10. Sparse data: centring without densifying
# ---------------------------------------------------------------------------

SPARSE_SOLVERS = ("arpack", "covariance_eigh", "randomized")
SPARSE_CONTAINERS = {
    "csr_array": scipy.sparse.csr_array,
    "csc_array": scipy.sparse.csc_array,
    "csr_matrix": scipy.sparse.csr_matrix,
    "csc_matrix": scipy.sparse.csc_matrix,
}


def sparse_low_rank(n_samples, n_features, seed, container=scipy.sparse.csr_array):
    """A sparse non-negative matrix: four sparse rank-one terms of weights 8, 4, 2, 1 plus noise.

    Its centred spectrum has four well-separated singular values above a
    floor about a hundred times lower, as a document-term matrix with a few
    topics would; its dense reference copy is ``X.toarray()``.
    """
    rng = np.random.default_rng(seed)
    topics = scipy.sparse.random_array((n_samples, 4), density=0.3, rng=rng)
    words = scipy.sparse.random_array((4, n_features), density=0.3, rng=rng)
    noise = scipy.sparse.random_array((n_samples, n_features), density=0.05, rng=rng)
    X = topics @ scipy.sparse.diags_array([8.0, 4.0, 2.0, 1.0]) @ words + 0.01 * noise
    return container(X)


def dense_reference(X, mean=None, scale=1.0):
    """Components (convention applied) and singular values of ``(X - mean) / scale``, by NumPy."""
    D = X.toarray()
    mean = D.mean(axis=0) if mean is None else mean
    _, s, Vt = np.linalg.svd((D - mean) / scale, full_matrices=False)
    return convention(Vt), s


def sparse_axes(X, solver, k=3, scale=None, mean=None, **params):
    """``principal_axes_sparse`` with the column means and q = 10 for the randomized solver."""
    mean = sparse_column_moments(X)[0] if mean is None else mean
    params.setdefault("random_state", 0)
    if solver == "randomized":
        params.setdefault("iterated_power", Q_RANDOMIZED)
    return principal_axes_sparse(X, mean, scale, k, solver, **params)


@pytest.mark.parametrize("container", SPARSE_CONTAINERS.values(), ids=SPARSE_CONTAINERS.keys())
@pytest.mark.parametrize("shape", [(300, 60), (60, 300)], ids=["tall", "wide"])
@pytest.mark.parametrize("solver", SPARSE_SOLVERS)
def test_sparse_solvers_match_the_dense_svd(solver, shape, container):
    X = sparse_low_rank(*shape, seed=30, container=container)
    components_ref, s_ref = dense_reference(X)
    k = 3
    assert_well_separated(s_ref, k)
    assert_sign_is_decidable(components_ref[:k])
    components, s, iterated_power = sparse_axes(X, solver, k)
    r = min(shape) if solver == "covariance_eigh" else k
    assert components.shape == (r, shape[1]) and s.shape == (r,)
    np.testing.assert_allclose(s[:k], s_ref[:k], rtol=1e-10)
    np.testing.assert_allclose(components[:k], components_ref[:k], rtol=0, atol=1e-8)
    np.testing.assert_allclose(components @ components.T, np.eye(r), atol=1e-10)
    assert iterated_power == (Q_RANDOMIZED if solver == "randomized" else 0)
    if solver == "covariance_eigh":
        # the covariance route squares the data: the smallest singular values of
        # all r carry an absolute error up to about sqrt(eps) s_1
        np.testing.assert_allclose(s, s_ref[:r], rtol=0, atol=1e-7 * s_ref[0])


@pytest.mark.parametrize(
    "scale", ["std", 4.0, 0.3], ids=["standard deviations", "power of two", "scalar"]
)
@pytest.mark.parametrize("solver", SPARSE_SOLVERS)
def test_sparse_solvers_with_a_scale(solver, scale):
    X = sparse_low_rank(200, 50, seed=31, container=scipy.sparse.csc_array)
    variance = sparse_column_moments(X)[1]
    scale = np.sqrt(variance) if isinstance(scale, str) else scale
    components_ref, s_ref = dense_reference(X, scale=scale)
    assert_well_separated(s_ref, 3)
    assert_sign_is_decidable(components_ref[:3])
    components, s, _ = sparse_axes(X, solver, scale=scale)
    np.testing.assert_allclose(s[:3], s_ref[:3], rtol=1e-10)
    np.testing.assert_allclose(components[:3], components_ref[:3], rtol=0, atol=1e-8)


@pytest.mark.parametrize("solver", SPARSE_SOLVERS)
def test_sparse_solvers_centre_on_any_given_mean(solver):
    # the operator and the covariance subtract the mean given, not the column means
    X = sparse_low_rank(200, 50, seed=32)
    mean = sparse_column_moments(X)[0] + np.random.default_rng(0).uniform(0.0, 0.1, 50)
    components_ref, s_ref = dense_reference(X, mean=mean)
    assert_well_separated(s_ref, 3)
    components, s, _ = sparse_axes(X, solver, mean=mean)
    np.testing.assert_allclose(s[:3], s_ref[:3], rtol=1e-10)
    np.testing.assert_allclose(components[:3], components_ref[:3], rtol=0, atol=1e-8)


@pytest.mark.parametrize("solver", SPARSE_SOLVERS)
def test_sparse_solvers_scale_exactly_with_the_data(solver):
    # X times a power of two c, divided back by scale = c, is X again in every product
    X = sparse_low_rank(200, 50, seed=33)
    mean = sparse_column_moments(X)[0]
    c = 2.0**-300
    components, s, _ = sparse_axes(X, solver, mean=mean)
    components_c, s_c, _ = sparse_axes(c * X, solver, mean=c * mean, scale=c)
    np.testing.assert_array_equal(components_c, components)
    np.testing.assert_array_equal(s_c, s)


def test_sparse_randomized_equals_the_dense_randomized_on_the_same_seed():
    # the operator feeds the same range finder as the dense centred matrix: same
    # test matrix, same products up to rounding, hence the same answer
    X = sparse_low_rank(300, 60, seed=34)
    mean = sparse_column_moments(X)[0]
    components, s, q = sparse_axes(X, "randomized", k=5, iterated_power=2, random_state=7)
    dense_components, dense_s, dense_q = principal_axes_randomized(
        X.toarray() - mean, 5, iterated_power=2, random_state=7
    )
    assert q == dense_q == 2
    np.testing.assert_allclose(s, dense_s, rtol=1e-12)
    np.testing.assert_allclose(components, dense_components, rtol=0, atol=1e-10)


@pytest.mark.parametrize("solver", ["arpack", "randomized"])
def test_sparse_random_state(solver):
    X = sparse_low_rank(200, 50, seed=35)
    first = sparse_axes(X, solver, random_state=np.random.RandomState(3))
    second = sparse_axes(X, solver, random_state=np.random.RandomState(3))
    for a, b in zip(first[:2], second[:2], strict=True):
        np.testing.assert_array_equal(a, b)
    other = sparse_axes(X, solver, random_state=np.random.default_rng(11))
    np.testing.assert_allclose(other[1], first[1], rtol=1e-10)


@pytest.mark.parametrize("container", SPARSE_CONTAINERS.values(), ids=SPARSE_CONTAINERS.keys())
def test_sparse_column_moments_match_numpy(container):
    rng = np.random.default_rng(36)
    D = rng.standard_normal((500, 6)) * (rng.random((500, 6)) < 0.2)
    D[:, 1] = 0.0  # an empty column
    D[:, 2] = 1e6 + rng.standard_normal(500)  # a mean large compared to the spread
    D[0, 3] = 7.0  # a single entry
    X = container(D)
    mean, variance = sparse_column_moments(X)
    np.testing.assert_allclose(mean, np.mean(D, axis=0), rtol=1e-13, atol=0)
    np.testing.assert_allclose(variance, np.var(D, axis=0, ddof=1), rtol=1e-10, atol=0)
    # the textbook E[x²] - E[x]² loses about twelve digits on the offset column
    naive = (np.mean(D[:, 2] ** 2) - np.mean(D[:, 2]) ** 2) * 500 / 499
    assert abs(naive / np.var(D[:, 2], ddof=1) - 1) > 1e-6


def test_sparse_column_moments_with_duplicates_explicit_zeros_and_integers():
    # COO input may repeat an entry (the values add up) and store explicit zeros
    rows = np.array([0, 0, 1, 2, 2, 3])
    cols = np.array([0, 0, 1, 1, 2, 2])
    values = np.array([1, 2, 0, 5, 3, -4])
    X = scipy.sparse.coo_array((values, (rows, cols)), shape=(4, 3))
    D = X.toarray()
    assert D[0, 0] == 3 and X.nnz == 6
    mean, variance = sparse_column_moments(X)
    assert mean.dtype == np.float64
    np.testing.assert_allclose(mean, D.mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(variance, D.var(axis=0, ddof=1), rtol=1e-15)


def test_sparse_column_moments_keep_float32():
    X = sparse_low_rank(100, 20, seed=37).astype(np.float32)
    mean, variance = sparse_column_moments(X)
    assert mean.dtype == variance.dtype == np.float32
    D = X.toarray().astype(np.float64)
    np.testing.assert_allclose(variance, D.var(axis=0, ddof=1), rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("scale", [None, 0.5, "vector"])
def test_centered_operator_is_the_dense_centred_matrix(scale, dtype):
    X = sparse_low_rank(40, 25, seed=38).astype(dtype)
    rng = np.random.default_rng(38)
    mean = rng.standard_normal(25)
    scale = rng.uniform(0.5, 2.0, 25) if scale == "vector" else scale
    A = (X.toarray().astype(np.float64) - mean.astype(dtype)) / (1.0 if scale is None else scale)
    op = centered_operator(X, mean, scale)
    assert op.shape == (40, 25) and op.dtype == dtype
    v, u = rng.standard_normal(25), rng.standard_normal(40)
    V, U = rng.standard_normal((25, 4)), rng.standard_normal((40, 4))
    rtol = 1e-12 if dtype == np.float64 else 1e-5
    pairs = [
        (op.matvec(v), A @ v),
        (op.matvec(v[:, None]), A @ v[:, None]),
        (op.rmatvec(u), A.T @ u),
        (op.matmat(V), A @ V),
        (op.rmatmat(U), A.T @ U),
        (op @ V, A @ V),
        (op.T @ U, A.T @ U),
        (U.T @ op, U.T @ A),
    ]
    for result, expected in pairs:
        assert result.shape == expected.shape
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=rtol * np.abs(expected).max())


class DensifyingIsAnError(scipy.sparse.csr_array):
    """A CSR array whose dense copy raises: what pcalib does with it stays sparse."""

    def toarray(self, *args, **kwargs):
        raise AssertionError("X was densified")

    todense = toarray

    def __array__(self, *args, **kwargs):
        """Refuse ``np.asarray(X)``."""
        raise AssertionError("X was converted to a dense array")


@pytest.mark.parametrize("solver", SPARSE_SOLVERS)
def test_sparse_input_is_never_densified(solver):
    X = sparse_low_rank(200, 50, seed=39)
    guarded = DensifyingIsAnError(X)
    with pytest.raises(AssertionError, match="densified"):
        guarded.toarray()
    mean = sparse_column_moments(guarded)[0]
    components, s, _ = sparse_axes(guarded, solver, mean=mean)
    expected_components, expected_s, _ = sparse_axes(X, solver, mean=mean)
    np.testing.assert_array_equal(s, expected_s)
    np.testing.assert_array_equal(components, expected_components)


@pytest.mark.parametrize("solver", ["arpack", "randomized"])
def test_sparse_pca_of_a_matrix_too_large_to_densify(solver):
    # 200 000 × 50 000 is 80 GB dense; its 1e5 scattered entries take 2 MB. Two
    # frequent columns (20 % and 5 % of the rows) stand far above the scattered
    # bulk, so that the randomized solver, too, finds the top two axes exactly
    n, d, nnz = 200_000, 50_000, 100_000
    rng = np.random.default_rng(40)
    rows = np.concatenate([rng.integers(0, n, nnz), rng.choice(n, 40_000), rng.choice(n, 10_000)])
    cols = np.concatenate([rng.integers(0, d, nnz), np.full(40_000, 7), np.full(10_000, 11)])
    X = scipy.sparse.csr_array((rng.random(rows.size), (rows, cols)), shape=(n, d))
    mean = sparse_column_moments(X)[0]
    components, s, _ = principal_axes_sparse(X, mean, None, 2, solver, random_state=0)
    assert components.shape == (2, d) and np.all(np.isfinite(s))
    np.testing.assert_allclose(components @ components.T, np.eye(2), atol=1e-10)
    # each axis is a singular vector: ‖X_c v‖ is its singular value
    op = centered_operator(X, mean)
    np.testing.assert_allclose(np.linalg.norm(op @ components.T, axis=0), s, rtol=1e-8)
    assert np.all(np.argmax(np.abs(components), axis=1) == [7, 11])


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda X, m: sparse_column_moments(X.toarray()), TypeError, "scipy.sparse"),
        (lambda X, m: centered_operator(X.toarray(), m), TypeError, "scipy.sparse"),
        (lambda X, m: sparse_column_moments(X[:1]), ValueError, "minimum of 2"),
        (lambda X, m: sparse_column_moments(X * 1j), ValueError, "[Cc]omplex"),
        (
            lambda X, m: centered_operator(X, m[:-1]),
            ValueError,
            r"mean must be a vector of shape \(20,\)",
        ),
        (
            lambda X, m: centered_operator(X, m[:, None]),
            ValueError,
            r"mean must be a vector of shape \(20,\)",
        ),
        (lambda X, m: centered_operator(X, m * np.nan), ValueError, "mean contains NaN"),
        (lambda X, m: centered_operator(X, m, scale=0.0), ValueError, "scale"),
        (lambda X, m: centered_operator(X, m, scale=-m), ValueError, "scale must be positive"),
        (
            lambda X, m: centered_operator(X, m, scale=m[:3]),
            ValueError,
            "scale must be a vector of shape",
        ),
        (lambda X, m: principal_axes_sparse(X, m, None, 2, "lanczos"), ValueError, "svd_solver"),
        (lambda X, m: principal_axes_sparse(X, m, None, 2, "full"), ValueError, "svd_solver"),
        (lambda X, m: principal_axes_sparse(X, m, None, 20, "arpack"), ValueError, "n_components"),
        (lambda X, m: principal_axes_sparse(X, m, None, 21, "randomized"), ValueError, "n_comp"),
        (lambda X, m: principal_axes_sparse(X, m, None, 2.5, "arpack"), TypeError, "n_comp"),
        (
            lambda X, m: principal_axes_sparse(X, m, None, 2, "randomized", n_oversamples=-1),
            ValueError,
            "n_oversamples",
        ),
        (
            lambda X, m: principal_axes_sparse(X, m, None, 2, "randomized", iterated_power=1.5),
            TypeError,
            "iterated_power",
        ),
        (
            lambda X, m: principal_axes_sparse(X, m, None, 2, "arpack", random_state="seed"),
            TypeError,
            "random_state",
        ),
    ],
)
def test_sparse_bad_input_is_named(call, error, match):
    X = sparse_low_rank(100, 20, seed=41)
    mean = sparse_column_moments(X)[0]
    with pytest.raises(error, match=match):
        call(X, mean)


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e300])
def test_sparse_non_finite_or_huge_entries_are_refused(bad):
    X = sparse_low_rank(50, 10, seed=42)
    X.data[3] = bad
    with pytest.raises(ValueError, match=r"X (contains NaN|is too large)"):
        sparse_column_moments(X)


def test_arpack_needs_k_below_min_n_d():
    X = sparse_low_rank(100, 20, seed=43)
    mean = sparse_column_moments(X)[0]
    with pytest.raises(ValueError, match=r"min\(n_samples, n_features\) - 1 for ARPACK = 19"):
        principal_axes_sparse(X, mean, None, 20, "arpack")
    s = principal_axes_sparse(X, mean, None, 19, "arpack", random_state=0)[1]
    _, s_ref = dense_reference(X)
    np.testing.assert_allclose(s[:5], s_ref[:5], rtol=1e-10)


# ----------------------------------------------------------------------------
# The a-posteriori error bound of a range (HMT 2011, section 4.3) and the
# adaptive range finder. The reference error is the spectral norm of the
# residual, computed by NumPy's SVD.


def spectral_residual(X, Q):
    """‖X - Q Qᵀ X‖₂ from NumPy's SVD of the residual."""
    return np.linalg.svd(X - Q @ (Q.T @ X), compute_uv=False)[0]


def one_dominant_residual(seed=0):
    """Data and a range whose residual has one dominant singular value (the hard case)."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.normal(size=(60, 12)))
    V, _ = np.linalg.qr(rng.normal(size=(40, 12)))
    s = np.r_[10.0, 8.0, 6.0, 1.0, 0.05 * np.ones(8)]
    return (U * s) @ V.T, U[:, :3]


def test_range_error_bound_is_the_probe_formula():
    X, Q = one_dominant_residual()
    Omega = np.random.default_rng(7).standard_normal((X.shape[1], 4))
    residual = X @ Omega - Q @ (Q.T @ (X @ Omega))
    expected = 10 * np.sqrt(2 / np.pi) * np.linalg.norm(residual, axis=0).max()
    bound = range_error_bound(X, Q, n_probes=4, random_state=7)
    np.testing.assert_allclose(bound, expected, rtol=1e-12)


@pytest.mark.parametrize("n_probes", [1, 2])
def test_range_error_bound_fails_at_most_as_often_as_stated(n_probes):
    # Lemma 4.1: the bound fails with probability at most 10^(-r). With a residual
    # dominated by one singular value, r = 1 fails in about 8 % of the draws
    X, Q = one_dominant_residual()
    exact = spectral_residual(X, Q)
    n_draws = 2000
    failures = sum(
        range_error_bound(X, Q, n_probes=n_probes, random_state=seed) < exact
        for seed in range(n_draws)
    )
    # the stated rate plus four binomial standard deviations
    rate = 10.0**-n_probes
    assert failures <= n_draws * rate + 4 * np.sqrt(n_draws * rate * (1 - rate))
    # and the bound is not vacuous: one probe fails sometimes on this residual
    if n_probes == 1:
        assert failures > 0


def test_range_error_bound_holds_with_ten_probes_and_is_within_a_factor():
    X, Q = one_dominant_residual(3)
    exact = spectral_residual(X, Q)
    frobenius = np.linalg.norm(X - Q @ (Q.T @ X))
    for seed in range(50):
        bound = range_error_bound(X, Q, random_state=seed)
        # ‖Bω‖ ≤ ‖B‖_F ‖ω‖ and ‖ω‖² < 3 d with overwhelming probability
        assert exact <= bound <= 10 * np.sqrt(2 / np.pi) * frobenius * np.sqrt(3 * X.shape[1])


def test_range_error_bound_of_an_exact_range_is_rounding():
    X, _ = one_dominant_residual()
    U, _, _ = np.linalg.svd(X, full_matrices=False)
    assert range_error_bound(X, U[:, :12], random_state=0) < 1e-12 * np.linalg.norm(X)
    # an empty range: the bound is one of the data itself
    assert range_error_bound(X, np.empty((60, 0)), random_state=0) >= spectral_residual(
        X, np.empty((60, 0))
    )


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("tol", [1e-1, 1e-3])
def test_adaptive_range_finder_reaches_the_tolerance(seed, tol):
    X, _ = make_spectrum(120, 80, 0.7 ** np.arange(80), random_state=seed)
    result = adaptive_range_finder(X, tol=tol, n_probes=5, random_state=seed)
    Q, history = result.Q, result.error_bound_history
    target = tol * np.linalg.norm(X)
    assert result.converged
    np.testing.assert_allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-12)
    assert spectral_residual(X, Q) <= target
    # it stops at the first bound below the target: one block per earlier bound
    assert history[-1] <= target and np.all(history[:-1] > target)
    assert Q.shape[1] == 5 * (len(history) - 1)
    # no more columns than the optimal rank for a 1000 times smaller tolerance, plus a
    # block: the bound exceeds the error by a factor of at most about 8 ‖B‖_F / ‖B‖_2
    # times the largest norm of the probes, here well below 1000
    s = np.linalg.svd(X, compute_uv=False)
    k_small = np.flatnonzero(s <= tol / 1000 * np.linalg.norm(X))[0]
    assert Q.shape[1] <= k_small + 5


def test_adaptive_range_finder_of_low_rank_data_finds_its_range():
    X, _ = make_low_rank(50, 30, 4, noise=0.0, random_state=0)
    result = adaptive_range_finder(X, tol=1e-10, n_probes=6, random_state=0)
    assert result.converged and result.Q.shape[1] == 6
    assert spectral_residual(X, result.Q) < 1e-12 * np.linalg.norm(X)


def test_adaptive_range_finder_warns_when_max_rank_is_reached():
    X, _ = make_spectrum(60, 40, 0.9 ** np.arange(40), random_state=0)
    with pytest.warns(ConvergenceWarning, match="adaptive_range_finder"):
        result = adaptive_range_finder(X, tol=1e-6, n_probes=4, max_rank=10, random_state=0)
    assert not result.converged and result.Q.shape[1] == 10
    assert result.error_bound_history[-1] > 1e-6 * np.linalg.norm(X)


def test_adaptive_range_finder_scales_with_the_data_and_is_seeded():
    X, _ = make_spectrum(60, 40, 0.8 ** np.arange(40), random_state=1)
    base = adaptive_range_finder(X, tol=1e-2, n_probes=4, random_state=2)
    again = adaptive_range_finder(X, tol=1e-2, n_probes=4, random_state=2)
    np.testing.assert_array_equal(base.Q, again.Q)
    for c in [1e-8, 255.0, 1e8]:
        scaled = adaptive_range_finder(c * X, tol=1e-2, n_probes=4, random_state=2)
        assert scaled.Q.shape == base.Q.shape
        # the last bound is at rounding level (Q spans the whole range): absolute there
        np.testing.assert_allclose(
            scaled.error_bound_history,
            c * base.error_bound_history,
            rtol=1e-8,
            atol=1e-12 * c * base.error_bound_history[0],
        )


def test_zero_data_needs_no_column():
    result = adaptive_range_finder(np.zeros((10, 6)), random_state=0)
    assert result.converged and result.Q.shape == (10, 0)
    assert range_error_bound(np.zeros((10, 6)), np.empty((10, 0)), random_state=0) == 0.0


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda X, Q: range_error_bound(X, Q[:-1]), ValueError, "Q must have shape"),
        (lambda X, Q: range_error_bound(X, 2 * Q), ValueError, "orthonormal"),
        (lambda X, Q: range_error_bound(X, Q, n_probes=0), ValueError, "n_probes"),
        (lambda X, Q: range_error_bound(X, Q, n_probes=2.0), TypeError, "n_probes"),
        (lambda X, Q: range_error_bound(X[:, :, None], Q), ValueError, "X must be a 2-D"),
        (lambda X, Q: adaptive_range_finder(X, tol=0.0), ValueError, "tol"),
        (lambda X, Q: adaptive_range_finder(X, tol=-1e-3), ValueError, "tol"),
        (lambda X, Q: adaptive_range_finder(X, max_rank=0), ValueError, "max_rank"),
        (lambda X, Q: adaptive_range_finder(X, random_state="a"), TypeError, "random_state"),
        (lambda X, Q: adaptive_range_finder(np.full((5, 4), np.nan)), ValueError, "X"),
    ],
)
def test_range_bound_bad_input_is_named(call, error, match):
    X, Q = one_dominant_residual()
    with pytest.raises(error, match=match):
        call(X, Q)
