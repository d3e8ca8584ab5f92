"""Tests of the options :class:`pcalib.PCA` shares with scikit-learn's PCA.

``whiten``, ``svd_solver="arpack"``, ``n_components="mle"`` and ``0``, the PPCA
model (``score``, ``score_samples``, ``get_covariance``, ``get_precision``,
``noise_variance_``), float32 data, the rule for a fraction of variance, the
variances of the randomized solver, and sparse input. Expected values come
from independent sources: NumPy's SVD and covariance, SciPy's multivariate
normal, pcalib's PPCA closed form (chapter 4), or scikit-learn.
"""

from functools import partial

import helpers
import numpy as np
import pytest
import scipy.sparse
import scipy.stats
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA as SklearnPCA

from pcalib import PCA, PPCA

# A decaying spectrum with a clear gap after each axis (standard deviations 3 · 0.7^j),
# rotated axes, and the mean in [-5, 5].
make_data = partial(
    helpers.make_data, scales=lambda d: 3.0 * 0.7 ** np.arange(d), offset=5.0, rotate=True
)

SOLVERS = ["full", "covariance_eigh", "gram", "arpack", "subspace", "randomized", "auto"]
# what each solver needs to reach its accuracy on the data below
SOLVER_PARAMS = {"subspace": {"tol": 1e-12}, "randomized": {"iterated_power": 10}}


def make_pca(svd_solver, **params):
    return PCA(
        svd_solver=svd_solver, random_state=0, **{**SOLVER_PARAMS.get(svd_solver, {}), **params}
    )


def reference_spectrum(X):
    """Eigenvalues (decreasing) and eigenvectors (rows) of the covariance, by NumPy's SVD."""
    X_c = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(X_c, full_matrices=False)
    return s**2 / (X.shape[0] - 1), Vt


def same_axes(A, B, atol):
    """Rows of A and B are the same unit vectors up to sign."""
    signs = np.sign(np.sum(A * B, axis=1))
    np.testing.assert_allclose(A * signs[:, None], B, atol=atol)


# ---------------------------------------------------------------------------
# A fraction of variance: strictly greater (scikit-learn's rule)


def test_fraction_equal_to_a_cumulative_ratio_keeps_one_more():
    X = load_iris().data
    r = PCA().fit(X).explained_variance_ratio_[0]
    assert PCA(n_components=r).fit(X).n_components_ == 2
    # scikit-learn, with the ratio it computes itself (they differ in the last bits)
    r_sklearn = SklearnPCA().fit(X).explained_variance_ratio_[0]
    assert SklearnPCA(n_components=r_sklearn).fit(X).n_components_ == 2


@pytest.mark.parametrize("svd_solver", ["full", "covariance_eigh", "gram"])
def test_fraction_rule_against_numpy_eigenvalues(svd_solver):
    X = load_iris().data
    eigenvalues = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1]
    cumulative = np.cumsum(eigenvalues) / eigenvalues.sum()
    for j in range(3):
        # strictly more than the fraction: just below a cumulative ratio keeps j + 1 axes,
        # just above it j + 2
        below = PCA(n_components=cumulative[j] * (1 - 1e-9), svd_solver=svd_solver).fit(X)
        above = PCA(n_components=cumulative[j] * (1 + 1e-9), svd_solver=svd_solver).fit(X)
        assert below.n_components_ == j + 1
        assert above.n_components_ == j + 2


# ---------------------------------------------------------------------------
# explained_variance_ is the variance of the scores, for every solver


@pytest.mark.parametrize("svd_solver", SOLVERS)
def test_explained_variance_is_the_variance_of_the_scores(svd_solver):
    X = make_data(500, 40, seed=1)
    pca = make_pca(svd_solver, n_components=5)
    Z = pca.fit_transform(X)
    np.testing.assert_allclose(np.var(Z, axis=0, ddof=1), pca.explained_variance_, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(Z, axis=0), pca.singular_values_, rtol=1e-12)


def test_randomized_variances_are_closer_than_the_range_finders():
    # the case: a tall random matrix, whose flat spectrum the range finder
    # resolves poorly; ‖X_c v_i‖² / (n - 1) is never above the exact top-k total (Ky Fan)
    X = np.random.default_rng(1).standard_normal((2000, 50))
    exact, _ = reference_spectrum(X)
    pca = PCA(n_components=5, svd_solver="randomized", random_state=0).fit(X)
    assert pca.explained_variance_.sum() <= exact[:5].sum() * (1 + 1e-12)
    # the singular values of the small matrix Qᵀ X_c, as the range finder returns them
    from pcalib.high_dim import principal_axes_randomized

    X_c = X - X.mean(axis=0)
    _, s_small, _ = principal_axes_randomized(X_c, 5, random_state=0)
    range_finder = s_small**2 / (X.shape[0] - 1)
    assert np.all(pca.explained_variance_ >= range_finder * (1 - 1e-12))
    error_ours = np.abs(pca.explained_variance_.sum() - exact[:5].sum())
    error_range_finder = np.abs(range_finder.sum() - exact[:5].sum())
    assert error_ours < error_range_finder


# ---------------------------------------------------------------------------
# whiten


@pytest.mark.parametrize("svd_solver", SOLVERS)
@pytest.mark.parametrize("standardize", [False, True])
def test_whitened_scores_have_identity_covariance(svd_solver, standardize):
    X = make_data(300, 8, seed=2)
    pca = make_pca(svd_solver, n_components=5, whiten=True, standardize=standardize)
    Z = pca.fit_transform(X)
    np.testing.assert_allclose(np.cov(Z, rowvar=False), np.eye(5), atol=1e-10)
    unwhitened = make_pca(svd_solver, n_components=5, standardize=standardize).fit(X)
    np.testing.assert_allclose(
        Z * np.sqrt(np.var(unwhitened.transform(X), axis=0, ddof=1)),
        unwhitened.transform(X),
        atol=1e-10 * np.abs(unwhitened.transform(X)).max(),
    )


@pytest.mark.parametrize("svd_solver", ["full", "covariance_eigh", "gram", "randomized"])
@pytest.mark.parametrize("standardize", [False, True])
def test_whitened_round_trip_at_full_rank(svd_solver, standardize):
    X = make_data(100, 6, seed=3)
    pca = make_pca(svd_solver, whiten=True, standardize=standardize).fit(X)
    assert pca.n_components_ == 6
    np.testing.assert_allclose(pca.inverse_transform(pca.transform(X)), X, atol=1e-10)


def test_whiten_matches_sklearn():
    X = make_data(80, 6, seed=4)
    X_new = make_data(10, 6, seed=5)
    ours = PCA(n_components=3, whiten=True, svd_solver="full").fit(X)
    theirs = SklearnPCA(n_components=3, whiten=True, svd_solver="full").fit(X)
    signs = np.sign(np.sum(ours.components_ * theirs.components_, axis=1))
    np.testing.assert_allclose(ours.transform(X_new), theirs.transform(X_new) * signs, atol=1e-10)
    Z = np.random.default_rng(0).standard_normal((4, 3))
    np.testing.assert_allclose(
        ours.inverse_transform(Z), theirs.inverse_transform(Z * signs), atol=1e-10
    )


def test_whitening_floors_a_null_variance():
    # rank 2 in 4 features: the last two variances are rounding noise, and the
    # whitened scores stay finite
    rng = np.random.default_rng(6)
    X = rng.standard_normal((30, 2)) @ rng.standard_normal((2, 4))
    Z = PCA(whiten=True, svd_solver="full").fit_transform(X)
    assert np.all(np.isfinite(Z))


# ---------------------------------------------------------------------------
# svd_solver="arpack"


@pytest.mark.parametrize("shape", [(60, 10), (10, 60)])
def test_arpack_matches_the_full_svd(shape):
    X = make_data(*shape, seed=7) if shape[0] > shape[1] else make_data(*shape[::-1], seed=7).T
    exact, Vt = reference_spectrum(X)
    pca = PCA(n_components=4, svd_solver="arpack", random_state=0).fit(X)
    same_axes(pca.components_, Vt[:4], atol=1e-10)
    np.testing.assert_allclose(pca.explained_variance_, exact[:4], rtol=1e-10)
    assert pca.svd_solver_ == "arpack"
    assert pca.n_iter_ == 0 and pca.converged_


def test_arpack_number_of_components():
    X = make_data(30, 5, seed=8)
    assert PCA(svd_solver="arpack", random_state=0).fit(X).n_components_ == 4
    for k in (0, 5):
        with pytest.raises(ValueError, match="n_components"):
            PCA(n_components=k, svd_solver="arpack").fit(X)
    with pytest.raises(ValueError, match="strictly less than"):
        PCA(n_components=5, svd_solver="arpack").fit(X)
    with pytest.raises(ValueError, match="fraction of variance"):
        PCA(n_components=0.5, svd_solver="arpack").fit(X)


def test_arpack_is_reproducible_with_random_state():
    X = make_data(50, 8, seed=9)
    first = PCA(n_components=3, svd_solver="arpack", random_state=3).fit(X)
    second = PCA(n_components=3, svd_solver="arpack", random_state=3).fit(X)
    np.testing.assert_array_equal(first.components_, second.components_)


# ---------------------------------------------------------------------------
# n_components="mle"


def planted_rank_data(rank, n_samples=500, n_features=12, noise=0.1, seed=0):
    rng = np.random.default_rng(seed)
    signal = rng.standard_normal((n_samples, rank)) @ rng.standard_normal((rank, n_features))
    return signal * 2.0 + noise * rng.standard_normal((n_samples, n_features))


@pytest.mark.parametrize("rank", [1, 3, 6, 11])
@pytest.mark.parametrize("seed", [0, 1])
def test_mle_agrees_with_sklearn_on_planted_ranks(rank, seed):
    X = planted_rank_data(rank, seed=seed)
    expected = SklearnPCA(n_components="mle", svd_solver="full").fit(X).n_components_
    for svd_solver in ("full", "covariance_eigh", "auto"):
        assert PCA(n_components="mle", svd_solver=svd_solver).fit(X).n_components_ == expected
    assert expected == rank  # the planted rank is found: the data are clear enough


@pytest.mark.parametrize("rank", [1, 4, 11])
def test_mle_on_exactly_rank_deficient_data(rank):
    X = planted_rank_data(rank, noise=0.0, seed=2)
    expected = SklearnPCA(n_components="mle", svd_solver="full").fit(X).n_components_
    pca = PCA(n_components="mle").fit(X)
    assert pca.n_components_ == expected == rank
    # and in any units (scikit-learn's absolute threshold of 1e-15 is not)
    assert PCA(n_components="mle").fit(1e-9 * X).n_components_ == rank


def test_mle_refusals():
    X = planted_rank_data(2)
    for svd_solver in ("arpack", "randomized", "subspace"):
        with pytest.raises(ValueError, match="cannot be a string"):
            PCA(n_components="mle", svd_solver=svd_solver).fit(X)
    with pytest.raises(ValueError, match="n_samples >= n_features"):
        PCA(n_components="mle").fit(X[:10])
    with pytest.raises(TypeError, match="'MLE' of type str"):
        PCA(n_components="MLE").fit(X)


# ---------------------------------------------------------------------------
# The PPCA model: noise_variance_, get_covariance, get_precision, score


@pytest.mark.parametrize("svd_solver", SOLVERS)
@pytest.mark.parametrize("shape", [(200, 8), (6, 20)])
def test_noise_variance_is_the_mean_discarded_eigenvalue(svd_solver, shape):
    n, d = shape
    X = make_data(n, d, seed=10)
    # min(n, d) eigenvalues; for n < d the last is the 0 that centring leaves
    eigenvalues = np.linalg.eigvalsh(np.cov(X, rowvar=False))[::-1][: min(n, d)]
    k = 3
    pca = make_pca(svd_solver, n_components=k).fit(X)
    np.testing.assert_allclose(pca.noise_variance_, eigenvalues[k:].mean(), rtol=1e-9)
    if svd_solver != "arpack":
        full = make_pca(svd_solver, n_components=min(n, d)).fit(X)
        assert full.noise_variance_ == 0.0


@pytest.mark.parametrize("svd_solver", SOLVERS)
@pytest.mark.parametrize("standardize", [False, True])
@pytest.mark.parametrize("whiten", [False, True])
def test_score_samples_is_the_gaussian_log_density(svd_solver, standardize, whiten):
    X = make_data(150, 7, seed=12)
    X_new = make_data(20, 7, seed=13)
    pca = make_pca(svd_solver, n_components=3, standardize=standardize, whiten=whiten).fit(X)
    C = pca.get_covariance()
    expected = scipy.stats.multivariate_normal(mean=pca.mean_, cov=C).logpdf(X_new)
    np.testing.assert_allclose(pca.score_samples(X_new), expected, rtol=1e-10)
    assert pca.score(X_new) == pytest.approx(expected.mean(), rel=1e-10)
    np.testing.assert_allclose(pca.get_precision() @ C, np.eye(7), atol=1e-10)


@pytest.mark.parametrize("standardize", [False, True])
def test_the_model_is_ppca_closed_form_with_n_minus_1(standardize):
    # n ≥ d: the noise variance averages the same d - k eigenvalues in both
    X = make_data(120, 6, seed=14)
    X_new = make_data(15, 6, seed=15)
    pca = PCA(n_components=2, standardize=standardize).fit(X)
    X_fit = (X - X.mean(axis=0)) / X.std(axis=0, ddof=1) if standardize else X
    ppca = PPCA(n_components=2, ddof=1, solver="closed_form").fit(X_fit)
    assert pca.noise_variance_ == pytest.approx(ppca.noise_variance_, rel=1e-10)
    if standardize:
        D = np.outer(pca.scale_, pca.scale_)
        np.testing.assert_allclose(pca.get_covariance() / D, ppca.get_covariance(), rtol=1e-10)
        # the density of x is that of the standardised x, over the Jacobian of the scaling
        X_new_fit = (X_new - pca.mean_) / pca.scale_
        expected = ppca.score_samples(X_new_fit) - np.log(pca.scale_).sum()
    else:
        np.testing.assert_allclose(pca.get_covariance(), ppca.get_covariance(), rtol=1e-10)
        expected = ppca.score_samples(X_new)
    np.testing.assert_allclose(pca.score_samples(X_new), expected, rtol=1e-10)


def test_the_model_matches_sklearn():
    X = make_data(90, 6, seed=16)
    for k in (0, 2, 5):
        ours = PCA(n_components=k, svd_solver="full").fit(X)
        theirs = SklearnPCA(n_components=k, svd_solver="full").fit(X)
        assert ours.noise_variance_ == pytest.approx(theirs.noise_variance_, rel=1e-10)
        np.testing.assert_allclose(ours.get_covariance(), theirs.get_covariance(), rtol=1e-10)
        np.testing.assert_allclose(ours.get_precision(), theirs.get_precision(), rtol=1e-8)
        assert ours.score(X) == pytest.approx(theirs.score(X), rel=1e-10)


def test_whiten_does_not_change_the_model():
    # scikit-learn scales the components by sqrt(explained_variance_) once more
    # when whitening, which gives a covariance in units of X⁴; pcalib does not
    X = make_data(90, 6, seed=17)
    plain = PCA(n_components=2).fit(X)
    whitened = PCA(n_components=2, whiten=True).fit(X)
    np.testing.assert_allclose(whitened.get_covariance(), plain.get_covariance())
    assert whitened.score(X) == pytest.approx(plain.score(X), rel=1e-12)


def test_zero_components_model_is_isotropic():
    X = make_data(50, 4, seed=18)
    pca = PCA(n_components=0).fit(X)
    assert pca.components_.shape == (0, 4)
    assert pca.transform(X).shape == (50, 0)
    sigma2 = np.trace(np.cov(X, rowvar=False)) / 4
    assert pca.noise_variance_ == pytest.approx(sigma2, rel=1e-12)
    expected = scipy.stats.multivariate_normal(X.mean(axis=0), sigma2 * np.eye(4)).logpdf(X)
    np.testing.assert_allclose(pca.score_samples(X), expected, rtol=1e-12)
    np.testing.assert_allclose(pca.inverse_transform(np.empty((3, 0))), np.tile(pca.mean_, (3, 1)))


def test_singular_model_is_refused():
    # k = n < d: noise_variance_ = 0 and the covariance has rank k
    X = make_data(20, 5, seed=19).T
    pca = PCA(n_components=5).fit(X)
    assert pca.noise_variance_ == 0.0
    for method in (pca.score, pca.score_samples, lambda X: pca.get_precision()):
        with pytest.raises(ValueError, match="singular covariance"):
            method(X)


# ---------------------------------------------------------------------------
# float32


@pytest.mark.parametrize("svd_solver", SOLVERS)
def test_float32_in_float32_out(svd_solver):
    X64 = make_data(300, 6, seed=20)
    X32 = X64.astype(np.float32)
    pca32 = make_pca(svd_solver, n_components=4).fit(X32)
    pca64 = make_pca(svd_solver, n_components=4).fit(X32.astype(np.float64))
    for name in ("components_", "explained_variance_", "explained_variance_ratio_", "mean_"):
        assert getattr(pca32, name).dtype == np.float32, name
    Z = pca32.transform(X32)
    assert Z.dtype == np.float32
    assert pca32.inverse_transform(Z).dtype == np.float32
    assert pca32.get_covariance().dtype == np.float32
    assert pca64.transform(X64).dtype == np.float64
    # pcalib computes in float64 and rounds the results to float32 at the end,
    # so they differ from the float64 fit of the same numbers by float32's unit
    # roundoff, 6e-8, with slack for the entries near 0 of the components
    np.testing.assert_allclose(pca32.components_, pca64.components_, rtol=2e-6, atol=2e-7)
    np.testing.assert_allclose(pca32.explained_variance_, pca64.explained_variance_, rtol=2e-6)
    np.testing.assert_allclose(pca32.singular_values_, pca64.singular_values_, rtol=2e-6)


def test_integers_give_float64():
    X = np.random.default_rng(21).integers(0, 100, (50, 4)).astype(np.int32)
    pca = PCA(n_components=2).fit(X)
    assert pca.components_.dtype == np.float64
    assert pca.transform(X).dtype == np.float64


# ---------------------------------------------------------------------------
# Sparse input, centred implicitly

SPARSE_SOLVERS = ["arpack", "covariance_eigh", "randomized", "auto"]


def sparse_data(container, seed=0, shape=(400, 60), density=0.1):
    rng = np.random.default_rng(seed)
    X = scipy.sparse.random_array(shape, density=density, rng=rng, format="csr")
    X = X.multiply(rng.uniform(0.5, 5.0, shape[1])).tocsr()  # unequal columns
    return container(X)


CONTAINERS = [
    scipy.sparse.csr_matrix,
    scipy.sparse.csc_matrix,
    scipy.sparse.csr_array,
    scipy.sparse.csc_array,
]


@pytest.mark.parametrize("container", CONTAINERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("svd_solver", SPARSE_SOLVERS)
@pytest.mark.parametrize("standardize", [False, True])
def test_sparse_fit_equals_dense_fit(container, svd_solver, standardize):
    X = sparse_data(container, seed=22)
    X_new = sparse_data(container, seed=23, shape=(30, 60))
    params = {"n_components": 5, "standardize": standardize}
    if svd_solver == "randomized":
        params["iterated_power"] = 20  # converged, so that it matches the exact dense fit
    sparse = make_pca(svd_solver, **params).fit(X)
    dense_solver = "arpack" if svd_solver == "auto" else svd_solver
    dense = make_pca(dense_solver, **params).fit(X.toarray())
    assert sparse.svd_solver_ == dense_solver
    same_axes(sparse.components_, dense.components_, atol=1e-10)
    for name in ("explained_variance_", "explained_variance_ratio_", "singular_values_", "mean_"):
        np.testing.assert_allclose(getattr(sparse, name), getattr(dense, name), rtol=1e-10)
    assert sparse.noise_variance_ == pytest.approx(dense.noise_variance_, rel=1e-10)
    signs = np.sign(np.sum(sparse.components_ * dense.components_, axis=1))
    np.testing.assert_allclose(
        sparse.transform(X_new), dense.transform(X_new.toarray()) * signs, atol=1e-10
    )
    np.testing.assert_allclose(sparse.transform(X_new), sparse.transform(X_new.toarray()))


@pytest.mark.parametrize("svd_solver", ["full", "gram", "subspace"])
def test_sparse_refused_by_the_dense_solvers(svd_solver):
    X = sparse_data(scipy.sparse.csr_array)
    with pytest.raises(TypeError, match=f'while "{svd_solver}" was passed'):
        PCA(n_components=2, svd_solver=svd_solver).fit(X)


def test_sparse_fraction_of_variance_needs_the_covariance_solver():
    X = sparse_data(scipy.sparse.csc_array, seed=26)
    with pytest.raises(ValueError, match="svd_solver='covariance_eigh' for sparse X"):
        PCA(n_components=0.5).fit(X)
    sparse = PCA(n_components=0.5, svd_solver="covariance_eigh").fit(X)
    dense = PCA(n_components=0.5, svd_solver="full").fit(X.toarray())
    assert sparse.n_components_ == dense.n_components_
    np.testing.assert_allclose(sparse.explained_variance_, dense.explained_variance_, rtol=1e-10)


@pytest.mark.parametrize("svd_solver", ["arpack", "randomized"])
def test_sparse_is_never_densified(svd_solver):
    # 100 000 × 20 000: 16 GB as a dense float64 array, 40 000 stored entries
    rng = np.random.default_rng(24)
    X = scipy.sparse.random_array((100_000, 20_000), density=2e-5, rng=rng, format="csr")
    pca = PCA(n_components=2, svd_solver=svd_solver, random_state=0).fit(X)
    assert pca.components_.shape == (2, 20_000)
    assert pca.transform(X[:10]).shape == (10, 2)


def test_sparse_float32_gives_float32():
    X = sparse_data(scipy.sparse.csr_array).astype(np.float32)
    pca = PCA(n_components=3, random_state=0).fit(X)
    assert pca.components_.dtype == np.float32
    assert pca.transform(X).dtype == np.float32


# ---------------------------------------------------------------------------
# Parameters


def test_copy_false_leaves_X_unchanged():
    X = make_data(40, 5, seed=25)
    before = X.copy()
    for svd_solver in SOLVERS:
        make_pca(svd_solver, copy=False, n_components=3).fit_transform(X)
        np.testing.assert_array_equal(X, before)


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"whiten": 1}, TypeError, "whiten must be True or False"),
        ({"copy": "yes"}, TypeError, "copy must be True or False"),
        ({"power_iteration_normalizer": "LU"}, ValueError, "power_iteration_normalizer"),
        ({"tol": -1.0}, ValueError, "tol"),
    ],
)
def test_bad_new_parameters(params, error, match):
    with pytest.raises(error, match=match):
        PCA(**params).fit(make_data(20, 4))
