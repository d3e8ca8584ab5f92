"""Tests of :class:`pcalib.KernelPCA` (chapter 3): exact, Nyström and random Fourier features.

Expected values come from independent sources only: scikit-learn's
``KernelPCA``, ``PCA`` and pairwise kernels, NumPy eigendecompositions of
kernel matrices built and centred here (``H K H`` with ``H = I - 11ᵀ/n``), an
explicit polynomial feature map written out by hand, and Monte Carlo
statistics of the random features. None of them is produced by pcalib itself.
"""

import contextlib
import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
import scipy.sparse.linalg
import scipy.stats
from helpers import assert_scaled, laplacian, make_data
from sklearn.base import clone
from sklearn.datasets import make_circles
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.decomposition import KernelPCA as SklearnKernelPCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import pairwise
from sklearn.pipeline import make_pipeline

import pcalib.kernel_pca as kernel_pca_module
from pcalib import PCA, KernelPCA, KernelRankWarning
from pcalib.kernel_pca import (
    center_kernel,
    center_test_kernel,
    choose_eigen_solver,
    normalised_dual_coefficients,
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


def histogram(x, y):
    """The histogram-intersection kernel of scikit-learn's own KernelPCA test."""
    return np.minimum(x, y).sum()


@pytest.mark.parametrize("solver", ["dense", "arpack"])
@pytest.mark.parametrize("kernel", [histogram, laplacian], ids=["histogram", "laplacian"])
def test_callable_kernel_agrees_with_sklearn(kernel, solver):
    # the same callable, called pair by pair by both libraries
    n, k = 40, 3
    X = np.abs(make_data(n, 4, seed=5))
    T = np.abs(make_data(7, 4, seed=6))
    K_c = centering_matrix(n) @ pairwise.pairwise_kernels(X, metric=kernel) @ centering_matrix(n)
    eigenvalues, _ = reference_eigenpairs(K_c)
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3), relative_gaps(eigenvalues, k)

    inverse = kernel is laplacian  # K_z of the histogram kernel can be singular
    params = {"n_components": k, "kernel": kernel, "eigen_solver": solver, "random_state": 0}
    ref = SklearnKernelPCA(**params, fit_inverse_transform=inverse)
    model = KernelPCA(**params, fit_inverse_transform=inverse)
    Z_ref, Z = ref.fit_transform(X), model.fit_transform(X)
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    scale = np.abs(Z_ref).max()
    np.testing.assert_allclose(np.abs(Z), np.abs(Z_ref), rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(
        np.abs(model.transform(T)), np.abs(ref.transform(T)), rtol=0, atol=1e-10 * scale
    )
    if inverse:
        # ‖z_i - z_j‖₁ does not depend on the signs of the components
        np.testing.assert_allclose(
            model.inverse_transform(Z), ref.inverse_transform(Z_ref), rtol=0, atol=1e-10
        )


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
    # every parameter of scikit-learn's, with its default; pcalib's extras besides
    assert set(theirs) <= set(ours)
    assert set(ours) - set(theirs) == {
        "bandwidth",
        "approximation",
        "n_landmarks",
        "n_random_features",
    }
    assert {name: ours[name] for name in theirs} == theirs
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

    def cubic(x, y):
        """(⟨x, y⟩ / d + 1)³: the defaults degree=3, gamma=1/n_features, coef0=1."""
        return (x @ y / d + 1.0) ** 3

    k = 4
    K_c = centering_matrix(n) @ (X @ X.T / d + 1.0) ** 3 @ centering_matrix(n)
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
    A = normalised_dual_coefficients(model.eigenvalues_, model.eigenvectors_)
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
        (201, 9, "arpack"),
        (5000, 9, "arpack"),
        (201, 1, "arpack"),
        (200, 1, "dense"),  # n must exceed 200
        (201, 10, "dense"),  # k must be below 10 (scikit-learn's rule)
        (5000, 10, "dense"),
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
    A = normalised_dual_coefficients(model.eigenvalues_, model.eigenvectors_)
    for value in (
        Z,
        Z_T,
        model.eigenvalues_,
        model.explained_variance_,
        model.explained_variance_ratio_,
        A,
    ):
        assert np.isfinite(value).all()
    # the extra components are exactly zero
    np.testing.assert_array_equal(Z[:, 2:], 0.0)
    np.testing.assert_array_equal(Z_T[:, 2:], 0.0)
    np.testing.assert_array_equal(model.eigenvalues_[2:], 0.0)
    np.testing.assert_array_equal(A[:, 2:], 0.0)
    assert model.n_components_ == 4
    assert model.get_feature_names_out().tolist() == [f"kernelpca{i}" for i in range(4)]
    # the first two are ordinary PCA
    ref = SklearnPCA(n_components=2, svd_solver="full").fit(X)
    signs = column_signs(Z[:, :2], ref.transform(X))
    scale = np.abs(Z).max()
    np.testing.assert_allclose(Z[:, :2] * signs, ref.transform(X), rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(Z_T[:, :2] * signs, ref.transform(T), rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(model.explained_variance_[:2], ref.explained_variance_, rtol=1e-10)


def linear_minus_rbf(x, y):
    """An indefinite kernel: 0.3⟨x, y⟩ minus a Gaussian kernel."""
    return 0.3 * x @ y - math.exp(-5.0 * np.sum((x - y) ** 2))


def negative_rbf(x, y):
    """The negative Gaussian kernel: the centred kernel is negative semi-definite."""
    return -math.exp(-0.5 * np.sum((x - y) ** 2))


def test_significant_negative_eigenvalues_are_an_error_and_the_positive_part_fits():
    X = np.random.default_rng(12).standard_normal((40, 2))
    T = np.random.default_rng(13).standard_normal((6, 2))
    n = 40
    K = 0.3 * X @ X.T - pairwise.rbf_kernel(X, gamma=5.0)  # linear_minus_rbf as a matrix
    K_c = centering_matrix(n) @ K @ centering_matrix(n)
    eigenvalues, eigenvectors = reference_eigenpairs(K_c)
    # premise: two positive eigenvalues, a zero (the constant vector), then
    # negative ones beyond 1e-5 of the largest (scikit-learn's "significant")
    assert eigenvalues[1] > 0.1 * eigenvalues[0]
    assert abs(eigenvalues[2]) < 1e-14 * eigenvalues[0]
    assert eigenvalues[3] < -1e-5 * eigenvalues[0]
    assert np.all(relative_gaps(eigenvalues, 2) > 1e-3)
    for solver in ("dense", "arpack"):
        # four components would include a negative variance: an error, as in scikit-learn
        model = KernelPCA(
            n_components=4, kernel=linear_minus_rbf, eigen_solver=solver, random_state=0
        )
        with pytest.raises(ValueError, match=r"significant negative eigenvalues.*not positive"):
            model.fit(X)
        assert not hasattr(model, "eigenvalues_")
        # the two positive ones are an ordinary fit
        model.set_params(n_components=2)
        Z = model.fit_transform(X)
        Z_T = model.transform(T)
        assert np.isfinite(Z_T).all()
        np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:2], rtol=1e-10)
        Z_ref = eigenvectors[:, :2] * np.sqrt(eigenvalues[:2])
        signs = column_signs(Z, Z_ref)
        assert np.all(np.abs(Z * signs - Z_ref) <= score_tolerance(eigenvalues, 2, n, Z_ref))
    # n_components=None computes every eigenvalue, the negative ones too
    with pytest.raises(ValueError, match="significant negative eigenvalues"):
        KernelPCA(kernel=linear_minus_rbf).fit(X)


def assert_zero_fit(params, X, T):
    """A centred kernel that is zero gives zero scores with a warning, as scikit-learn's zeros."""
    # one component: Nyström cannot give more than the rank of its landmarks' kernel, 1
    with pytest.warns(KernelRankWarning, match=r"numerically zero.*every score is 0"):
        Z = KernelPCA(n_components=1, **params).fit_transform(X)
    np.testing.assert_array_equal(Z, 0.0)
    model = KernelPCA(**params)
    with pytest.warns(KernelRankWarning, match=r"numerically zero"):
        Z_none = model.fit_transform(X)
    # n_components=None keeps the components of positive variance: none
    assert Z_none.shape == (X.shape[0], 0) and model.n_components_ == 0
    assert model.transform(T).shape == (T.shape[0], 0)
    for value in (model.eigenvalues_, model.explained_variance_ratio_):
        assert value.shape == (0,)


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear"},
        {"kernel": "rbf"},
        {"kernel": "poly", "gamma": 0.5},
        {"kernel": lambda x, y: (x @ y) ** 2},
    ],
    ids=["linear", "rbf", "poly", "callable"],
)
def test_identical_rows_give_zero_scores(params):
    # dyadic entries, for which K̃ is exactly 0
    X = np.tile([[1.5, -2.0, 0.5]], (8, 1))
    assert_zero_fit({"eigen_solver": "dense", **params}, X, make_data(3, 3))


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear", "eigen_solver": "dense"},
        {"kernel": "linear", "eigen_solver": "arpack", "random_state": 0},
        {"kernel": "linear", "eigen_solver": "randomized", "random_state": 0},
        {"kernel": "rbf", "eigen_solver": "dense"},
        {"kernel": "rbf", "approximation": "nystrom", "n_landmarks": 5, "random_state": 0},
        {"kernel": "rbf", "approximation": "rff", "n_random_features": 20, "random_state": 0},
    ],
    ids=["linear-dense", "linear-arpack", "linear-randomized", "rbf-dense", "nystrom", "rff"],
)
def test_identical_non_dyadic_rows_give_zero_scores(params, seed):
    # Rows equal to arbitrary values: the means are inexact, so K̃ (or the
    # centred features) is rounding noise, which must not become a component.
    row = np.random.default_rng(seed).standard_normal((1, 3))
    assert_zero_fit(params, np.tile(row, (8, 1)), make_data(3, 3))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_negative_semi_definite_kernel_is_an_error_naming_the_cause(seed, solver):
    # -rbf: every eigenvalue of the centred kernel is <= 0; the top one is
    # rounding noise of either sign, which must not become a component.
    X = np.random.default_rng(seed).standard_normal((40, 2))
    model = KernelPCA(n_components=2, kernel=negative_rbf, eigen_solver=solver, random_state=0)
    with pytest.raises(ValueError, match=r"significant negative eigenvalues.*not positive"):
        model.fit(X)


def test_arpack_failure_falls_back_to_the_dense_solver():
    # ARPACK does not converge on this indefinite kernel (tol=0); the dense
    # solver's answer must be returned instead of ArpackNoConvergence, with a warning.
    def kernel(x, y):
        return 3 * x @ y - math.exp(-0.5 * np.sum((x - y) ** 2))

    X = np.random.default_rng(12).standard_normal((40, 2))
    results = {}
    for solver in ("dense", "arpack"):
        model = KernelPCA(n_components=4, kernel=kernel, eigen_solver=solver, random_state=0)
        arpack_fails = pytest.warns(ConvergenceWarning, match=r"ARPACK .*the dense solver")
        with (
            pytest.warns(KernelRankWarning, match="not positive semi-definite"),
            arpack_fails if solver == "arpack" else contextlib.nullcontext(),
        ):
            results[solver] = model.fit_transform(X)
        assert np.isfinite(results[solver]).all()
    np.testing.assert_allclose(results["arpack"], results["dense"], atol=1e-10)


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        (
            scipy.sparse.linalg.ArpackNoConvergence("no convergence", np.empty(0), np.empty(0)),
            r"ARPACK \(eigen_solver='arpack'\) stopped after max_iter=400 .*dense solver",
        ),
        (
            scipy.sparse.linalg.ArpackError(-9999),
            r"ARPACK \(eigen_solver='arpack'\) failed \(ArpackError: .*\); the dense "
            r"solver computed the eigenpairs instead",
        ),
    ],
    ids=["no-convergence", "error"],
)
def test_a_failed_arpack_run_warns_and_gives_the_dense_solution(failure, message, monkeypatch):
    X = make_data(40, 2, seed=3)
    params = {"n_components": 3, "kernel": "rbf", "gamma": 0.5, "random_state": 0}
    dense = KernelPCA(**params, eigen_solver="dense")
    Z_dense = dense.fit_transform(X)

    def failing_eigsh(*args, **kwargs):
        raise failure

    monkeypatch.setattr(scipy.sparse.linalg, "eigsh", failing_eigsh)
    model = KernelPCA(**params, eigen_solver="arpack")
    with pytest.warns(ConvergenceWarning, match=message):
        Z = model.fit_transform(X)
    np.testing.assert_array_equal(Z, Z_dense)
    np.testing.assert_array_equal(model.eigenvalues_, dense.eigenvalues_)


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
        "alpha": 1.0,
        "fit_inverse_transform": False,
        "eigen_solver": "auto",
        "iterated_power": "auto",
        "remove_zero_eig": False,
        "approximation": "exact",
        "n_landmarks": 300,
        "n_random_features": 300,
        "random_state": None,
        "kernel_params": None,
        "tol": 0,
        "max_iter": None,
        "copy_X": True,
        "n_jobs": None,
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


def _parameter_id(params):
    """A test id for a dict of parameters, callables by name (their repr has an address)."""
    shown = {key: getattr(value, "__name__", value) for key, value in params.items()}
    return repr(shown)


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
        ({"eigen_solver": "Randomized"}, ValueError, "eigen_solver"),
        ({"alpha": -1.0}, ValueError, r"alpha must be a finite number >= 0"),
        ({"alpha": "1"}, TypeError, "alpha"),
        ({"fit_inverse_transform": 1}, TypeError, r"fit_inverse_transform must be True or False"),
        ({"remove_zero_eig": None}, TypeError, r"remove_zero_eig must be True or False"),
        ({"iterated_power": -1}, ValueError, "iterated_power"),
        ({"iterated_power": "full"}, ValueError, r"iterated_power must be 'auto' or an int >= 0"),
        ({"iterated_power": 2.0}, TypeError, "iterated_power"),
        (
            {"kernel": "precomputed", "fit_inverse_transform": True},
            ValueError,
            "Cannot fit_inverse_transform with a precomputed kernel",
        ),
        ({"kernel": "precomputed"}, ValueError, r"must be square, of shape \(n_samples"),
        (
            {"kernel": "precomputed", "approximation": "nystrom"},
            ValueError,
            r"approximation='nystrom' needs the data X",
        ),
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
        # scikit-learn's ARPACK settings, copy_X, n_jobs and kernel_params: checked
        # in every configuration, whether or not it uses them
        ({"tol": -1e-3}, ValueError, r"tol must be a finite number >= 0"),
        ({"tol": np.inf}, ValueError, r"tol must be a finite number >= 0"),
        ({"tol": np.nan}, ValueError, "tol"),
        ({"tol": None}, TypeError, r"tol must be a number >= 0"),
        ({"tol": True}, TypeError, "tol"),
        ({"tol": "0"}, TypeError, "tol"),
        ({"max_iter": 0}, ValueError, r"max_iter must be at least 1"),
        ({"max_iter": -1}, ValueError, "max_iter"),
        ({"max_iter": 10.0}, TypeError, r"max_iter must be an int"),
        ({"max_iter": True}, TypeError, "max_iter"),
        ({"max_iter": 2**31}, ValueError, r"max_iter must be None or at most 2\*\*31 - 1"),
        ({"max_iter": 2**70}, ValueError, "max_iter"),
        ({"copy_X": None}, TypeError, r"copy_X must be True or False"),
        ({"copy_X": 0}, TypeError, "copy_X"),
        ({"n_jobs": 0}, ValueError, r"n_jobs must be None or a nonzero int"),
        ({"n_jobs": 2**70}, ValueError, "n_jobs"),
        ({"n_jobs": -(2**70)}, ValueError, "n_jobs"),
        ({"n_jobs": 1.5}, TypeError, r"n_jobs must be None or an int"),
        ({"n_jobs": True}, TypeError, "n_jobs"),
        ({"n_jobs": "all"}, TypeError, "n_jobs"),
        ({"kernel_params": "gamma=1"}, TypeError, r"kernel_params must be None or a dict"),
        ({"kernel_params": [("gamma", 1.0)]}, TypeError, "kernel_params"),
        ({"kernel": laplacian, "kernel_params": {1: 2.0}}, TypeError, r"\(str keys\)"),
        (
            {"kernel": "rbf", "kernel_params": {"gamma": 0.5}},
            ValueError,
            r"kernel_params=\{'gamma': 0.5\} applies to a callable kernel only",
        ),
        ({"kernel": "linear", "kernel_params": {"a": 1}}, ValueError, "kernel_params"),
        (
            {"kernel": laplacian, "kernel_params": {"scale": 2.0}},
            TypeError,
            r"kernel_params=\{'scale': 2.0\} does not fit the kernel.*unexpected keyword",
        ),
    ],
    ids=lambda value: _parameter_id(value) if isinstance(value, dict) else "",
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
    assert model.eigenvectors_.shape == (30, 3)
    assert model.eigen_solver_ == "dense" and model.iterated_power_ == 0
    assert not hasattr(model, "dual_coef_") and not hasattr(model, "X_transformed_fit_")
    K = pairwise.rbf_kernel(X, gamma=0.25)
    np.testing.assert_allclose(model.kernel_column_means_, K.mean(axis=0), rtol=1e-13)
    assert model.kernel_mean_ == pytest.approx(K.mean(), rel=1e-13)
    np.testing.assert_allclose(model.explained_variance_, model.eigenvalues_ / 29, rtol=1e-15)


# ---------------------------------------------------------------------------
# Units of the data, extreme magnitudes and failed refits
# ---------------------------------------------------------------------------

# None is a power of two: the rescaled data differ from X by rounding.
UNIT_FACTORS = [1e-8, 1e-3, 255.0, 1e8]


@pytest.mark.parametrize("c", UNIT_FACTORS)
@pytest.mark.parametrize("eigen_solver", ["dense", "arpack"])
def test_linear_kernel_pca_follows_the_units_of_X(eigen_solver, c):
    # K(cX) = c² K(X): eigenvalues times c², scores times c, a = e / √μ over c
    X, T = make_data(40, 5, seed=80), make_data(6, 5, seed=81)
    params = dict(n_components=3, eigen_solver=eigen_solver, random_state=0)
    a = KernelPCA(**params)
    b = KernelPCA(**params)
    Z_a, Z_b = a.fit_transform(X), b.fit_transform(c * X)
    assert_scaled(Z_b, c * Z_a)
    assert_scaled(b.eigenvalues_, c**2 * a.eigenvalues_)
    assert_scaled(b.explained_variance_ratio_, a.explained_variance_ratio_)
    assert_scaled(
        normalised_dual_coefficients(b.eigenvalues_, b.eigenvectors_),
        normalised_dual_coefficients(a.eigenvalues_, a.eigenvectors_) / c,
    )
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
    # on data scaled by 1e-170, X Xᵀ underflows or every RBF distance rounds to
    # 0: zero scores, as scikit-learn gives, and a warning that names the cause
    X = np.random.default_rng(86).uniform(0.1, 1.0, (12, 5)) * magnitude
    with pytest.warns(KernelRankWarning, match=r"numerically zero.*for the linear kernel X Xᵀ"):
        Z = KernelPCA(**params).fit_transform(X)
    np.testing.assert_array_equal(Z, 0.0)
    assert Z.shape == (12, params.get("n_components", 0))


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
    with pytest.warns(KernelRankWarning, match=r"numerically zero.*a huge bandwidth or a coef0"):
        Z = KernelPCA(n_components=2, **params).fit_transform(X)
    np.testing.assert_array_equal(Z, 0.0)


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
        lambda model, X: model.fit(X[:1]),
        lambda model, X: model.set_params(n_components=99).fit(X),
        lambda model, X: model.set_params(gamma=10**400).fit(X),
    ],
    ids=["nan", "one-sample", "n_components", "huge-gamma"],
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


# ---------------------------------------------------------------------------
# scikit-learn's options: precomputed kernels, the randomized solver,
# remove_zero_eig, the learned pre-image, sparse and float32 input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["dense", "arpack", "randomized"])
def test_precomputed_kernel_gives_the_fit_of_the_kernel(solver):
    X, T = make_data(40, 3, seed=90), make_data(6, 3, seed=91)
    n, k = 40, 3
    K, K_T = pairwise.rbf_kernel(X, gamma=0.3), pairwise.rbf_kernel(T, X, gamma=0.3)
    K_c = centering_matrix(n) @ K @ centering_matrix(n)
    eigenvalues, eigenvectors = reference_eigenpairs(K_c)
    model = KernelPCA(n_components=k, kernel="precomputed", eigen_solver=solver, random_state=0)
    Z = model.fit_transform(K)
    assert model.n_features_in_ == n and model.gamma_ is None
    assert model.__sklearn_tags__().input_tags.pairwise
    # the eigenpairs of the explicitly centred kernel, as in scikit-learn
    rtol = 1e-9 if solver == "randomized" else 1e-12  # see the randomized test below
    np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=rtol)
    Z_ref = eigenvectors[:, :k] * np.sqrt(eigenvalues[:k])
    signs = column_signs(Z, Z_ref)
    np.testing.assert_allclose(Z * signs, Z_ref, atol=1e-8 * np.abs(Z_ref).max())
    # new points: the centred cross-kernel times a = e / √μ, by hand
    ones = np.full((len(T), n), 1.0 / n)
    K_T_c = (K_T - ones @ K) @ centering_matrix(n)
    Z_T_ref = K_T_c @ (eigenvectors[:, :k] / np.sqrt(eigenvalues[:k]))
    np.testing.assert_allclose(
        model.transform(K_T) * signs, Z_T_ref, atol=1e-8 * np.abs(Z_T_ref).max()
    )
    # and the same as the kernel named
    named = KernelPCA(n_components=k, kernel="rbf", gamma=0.3, eigen_solver=solver, random_state=0)
    np.testing.assert_allclose(named.fit_transform(X), Z, atol=1e-10 * np.abs(Z).max())


def test_precomputed_transform_needs_the_cross_kernel():
    X = make_data(20, 3, seed=93)
    model = KernelPCA(n_components=2, kernel="precomputed").fit(X @ X.T)
    # a sparse kernel matrix is read as the dense one
    from_sparse = KernelPCA(n_components=2, kernel="precomputed")
    Z = model.transform(X @ X.T)
    np.testing.assert_allclose(
        from_sparse.fit_transform(scipy.sparse.csr_matrix(X @ X.T)), Z, atol=1e-12 * np.abs(Z).max()
    )
    message = r"X has 10 features, but KernelPCA is expecting 20 .*kernel between the new points"
    with pytest.raises(ValueError, match=message):
        model.transform(X[:5] @ X[:10].T)


def test_non_symmetric_precomputed_kernel_uses_its_symmetric_part():
    X = make_data(20, 3, seed=94)
    K = pairwise.rbf_kernel(X, gamma=0.5)
    E = np.triu(np.random.default_rng(0).uniform(-0.1, 0.1, (20, 20)), 1)
    K_skewed = K + E - E.T
    with pytest.warns(UserWarning, match=r"not symmetric .*symmetric part \(K \+ Kᵀ\) / 2"):
        skewed = KernelPCA(n_components=3, kernel="precomputed").fit(K_skewed)
    symmetric = KernelPCA(n_components=3, kernel="precomputed").fit(K)
    np.testing.assert_allclose(skewed.eigenvalues_, symmetric.eigenvalues_, rtol=1e-12)
    np.testing.assert_allclose(skewed.eigenvectors_, symmetric.eigenvectors_, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a symmetric kernel is not warned about
        KernelPCA(n_components=3, kernel="precomputed").fit(K)


def test_randomized_solver_finds_the_top_eigenpairs():
    X = make_data(300, 4, seed=92)
    n, k = 300, 5
    K_c = centering_matrix(n) @ pairwise.rbf_kernel(X, gamma=0.2) @ centering_matrix(n)
    eigenvalues, eigenvectors = reference_eigenpairs(K_c)
    # premise: the spectrum beyond k + 10 is a third of the k-th eigenvalue
    assert eigenvalues[k + 10] < 0.35 * eigenvalues[k - 1]
    model = KernelPCA(n_components=k, kernel="rbf", gamma=0.2, eigen_solver="randomized")
    Z = model.set_params(random_state=0).fit_transform(X)
    # "auto": 7 power iterations for k < n / 10, as scikit-learn
    assert model.eigen_solver_ == "randomized" and model.iterated_power_ == 7
    # Ritz values converge like (λ_{k+11} / λ_k)^(2(2q + 1)) = 0.35^30 ≈ 2e-14
    np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=1e-9)
    Z_ref = eigenvectors[:, :k] * np.sqrt(eigenvalues[:k])
    signs = column_signs(Z, Z_ref)
    np.testing.assert_allclose(Z * signs, Z_ref, atol=1e-6 * np.abs(Z_ref).max())
    # without power iterations the range finder is visibly less accurate
    rough = KernelPCA(
        n_components=k, kernel="rbf", gamma=0.2, eigen_solver="randomized", iterated_power=0
    ).set_params(random_state=0)
    rough.fit(X)
    assert rough.iterated_power_ == 0
    assert np.abs(rough.eigenvalues_ / eigenvalues[:k] - 1).max() > 1e-3
    # k ≥ n / 10: 4 iterations
    assert (
        KernelPCA(n_components=30, kernel="rbf", gamma=0.2, eigen_solver="randomized")
        .fit(X)
        .iterated_power_
        == 4
    )


def centred_kernel_with_spectrum(spectrum, n, seed):
    """``Q diag(spectrum) Qᵀ`` with orthonormal ``Q`` orthogonal to the constant vector."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(centering_matrix(n) @ rng.standard_normal((n, len(spectrum))))
    return Q @ np.diag(spectrum) @ Q.T


def test_randomized_solver_picks_the_largest_absolute_eigenvalues():
    # an indefinite kernel, already centred: eigenvalues 5, 3, 1, -4 and zeros
    K = centred_kernel_with_spectrum([5.0, 3.0, 1.0, -4.0], n=20, seed=96)
    dense = KernelPCA(n_components=2, kernel="precomputed", eigen_solver="dense").fit(K)
    np.testing.assert_allclose(dense.eigenvalues_, [5.0, 3.0], rtol=1e-12)
    # the range finder captures 5 and -4: an error, as in scikit-learn
    randomized = KernelPCA(
        n_components=2, kernel="precomputed", eigen_solver="randomized", random_state=0
    )
    with pytest.raises(ValueError, match=r"significant negative eigenvalues .*\(-4,"):
        randomized.fit(K)
    eigenvalues, _ = kernel_pca_module.randomized_eigenpairs(K, 3, iterated_power=2, random_state=0)
    np.testing.assert_allclose(eigenvalues, [5.0, 3.0, -4.0], rtol=1e-12)


def test_remove_zero_eig_drops_the_components_of_zero_variance():
    X = make_data(40, 2, seed=10)  # linear kernel: centred rank 2
    model = KernelPCA(n_components=4, kernel="linear", remove_zero_eig=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KernelRankWarning)
        Z = model.fit_transform(X)
    assert Z.shape == (40, 2) and model.n_components_ == 2
    ref = SklearnPCA(n_components=2, svd_solver="full").fit(X)
    signs = column_signs(Z, ref.transform(X))
    np.testing.assert_allclose(Z * signs, ref.transform(X), atol=1e-10 * np.abs(Z).max())
    # without it, the two zero components stay (with a warning), as in scikit-learn
    with pytest.warns(KernelRankWarning, match="numerical rank 2"):
        assert KernelPCA(n_components=4, kernel="linear").fit_transform(X).shape == (40, 4)


def test_linear_pre_image_with_vanishing_alpha_is_the_pca_reconstruction():
    X, T = make_data(40, 5, seed=97), make_data(6, 5, seed=98)
    k = 2
    # PCA's reconstruction by hand, from the SVD of the centred data; the
    # learned pre-image regresses on the centred kernel, so it has no mean
    mean = X.mean(axis=0)
    _, _, Vt = np.linalg.svd(X - mean, full_matrices=False)
    W = Vt[:k].T
    reconstruction = (T - mean) @ W @ W.T
    # the error of the ridge is about alpha / μ_k ≈ 1e-6 / 40 here
    model = KernelPCA(n_components=k, kernel="linear", fit_inverse_transform=True, alpha=1e-6)
    model.fit(X)
    assert model.eigenvalues_[-1] > 40.0
    X_hat = model.inverse_transform(model.transform(T))
    np.testing.assert_allclose(X_hat, reconstruction, atol=1e-7 * np.abs(reconstruction).max())
    # and PCA's inverse_transform gives it too, plus the mean
    pca = PCA(n_components=k).fit(X)
    np.testing.assert_allclose(
        X_hat + mean, pca.inverse_transform(pca.transform(T)), atol=1e-7 * np.abs(X).max()
    )
    # a large alpha shrinks the pre-image: the check can fail
    shrunk = KernelPCA(n_components=k, kernel="linear", fit_inverse_transform=True, alpha=10.0)
    X_shrunk = shrunk.fit(X).inverse_transform(shrunk.transform(T))
    assert np.abs(X_shrunk - reconstruction).max() > 1e-3 * np.abs(reconstruction).max()


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "gamma": 0.3, "alpha": 0.1},
        {"kernel": "rbf", "alpha": 1.0},
        {"kernel": "poly", "degree": 2, "gamma": 0.2, "coef0": 1.0, "alpha": 0.5},
        {"kernel": "linear", "alpha": 2.0},
    ],
    ids=["rbf", "rbf-default-gamma", "poly", "linear"],
)
def test_pre_image_coefficients_solve_the_kernel_ridge_system(params):
    X, T = make_data(30, 4, seed=99), make_data(5, 4, seed=100)
    model = KernelPCA(n_components=3, fit_inverse_transform=True, **params)
    Z = model.fit_transform(X)
    np.testing.assert_array_equal(model.X_transformed_fit_, Z)
    # scikit-learn's kernel on the scores, with the fitted gamma_, built here
    kernel_params = {**params, "gamma": model.gamma_}
    K_z = sklearn_kernel(Z, Z, kernel_params)
    system = K_z + params["alpha"] * np.eye(30)
    A_ref = np.linalg.solve(system, X)
    assert model.dual_coef_.shape == (30, 4)
    residual = system @ model.dual_coef_ - X
    assert np.abs(residual).max() <= 1e-10 * np.abs(X).max()
    scale = np.abs(A_ref).max()
    np.testing.assert_allclose(model.dual_coef_, A_ref, atol=1e-8 * scale)
    # the pre-image of new scores: k(z, z_i) times the coefficients
    Z_T = model.transform(T)
    expected = sklearn_kernel(Z_T, Z, kernel_params) @ A_ref
    np.testing.assert_allclose(
        model.inverse_transform(Z_T), expected, atol=1e-8 * np.abs(expected).max()
    )


def test_inverse_transform_needs_fit_inverse_transform():
    X = make_data(30, 3, seed=101)
    model = KernelPCA(n_components=2, kernel="rbf")
    with pytest.raises(NotFittedError, match="fit_inverse_transform parameter was not set"):
        model.fit(X).inverse_transform(np.zeros((2, 2)))
    model.set_params(fit_inverse_transform=True).fit(X)
    with pytest.raises(ValueError, match=r"X has 3 columns .*n_components_ = 2"):
        model.inverse_transform(np.zeros((2, 3)))
    # a refit without it removes the pre-image
    model.set_params(fit_inverse_transform=False).fit(X)
    assert not hasattr(model, "dual_coef_") and not hasattr(model, "X_transformed_fit_")
    with pytest.raises(NotFittedError):
        model.inverse_transform(np.zeros((2, 2)))


def test_pre_image_fails_with_a_clear_error_when_the_ridge_system_is_singular():
    X = make_data(30, 3, seed=102)
    # linear kernel: K_z = Z Zᵀ has rank 2 < 30, so alpha = 0 leaves it singular
    model = KernelPCA(n_components=2, fit_inverse_transform=True, alpha=0.0)
    with pytest.raises(ValueError, match=r"not positive definite \(alpha=0.0.*Increase alpha"):
        model.fit(X)
    assert not hasattr(model, "eigenvalues_")


def sparse_data(n_samples, seed):
    X = make_data(n_samples, 6, seed=seed)
    X[np.abs(X) < 1.0] = 0.0
    return X


@pytest.mark.parametrize("container", [scipy.sparse.csr_matrix, scipy.sparse.csr_array])
@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear"},
        {"kernel": "poly", "gamma": 0.1},
        {"kernel": "rbf", "gamma": 0.1},
        {"kernel": "rbf", "gamma": 0.1, "eigen_solver": "arpack"},
        {"kernel": "rbf", "gamma": 0.1, "eigen_solver": "randomized"},
        {"kernel": "rbf", "gamma": 0.1, "approximation": "nystrom", "n_landmarks": 20},
        {"kernel": "rbf", "gamma": 0.1, "approximation": "rff", "n_random_features": 50},
        {"kernel": "rbf", "gamma": 0.1, "fit_inverse_transform": True},
    ],
    ids=["linear", "poly", "rbf", "arpack", "randomized", "nystrom", "rff", "pre-image"],
)
def test_sparse_input_gives_the_dense_fit(params, container):
    X, T = sparse_data(40, seed=103), sparse_data(5, seed=104)
    assert np.mean(X == 0) > 0.4  # premise: the data are sparse
    dense = KernelPCA(n_components=3, random_state=0, **params)
    sparse = KernelPCA(n_components=3, random_state=0, **params)
    Z, Z_sparse = dense.fit_transform(X), sparse.fit_transform(container(X))
    # the sparse route skips the shift by the mean in the RBF distances:
    # cancellation of eps (‖x‖² + ‖y‖²) ≈ 1e-14 relative here
    atol = 1e-10 * np.abs(Z).max()
    np.testing.assert_allclose(Z_sparse, Z, atol=atol)
    np.testing.assert_allclose(sparse.transform(container(T)), dense.transform(T), atol=atol)
    if params.get("fit_inverse_transform"):
        np.testing.assert_allclose(
            sparse.inverse_transform(Z), dense.inverse_transform(Z), atol=1e-8 * np.abs(X).max()
        )


@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "linear"},
        {"kernel": "rbf", "gamma": 0.3, "fit_inverse_transform": True},
        {"kernel": "rbf", "gamma": 0.3, "approximation": "nystrom", "n_landmarks": 30},
    ],
    ids=["linear", "rbf", "nystrom"],
)
def test_float32_in_float32_out_with_float64_accuracy(params):
    X = make_data(50, 4, seed=95)
    X32 = X.astype(np.float32)
    model32 = KernelPCA(n_components=3, random_state=0, **params)
    Z32 = model32.fit_transform(X32)
    assert Z32.dtype == np.float32 and model32.transform(X32).dtype == np.float32
    assert model32.transform(X).dtype == np.float64
    # pcalib computes in float64: the result is that of the float64 data rounded
    model64 = KernelPCA(n_components=3, random_state=0, **params)
    Z64_same = model64.fit_transform(X32.astype(np.float64))
    np.testing.assert_array_equal(Z32, Z64_same.astype(np.float32))
    if params.get("fit_inverse_transform"):
        assert model32.inverse_transform(Z32).dtype == np.float32
        np.testing.assert_array_equal(
            model32.inverse_transform(Z64_same.astype(np.float32)),
            model64.inverse_transform(Z64_same.astype(np.float32).astype(np.float64)).astype(
                np.float32
            ),
        )
    # against the unrounded data: rounding X to float32 perturbs it, and so the
    # kernel, by about 2⁻²⁴ relative, which moves an eigenvector by that over the
    # relative eigengap (Davis–Kahan); 10× that first-order size, plus the
    # rounding of the output
    Z = KernelPCA(n_components=3, random_state=0, **params).fit_transform(X)
    eigenvalues = KernelPCA(n_components=4, random_state=0, **params).fit(X).eigenvalues_
    relative_gap = np.min(-np.diff(eigenvalues)) / eigenvalues[0]
    tolerance = 2.0**-24 * (1 + 10 / relative_gap)
    assert tolerance < 1e-4  # premise: the gaps are not tiny, so the check can fail
    assert np.abs(Z32 - Z).max() <= tolerance * np.abs(Z).max()


# ---------------------------------------------------------------------------
# scikit-learn's remaining parameters: kernel_params, tol and max_iter of
# ARPACK, copy_X and n_jobs
# ---------------------------------------------------------------------------


def scaled_laplacian(x, y, scale=1.0, power=1.0):
    """``exp(-‖x - y‖_p^p / scale)``, a kernel with keyword parameters."""
    return math.exp(-np.sum(np.abs(x - y) ** power) / scale)


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_kernel_params_reach_the_callable_kernel(solver):
    n, k = 40, 3
    X = np.abs(make_data(n, 4, seed=130))
    T = np.abs(make_data(6, 4, seed=131))
    params = {"scale": 3.0, "power": 1.5}
    # reference: scikit-learn's pairwise_kernels with the same keyword arguments
    K_c = (
        centering_matrix(n)
        @ pairwise.pairwise_kernels(X, metric=scaled_laplacian, **params)
        @ centering_matrix(n)
    )
    eigenvalues, _ = reference_eigenpairs(K_c)
    assert np.all(relative_gaps(eigenvalues, k) > 1e-3), relative_gaps(eigenvalues, k)
    # premise: the parameters change the kernel, so ignoring them would be seen
    K_default = pairwise.pairwise_kernels(X, metric=scaled_laplacian)
    default_eigenvalues, _ = reference_eigenpairs(
        centering_matrix(n) @ K_default @ centering_matrix(n)
    )
    assert np.all(np.abs(default_eigenvalues[:k] / eigenvalues[:k] - 1) > 0.05)

    common = {"n_components": k, "kernel": scaled_laplacian, "eigen_solver": solver}
    model = KernelPCA(**common, kernel_params=params, fit_inverse_transform=True, random_state=0)
    ref = SklearnKernelPCA(
        **common, kernel_params=params, fit_inverse_transform=True, random_state=0
    )
    Z, Z_ref = model.fit_transform(X), ref.fit_transform(X)
    np.testing.assert_allclose(model.eigenvalues_, eigenvalues[:k], rtol=1e-10)
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
    scale = np.abs(Z_ref).max()
    np.testing.assert_allclose(np.abs(Z), np.abs(Z_ref), rtol=0, atol=1e-10 * scale)
    # transform and the pre-image regression (a kernel on the scores) use them too
    np.testing.assert_allclose(
        np.abs(model.transform(T)), np.abs(ref.transform(T)), rtol=0, atol=1e-10 * scale
    )
    signs = column_signs(Z, Z_ref)  # the kernel on the scores is not sign-invariant
    np.testing.assert_allclose(
        model.inverse_transform(Z), ref.inverse_transform(Z_ref * signs), rtol=0, atol=1e-9
    )


def test_kernel_params_are_passed_on_every_call_and_only_when_given():
    X = make_data(8, 2, seed=132)
    calls = []

    def recording_kernel(x, y, **kwargs):
        calls.append(kwargs)
        return float(x @ y)

    KernelPCA(n_components=2, kernel=recording_kernel).fit(X)
    assert calls and all(kwargs == {} for kwargs in calls)  # None: nothing is added
    calls.clear()
    model = KernelPCA(n_components=2, kernel=recording_kernel, kernel_params={"a": 1, "b": "x"})
    model.fit(X).transform(X[:3])
    assert calls and all(kwargs == {"a": 1, "b": "x"} for kwargs in calls)
    # an empty dict is the same as None, for a callable and for a named kernel
    for kernel in (recording_kernel, "rbf"):
        Z_none = KernelPCA(n_components=2, kernel=kernel).fit_transform(X)
        Z_empty = KernelPCA(n_components=2, kernel=kernel, kernel_params={}).fit_transform(X)
        np.testing.assert_array_equal(Z_empty, Z_none)


def test_kernel_params_with_a_named_kernel_is_refused_where_scikit_learn_ignores_it():
    X = make_data(20, 3, seed=133)
    # scikit-learn silently uses gamma=1/n_features here, not the 5.0 asked for
    ref = SklearnKernelPCA(n_components=2, kernel="rbf", kernel_params={"gamma": 5.0}).fit(X)
    default = SklearnKernelPCA(n_components=2, kernel="rbf").fit(X)
    np.testing.assert_array_equal(ref.eigenvalues_, default.eigenvalues_)
    for kernel in ("rbf", "poly", "linear", "precomputed"):
        data = X @ X.T if kernel == "precomputed" else X
        model = KernelPCA(n_components=2, kernel=kernel, kernel_params={"gamma": 5.0})
        with pytest.raises(ValueError, match=r"kernel_params=.* applies to a callable kernel"):
            model.fit(data)


def arpack_test_problem():
    """An RBF kernel of Gaussian data whose top 6 eigenvalues are 0.7 % to 9 % apart (relative).

    Returns ``X``, its centred kernel (γ = 0.1) and a start vector for scipy's ARPACK.
    """
    X = np.random.default_rng(134).standard_normal((400, 10))
    K_c = centering_matrix(400) @ pairwise.rbf_kernel(X, gamma=0.1) @ centering_matrix(400)
    return X, K_c, np.random.default_rng(1).standard_normal(400)


def test_tol_reaches_arpack():
    # ARPACK accepts a Ritz pair (μ, v) whose residual is below tol·|μ|; since
    # K̃ is symmetric, some eigenvalue lies within the residual of μ.
    X, K_c, v0 = arpack_test_problem()
    spectrum = scipy.linalg.eigvalsh(K_c)  # independent reference
    top = spectrum[::-1][:5]
    errors = {}
    for tol in (0, 1e-1, 0.5):
        model = KernelPCA(
            n_components=5, kernel="rbf", gamma=0.1, eigen_solver="arpack", tol=tol, random_state=0
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model.fit(X)
        mu = model.eigenvalues_
        distance_to_spectrum = np.abs(mu[:, np.newaxis] - spectrum[np.newaxis, :]).min(axis=1)
        assert np.all(distance_to_spectrum <= max(tol, 1e-12) * np.abs(mu))
        errors[tol] = np.abs(mu - top).max() / top[0]
    assert errors[0] < 1e-12  # tol=0: machine precision
    # a loose tol gives measurably less accurate eigenvalues, as scipy's eigsh does
    assert errors[0.5] > 1e-6 and errors[0.5] > 1e4 * errors[0]
    loose, _ = scipy.sparse.linalg.eigsh(K_c, k=5, which="LA", tol=0.5, v0=v0)
    assert np.abs(np.sort(loose)[::-1] - top).max() / top[0] > 1e-6


def test_max_iter_reaches_arpack_and_the_dense_solver_takes_over():
    X, K_c, v0 = arpack_test_problem()
    # premise: one restart is not enough for scipy's ARPACK on this problem
    with pytest.raises(scipy.sparse.linalg.ArpackNoConvergence):
        scipy.sparse.linalg.eigsh(K_c, k=5, which="LA", tol=0, maxiter=1, v0=v0)
    # scikit-learn raises it; pcalib warns and gives the dense solver's result
    params = {"n_components": 5, "kernel": "rbf", "gamma": 0.1, "random_state": 0}
    with pytest.raises(scipy.sparse.linalg.ArpackNoConvergence):
        SklearnKernelPCA(**params, eigen_solver="arpack", max_iter=1).fit(X)
    model = KernelPCA(**params, eigen_solver="arpack", max_iter=1)
    with pytest.warns(ConvergenceWarning, match=r"stopped after max_iter=1 .*dense solver"):
        Z = model.fit_transform(X)
    assert model.eigen_solver_ == "arpack"  # the solver asked for, which handed over
    dense = KernelPCA(**params, eigen_solver="dense")
    np.testing.assert_array_equal(Z, dense.fit_transform(X))
    np.testing.assert_array_equal(model.eigenvalues_, dense.eigenvalues_)
    np.testing.assert_allclose(model.eigenvalues_, scipy.linalg.eigvalsh(K_c)[::-1][:5], rtol=1e-12)
    # enough restarts: ARPACK converges, without a warning, to the same eigenvalues
    enough = KernelPCA(**params, eigen_solver="arpack", max_iter=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enough.fit(X)
    np.testing.assert_allclose(enough.eigenvalues_, dense.eigenvalues_, rtol=1e-12)
    # ARPACK reports no iteration count: no n_iter_, as in scikit-learn
    assert not hasattr(enough, "n_iter_") and not hasattr(SklearnKernelPCA(), "n_iter_")


@pytest.mark.parametrize(
    "solver",
    [
        {"eigen_solver": "dense"},
        {"eigen_solver": "randomized"},
        {"approximation": "nystrom", "n_landmarks": 30},
        {"approximation": "rff"},
    ],
    ids=["dense", "randomized", "nystrom", "rff"],
)
def test_tol_and_max_iter_do_not_change_the_other_solvers(solver):
    X = make_data(60, 3, seed=135)
    params = {"n_components": 2, "kernel": "rbf", "gamma": 0.3, "random_state": 0, **solver}
    Z = KernelPCA(**params).fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Z_arpack_settings = KernelPCA(**params, tol=0.5, max_iter=1).fit_transform(X)
    np.testing.assert_array_equal(Z_arpack_settings, Z)


@pytest.mark.parametrize(
    "make_X",
    [
        lambda X: X,
        lambda X: scipy.sparse.csr_matrix(X),
        lambda X: scipy.sparse.csr_array(X),
    ],
    ids=["array", "csr_matrix", "csr_array"],
)
def test_copy_X_false_keeps_a_reference_as_sklearn(make_X):
    X = make_X(make_data(30, 3, seed=136))
    T = make_data(5, 3, seed=137)
    before = X.copy()
    model = KernelPCA(n_components=2, kernel="rbf", gamma=0.3, copy_X=False).fit(X)
    ref = SklearnKernelPCA(n_components=2, kernel="rbf", gamma=0.3, copy_X=False).fit(X)
    assert model.X_fit_ is X and ref.X_fit_ is X
    copied = KernelPCA(n_components=2, kernel="rbf", gamma=0.3).fit(X)
    assert copied.X_fit_ is not X
    # pcalib does not modify X; later changes to X reach transform, as in scikit-learn
    assert (abs(X - before)).max() == 0
    Z_T = model.transform(T)
    np.testing.assert_array_equal(copied.transform(T), Z_T)
    if scipy.sparse.issparse(X):
        X.data *= 2.0
    else:
        X *= 2.0
    assert np.abs(model.transform(T) - Z_T).max() > 1e-3
    np.testing.assert_array_equal(copied.transform(T), Z_T)


def test_copy_X_false_with_a_conversion_or_a_precomputed_kernel():
    X = make_data(30, 3, seed=138)
    # float32 (or a list, or a Fortran-ordered array) is converted: the conversion is kept
    X32 = X.astype(np.float32)
    model = KernelPCA(n_components=2, copy_X=False).fit(X32)
    assert model.X_fit_.dtype == np.float64 and not np.shares_memory(model.X_fit_, X32)
    np.testing.assert_array_equal(model.X_fit_, X32.astype(np.float64))
    # an exactly symmetric kernel matrix is kept as given; a skewed one by its symmetric part
    K = pairwise.rbf_kernel(X, gamma=0.5)
    K = (K + K.T) / 2  # exactly symmetric: a + b = b + a in floating point
    assert KernelPCA(n_components=2, kernel="precomputed", copy_X=False).fit(K).X_fit_ is K
    assert KernelPCA(n_components=2, kernel="precomputed").fit(K).X_fit_ is not K
    E = np.triu(np.full_like(K, 1e-3), 1)
    K_skewed = K + E - E.T
    with pytest.warns(UserWarning, match="not symmetric"):
        skewed = KernelPCA(n_components=2, kernel="precomputed", copy_X=False).fit(K_skewed)
    np.testing.assert_array_equal(skewed.X_fit_, (K_skewed + K_skewed.T) / 2)


@pytest.mark.parametrize("n_jobs", [1, 2, -1])
@pytest.mark.parametrize("kernel", ["rbf", laplacian], ids=["rbf", "laplacian"])
def test_n_jobs_is_accepted_and_changes_nothing(kernel, n_jobs):
    X, T = np.abs(make_data(30, 3, seed=139)), np.abs(make_data(5, 3, seed=140))
    model = KernelPCA(n_components=2, kernel=kernel, n_jobs=n_jobs).fit(X)
    default = KernelPCA(n_components=2, kernel=kernel).fit(X)
    np.testing.assert_array_equal(model.transform(T), default.transform(T))
    ref = SklearnKernelPCA(n_components=2, kernel=kernel, n_jobs=n_jobs).fit(X)
    np.testing.assert_allclose(model.eigenvalues_, ref.eigenvalues_, rtol=1e-10)
