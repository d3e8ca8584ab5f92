"""Tests of :class:`pcalib.KernelPCA` (chapter 3): exact, Nyström and random Fourier features.

Expected values come from independent sources only: scikit-learn's
``KernelPCA``, ``PCA`` and pairwise kernels, NumPy eigendecompositions of
kernel matrices built and centred here (``H K H`` with ``H = I - 11ᵀ/n``), an
explicit polynomial feature map written out by hand, and Monte Carlo
statistics of the random features. None of them is produced by pcalib itself.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
import scipy.sparse.linalg
import scipy.stats
from sklearn.base import clone
from sklearn.datasets import make_circles
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import pairwise
from sklearn.pipeline import make_pipeline

import pcalib.kernel_pca as kernel_pca_module
from pcalib import PCA, KernelPCA, KernelRankWarning
from pcalib.kernel_pca import (
    center_kernel,
    center_test_kernel,
    choose_eigen_solver,
    nystrom_feature_map,
    random_fourier_features,
    random_fourier_parameters,
)
from pcalib.kernels import polynomial_kernel, rbf_kernel

EPS = np.finfo(np.float64).eps

# pcalib's kernel names and parameters, with scikit-learn's equivalents
KERNEL_CASES = {
    "linear": ({"kernel": "linear"}, {"kernel": "linear"}),
    "poly": (
        {"kernel": "poly", "degree": 3, "gamma": 0.3, "coef0": 1.0},
        {"kernel": "poly", "degree": 3, "gamma": 0.3, "coef0": 1.0},
    ),
    "rbf": ({"kernel": "rbf", "gamma": 0.2}, {"kernel": "rbf", "gamma": 0.2}),
}


# ---------------------------------------------------------------------------
# Independent references and helpers
# ---------------------------------------------------------------------------


def make_data(n_samples, n_features, seed=0):
    """Gaussian data with decreasing column scales (separated spectra) and a mean."""
    rng = np.random.default_rng(seed)
    scales = np.geomspace(3.0, 0.5, n_features)
    return rng.standard_normal((n_samples, n_features)) * scales + rng.uniform(-1, 1, n_features)


def sklearn_kernel(X, Y, params):
    """The kernel of pcalib's ``params`` evaluated by scikit-learn."""
    kernel = params.get("kernel", "linear")
    if kernel == "linear":
        return pairwise.linear_kernel(X, Y)
    if kernel == "poly":
        return pairwise.polynomial_kernel(
            X,
            Y,
            degree=params.get("degree", 3),
            gamma=params.get("gamma"),
            coef0=params.get("coef0", 1.0),
        )
    gamma = params.get("gamma")
    if params.get("bandwidth") is not None:
        gamma = 1.0 / (2.0 * params["bandwidth"] ** 2)
    return pairwise.rbf_kernel(X, Y, gamma=gamma)


def centering_matrix(n):
    """``H = I - 11ᵀ/n``: ``H K H`` is the kernel of the centred feature vectors."""
    return np.eye(n) - np.full((n, n), 1.0 / n)


def reference_eigenpairs(K_centered):
    """All eigenpairs of a symmetric matrix by NumPy, in decreasing order."""
    eigenvalues, eigenvectors = np.linalg.eigh(K_centered)
    return eigenvalues[::-1], eigenvectors[:, ::-1]


def relative_gaps(eigenvalues, k):
    """Gap of each of the top ``k`` eigenvalues to its nearest neighbour, over λ₁.

    ``eigenvalues`` is the full (decreasing) spectrum, so the gap between the
    k-th kept and the first dropped eigenvalue is included.
    """
    diffs = -np.diff(eigenvalues[: k + 1])
    return np.minimum(np.r_[np.inf, diffs[:-1]], diffs) / eigenvalues[0]


def score_tolerance(eigenvalues, k, n, Z_ref):
    """Per-column absolute tolerance for scores computed by two eigensolvers.

    Both solvers are backward stable: each eigenvector is off by about
    ``n·eps·λ₁ / gap`` (Davis–Kahan), and a score column is that times its
    largest entry; we allow 10× that first-order size, plus 1e-12 relative
    for the arithmetic of forming the scores.
    """
    gaps = relative_gaps(eigenvalues, k)
    return (10 * n * EPS / gaps + 1e-12) * np.abs(Z_ref).max(axis=0)


def column_signs(A, B):
    """Signs s such that ``A * s`` points the same way as ``B``, column by column."""
    signs = np.sign(np.sum(A * B, axis=0))
    assert np.all(signs != 0), "columns are orthogonal: not the same scores up to sign"
    return signs


def largest_entry_is_positive(Z):
    """Whether the scores follow pcalib's sign convention, re-implemented here.

    Per column, the entry of largest absolute value is positive (zero columns
    are exempt).
    """
    nonzero = np.abs(Z).max(axis=0) > 0
    largest = np.argmax(np.abs(Z), axis=0)
    values = Z[largest, np.arange(Z.shape[1])]
    return bool(np.all(values[nonzero] > 0))


def hand_polynomial_features(X, gamma, c):
    """The feature map of ``(γ⟨x, y⟩ + c)²`` in 2-D, written out by hand."""
    x1, x2 = X[:, 0], X[:, 1]
    return np.column_stack(
        [
            gamma * x1**2,
            gamma * x2**2,
            np.sqrt(2.0) * gamma * x1 * x2,
            np.sqrt(2.0 * gamma * c) * x1,
            np.sqrt(2.0 * gamma * c) * x2,
            np.full_like(x1, c),
        ]
    )


def fit_quietly(model, X):
    """Fit ``model`` and fail on any warning (e.g. an unexpected rank warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return model.fit_transform(X)


# ---------------------------------------------------------------------------
# 1. Exact kernel PCA against scikit-learn
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["dense", "arpack"])
@pytest.mark.parametrize("case", KERNEL_CASES, ids=str)
def test_exact_agrees_with_sklearn(case, solver):
    params, sk_params = KERNEL_CASES[case]
    n, k = 120, 3
    X = make_data(n, 3, seed=1)
    T = make_data(15, 3, seed=2) * 1.5 + 0.5  # test points, other mean and scale

    # premise: the top k eigenvalues of the centred kernel are well separated
    K_c = centering_matrix(n) @ sklearn_kernel(X, X, params) @ centering_matrix(n)
    eigenvalues, _ = reference_eigenpairs(K_c)
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3), relative_gaps(eigenvalues, k)

    ref = SklearnKernelPCA(n_components=k, eigen_solver=solver, random_state=0, **sk_params)
    Z_ref = ref.fit_transform(X)
    model = KernelPCA(n_components=k, eigen_solver=solver, random_state=0, **params)
    Z_fit = fit_quietly(model, X)

    # sklearn's eigenvalues_ are those of the centred kernel, as pcalib's
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=1e-11)
    tol = score_tolerance(eigenvalues, k, n, Z_ref)
    signs = column_signs(Z_fit, Z_ref)
    assert np.all(np.abs(Z_fit * signs - Z_ref) <= tol), np.abs(Z_fit * signs - Z_ref).max(0)
    # transform of the training points and of new points, same signs
    for data in (X, T):
        Z_new_ref = ref.transform(data)
        Z_new = model.transform(data) * signs
        err = np.abs(Z_new - Z_new_ref)
        assert np.all(err <= score_tolerance(eigenvalues, k, n, Z_new_ref)), err.max(axis=0)
    assert model.n_components_ == k
    assert model.n_samples_ == n and model.n_features_in_ == 3


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_linear_kernel_is_ordinary_pca(solver):
    n, d = 80, 4
    X = make_data(n, d, seed=3)
    T = make_data(10, d, seed=4) - 2.0
    model = KernelPCA(n_components=d, kernel="linear", eigen_solver=solver, random_state=0)
    Z_fit = fit_quietly(model, X)
    ours = PCA(n_components=d).fit(X)
    theirs = SklearnPCA(n_components=d, svd_solver="full").fit(X)
    eigenvalues = (n - 1) * theirs.explained_variance_
    assert np.all(relative_gaps(np.r_[eigenvalues, 0.0], d) > 1e-3)
    for pca in (ours, theirs):
        Z_ref = pca.transform(X)
        tol = score_tolerance(np.r_[eigenvalues, 0.0], d, n, Z_ref)
        signs = column_signs(Z_fit, Z_ref)
        assert np.all(np.abs(Z_fit * signs - Z_ref) <= tol)
        assert np.all(np.abs(model.transform(X) * signs - Z_ref) <= tol)
        Z_T = pca.transform(T)
        tol_T = score_tolerance(np.r_[eigenvalues, 0.0], d, n, Z_T)
        assert np.all(np.abs(model.transform(T) * signs - Z_T) <= tol_T)
        np.testing.assert_allclose(model.explained_variance_, pca.explained_variance_, rtol=1e-11)
        np.testing.assert_allclose(
            model.explained_variance_ratio_, pca.explained_variance_ratio_, rtol=1e-11
        )


def test_defaults_are_scikit_learns():
    ours, theirs = KernelPCA().get_params(), SklearnKernelPCA().get_params()
    shared = set(ours) & set(theirs)
    assert shared == {
        "n_components",
        "kernel",
        "gamma",
        "degree",
        "coef0",
        "eigen_solver",
        "random_state",
    }
    assert {name: ours[name] for name in shared} == {name: theirs[name] for name in shared}
    assert ours["n_components"] is None and ours["kernel"] == "linear"


@pytest.mark.parametrize(
    "params, rank",
    [({}, 3), ({"kernel": "poly", "degree": 2, "gamma": 0.4}, 9)],
    ids=["default-linear", "poly-degree-2"],
)
def test_n_components_none_keeps_the_positive_eigenvalues_as_sklearn(params, rank):
    # 3 features: the linear kernel's centred rank is 3; the quadratic one's
    # is 9 (10 monomials of degree ≤ 2, minus the constant)
    n = 80
    X = make_data(n, 3, seed=59)
    T = make_data(9, 3, seed=45)
    K_c = centering_matrix(n) @ sklearn_kernel(X, X, params) @ centering_matrix(n)
    eigenvalues, _ = reference_eigenpairs(K_c)
    assert eigenvalues[rank - 1] > 1e-6 * eigenvalues[0]
    assert np.abs(eigenvalues[rank:]).max() < 1e-12 * eigenvalues[0]
    assert np.all(relative_gaps(eigenvalues, rank) > 1e-3)

    model = KernelPCA(**params)
    Z = fit_quietly(model, X)  # no KernelRankWarning: nothing asked for is dropped
    ref = SklearnKernelPCA(**params)
    Z_ref = ref.fit_transform(X)
    assert model.n_components_ == rank == Z_ref.shape[1] == Z.shape[1]
    assert model.eigen_solver_ == "dense"
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    assert np.all(model.eigenvalues_ > 0)
    signs = column_signs(Z, Z_ref)
    tol = score_tolerance(eigenvalues, rank, n, Z_ref)
    assert np.all(np.abs(Z * signs - Z_ref) <= tol)
    Z_T_ref = ref.transform(T)
    assert np.all(
        np.abs(model.transform(T) * signs - Z_T_ref)
        <= score_tolerance(eigenvalues, rank, n, Z_T_ref)
    )


def test_n_components_none_of_the_approximations_is_one_per_feature():
    X = make_data(60, 3, seed=46)
    # Nyström: as many components as the landmarks' kernel has numerical rank
    nystrom = KernelPCA(kernel="rbf", approximation="nystrom", n_landmarks=12, random_state=0)
    fit_quietly(nystrom, X)
    assert nystrom.n_components_ == nystrom.feature_map_.shape[1] == 12
    linear = KernelPCA(approximation="nystrom", n_landmarks=12, random_state=0)
    fit_quietly(linear, X)
    assert linear.n_components_ == linear.feature_map_.shape[1] == 3  # rank of K_LL
    # random Fourier features: one per feature, but centring 60 samples
    # leaves at most 59 directions of variance, and None keeps only those
    for m, expected in ((25, 25), (200, 59)):
        rff = KernelPCA(kernel="rbf", approximation="rff", n_random_features=m, random_state=0)
        Z = fit_quietly(rff, X)
        assert rff.n_components_ == rff.components_.shape[0] == Z.shape[1] == expected
        assert np.all(rff.eigenvalues_ > 0)
        np.testing.assert_allclose((Z**2).sum(axis=0), rff.eigenvalues_, rtol=1e-10)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_poly_kernel_equals_the_polynomial_written_by_hand(solver):
    n, d = 70, 3
    X = make_data(n, d, seed=47)
    T = make_data(8, d, seed=48)

    def cubic(A, B):
        """(⟨a, b⟩ / d + 1)³: the defaults degree=3, gamma=1/n_features, coef0=1."""
        return (A @ B.T / d + 1.0) ** 3

    k = 4
    K_c = centering_matrix(n) @ cubic(X, X) @ centering_matrix(n)
    eigenvalues, eigenvectors = reference_eigenpairs(K_c)
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3)
    Z_ref = eigenvectors[:, :k] * np.sqrt(eigenvalues[:k])

    model = KernelPCA(n_components=k, kernel="poly", eigen_solver=solver, random_state=0)
    Z = fit_quietly(model, X)
    assert model.gamma_ == pytest.approx(1 / d, rel=1e-15)
    np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=1e-11)
    signs = column_signs(Z, Z_ref)
    assert np.all(np.abs(Z * signs - Z_ref) <= score_tolerance(eigenvalues, k, n, Z_ref))
    # the same model with the hand-written kernel as a callable
    by_hand = KernelPCA(n_components=k, kernel=cubic, eigen_solver=solver, random_state=0)
    Z_by_hand = fit_quietly(by_hand, X)
    np.testing.assert_allclose(Z_by_hand, Z, rtol=0, atol=1e-10 * np.abs(Z).max())
    np.testing.assert_allclose(
        by_hand.transform(T), model.transform(T), rtol=0, atol=1e-10 * np.abs(Z).max()
    )


# ---------------------------------------------------------------------------
# 2. Centring and normalisation in an explicit feature space
# ---------------------------------------------------------------------------

POLY_GAMMA, POLY_C = 0.7, 1.5


def polynomial_example():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((50, 2)) * [1.5, 0.8] + [0.3, -0.2]
    T = rng.standard_normal((12, 2)) * 2.0 + 1.0
    return X, T


def test_hand_written_feature_map_reproduces_the_kernel():
    X, T = polynomial_example()
    Phi, Phi_T = (hand_polynomial_features(A, POLY_GAMMA, POLY_C) for A in (X, T))
    for A, P_A in ((X, Phi), (T, Phi_T)):
        K = polynomial_kernel(A, X, degree=2, gamma=POLY_GAMMA, coef0=POLY_C)
        np.testing.assert_allclose(P_A @ Phi.T, K, rtol=1e-12, atol=1e-13 * np.abs(K).max())


def test_centring_equals_explicit_centring_in_feature_space():
    X, T = polynomial_example()
    Phi = hand_polynomial_features(X, POLY_GAMMA, POLY_C)
    Phi_T = hand_polynomial_features(T, POLY_GAMMA, POLY_C)
    mean = Phi.mean(axis=0)  # the training mean, also for the test points
    Phi_c, Phi_T_c = Phi - mean, Phi_T - mean

    K = polynomial_kernel(X, degree=2, gamma=POLY_GAMMA, coef0=POLY_C)
    K_c, column_means, overall_mean = center_kernel(K)
    scale = np.abs(K).max()
    # entries of size |K| minus means of size |K|: rounding of order eps·|K|
    np.testing.assert_allclose(K_c, Phi_c @ Phi_c.T, rtol=0, atol=1e-13 * scale)
    np.testing.assert_allclose(column_means, Phi @ mean, rtol=1e-13)
    assert overall_mean == pytest.approx(mean @ mean, rel=1e-13)

    K_T = polynomial_kernel(T, X, degree=2, gamma=POLY_GAMMA, coef0=POLY_C)
    K_T_c = center_test_kernel(K_T, column_means, overall_mean)
    np.testing.assert_allclose(K_T_c, Phi_T_c @ Phi_c.T, rtol=0, atol=1e-13 * np.abs(K_T).max())
    # centring the test kernel with its own statistics would be wrong
    own = K_T - K_T.mean(axis=0) - K_T.mean(axis=1)[:, None] + K_T.mean()
    assert not np.allclose(own, Phi_T_c @ Phi_c.T, atol=1e-3 * np.abs(K_T).max())


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_polynomial_kernel_pca_is_pca_of_explicit_features(solver):
    X, T = polynomial_example()
    n, k = X.shape[0], 5  # φ has 6 coordinates, one constant: rank 5 after centring
    Phi = hand_polynomial_features(X, POLY_GAMMA, POLY_C)
    mean = Phi.mean(axis=0)
    Phi_c = Phi - mean
    # linear PCA of the explicit features, by NumPy's SVD
    _, s, Vt = np.linalg.svd(Phi_c, full_matrices=False)
    eigenvalues = np.r_[s[:k] ** 2, 0.0]  # s[5] is a rounding-level zero
    assert s[5] < 1e-12 * s[0]
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3), relative_gaps(eigenvalues, k)
    Z_ref = Phi_c @ Vt[:k].T
    Z_T_ref = (hand_polynomial_features(T, POLY_GAMMA, POLY_C) - mean) @ Vt[:k].T

    model = KernelPCA(
        n_components=k,
        kernel="poly",
        degree=2,
        gamma=POLY_GAMMA,
        coef0=POLY_C,
        eigen_solver=solver,
        random_state=0,
    )
    Z_fit = fit_quietly(model, X)
    tol = score_tolerance(eigenvalues, k, n, Z_ref)
    signs = column_signs(Z_fit, Z_ref)
    assert np.all(np.abs(Z_fit * signs - Z_ref) <= tol)
    assert np.all(np.abs(model.transform(X) * signs - Z_ref) <= tol)
    tol_T = score_tolerance(eigenvalues, k, n, Z_T_ref)
    assert np.all(np.abs(model.transform(T) * signs - Z_T_ref) <= tol_T)

    # eigenvalues_ = n λ, λ the eigenvalues of the covariance (1/n) Φ_cᵀ Φ_c
    covariance_eigenvalues = np.linalg.eigvalsh(Phi_c.T @ Phi_c / n)[::-1][:k]
    np.testing.assert_allclose(model.eigenvalues_, n * covariance_eigenvalues, rtol=1e-10)
    np.testing.assert_allclose(
        model.explained_variance_, n * covariance_eigenvalues / (n - 1), rtol=1e-10
    )
    # all the variance is in these five components
    np.testing.assert_allclose(model.explained_variance_ratio_.sum(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(
        model.explained_variance_ratio_,
        covariance_eigenvalues / np.trace(Phi_c.T @ Phi_c / n),
        rtol=1e-10,
    )


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "gamma": 0.3},
        {"kernel": "rbf", "bandwidth": 2.0},
        {"kernel": "poly", "degree": 2, "gamma": POLY_GAMMA, "coef0": POLY_C},
        {"kernel": "linear"},
    ],
    ids=lambda p: "-".join(f"{key}={value}" for key, value in p.items()),
)
@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_feature_space_directions_have_unit_norm(params, solver):
    X = make_data(60, 3, seed=6)
    n, k = 60, 3
    K_c = centering_matrix(n) @ sklearn_kernel(X, X, params) @ centering_matrix(n)
    model = KernelPCA(n_components=k, eigen_solver=solver, random_state=0, **params)
    Z = fit_quietly(model, X)
    A = model.dual_coef_
    # rounding: eps·‖K̃‖ / μ_k ≲ 1e-13 here (μ_k is not small), far below 1e-10
    # ‖v_j‖² = a_jᵀ K̃ a_j = 1 and ⟨v_i, v_j⟩ = 0 (off-diagonal 0 up to rounding)
    np.testing.assert_allclose(A.T @ K_c @ A, np.eye(k), rtol=0, atol=1e-10)
    # the unit eigenvectors and a = e / √μ
    np.testing.assert_allclose(model.eigenvectors_.T @ model.eigenvectors_, np.eye(k), atol=1e-12)
    np.testing.assert_allclose(A * np.sqrt(model.eigenvalues_), model.eigenvectors_, rtol=1e-12)
    # Σ_i z_ij² = μ_j: the scores' sum of squares (mean 0) is the eigenvalue
    np.testing.assert_allclose(Z.mean(axis=0), 0.0, atol=1e-12 * np.abs(Z).max())
    np.testing.assert_allclose((Z**2).sum(axis=0), model.eigenvalues_, rtol=1e-10)
    # and that is the eigenvalue of the independently centred kernel
    np.testing.assert_allclose(model.eigenvalues_, reference_eigenpairs(K_c)[0][:k], rtol=1e-10)
    np.testing.assert_allclose(
        model.explained_variance_ratio_, model.eigenvalues_ / np.trace(K_c), rtol=1e-10
    )
    # training scores are also K̃ a (the projection formula of transform)
    np.testing.assert_allclose(K_c @ A, Z, rtol=0, atol=1e-10 * np.abs(Z).max())


# ---------------------------------------------------------------------------
# 3. Eigensolvers: only the top k
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 4, 10])
def test_top_k_equals_full_eigendecomposition(k, monkeypatch):
    # n above 512: the dense solver then computes the top k only (below it,
    # the full eigendecomposition is faster and used instead)
    n = 600
    X = make_data(n, 2, seed=7)
    params = {"kernel": "rbf", "gamma": 0.5}
    K_c = centering_matrix(n) @ sklearn_kernel(X, X, params) @ centering_matrix(n)
    eigenvalues, eigenvectors = reference_eigenpairs(K_c)
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3)
    Z_ref = eigenvectors[:, :k] * np.sqrt(eigenvalues[:k])

    calls = {"eigh": [], "eigsh": []}
    eigh, eigsh = scipy.linalg.eigh, scipy.sparse.linalg.eigsh

    def recording_eigh(a, *args, **kwargs):
        calls["eigh"].append(kwargs)
        return eigh(a, *args, **kwargs)

    def recording_eigsh(a, *args, **kwargs):
        calls["eigsh"].append(kwargs)
        return eigsh(a, *args, **kwargs)

    monkeypatch.setattr(scipy.linalg, "eigh", recording_eigh)
    monkeypatch.setattr(scipy.sparse.linalg, "eigsh", recording_eigsh)

    for solver in ("dense", "arpack"):
        calls["eigh"].clear()
        calls["eigsh"].clear()
        model = KernelPCA(n_components=k, eigen_solver=solver, random_state=0, **params)
        Z = fit_quietly(model, X)
        if solver == "dense":
            # LAPACK is asked for the top k only: no full eigendecomposition
            assert len(calls["eigh"]) == 1 and not calls["eigsh"]
            assert list(calls["eigh"][0]["subset_by_index"]) == [n - k, n - 1]
        else:
            assert not calls["eigh"] and len(calls["eigsh"]) == 1
            assert calls["eigsh"][0]["k"] == k and calls["eigsh"][0]["which"] == "LA"
        np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=1e-11)
        signs = column_signs(Z, Z_ref)
        tol = score_tolerance(eigenvalues, k, n, Z_ref)
        assert np.all(np.abs(Z * signs - Z_ref) <= tol)
        signs = column_signs(model.eigenvectors_, eigenvectors[:, :k])
        err = np.abs(model.eigenvectors_ * signs - eigenvectors[:, :k])
        assert np.all(err <= 10 * n * EPS / relative_gaps(eigenvalues, k) + 1e-12)


@pytest.mark.parametrize(
    "n_samples, n_components, expected",
    [
        (201, 20, "arpack"),
        (1000, 99, "arpack"),
        (201, 1, "arpack"),
        (200, 1, "dense"),  # n must exceed 200
        (201, 21, "dense"),  # 21 >= 20.1
        (1000, 100, "dense"),  # k must be below n / 10
        (50, 2, "dense"),
    ],
)
def test_choose_eigen_solver(n_samples, n_components, expected):
    assert choose_eigen_solver(n_samples, n_components) == expected


@pytest.mark.parametrize(
    "n, k, expected",
    [(230, 3, "arpack"), (120, 3, "dense"), (230, 30, "dense"), (230, None, "dense")],
)
def test_auto_eigen_solver_uses_the_rule_and_records_it(n, k, expected, monkeypatch):
    X = make_data(n, 2, seed=8)
    used = []
    top_eigh, eigsh = kernel_pca_module.top_eigh, scipy.sparse.linalg.eigsh
    monkeypatch.setattr(
        kernel_pca_module, "top_eigh", lambda *a, **kw: used.append("dense") or top_eigh(*a, **kw)
    )
    monkeypatch.setattr(
        scipy.sparse.linalg, "eigsh", lambda *a, **kw: used.append("arpack") or eigsh(*a, **kw)
    )
    auto = KernelPCA(n_components=k, kernel="rbf", gamma=0.5, random_state=0).fit(X)
    assert used == [expected]
    assert auto.eigen_solver_ == expected
    dense = KernelPCA(n_components=k, kernel="rbf", gamma=0.5, eigen_solver="dense").fit(X)
    assert dense.eigen_solver_ == "dense"
    np.testing.assert_allclose(auto.eigenvalues_, dense.eigenvalues_, rtol=1e-10)


def test_all_eigenpairs_are_computed_by_the_dense_solver_and_recorded():
    # n_components=None needs every eigenpair, which Lanczos cannot give
    X = make_data(40, 3, seed=8)
    model = KernelPCA(kernel="rbf", eigen_solver="arpack", random_state=0).fit(X)
    assert model.eigen_solver_ == "dense"
    dense = KernelPCA(kernel="rbf", eigen_solver="dense").fit(X)
    np.testing.assert_array_equal(model.eigenvalues_, dense.eigenvalues_)


@pytest.mark.parametrize("approximation", ["nystrom", "rff"])
@pytest.mark.parametrize("eigen_solver", ["auto", "arpack"])
def test_approximations_record_the_dense_solver(approximation, eigen_solver):
    # the m × m scatter matrix of the explicit features is always decomposed
    # densely, whatever eigen_solver says (it applies to the exact mode)
    model = KernelPCA(
        n_components=2,
        kernel="rbf",
        approximation=approximation,
        n_landmarks=20,
        n_random_features=20,
        eigen_solver=eigen_solver,
        random_state=0,
    ).fit(make_data(50, 3, seed=8))
    assert model.eigen_solver_ == "dense"


# ---------------------------------------------------------------------------
# 4. Sign convention
# ---------------------------------------------------------------------------

# the RBF kernel (which random Fourier features need) in every mode
MODES = {
    "dense": {"kernel": "rbf", "eigen_solver": "dense"},
    "arpack": {"kernel": "rbf", "eigen_solver": "arpack"},
    "nystrom": {"kernel": "rbf", "approximation": "nystrom", "n_landmarks": 30},
    "rff": {"kernel": "rbf", "approximation": "rff", "n_random_features": 100},
}


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_sign_convention(mode):
    for seed in range(4):
        X = make_data(70, 3, seed=20 + seed)
        model = KernelPCA(n_components=4, gamma=0.3, random_state=seed, **MODES[mode])
        Z = fit_quietly(model, X)
        assert largest_entry_is_positive(Z), seed
        # transform of the training points gives the same scores, same signs
        Z_again = model.transform(X)
        np.testing.assert_allclose(Z_again, Z, rtol=0, atol=1e-9 * np.abs(Z).max())
        assert largest_entry_is_positive(Z_again)
        if mode == "rff":
            continue  # cos(-Ωᵀx + b) ≠ cos(Ωᵀx + b): the features of -X differ
        # the raw eigenvector sign is arbitrary; with -X the RBF kernel (and
        # the Nyström landmarks' kernel) is the same, and so are the scores
        Z_neg = KernelPCA(
            n_components=4, gamma=0.3, random_state=seed, **MODES[mode]
        ).fit_transform(-X)
        np.testing.assert_allclose(Z_neg, Z, rtol=0, atol=1e-9 * np.abs(Z).max())


def test_sign_convention_polynomial_and_linear():
    X = make_data(50, 3, seed=9)
    for params in ({"kernel": "linear"}, {"kernel": "poly", "degree": 2}):
        for flip in (1.0, -1.0):
            Z = KernelPCA(n_components=3, eigen_solver="dense", **params).fit_transform(flip * X)
            assert largest_entry_is_positive(Z)


# ---------------------------------------------------------------------------
# 5. Rank deficiency and indefinite kernels
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_more_components_than_the_rank(solver):
    X = make_data(40, 2, seed=10)  # linear kernel: centred rank 2
    T = make_data(7, 2, seed=11)
    model = KernelPCA(n_components=4, kernel="linear", eigen_solver=solver, random_state=0)
    with pytest.warns(KernelRankWarning, match=r"numerical rank 2.*Lower n_components to 2"):
        Z = model.fit_transform(X)
    Z_T = model.transform(T)
    for value in (
        Z,
        Z_T,
        model.eigenvalues_,
        model.explained_variance_,
        model.explained_variance_ratio_,
        model.dual_coef_,
    ):
        assert np.isfinite(value).all()
    # the extra components are exactly zero
    np.testing.assert_array_equal(Z[:, 2:], 0.0)
    np.testing.assert_array_equal(Z_T[:, 2:], 0.0)
    np.testing.assert_array_equal(model.eigenvalues_[2:], 0.0)
    np.testing.assert_array_equal(model.dual_coef_[:, 2:], 0.0)
    assert model.n_components_ == 4
    assert model.get_feature_names_out().tolist() == [f"kernelpca{i}" for i in range(4)]
    # the first two are ordinary PCA
    ref = SklearnPCA(n_components=2, svd_solver="full").fit(X)
    signs = column_signs(Z[:, :2], ref.transform(X))
    scale = np.abs(Z).max()
    np.testing.assert_allclose(Z[:, :2] * signs, ref.transform(X), rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(Z_T[:, :2] * signs, ref.transform(T), rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(model.explained_variance_[:2], ref.explained_variance_, rtol=1e-10)


def linear_minus_rbf(A, B):
    """An indefinite kernel: 0.3⟨x, y⟩ minus a Gaussian kernel."""
    return 0.3 * A @ B.T - pairwise.rbf_kernel(A, B, gamma=5.0)


def negative_rbf(A, B):
    """The negative Gaussian kernel: the centred kernel is negative semi-definite."""
    return -pairwise.rbf_kernel(A, B, gamma=0.5)


def test_indefinite_kernel_warns_and_keeps_the_positive_part():
    X = np.random.default_rng(12).standard_normal((40, 2))
    T = np.random.default_rng(13).standard_normal((6, 2))
    n = 40
    K_c = centering_matrix(n) @ linear_minus_rbf(X, X) @ centering_matrix(n)
    eigenvalues, eigenvectors = reference_eigenpairs(K_c)
    # premise: two positive eigenvalues, a zero (the constant vector), then
    # negative ones far below the rounding level n·eps·λ₁ ≈ 1e-14 λ₁
    assert eigenvalues[1] > 0.1 * eigenvalues[0]
    assert abs(eigenvalues[2]) < 1e-14 * eigenvalues[0]
    assert eigenvalues[3] < -1e-5 * eigenvalues[0]
    assert np.all(relative_gaps(eigenvalues, 2) > 1e-3)
    for solver in ("dense", "arpack"):
        model = KernelPCA(
            n_components=4, kernel=linear_minus_rbf, eigen_solver=solver, random_state=0
        )
        with pytest.warns(KernelRankWarning, match="not positive semi-definite"):
            Z = model.fit_transform(X)
        Z_T = model.transform(T)
        for value in (
            Z,
            Z_T,
            model.eigenvalues_,
            model.dual_coef_,
            model.explained_variance_ratio_,
        ):
            assert np.isfinite(value).all()
        np.testing.assert_array_equal(Z[:, 2:], 0.0)
        np.testing.assert_array_equal(Z_T[:, 2:], 0.0)
        np.testing.assert_allclose(model.eigenvalues_[:2], eigenvalues[:2], rtol=1e-10)
        Z_ref = eigenvectors[:, :2] * np.sqrt(eigenvalues[:2])
        signs = column_signs(Z[:, :2], Z_ref)
        assert np.all(np.abs(Z[:, :2] * signs - Z_ref) <= score_tolerance(eigenvalues, 2, n, Z_ref))


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear"},
        {"kernel": "rbf"},
        {"kernel": "poly", "gamma": 0.5},
        {"kernel": lambda A, B: (A @ B.T) ** 2},
    ],
    ids=["linear", "rbf", "poly", "callable"],
)
def test_identical_rows_are_an_error(params):
    # Identical rows are refused before any kernel is formed, whatever the
    # kernel (here dyadic entries, for which K̃ would be exactly 0).
    X = np.tile([[1.5, -2.0, 0.5]], (8, 1))
    model = KernelPCA(n_components=2, eigen_solver="dense", **params)
    with pytest.raises(ValueError, match=r"X has zero variance .*all samples are equal"):
        model.fit(X)
    assert not hasattr(model, "eigenvalues_")


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear", "eigen_solver": "dense"},
        {"kernel": "linear", "eigen_solver": "arpack", "random_state": 0},
        {"kernel": "rbf", "eigen_solver": "dense"},
        {"kernel": "rbf", "approximation": "nystrom", "n_landmarks": 5, "random_state": 0},
        {"kernel": "rbf", "approximation": "rff", "n_random_features": 20, "random_state": 0},
    ],
    ids=["linear-dense", "linear-arpack", "rbf-dense", "nystrom", "rff"],
)
def test_identical_non_dyadic_rows_are_an_error(params, seed):
    # Rows equal to arbitrary values: the means are inexact, so K̃ (or the
    # centred features) would be rounding noise; the rows are refused first.
    row = np.random.default_rng(seed).standard_normal((1, 3))
    X = np.tile(row, (8, 1))
    with pytest.raises(ValueError, match=r"X has zero variance .*all samples are equal"):
        KernelPCA(n_components=1, **params).fit(X)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_negative_semi_definite_kernel_is_an_error_naming_the_cause(seed, solver):
    # -rbf: every eigenvalue of the centred kernel is <= 0; the top one is
    # rounding noise of either sign, which must not become a component.
    X = np.random.default_rng(seed).standard_normal((40, 2))
    model = KernelPCA(n_components=2, kernel=negative_rbf, eigen_solver=solver, random_state=0)
    with pytest.raises(ValueError, match=r"no positive eigenvalue.*not positive semi-definite"):
        model.fit(X)


def test_arpack_failure_falls_back_to_the_dense_solver():
    # ARPACK does not converge on this indefinite kernel (tol=0); the dense
    # solver's answer must be returned instead of ArpackNoConvergence.
    def kernel(A, B):
        return 3 * A @ B.T - pairwise.rbf_kernel(A, B, gamma=0.5)

    X = np.random.default_rng(12).standard_normal((40, 2))
    results = {}
    for solver in ("dense", "arpack"):
        model = KernelPCA(n_components=4, kernel=kernel, eigen_solver=solver, random_state=0)
        with pytest.warns(KernelRankWarning, match="not positive semi-definite"):
            results[solver] = model.fit_transform(X)
        assert np.isfinite(results[solver]).all()
    np.testing.assert_allclose(results["arpack"], results["dense"], atol=1e-10)


def test_rounding_level_eigenvalues_are_not_components():
    # gamma = 1e-5: K ≈ 1 - gamma ‖x - y‖², whose centred eigenvalues fall
    # from ~6e-3 (two linear terms) through ~1e-7 (quadratic terms) to
    # rounding noise ~1e-15, below the noise level n² eps max|K| ≈ 2e-11.
    X = np.random.default_rng(0).standard_normal((300, 2))
    model = KernelPCA(n_components=25, kernel="rbf", gamma=1e-5, eigen_solver="dense")
    with pytest.warns(KernelRankWarning, match="numerical rank"):
        Z = model.fit_transform(X)
    kept = model.eigenvalues_ > 0
    assert 2 <= kept.sum() < 25
    assert model.eigenvalues_[kept].min() > 1e-10
    # components kept are real: projecting the training data again agrees
    Z_again = model.transform(X)
    np.testing.assert_allclose(Z_again, Z, atol=1e-6 * np.abs(Z).max())


def test_nystrom_components_beyond_the_landmark_rank_are_an_error():
    X = make_data(40, 2, seed=16)  # linear kernel: K_LL has rank 2
    model = KernelPCA(
        n_components=3, kernel="linear", approximation="nystrom", n_landmarks=10, random_state=0
    )
    with pytest.raises(
        ValueError,
        match=r"n_components must be between 1 and the numerical rank of the landmarks' "
        r"kernel matrix = 2; got 3",
    ):
        model.fit(X)


# ---------------------------------------------------------------------------
# 6. Nyström
# ---------------------------------------------------------------------------


def nystrom_error(X, m, seed, gamma):
    """‖K - ΦΦᵀ‖_F / ‖K‖_F for m landmarks drawn here, with Φ = K_nL K_LL^{-1/2}."""
    landmarks = X[np.random.default_rng(seed).choice(len(X), size=m, replace=False)]
    K = pairwise.rbf_kernel(X, gamma=gamma)
    Phi = rbf_kernel(X, landmarks, gamma=gamma) @ nystrom_feature_map(
        rbf_kernel(landmarks, gamma=gamma)
    )
    return np.linalg.norm(K - Phi @ Phi.T) / np.linalg.norm(K)


def test_nystrom_feature_map_is_the_pseudo_inverse_square_root():
    X = make_data(60, 2, seed=17)
    landmarks = X[np.random.default_rng(0).choice(60, size=8, replace=False)]
    K_LL = pairwise.rbf_kernel(landmarks, gamma=0.5)
    assert np.linalg.cond(K_LL) < 1e6  # premise: pinv is accurate
    M = nystrom_feature_map(K_LL)
    # M Mᵀ = K_LL⁻¹ (full rank here), so ΦΦᵀ = K_nL K_LL⁻¹ K_Ln
    np.testing.assert_allclose(
        M @ M.T, np.linalg.inv(K_LL), rtol=0, atol=1e-8 * np.abs(np.linalg.inv(K_LL)).max()
    )
    K_nL = pairwise.rbf_kernel(X, landmarks, gamma=0.5)
    Phi = K_nL @ M
    np.testing.assert_allclose(Phi @ Phi.T, K_nL @ np.linalg.pinv(K_LL) @ K_nL.T, rtol=0, atol=1e-9)
    # exact on the landmarks themselves
    np.testing.assert_allclose((K_LL @ M) @ (K_LL @ M).T, K_LL, rtol=0, atol=1e-9)


def test_nystrom_error_decreases_with_the_number_of_landmarks():
    X = make_data(300, 2, seed=18)
    errors = [np.mean([nystrom_error(X, m, seed, 0.5) for seed in range(3)]) for m in (10, 40, 160)]
    assert errors[0] > errors[1] > errors[2], errors
    assert errors[2] < 0.1 * errors[0], errors
    # every landmark: the kernel itself, to rounding
    assert nystrom_error(X, 300, 0, 0.5) < 1e-8


@pytest.mark.parametrize(
    "params",
    [{"kernel": "rbf", "gamma": 0.3}, {"kernel": "poly", "degree": 2, "gamma": 0.5}],
    ids=["rbf", "poly"],
)
def test_nystrom_with_all_landmarks_is_exact(params):
    n, k = 80, 3
    X = make_data(n, 3, seed=19)
    T = make_data(9, 3, seed=20)
    K_c = centering_matrix(n) @ sklearn_kernel(X, X, params) @ centering_matrix(n)
    eigenvalues, _ = reference_eigenpairs(K_c)
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3)
    exact = KernelPCA(n_components=k, eigen_solver="dense", **params)
    Z_exact = fit_quietly(exact, X)
    nystrom = KernelPCA(
        n_components=k, approximation="nystrom", n_landmarks=n, random_state=0, **params
    )
    Z = fit_quietly(nystrom, X)
    assert nystrom.n_landmarks_ == n
    # K_LL^{-1/2} drops eigenvalues below n·eps·λ₁ and divides by √s of the
    # small kept ones: ΦΦᵀ = K up to ~1e-13 relative, the scores to ~1e-8
    np.testing.assert_allclose(nystrom.eigenvalues_, exact.eigenvalues_, rtol=1e-8)
    scale = np.abs(Z_exact).max()
    signs = column_signs(Z, Z_exact)
    np.testing.assert_allclose(Z * signs, Z_exact, rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(
        nystrom.transform(T) * signs, exact.transform(T), rtol=0, atol=1e-8 * scale
    )
    np.testing.assert_allclose(
        nystrom.explained_variance_ratio_, exact.explained_variance_ratio_, rtol=1e-8
    )


def test_nystrom_eigenvalues_are_those_of_the_approximate_kernel():
    n, k, m = 100, 3, 20
    X = make_data(n, 2, seed=21)
    T = make_data(8, 2, seed=22)
    model = KernelPCA(
        n_components=k,
        kernel="rbf",
        gamma=0.5,
        approximation="nystrom",
        n_landmarks=m,
        random_state=3,
    )
    Z = fit_quietly(model, X)
    L = model.landmarks_
    # landmarks are m distinct training points
    assert L.shape == (m, 2) and model.n_landmarks_ == m
    assert len({tuple(row) for row in L}) == m
    assert all(any(np.array_equal(row, x) for x in X) for row in L)
    # K̂ = K_nL K_LL⁻¹ K_Ln, centred, built with scikit-learn and NumPy
    K_LL = pairwise.rbf_kernel(L, gamma=0.5)
    assert np.linalg.cond(K_LL) < 1e8  # premise: inv is accurate to ~1e-8
    K_nL = pairwise.rbf_kernel(X, L, gamma=0.5)
    K_hat = K_nL @ np.linalg.solve(K_LL, K_nL.T)
    H = centering_matrix(n)
    eigenvalues, eigenvectors = reference_eigenpairs(H @ K_hat @ H)
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3)
    # cond(K_LL) · eps ≲ 1e-8 relative error in K̂
    np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=1e-7)
    Z_ref = eigenvectors[:, :k] * np.sqrt(eigenvalues[:k])
    signs = column_signs(Z, Z_ref)
    np.testing.assert_allclose(Z * signs, Z_ref, rtol=0, atol=1e-7 * np.abs(Z_ref).max())
    # a new point's features are K(t, L) K_LL^{-1/2}; its score is the
    # projection of its centred approximate kernel row on the unit directions
    K_T_hat = pairwise.rbf_kernel(T, L, gamma=0.5) @ np.linalg.solve(K_LL, K_nL.T)
    K_T_c = K_T_hat - K_hat.mean(axis=0) - K_T_hat.mean(axis=1)[:, None] + K_hat.mean()
    Z_T_ref = K_T_c @ (eigenvectors[:, :k] / np.sqrt(eigenvalues[:k]))
    np.testing.assert_allclose(
        model.transform(T) * signs, Z_T_ref, rtol=0, atol=1e-7 * np.abs(Z_ref).max()
    )


def test_nystrom_more_landmarks_than_samples_warns_and_uses_all():
    X = make_data(30, 2, seed=23)
    exact = KernelPCA(n_components=2, kernel="rbf", gamma=0.5, eigen_solver="dense").fit(X)
    model = KernelPCA(
        n_components=2,
        kernel="rbf",
        gamma=0.5,
        approximation="nystrom",
        n_landmarks=50,
        random_state=0,
    )
    with pytest.warns(UserWarning, match=r"n_landmarks=50 exceeds the 30 training samples"):
        Z = model.fit_transform(X)
    assert model.n_landmarks_ == 30
    np.testing.assert_array_equal(model.landmarks_, X)  # all of them, in order
    np.testing.assert_allclose(model.eigenvalues_, exact.eigenvalues_, rtol=1e-8)
    signs = column_signs(Z, exact.transform(X))
    np.testing.assert_allclose(Z * signs, exact.transform(X), rtol=0, atol=1e-8 * np.abs(Z).max())


@pytest.mark.parametrize("approximation", ["nystrom", "rff"])
def test_random_state_reproducibility(approximation):
    X = make_data(60, 3, seed=24)
    params = {
        "n_components": 3,
        "kernel": "rbf",
        "approximation": approximation,
        "n_landmarks": 15,
        "n_random_features": 40,
    }
    first = KernelPCA(random_state=7, **params).fit(X)
    second = KernelPCA(random_state=7, **params).fit(X)
    generator = KernelPCA(random_state=np.random.default_rng(7), **params).fit(X)
    other = KernelPCA(random_state=8, **params).fit(X)
    drawn = "landmarks_" if approximation == "nystrom" else "random_weights_"
    for name in (drawn, "components_", "eigenvalues_", "feature_mean_"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name), err_msg=name)
        np.testing.assert_array_equal(getattr(first, name), getattr(generator, name))
    np.testing.assert_array_equal(first.transform(X), second.transform(X))
    assert not np.array_equal(getattr(first, drawn), getattr(other, drawn))
    assert not np.allclose(first.eigenvalues_, other.eigenvalues_)
    # a legacy RandomState (what scikit-learn's tools pass) is reproducible too
    legacy = [KernelPCA(random_state=np.random.RandomState(7), **params).fit(X) for _ in "ab"]
    np.testing.assert_array_equal(getattr(legacy[0], drawn), getattr(legacy[1], drawn))


# ---------------------------------------------------------------------------
# 7. Random Fourier features
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("gamma", [0.05, 0.5, 4.0])
def test_random_fourier_parameters_distribution(gamma):
    d, m = 4, 25_000
    Omega, b = random_fourier_parameters(d, m, gamma, np.random.default_rng(0))
    assert Omega.shape == (d, m) and b.shape == (m,)
    N = Omega.size
    sigma_omega = np.sqrt(2.0 * gamma)  # = 1 / σ for γ = 1 / (2σ²)
    # sample std within 5 standard errors (SE of a normal std: σ / √(2N));
    # a std of √γ instead would be 29% off, ~200 standard errors
    assert abs(Omega.std() - sigma_omega) < 5 * sigma_omega / np.sqrt(2 * N)
    assert abs(Omega.mean()) < 5 * sigma_omega / np.sqrt(N)
    assert scipy.stats.kstest(Omega.ravel(), "norm", args=(0.0, sigma_omega)).pvalue > 1e-3
    # independent coordinates: the sample covariance of the d rows is σ_ω² I
    np.testing.assert_allclose(
        np.cov(Omega), sigma_omega**2 * np.eye(d), rtol=0, atol=5 * sigma_omega**2 * np.sqrt(2 / m)
    )
    assert b.min() >= 0.0 and b.max() < 2 * np.pi
    assert scipy.stats.kstest(b, "uniform", args=(0.0, 2 * np.pi)).pvalue > 1e-3


def rff_gram(X, m, gamma, seed):
    Omega, b = random_fourier_parameters(X.shape[1], m, gamma, np.random.default_rng(seed))
    Z = random_fourier_features(X, Omega, b)
    return Z @ Z.T


def test_random_fourier_features_formula():
    X = make_data(10, 3, seed=25)
    rng = np.random.default_rng(1)
    Omega, b = rng.standard_normal((3, 7)), rng.uniform(0, 2 * np.pi, 7)
    expected = np.array(
        [[np.sqrt(2 / 7) * np.cos(sum(x * Omega[:, j]) + b[j]) for j in range(7)] for x in X]
    )
    np.testing.assert_allclose(
        random_fourier_features(X, Omega, b), expected, rtol=1e-13, atol=1e-15
    )


def test_random_fourier_features_are_unbiased():
    X = make_data(15, 3, seed=26)
    gamma, m, n_seeds = 0.5, 50, 400
    K = pairwise.rbf_kernel(X, gamma=gamma)
    samples = np.stack([rff_gram(X, m, gamma, seed) for seed in range(n_seeds)])
    mean = samples.mean(axis=0)
    standard_error = samples.std(axis=0, ddof=1) / np.sqrt(n_seeds)
    # each entry within 5 standard errors of the kernel (225 entries)
    bound = 5 * standard_error
    assert np.all(np.abs(mean - K) <= bound), np.max(np.abs(mean - K) / standard_error)
    # sensitivity: the bias of a wrong frequency scale (std √γ instead of √(2γ))
    # or a wrong normalisation (√(1/m) instead of √(2/m)) exceeds the bound
    D = pairwise.euclidean_distances(X, squared=True)
    assert np.any(np.abs(np.exp(-gamma * D / 2) - K) > bound)
    assert np.any(np.abs(K / 2 - K) > bound)


def test_random_fourier_error_decreases_like_one_over_sqrt_m():
    X = make_data(40, 3, seed=27)
    gamma = 0.3
    K = pairwise.rbf_kernel(X, gamma=gamma)
    errors = [
        np.mean(
            [
                np.linalg.norm(K - rff_gram(X, m, gamma, seed)) / np.linalg.norm(K)
                for seed in range(4)
            ]
        )
        for m in (100, 1000, 10_000)
    ]
    assert errors[0] > errors[1] > errors[2], errors
    # O(1/√m): 100× the features gives ~10× smaller errors; a bias (wrong
    # scaling) would make the error level off instead
    assert errors[0] / errors[2] > 5, errors
    assert errors[0] / errors[2] < 20, errors
    assert errors[2] < 0.05, errors


def test_rff_kernel_pca_is_pca_of_the_random_features():
    n, k, m = 60, 3, 80
    X = make_data(n, 2, seed=28)
    T = make_data(7, 2, seed=29)
    model = KernelPCA(
        n_components=k,
        kernel="rbf",
        bandwidth=1.5,
        approximation="rff",
        n_random_features=m,
        random_state=0,
    )
    Z = fit_quietly(model, X)
    Omega, b = model.random_weights_, model.random_offsets_
    assert Omega.shape == (2, m) and b.shape == (m,)
    assert model.gamma_ == pytest.approx(1 / (2 * 1.5**2), rel=1e-15)
    # the features written out here, then linear PCA by NumPy's SVD
    Phi = np.sqrt(2.0 / m) * np.cos(X @ Omega + b)
    mean = Phi.mean(axis=0)
    _, s, Vt = np.linalg.svd(Phi - mean, full_matrices=False)
    eigenvalues = s**2
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3)
    Z_ref = (Phi - mean) @ Vt[:k].T
    signs = column_signs(Z, Z_ref)
    tol = score_tolerance(eigenvalues, k, m, Z_ref)
    assert np.all(np.abs(Z * signs - Z_ref) <= tol)
    Z_T_ref = (np.sqrt(2.0 / m) * np.cos(T @ Omega + b) - mean) @ Vt[:k].T
    assert np.all(np.abs(model.transform(T) * signs - Z_T_ref) <= tol)
    np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=1e-11)
    np.testing.assert_allclose(
        model.explained_variance_ratio_, eigenvalues[:k] / np.sum(s**2), rtol=1e-11
    )
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(k), atol=1e-12)


def test_rff_eigenvalues_approach_the_exact_ones():
    X = make_data(60, 2, seed=30)
    exact = (
        KernelPCA(n_components=3, kernel="rbf", gamma=0.5, eigen_solver="dense").fit(X).eigenvalues_
    )
    errors = []
    for m in (10, 40, 160):
        errors.append(
            np.mean(
                [
                    np.abs(
                        KernelPCA(
                            n_components=3,
                            kernel="rbf",
                            gamma=0.5,
                            approximation="rff",
                            n_random_features=m,
                            random_state=seed,
                        )
                        .fit(X)
                        .eigenvalues_
                        / exact
                        - 1
                    ).max()
                    for seed in range(5)
                ]
            )
        )
    assert errors[0] > errors[1] > errors[2], errors
    # relative errors of O(1/√m): ~4× smaller from 10 to 160 features
    assert errors[2] < errors[0] / 3 and errors[2] < 0.2, errors


def test_rff_bandwidth_sets_the_frequency_scale():
    X = make_data(20, 50, seed=31)
    sigma = 0.4
    model = KernelPCA(
        n_components=2,
        kernel="rbf",
        bandwidth=sigma,
        approximation="rff",
        n_random_features=200,
        random_state=0,
    ).fit(X)
    Omega = model.random_weights_
    assert Omega.shape == (50, 200)
    # per-entry std 1/σ, within 5 standard errors (σ_ω / √(2N) for N entries)
    assert abs(Omega.std() - 1 / sigma) < 5 * (1 / sigma) / np.sqrt(2 * Omega.size)
    default = KernelPCA(
        n_components=2, kernel="rbf", approximation="rff", n_random_features=200, random_state=0
    ).fit(X)
    # default γ = 1 / n_features = 0.02: std √(2γ) = 0.2
    assert default.gamma_ == pytest.approx(0.02, rel=1e-15)
    assert abs(default.random_weights_.std() - 0.2) < 5 * 0.2 / np.sqrt(2 * Omega.size)


@pytest.mark.parametrize("kernel", ["linear", "poly", negative_rbf])
def test_rff_needs_the_rbf_kernel(kernel):
    X = make_data(20, 2)
    with pytest.raises(ValueError, match=r"approximation='rff' needs kernel='rbf'"):
        KernelPCA(kernel=kernel, approximation="rff").fit(X)


# ---------------------------------------------------------------------------
# 8. scikit-learn API
# ---------------------------------------------------------------------------


def test_get_params_set_params_clone():
    model = KernelPCA(n_components=3, kernel="poly", degree=2)
    expected = {
        "n_components": 3,
        "kernel": "poly",
        "gamma": None,
        "bandwidth": None,
        "degree": 2,
        "coef0": 1.0,
        "approximation": "exact",
        "n_landmarks": 300,
        "n_random_features": 300,
        "eigen_solver": "auto",
        "random_state": None,
    }
    assert model.get_params() == expected
    assert model.set_params(kernel="rbf", bandwidth=0.7, degree=3) is model
    assert model.get_params() == {**expected, "kernel": "rbf", "bandwidth": 0.7, "degree": 3}
    X = make_data(40, 3, seed=32)
    model.fit(X)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert not hasattr(copy, "eigenvalues_")
    np.testing.assert_array_equal(copy.fit(X).eigenvalues_, model.eigenvalues_)
    with pytest.raises(ValueError, match="Invalid parameter"):
        model.set_params(kernal="rbf")


def noisy_circles(n_samples, seed):
    """Two concentric circles (scikit-learn, noiseless) plus Gaussian noise."""
    X, y = make_circles(n_samples, factor=0.4, noise=None, shuffle=False)
    return X + 0.05 * np.random.default_rng(seed).standard_normal(X.shape), y


def test_pipeline_on_circles_beats_linear():
    X, y = noisy_circles(200, seed=33)
    X_test, y_test = noisy_circles(200, seed=34)
    # the first two RBF components describe the outer circle; the third
    # separates the circles (as in the book's figure)
    kernel_pipe = make_pipeline(
        KernelPCA(n_components=3, kernel="rbf", gamma=2.0), LogisticRegression()
    )
    linear_pipe = make_pipeline(KernelPCA(n_components=2, kernel="linear"), LogisticRegression())
    kernel_pipe.fit(X, y)
    linear_pipe.fit(X, y)
    # the circles are not linearly separable: a linear model is near chance
    assert linear_pipe.score(X_test, y_test) < 0.7
    assert kernel_pipe.score(X_test, y_test) > 0.95
    # the pipeline is exactly the composition of its steps
    kpca = KernelPCA(n_components=3, kernel="rbf", gamma=2.0).fit(X)
    clf = LogisticRegression().fit(kpca.transform(X), y)
    np.testing.assert_array_equal(kernel_pipe.predict(X_test), clf.predict(kpca.transform(X_test)))
    kernel_pipe.set_params(kernelpca__n_components=4).fit(X, y)
    assert kernel_pipe.named_steps["logisticregression"].coef_.shape == (1, 4)


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_feature_names_out(mode):
    X = make_data(40, 3, seed=35)
    model = KernelPCA(n_components=3, random_state=0, **MODES[mode]).fit(X)
    assert model.get_feature_names_out().tolist() == ["kernelpca0", "kernelpca1", "kernelpca2"]
    out = clone(model).set_output(transform="pandas").fit(X).transform(X)
    assert list(out.columns) == ["kernelpca0", "kernelpca1", "kernelpca2"]


def test_dataframe_input():
    X = make_data(30, 3, seed=36)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = KernelPCA(n_components=2).fit(frame)
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c"])
    expected = KernelPCA(n_components=2).fit(X).transform(X)
    np.testing.assert_allclose(model.transform(frame), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("mode", MODES, ids=str)
@pytest.mark.parametrize("n_new_features", [2, 4])
def test_transform_with_wrong_number_of_features(mode, n_new_features):
    model = KernelPCA(n_components=2, random_state=0, **MODES[mode]).fit(make_data(40, 3, seed=37))
    with pytest.raises(ValueError, match=rf"X has {n_new_features} features.*expecting 3"):
        model.transform(make_data(5, n_new_features, seed=38))


def test_use_before_fit_raises_not_fitted():
    model = KernelPCA()
    with pytest.raises(NotFittedError, match="not fitted"):
        model.transform(make_data(5, 3))
    with pytest.raises(NotFittedError):
        model.get_feature_names_out()


@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": -2}, ValueError, "n_components"),
        ({"n_components": True}, TypeError, "n_components"),
        ({"n_components": 2.0}, TypeError, "n_components"),
        ({"n_components": 0.5}, TypeError, "n_components"),
        (
            {"n_components": 21},
            ValueError,
            r"n_components must be between 1 and the number of training samples = 20; got 21",
        ),
        ({"kernel": "polynomial"}, ValueError, r"kernel must be one of 'linear', 'poly', 'rbf'"),
        ({"kernel": "sigmoid"}, ValueError, "kernel"),
        ({"kernel": None}, ValueError, "kernel"),
        ({"approximation": "Nystrom"}, ValueError, r"approximation must be one of 'exact'"),
        ({"approximation": None}, ValueError, "approximation"),
        ({"eigen_solver": "lobpcg"}, ValueError, r"eigen_solver must be one of 'auto'"),
        ({"eigen_solver": "randomized"}, ValueError, "eigen_solver"),
        ({"n_landmarks": 0}, ValueError, "n_landmarks"),
        ({"n_landmarks": -5}, ValueError, "n_landmarks"),
        ({"n_landmarks": 10.0}, TypeError, "n_landmarks"),
        ({"n_landmarks": True}, TypeError, "n_landmarks"),
        ({"n_landmarks": None}, TypeError, "n_landmarks"),
        ({"n_random_features": 0}, ValueError, "n_random_features"),
        ({"n_random_features": 50.5}, TypeError, "n_random_features"),
        ({"n_random_features": False}, TypeError, "n_random_features"),
        ({"degree": 0}, ValueError, "degree"),
        ({"degree": 2.5}, TypeError, "degree"),
        ({"degree": True}, TypeError, "degree"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": 1.5}, TypeError, "random_state"),
        ({"random_state": "seed"}, TypeError, "random_state"),
        ({"kernel": "rbf", "gamma": 0.0}, ValueError, "gamma"),
        ({"kernel": "rbf", "gamma": -1.0}, ValueError, "gamma"),
        ({"kernel": "rbf", "gamma": np.nan}, ValueError, "gamma"),
        ({"kernel": "rbf", "gamma": "scale"}, TypeError, "gamma"),
        ({"kernel": "rbf", "gamma": True}, TypeError, "gamma"),
        ({"kernel": "rbf", "bandwidth": 0.0}, ValueError, "bandwidth"),
        ({"kernel": "rbf", "bandwidth": -1.0}, ValueError, "bandwidth"),
        ({"kernel": "rbf", "bandwidth": np.inf}, ValueError, "bandwidth"),
        ({"kernel": "rbf", "bandwidth": "wide"}, TypeError, "bandwidth"),
        (
            {"kernel": "rbf", "gamma": 0.5, "bandwidth": 1.0},
            ValueError,
            r"either gamma or bandwidth",
        ),
        ({"kernel": "linear", "bandwidth": 1.0}, ValueError, r"bandwidth applies to kernel='rbf'"),
        ({"kernel": "poly", "bandwidth": 1.0}, ValueError, r"bandwidth applies"),
        ({"kernel": negative_rbf, "bandwidth": 1.0}, ValueError, r"bandwidth applies"),
        ({"kernel": "poly", "gamma": -0.5}, ValueError, "gamma"),
        ({"kernel": "poly", "gamma": 0.5, "bandwidth": 1.0}, ValueError, "bandwidth"),
        ({"kernel": "poly", "coef0": np.nan}, ValueError, "coef0"),
        ({"kernel": "poly", "coef0": "1"}, TypeError, "coef0"),
        # checked whatever the kernel (as scikit-learn does), even one that ignores them
        ({"kernel": "linear", "coef0": "bogus"}, TypeError, r"coef0 must be a real number"),
        ({"kernel": "linear", "gamma": -1.0}, ValueError, r"gamma must be a finite number > 0"),
        ({"kernel": "rbf", "coef0": np.nan}, ValueError, r"coef0 must be finite"),
        ({"kernel": "rbf", "degree": 0}, ValueError, r"degree must be at least 1"),
        # ints too large for float64, or for NumPy's 64-bit integers and array sizes
        ({"kernel": "poly", "coef0": 10**400}, ValueError, r"coef0 must be finite, got an int"),
        ({"kernel": "rbf", "gamma": 10**400}, ValueError, r"gamma must be a finite number > 0"),
        ({"kernel": "rbf", "bandwidth": -(2**70)}, ValueError, "bandwidth"),
        ({"kernel": "poly", "degree": 2**70}, ValueError, r"degree must be at most 2\*\*63 - 1"),
        ({"n_landmarks": 10**400}, ValueError, r"n_landmarks must be at most"),
        (
            {"kernel": "rbf", "approximation": "rff", "n_random_features": 2**62},
            ValueError,
            r"n_random_features is too large: it asks for a float64 array of shape",
        ),
        (
            {"approximation": "nystrom", "n_landmarks": 5, "n_components": 6},
            ValueError,
            r"n_components must be between 1 and the number of landmarks = 5; got 6",
        ),
        (
            {"kernel": "rbf", "approximation": "rff", "n_random_features": 5, "n_components": 6},
            ValueError,
            r"n_components must be between 1 and min\(n_samples, n_random_features\) = 5; got 6",
        ),
        ({"kernel": "rbf", "approximation": "rff", "n_components": 21}, ValueError, "got 21"),
        ({"approximation": "rff"}, ValueError, "needs kernel='rbf', got kernel='linear'"),
        ({"approximation": "rff", "kernel": "poly"}, ValueError, "kernel='rbf'"),
    ],
    ids=lambda value: repr(value) if isinstance(value, dict) else "",
)
def test_invalid_parameters_are_named(params, error, message):
    X = make_data(20, 3, seed=39)
    model = KernelPCA(**params)
    with pytest.raises(error, match=message):
        model.fit(X)
    # nothing was fitted
    assert not hasattr(model, "eigenvalues_")
    with pytest.raises(error, match=message):
        KernelPCA(**params).fit_transform(X)


@pytest.mark.parametrize(
    "make_bad, error, message",
    [
        (lambda X: X[:, 0], ValueError, r"X must be a 2-D array"),
        (lambda X: np.where(X > 1, np.nan, X), ValueError, r"X contains NaN"),
        (lambda X: np.where(X > 1, np.inf, X), ValueError, r"X contains infinite"),
        (lambda X: None, TypeError, r"X must be a 2-D array-like"),
        (lambda X: X.astype(str), TypeError, r"X must contain only numbers"),
    ],
    ids=["1-D", "nan", "inf", "None", "strings"],
)
def test_bad_X_is_named(make_bad, error, message):
    X = make_data(20, 3, seed=40)
    with pytest.raises(error, match=message):
        KernelPCA().fit(make_bad(X))
    fitted = KernelPCA().fit(X)
    with pytest.raises(error, match=message):
        fitted.transform(make_bad(X))


def test_one_sample_cannot_be_fitted_but_can_be_transformed():
    X = make_data(20, 3, seed=40)
    with pytest.raises(ValueError, match=r"X has 1 sample"):
        KernelPCA().fit(X[:1])
    fitted = KernelPCA().fit(X)
    np.testing.assert_allclose(fitted.transform(X[:1]), fitted.transform(X)[:1], rtol=1e-12)


@pytest.mark.parametrize("mode", MODES, ids=str)
def test_fit_does_not_modify_its_input_and_keeps_a_copy(mode):
    X = make_data(40, 3, seed=41)
    T = make_data(6, 3, seed=42)
    X_copy = X.copy()
    model = KernelPCA(n_components=2, random_state=0, **MODES[mode])
    Z = model.fit_transform(X)
    np.testing.assert_array_equal(X, X_copy)
    Z_T = model.transform(T)
    np.testing.assert_array_equal(X, X_copy)
    # mutating the input after fit does not change the model
    X[:] = 0.0
    np.testing.assert_array_equal(model.transform(T), Z_T)
    np.testing.assert_allclose(model.transform(X_copy), Z, rtol=0, atol=1e-9 * np.abs(Z).max())
    if mode in ("dense", "arpack"):
        assert not np.shares_memory(model.X_fit_, X)
        np.testing.assert_array_equal(model.X_fit_, X_copy)
    if mode == "nystrom":
        assert not np.shares_memory(model.landmarks_, X)


def test_fitted_attributes():
    X = make_data(30, 4, seed=43)
    model = KernelPCA(n_components=3, kernel="rbf").fit(X)
    assert model.gamma_ == pytest.approx(0.25, rel=1e-15)  # default 1 / n_features
    assert model.eigen_solver_ == "dense" and model.n_samples_ == 30
    assert KernelPCA(kernel="rbf", bandwidth=2.0).fit(X).gamma_ == pytest.approx(1 / 8, rel=1e-15)
    assert KernelPCA().fit(X).gamma_ is None  # the default kernel is linear
    assert KernelPCA(kernel="poly").fit(X).gamma_ == pytest.approx(0.25, rel=1e-15)
    assert model.X_fit_.shape == (30, 4)
    assert model.eigenvectors_.shape == model.dual_coef_.shape == (30, 3)
    K = pairwise.rbf_kernel(X, gamma=0.25)
    np.testing.assert_allclose(model.kernel_column_means_, K.mean(axis=0), rtol=1e-13)
    assert model.kernel_mean_ == pytest.approx(K.mean(), rel=1e-13)
    np.testing.assert_allclose(model.explained_variance_, model.eigenvalues_ / 29, rtol=1e-15)


# ---------------------------------------------------------------------------
# Units of the data, extreme magnitudes and failed refits
# ---------------------------------------------------------------------------

# None is a power of two: the rescaled data differ from X by rounding.
UNIT_FACTORS = [1e-8, 1e-3, 255.0, 1e8]


def assert_scaled(actual, expected, rtol=1e-6):
    """``actual`` equals ``expected`` to ``rtol`` of the largest entry of ``expected``."""
    expected = np.asarray(expected, dtype=float)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max())


@pytest.mark.parametrize("c", UNIT_FACTORS)
@pytest.mark.parametrize("eigen_solver", ["dense", "arpack"])
def test_linear_kernel_pca_follows_the_units_of_X(eigen_solver, c):
    # K(cX) = c² K(X): eigenvalues times c², scores times c, dual coefficients over c
    X, T = make_data(40, 5, seed=80), make_data(6, 5, seed=81)
    params = dict(n_components=3, eigen_solver=eigen_solver, random_state=0)
    a = KernelPCA(**params)
    b = KernelPCA(**params)
    Z_a, Z_b = a.fit_transform(X), b.fit_transform(c * X)
    assert_scaled(Z_b, c * Z_a)
    assert_scaled(b.eigenvalues_, c**2 * a.eigenvalues_)
    assert_scaled(b.explained_variance_ratio_, a.explained_variance_ratio_)
    assert_scaled(b.dual_coef_, a.dual_coef_ / c)
    assert_scaled(b.transform(c * T), c * a.transform(T))
    assert b.n_components_ == a.n_components_ and b.eigen_solver_ == a.eigen_solver_


@pytest.mark.parametrize("c", UNIT_FACTORS)
@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "gamma": 0.3},
        {"kernel": "poly", "gamma": 0.3, "coef0": 1.0, "degree": 3},
        {"kernel": "rbf", "gamma": 0.3, "approximation": "nystrom", "n_landmarks": 15},
        {"kernel": "rbf", "gamma": 0.3, "approximation": "rff", "n_random_features": 60},
    ],
    ids=["rbf", "poly", "nystrom", "rff"],
)
def test_gamma_in_the_units_of_X_gives_the_same_scores(params, c):
    # gamma is in units of 1/X²: gamma / c² on c X is the same kernel
    X, T = make_data(40, 4, seed=82), make_data(6, 4, seed=83)
    a = KernelPCA(n_components=3, random_state=0, **params)
    b = KernelPCA(n_components=3, random_state=0, **{**params, "gamma": params["gamma"] / c**2})
    assert_scaled(b.fit_transform(c * X), a.fit_transform(X))
    assert_scaled(b.eigenvalues_, a.eigenvalues_)
    assert_scaled(b.transform(c * T), a.transform(T))


@pytest.mark.parametrize("c", UNIT_FACTORS)
def test_rbf_bandwidth_is_in_the_units_of_X(c):
    X = make_data(30, 3, seed=84)
    a = KernelPCA(n_components=2, kernel="rbf", bandwidth=1.5).fit_transform(X)
    b = KernelPCA(n_components=2, kernel="rbf", bandwidth=1.5 * c).fit_transform(c * X)
    assert_scaled(b, a)


def test_default_gamma_does_not_follow_the_units_of_X():
    # documented: gamma=None is 1 / n_features (scikit-learn's default), whatever
    # the units of X, so c X with the default is a different kernel
    X = make_data(30, 4, seed=85)
    a = KernelPCA(n_components=2, kernel="rbf").fit(X)
    b = KernelPCA(n_components=2, kernel="rbf").fit(255.0 * X)
    assert a.gamma_ == b.gamma_ == 0.25
    assert not np.allclose(b.eigenvalues_, a.eigenvalues_, rtol=1e-2)


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear"},
        {"kernel": "rbf"},
        {"kernel": "poly"},
        {"kernel": "linear", "eigen_solver": "arpack", "n_components": 2, "random_state": 0},
        {"kernel": "rbf", "approximation": "nystrom", "n_landmarks": 10, "random_state": 0},
        {"kernel": "rbf", "approximation": "rff", "n_random_features": 20, "random_state": 0},
    ],
    ids=["linear", "rbf", "poly", "arpack", "nystrom", "rff"],
)
@pytest.mark.parametrize("magnitude", [1e-170, 1e-310])
def test_data_too_small_for_the_kernel_is_named_truthfully(params, magnitude):
    # the reproduction: on data scaled by 1e-170 (X Xᵀ underflows, or every RBF
    # distance rounds to 0) kernel PCA said that all samples coincide
    X = np.random.default_rng(86).uniform(0.1, 1.0, (12, 5)) * magnitude
    with pytest.raises(ValueError, match=r"numerically zero although the samples of X differ"):
        KernelPCA(**params).fit(X)


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "bandwidth": 2.0**70},
        {"kernel": "rbf", "gamma": 1e-40},
        {"kernel": "poly", "coef0": 2.0**70},
    ],
    ids=["huge-bandwidth", "tiny-gamma", "huge-coef0"],
)
def test_a_kernel_flattened_by_its_parameters_is_named(params):
    # distinct samples, but every kernel value is the same to rounding
    X = make_data(20, 3, seed=87)
    with pytest.raises(ValueError, match=r"numerically zero although .*gamma, bandwidth or coef0"):
        KernelPCA(**params).fit(X)


def fitted_kpca_state(model):
    return {
        name: np.copy(value) if isinstance(value, np.ndarray) else value
        for name, value in vars(model).items()
        if name.endswith("_")
    }


@pytest.mark.parametrize(
    "bad_fit",
    [
        lambda model, X: model.fit(np.where(X > 1, np.nan, X)),
        lambda model, X: model.fit(np.tile(X[:1], (8, 1))),
        lambda model, X: model.fit(X[:1]),
        lambda model, X: model.set_params(n_components=99).fit(X),
        lambda model, X: model.set_params(gamma=10**400).fit(X),
        # fails in the eigendecomposition, after the kernel matrix was formed
        lambda model, X: model.fit(X * 1e-170),
    ],
    ids=["nan", "identical-rows", "one-sample", "n_components", "huge-gamma", "underflow"],
)
@pytest.mark.parametrize("mode", ["dense", "nystrom"])
def test_failed_refit_leaves_the_earlier_fit_usable(bad_fit, mode):
    X = make_data(30, 3, seed=88)
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    model = KernelPCA(n_components=2, random_state=0, **MODES[mode]).fit(frame)
    before = fitted_kpca_state(model)
    Z = model.transform(frame.iloc[:4])
    with pytest.raises(ValueError):
        bad_fit(model, X)
    after = fitted_kpca_state(model)
    assert after.keys() == before.keys()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    np.testing.assert_array_equal(model.transform(frame.iloc[:4]), Z)
