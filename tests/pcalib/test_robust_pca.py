"""Tests of :mod:`pcalib.robust_pca` (chapter 7): principal component pursuit and L1 factorisation.

Expected values come from independent sources only: the definitions of the
proximal operators minimised by brute force (``scipy.optimize.minimize`` from
several starts, fine grids, random perturbations, and the strong-convexity
bound ``f(X) - f(X*) ≥ (c/2)‖X - X*‖²_F`` that any minimiser of a
``c``-strongly convex function satisfies), singular-value thresholding and
Lin, Chen and Ma's inexact augmented Lagrangian iterations written out here
with NumPy's full SVD, the planted low-rank ``L`` and sparse ``S`` that
generated the data, ``scipy.linalg.subspace_angles``, L1 regression as a
linear programme solved by ``scipy.optimize.linprog`` (HiGHS),
``np.linalg.lstsq`` with square-root weights, scikit-learn's ``PCA``, SciPy's
SLSQP on a smooth constrained form of the joint sparse-and-noise step, and an
accelerated proximal-gradient (FISTA) solver of the penalised form of stable
principal component pursuit written out here.
None of them is produced by pcalib itself.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.linalg
import scipy.optimize
from helpers import assert_scaled
from sklearn.base import clone
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import pcalib._linalg
from pcalib import FactorizationResult, RobustPCA, l1_low_rank, soft_threshold
from pcalib._linalg import TRUNCATED_SVD_SHARE, thresholded_svd
from pcalib.datasets import make_low_rank_plus_sparse
from pcalib.robust_pca import (
    default_lambda,
    irls_weights,
    predict_rank,
    singular_value_threshold,
    sparse_and_noise_step,
    sparse_and_noise_sum,
    weighted_row_fits,
)

pytestmark = pytest.mark.usefixtures("single_threaded_blas")


# ---------------------------------------------------------------------------
# Independent references and helpers
# ---------------------------------------------------------------------------


def nuclear_norm(X):
    """``‖X‖_*``: the sum of NumPy's singular values."""
    return np.linalg.svd(X, compute_uv=False).sum()


def reference_svt(M, tau):
    """``U max(Σ - τ, 0) Vᵀ`` from NumPy's full SVD."""
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    return (U * np.maximum(s - tau, 0.0)) @ Vt


def reference_shrink(M, tau):
    """Entrywise soft thresholding written as ``M - clip(M, -τ, τ)``."""
    return M - np.clip(M, -tau, tau)


def svt_objective(X, M, tau):
    """``τ‖X‖_* + ½‖X - M‖²_F``."""
    return tau * nuclear_norm(X) + 0.5 * np.sum((X - M) ** 2)


def shrink_objective(X, M, tau):
    """``τ‖X‖₁ + ½‖X - M‖²_F`` (entrywise L1 norm)."""
    return tau * np.abs(X).sum() + 0.5 * np.sum((X - M) ** 2)


def augmented_lagrangian(L, S, Y, mu, M, lam):
    """``ℓ = ‖L‖_* + λ‖S‖₁ + ⟨Y, M - L - S⟩ + (μ/2)‖M - L - S‖²_F``."""
    R = M - L - S
    return nuclear_norm(L) + lam * np.abs(S).sum() + np.sum(Y * R) + 0.5 * mu * np.sum(R**2)


def brute_force_minima(objective, shape, rng, n_starts=3, n_restarts=4):
    """Minima of ``objective`` over matrices of ``shape`` found by Nelder–Mead from random starts.

    Derivative-free, so the kinks of ``‖·‖_*`` and ``‖·‖₁`` are no obstacle to
    running it; it can stall near a kink, which restarting from its own result
    (``n_restarts`` times) remedies. Returns the objective values found.
    """
    found = []
    for _ in range(n_starts):
        x = 2.0 * rng.standard_normal(int(np.prod(shape)))
        for _ in range(n_restarts):
            res = scipy.optimize.minimize(
                lambda v: objective(v.reshape(shape)),
                x,
                method="Nelder-Mead",
                options=dict(xatol=1e-10, fatol=1e-14, maxfev=3000, adaptive=True),
            )
            x = res.x
        found.append(res.fun)
    return np.array(found)


def planted_problem(n, rank, fraction, seed, shape=None):
    """``M, L, S, support`` of ``make_low_rank_plus_sparse``, ``n × n`` or of ``shape``.

    ``S`` is supported on a uniformly random ``fraction`` of the entries, with
    magnitudes uniform in ``[5, 10]·max|L|`` and random signs.
    """
    n1, n2 = (n, n) if shape is None else shape
    return make_low_rank_plus_sparse(n1, n2, rank, sparsity=fraction, random_state=seed)


def reference_ialm(M, *, lam, rho=1.5, tol=1e-7, max_iter=500, S_start=None):
    """Lin, Chen and Ma's inexact ALM (their Algorithm 5 and code), with NumPy's full SVD.

    ``Y₀ = M / J(M)``, ``J(M) = max(‖M‖₂, ‖M‖_∞/λ)``; ``μ₀ = 1.25/‖M‖₂``, capped
    at ``10⁷ μ₀``; ``S₀ = shrink_{λ/μ₀}(M + Y₀/μ₀)``, the S-step from ``L = 0`` with
    which their code's loop begins. Each iteration: ``L = D_{1/μ}(M - S + Y/μ)``,
    ``S = shrink_{λ/μ}(M - L + Y/μ)``, ``Y += μ(M - L - S)``, ``μ = min(ρμ, μ̄)``;
    stop when ``‖M - L - S‖_F/‖M‖_F < tol``. The history starts with the residual
    of ``(0, S₀)``. ``S_start`` replaces that ``S₀`` (for instance by 0).
    """
    norm_two = np.linalg.norm(M, 2)
    norm_fro = np.linalg.norm(M)
    Y = M / max(norm_two, np.abs(M).max() / lam)
    mu = 1.25 / norm_two
    mu_bar = 1e7 * mu
    S = reference_shrink(M + Y / mu, lam / mu) if S_start is None else S_start
    history = [np.linalg.norm(M - S) / norm_fro]
    for _ in range(max_iter):
        L = reference_svt(M - S + Y / mu, 1.0 / mu)
        S = reference_shrink(M - L + Y / mu, lam / mu)
        R = M - L - S
        Y = Y + mu * R
        mu = min(rho * mu, mu_bar)
        history.append(np.linalg.norm(R) / norm_fro)
        if history[-1] < tol:
            break
    return L, S, mu, np.array(history)


def start_sparse(M, lam):
    """The start ``S₀ = shrink_{λ/μ₀}(M + Y₀/μ₀)``, ``μ₀ = 1.25/‖M‖₂``, ``Y₀ = M/J(M)``."""
    norm_two = np.linalg.norm(M, 2)
    mu = 1.25 / norm_two
    Y = M / max(norm_two, np.abs(M).max() / lam)
    return reference_shrink(M + Y / mu, lam / mu)


def start_residual(M, lam):
    """``‖M - S₀‖_F / ‖M‖_F`` for the start ``L = 0``, ``S₀`` of :func:`start_sparse`."""
    return np.linalg.norm(M - start_sparse(M, lam)) / np.linalg.norm(M)


def l1_regression_lp(x, V):
    """``argmin_z ‖x - Vᵀ z‖₁`` as a linear programme: minimise ``Σ t`` s.t. ``|x - Vᵀz| ≤ t``."""
    k, d = V.shape
    c = np.r_[np.zeros(k), np.ones(d)]
    A = np.block([[-V.T, -np.eye(d)], [V.T, -np.eye(d)]])
    b = np.r_[-x, x]
    res = scipy.optimize.linprog(
        c, A_ub=A, b_ub=b, bounds=[(None, None)] * k + [(0, None)] * d, method="highs"
    )
    assert res.status == 0
    return res.x[:k], res.fun


def largest_angle(A, B):
    """Largest principal angle between the column spaces of ``A`` and ``B`` (SciPy)."""
    return scipy.linalg.subspace_angles(A, B).max()


def l1_factor_data(n, d, k, fraction, seed, noise=0.0):
    """``X = 1 mᵀ + Z Wᵀ (+ noise) + O``, ``W`` orthonormal, ``O`` gross outliers.

    The outliers hit a random ``fraction`` of the entries (magnitudes 20 to 40,
    random signs). Returns ``X, W``.
    """
    rng = np.random.default_rng(seed)
    W = np.linalg.qr(rng.standard_normal((d, k)))[0]
    X = rng.uniform(-2.0, 2.0, d) + 3.0 * rng.standard_normal((n, k)) @ W.T
    X = X + noise * rng.standard_normal((n, d))
    support = rng.random((n, d)) < fraction
    count = int(support.sum())
    X[support] += rng.choice([-1.0, 1.0], count) * rng.uniform(20.0, 40.0, count)
    return X, W


# Shared fits on the planted problems of section 3 (rank 0.05 n, 5 % corrupted).
RECOVERY_SIZES = (200, 400)
SVD_SOLVERS = ("full", "auto", "randomized")


def recovery_problems():
    """``(n, rank, M, L, S, support)`` for each of the :data:`RECOVERY_SIZES`."""
    for n in RECOVERY_SIZES:
        rank = round(0.05 * n)
        yield (n, rank, *planted_problem(n, rank, 0.05, seed=n))


@pytest.fixture(scope="module")
def recovery():
    """``{n: (M, L, S, support, rank, {svd_solver: fitted model})}``."""
    out = {}
    for n, rank, M, L, S, support in recovery_problems():
        models = {
            svd_solver: RobustPCA(svd_solver=svd_solver, random_state=0).fit(M)
            for svd_solver in SVD_SOLVERS
        }
        out[n] = (M, L, S, support, rank, models)
    return out


# ---------------------------------------------------------------------------
# 1. Singular-value thresholding is the proximal operator of τ‖·‖_*
# ---------------------------------------------------------------------------

SVT_CASES = [((3, 2), "between"), ((2, 2), "between"), ((2, 3), "below"), ((3, 2), "above")]


def svt_case(shape, where, seed=0):
    """A small ``M`` and a ``τ`` between, below or above its singular values."""
    M = np.random.default_rng(seed + shape[0] * 10 + shape[1]).standard_normal(shape)
    s = np.linalg.svd(M, compute_uv=False)
    tau = {"between": 0.5 * (s[0] + s[1]), "below": 0.5 * s[-1], "above": 1.2 * s[0]}[where]
    return M, tau, s


@pytest.mark.parametrize("shape, where", SVT_CASES, ids=str)
def test_svt_is_not_beaten_by_brute_force_minimisation(shape, where):
    M, tau, s = svt_case(shape, where)
    D, rank, svds = singular_value_threshold(M, tau)
    assert rank == int(np.sum(s > tau)) and svds == ["full"]
    f_D = svt_objective(D, M, tau)
    found = brute_force_minima(lambda X: svt_objective(X, M, tau), shape, np.random.default_rng(1))
    # no start finds a lower objective (up to rounding of the objective itself)
    assert found.min() >= f_D - 1e-13 * (1 + f_D)
    # and the best value found is close: Nelder–Mead stops ~1e-6 short of the
    # minimum near the kink of ‖·‖_* at rank-deficient points
    assert found.min() <= f_D + 1e-6


@pytest.mark.parametrize("shape, where", SVT_CASES, ids=str)
def test_svt_satisfies_the_strong_convexity_bound_against_perturbations(shape, where):
    # f = τ‖·‖_* + ½‖· - M‖² is 1-strongly convex: X* minimises it iff
    # f(X* + E) - f(X*) ≥ ½‖E‖² for every E (and then no other point is lower)
    M, tau, _ = svt_case(shape, where)
    D, _, _ = singular_value_threshold(M, tau)
    f_D = svt_objective(D, M, tau)
    rng = np.random.default_rng(2)
    U, _, Vt = np.linalg.svd(M)
    for scale in (1e-6, 1e-4, 1e-2, 1.0):
        for _ in range(50):
            E = scale * rng.standard_normal(shape)
            gain = svt_objective(D + E, M, tau) - f_D
            assert gain >= 0.5 * np.sum(E**2) - 1e-13 * (1 + f_D)
        # rank-one moves along the singular directions (the kink of ‖·‖_*)
        for i in range(min(shape)):
            for sign in (-1.0, 1.0):
                E = sign * scale * np.outer(U[:, i], Vt[i])
                gain = svt_objective(D + E, M, tau) - f_D
                assert gain >= 0.5 * np.sum(E**2) - 1e-13 * (1 + f_D)


def test_svt_equals_the_numpy_formula_and_its_limits():
    rng = np.random.default_rng(3)
    M = rng.standard_normal((30, 20)) @ np.diag(np.linspace(3, 0.1, 20))
    s = np.linalg.svd(M, compute_uv=False)
    for tau in (0.3, 1.0, 0.5 * (s[4] + s[5])):
        L, rank, svds = singular_value_threshold(M, tau)
        np.testing.assert_allclose(L, reference_svt(M, tau), atol=1e-13 * s[0])
        assert rank == int(np.sum(s > tau)) and svds == ["full"]
        np.testing.assert_allclose(
            np.linalg.svd(L, compute_uv=False)[:rank], s[:rank] - tau, rtol=1e-12
        )
    L, rank, _ = singular_value_threshold(M, 0.0)
    np.testing.assert_allclose(L, M, atol=1e-13 * s[0])
    assert rank == 20
    L, rank, _ = singular_value_threshold(M, 1.01 * s[0])
    assert rank == 0 and L.shape == M.shape and not L.any()


def test_svt_subgradient_optimality_condition():
    # (M - D)/τ ∈ ∂‖D‖_*: equal to U_r V_rᵀ on the kept directions, spectral norm ≤ 1
    rng = np.random.default_rng(4)
    M = rng.standard_normal((8, 6))
    s = np.linalg.svd(M, compute_uv=False)
    tau = 0.5 * (s[2] + s[3])
    D, rank, _ = singular_value_threshold(M, tau)
    U, _, Vt = np.linalg.svd(M)
    G = (M - D) / tau
    assert rank == 3
    np.testing.assert_allclose(U[:, :3].T @ G @ Vt[:3].T, np.eye(3), atol=1e-12)
    assert np.linalg.norm(G, 2) <= 1 + 1e-12


# ---------------------------------------------------------------------------
# 2. Soft thresholding is the proximal operator of τ‖·‖₁
# ---------------------------------------------------------------------------


def test_soft_threshold_minimises_the_scalar_objective_on_a_grid():
    tau = 0.7
    values = np.array([-3.1, -0.7, -0.69, -0.2, 0.0, 0.35, 0.7, 0.71, 2.4])
    grid = np.linspace(-4.0, 4.0, 800_001)  # step 1e-5
    shrunk = soft_threshold(values, tau)
    for m, x_star in zip(values, shrunk, strict=True):
        f_grid = tau * np.abs(grid) + 0.5 * (grid - m) ** 2
        f_star = tau * abs(x_star) + 0.5 * (x_star - m) ** 2
        assert f_star <= f_grid.min() + 1e-15
        assert abs(grid[np.argmin(f_grid)] - x_star) <= 1e-5  # the grid step
        # and a bounded scalar minimiser agrees
        res = scipy.optimize.minimize_scalar(
            lambda x, m=m: tau * abs(x) + 0.5 * (x - m) ** 2,
            bounds=(-5, 5),
            method="bounded",
            options=dict(xatol=1e-12),
        )
        assert f_star <= res.fun + 1e-15
    np.testing.assert_array_equal(shrunk, reference_shrink(values, tau))


def test_soft_threshold_of_a_matrix_against_brute_force_and_perturbations():
    rng = np.random.default_rng(5)
    M = rng.standard_normal((3, 2))
    tau = 0.6
    X = soft_threshold(M, tau)
    np.testing.assert_array_equal(X, reference_shrink(M, tau))
    assert np.all(X[np.abs(M) <= tau] == 0)
    f_X = shrink_objective(X, M, tau)
    found = brute_force_minima(
        lambda Z: shrink_objective(Z, M, tau), M.shape, np.random.default_rng(6)
    )
    assert found.min() >= f_X - 1e-14
    # 1-strongly convex: every perturbation raises the objective by ≥ ½‖E‖²
    for scale in (1e-6, 1e-3, 1.0):
        for _ in range(100):
            E = scale * rng.standard_normal(M.shape)
            assert shrink_objective(X + E, M, tau) - f_X >= 0.5 * np.sum(E**2) - 1e-14


# ---------------------------------------------------------------------------
# 3. The thresholds of the L and S steps follow from the augmented Lagrangian
# ---------------------------------------------------------------------------


def lagrangian_instance(seed):
    """``M, S, Y, L`` (3 × 2) and ``μ = 3``, ``λ = 1/√3``.

    Scaled so that the singular values of ``M - S + Y/μ`` lie between ``1/μ`` and
    ``μ`` and the two thresholds act differently.
    """
    rng = np.random.default_rng(seed)
    M = 1.5 * rng.standard_normal((3, 2))
    S = 0.5 * rng.standard_normal((3, 2))
    Y = rng.standard_normal((3, 2))
    L = rng.standard_normal((3, 2))
    return M, S, Y, L, 3.0, 1.0 / np.sqrt(3.0)


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_L_step_is_svt_at_one_over_mu(seed):
    M, S, Y, _, mu, lam = lagrangian_instance(seed)

    def ell(L):
        return augmented_lagrangian(L, S, Y, mu, M, lam)

    target = M - S + Y / mu
    L_star, _, _ = singular_value_threshold(target, 1.0 / mu)
    np.testing.assert_allclose(L_star, reference_svt(target, 1.0 / mu), atol=1e-14)
    found = brute_force_minima(ell, M.shape, np.random.default_rng(seed))
    assert found.min() >= ell(L_star) - 1e-13 * (1 + abs(ell(L_star)))
    # ℓ is μ-strongly convex in L: a minimiser gains ≥ (μ/2)‖E‖² under any move E
    rng = np.random.default_rng(seed + 100)
    for scale in (1e-5, 1e-2, 1.0):
        for _ in range(30):
            E = scale * rng.standard_normal(M.shape)
            assert ell(L_star + E) - ell(L_star) >= 0.5 * mu * np.sum(E**2) - 1e-12
    # the circulated wrong threshold μ (instead of 1/μ) gives a different L and a larger ℓ
    L_wrong = reference_svt(target, mu)
    gap = 0.5 * mu * np.sum((L_wrong - L_star) ** 2)
    assert gap > 0.1
    assert ell(L_wrong) - ell(L_star) >= gap - 1e-12


@pytest.mark.parametrize("seed", [7, 8, 9])
def test_S_step_is_soft_thresholding_at_lambda_over_mu(seed):
    M, _, Y, L, mu, lam = lagrangian_instance(seed)

    def ell(S):
        return augmented_lagrangian(L, S, Y, mu, M, lam)

    target = M - L + Y / mu
    S_star = soft_threshold(target, lam / mu)
    # ℓ is separable in the entries of S: minimise each on a grid of step 1e-5
    grid = np.linspace(-8.0, 8.0, 1_600_001)
    for i, j in np.ndindex(target.shape):
        # the entry's part of ℓ: λ|s| - Y_ij s + (μ/2)(M_ij - L_ij - s)², up to constants
        f = lam * np.abs(grid) - Y[i, j] * grid + 0.5 * mu * (M[i, j] - L[i, j] - grid) ** 2
        assert abs(grid[np.argmin(f)] - S_star[i, j]) <= 1e-5
    found = brute_force_minima(ell, M.shape, np.random.default_rng(seed))
    assert found.min() >= ell(S_star) - 1e-13 * (1 + abs(ell(S_star)))
    rng = np.random.default_rng(seed + 200)
    for scale in (1e-5, 1e-2, 1.0):
        for _ in range(30):
            E = scale * rng.standard_normal(M.shape)
            assert ell(S_star + E) - ell(S_star) >= 0.5 * mu * np.sum(E**2) - 1e-12
    # the circulated wrong threshold λμ (instead of λ/μ) gives a different S and a larger ℓ
    S_wrong = soft_threshold(target, lam * mu)
    gap = 0.5 * mu * np.sum((S_wrong - S_star) ** 2)
    assert gap > 0.1
    assert ell(S_wrong) - ell(S_star) >= gap - 1e-12


@pytest.mark.parametrize("shape", [(60, 40), (35, 70)], ids=str)
def test_fit_follows_the_reference_inexact_alm(shape):
    M, L_true, _, _ = planted_problem(None, 3, 0.05, seed=10, shape=shape)
    lam = default_lambda(shape)
    L, S, mu, history = reference_ialm(M, lam=lam)
    model = RobustPCA(svd_solver="full").fit(M)
    assert model.n_iter_ == len(history) - 1 and model.n_svd_ == model.n_iter_
    assert model.svd_solver_ == "full"
    # the same operations in another order (M + Y/μ - S vs M - S + Y/μ, SciPy vs NumPy
    # SVD): equal to rounding; the residuals shrink to 1e-7, hence relative 1e-8 there.
    np.testing.assert_allclose(model.residual_history_, history, rtol=1e-8)
    np.testing.assert_allclose(model.low_rank_, L, atol=1e-13 * np.abs(M).max())
    np.testing.assert_allclose(model.sparse_, S, atol=1e-13 * np.abs(M).max())
    np.testing.assert_allclose(model.mu_, mu, rtol=1e-14)
    np.testing.assert_allclose(
        model.mu_, 1.25 / np.linalg.norm(M, 2) * 1.5**model.n_iter_, rtol=1e-12
    )
    assert model.l1_penalty_ == lam
    # and the result is the planted L (the problem is well inside the recovery region)
    assert np.linalg.norm(model.low_rank_ - L_true) / np.linalg.norm(L_true) < 1e-5


# ---------------------------------------------------------------------------
# 4. Truncated (randomized) thresholding equals the full one
# ---------------------------------------------------------------------------


def low_rank_plus_small(shape, spectrum, tail, seed):
    """``U diag(spectrum) Vᵀ`` plus a full-rank tail of spectral norm ``tail``."""
    rng = np.random.default_rng(seed)
    k = len(spectrum)
    U = np.linalg.qr(rng.standard_normal((shape[0], k)))[0]
    V = np.linalg.qr(rng.standard_normal((shape[1], k)))[0]
    N = rng.standard_normal(shape)
    return (U * spectrum) @ V.T + tail * N / np.linalg.norm(N, 2)


def expected_svds(guess, rank, limit):
    """The SVDs the documented rule computes, ``"randomized"`` or ``"full"``, in order.

    Randomized SVDs of width g, 2g, 4g, ... until one computes a value at or below
    τ (width > rank), or a full SVD once the width reaches the limit.
    """
    if guess is None or guess >= limit:
        return ["full"]
    svds, k = [], guess
    while k < limit:
        svds.append("randomized")
        if k > rank:
            return svds
        k *= 2
    return [*svds, "full"]


@pytest.mark.parametrize("guess", [None, 1, 2, 3, 8, 9, 16, 24, 25, 60])
def test_svt_with_a_rank_guess_equals_the_full_svd(guess):
    shape = (120, 100)
    limit = TRUNCATED_SVD_SHARE * min(shape)
    spectrum = np.geomspace(50.0, 2.0, 8)  # 8 values above τ = 1, the tail below 1e-3
    M = low_rank_plus_small(shape, spectrum, 1e-3, seed=11)
    tau = 1.0
    L, rank, svds = singular_value_threshold(M, tau, rank_guess=guess, random_state=0)
    assert rank == 8 and svds == expected_svds(guess, 8, limit)
    # with 2 power iterations the randomized range misses the tail by (1e-3/2)^5 relatively
    np.testing.assert_allclose(L, reference_svt(M, tau), atol=1e-12 * spectrum[0])


def test_svt_rank_guess_too_small_doubles_up_to_the_full_svd():
    # 20 values above τ with a limit of 25: widths 2, 4, 8, 16 fail, 32 ≥ 25 → full SVD
    shape = (120, 100)
    M = low_rank_plus_small(shape, np.geomspace(40.0, 2.0, 20), 1e-3, seed=12)
    L, rank, svds = singular_value_threshold(M, 1.0, rank_guess=2, random_state=0)
    assert expected_svds(2, 20, TRUNCATED_SVD_SHARE * 100) == ["randomized"] * 4 + ["full"]
    assert rank == 20 and svds == ["randomized"] * 4 + ["full"]
    np.testing.assert_allclose(L, reference_svt(M, 1.0), atol=1e-12 * 40)


def right_singular_vectors(M, k):
    """The top ``k`` right singular vectors of ``M`` (rows), from NumPy's full SVD."""
    return np.linalg.svd(M, full_matrices=False)[2][:k]


@pytest.mark.parametrize("tail, eps", [(1e-3, 0.0), (1e-3, 1e-2), (1e-1, 1e-4)])
def test_svt_from_a_nearby_start_is_accurate_to_first_order_in_its_angle(tail, eps):
    # start: the top right singular vectors of M + eps N (the previous iteration's matrix).
    # The start columns get no power iteration, so D_τ(M) is off by at most about
    # ‖tail‖₂ sin θ, θ the largest angle between the start and the top 8 right singular
    # vectors of M (measured: 0.2 to 0.3 times that), down to rounding for an exact start
    shape = (120, 100)
    M = low_rank_plus_small(shape, np.geomspace(50.0, 2.0, 8), tail, seed=11)
    nearby = M + eps * np.random.default_rng(5).standard_normal(shape)
    start = right_singular_vectors(nearby, 8)
    sin_angle = np.sin(scipy.linalg.subspace_angles(start.T, right_singular_vectors(M, 8).T))
    U, shrunk, Vt, svds = thresholded_svd(M, 1.0, rank_guess=9, start=start, random_state=0)
    assert svds == ["randomized"] and shrunk.size == 8
    error = np.linalg.norm((U * shrunk) @ Vt - reference_svt(M, 1.0), 2)
    assert error <= max(tail * sin_angle.max(), 1e-12 * 50.0)


def spectrum_outside_a_start(new_value, tail, n_tail, seed):
    """``M = U diag(σ) Vᵀ``: 8 values from 50 to 5, ``new_value``, then ``n_tail`` at ``tail``.

    Returns ``M``, ``σ`` and the top 8 right singular vectors (rows), which lack the
    direction of ``new_value``.
    """
    rng = np.random.default_rng(seed)
    width = 9 + n_tail
    U = np.linalg.qr(rng.standard_normal((400, width)))[0]
    V = np.linalg.qr(rng.standard_normal((300, width)))[0]
    spectrum = np.concatenate([np.geomspace(50.0, 5.0, 8), [new_value], np.full(n_tail, tail)])
    return (U * spectrum) @ V.T, spectrum, V[:, :8].T


def test_svt_from_a_start_finds_a_value_above_tau_it_lacks():
    M, spectrum, start = spectrum_outside_a_start(3.0, 1e-3, 100, seed=21)
    U, shrunk, Vt, svds = thresholded_svd(M, 1.0, rank_guess=10, start=start, random_state=0)
    assert svds == ["randomized"] and shrunk.size == 9
    np.testing.assert_allclose(shrunk, np.sort(spectrum[:9])[::-1] - 1.0, rtol=1e-12)
    np.testing.assert_allclose((U * shrunk) @ Vt, reference_svt(M, 1.0), atol=1e-12 * 50.0)


def test_svt_from_a_start_counts_a_value_above_a_heavy_tail():
    # the fit's case: the rank settled at 8, so the guess is 9; a 9th value 1.5 outside the
    # start, above 150 values at 0.9 (τ = 1). The random columns, sharpened by the power
    # iterations, must find it so that the doubling test sees it (without the power
    # iterations they miss it for 5 of these 20 seeds)
    for seed in range(20):
        M, _, start = spectrum_outside_a_start(1.5, 0.9, 150, seed=seed)
        _, shrunk, _, svds = thresholded_svd(M, 1.0, rank_guess=9, start=start, random_state=0)
        assert svds == ["randomized", "randomized"] and shrunk.size == 9


def test_svt_from_a_start_doubles_from_random_vectors(monkeypatch):
    # 20 values above τ, start with 8 of them, guess 9: the doubled width 18 starts from
    # random vectors (one randomized_svd call, 2 power iterations), then 36 ≥ 25 → full SVD
    shape = (120, 100)
    M = low_rank_plus_small(shape, np.geomspace(40.0, 2.0, 20), 1e-3, seed=12)
    calls = count_randomized_svds(monkeypatch)
    U, shrunk, Vt, svds = thresholded_svd(
        M, 1.0, rank_guess=9, start=right_singular_vectors(M, 8), random_state=0
    )
    assert svds == ["randomized", "randomized", "full"] and calls == [2]
    assert shrunk.size == 20
    np.testing.assert_allclose((U * shrunk) @ Vt, reference_svt(M, 1.0), atol=1e-12 * 40)


def test_fit_starts_the_svds_from_the_singular_vectors_once_the_rank_settles(monkeypatch):
    M, L, _, support = planted_problem(200, 10, 0.05, seed=6)
    starts = []
    original = pcalib._linalg.warm_randomized_svd

    def recording(M, k, start, **kwargs):
        starts.append(start.shape[0])
        return original(M, k, start, **kwargs)

    monkeypatch.setattr(pcalib._linalg, "warm_randomized_svd", recording)
    model = RobustPCA(svd_solver="randomized", random_state=0).fit(M)
    # the rank reaches 10 within the first few iterations and stays there
    assert model.rank_ == 10 and len(starts) >= model.n_iter_ - 5 and set(starts) == {10}
    full = RobustPCA(svd_solver="full", random_state=0).fit(M)
    np.testing.assert_allclose(model.low_rank_, full.low_rank_, atol=1e-5 * np.abs(L).max())
    assert np.linalg.norm(model.low_rank_ - L) <= 1e-6 * np.linalg.norm(L)
    np.testing.assert_array_equal(model.sparse_ != 0, support)


def test_predict_rank_follows_lin_chen_ma():
    # kept fewer than computed: one more than kept; else grow by 5 % of n_min (at least 1)
    assert predict_rank(3, 10, 200) == 4
    assert predict_rank(10, 10, 200) == 20
    assert predict_rank(10, 10, 10) == 10
    assert predict_rank(5, 5, 15) == 6
    assert predict_rank(199, 200, 200) == 200


def test_default_lambda():
    assert default_lambda((30, 50)) == 1.0 / np.sqrt(50)
    assert default_lambda((400, 9)) == 1.0 / np.sqrt(400)


# ---------------------------------------------------------------------------
# 5. Exact recovery of planted low-rank + sparse matrices
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", RECOVERY_SIZES)
@pytest.mark.parametrize("svd_solver", SVD_SOLVERS)
def test_exact_recovery_of_the_planted_decomposition(recovery, n, svd_solver):
    M, L, S, support, rank, models = recovery[n]
    model = models[svd_solver]
    assert model.converged_ and model.n_iter_ <= 50
    assert np.linalg.norm(model.low_rank_ - L) / np.linalg.norm(L) < 1e-5
    assert model.rank_ == rank
    np.testing.assert_array_equal(model.sparse_ != 0, support)
    assert np.linalg.norm(model.sparse_ - S) / np.linalg.norm(S) < 1e-5
    history = model.residual_history_
    assert history.shape == (model.n_iter_ + 1,) and history[-1] < model.tol
    np.testing.assert_allclose(history[0], start_residual(M, model.l1_penalty_), rtol=1e-10)
    assert np.all(history[:-1] >= model.tol)
    # the last entry is the residual of the returned L and S
    np.testing.assert_allclose(
        history[-1],
        np.linalg.norm(M - model.low_rank_ - model.sparse_) / np.linalg.norm(M),
        rtol=1e-8,
    )
    assert model.l1_penalty_ == 1.0 / np.sqrt(n)
    if svd_solver == "full":
        assert model.n_svd_ == model.n_iter_ and model.svd_solver_ == "full"
    else:
        # n ≥ 100: "auto" is "randomized", and the predicted ranks are small
        assert model.n_svd_ >= model.n_iter_ and model.svd_solver_ == "randomized"


@pytest.mark.parametrize("n", RECOVERY_SIZES)
def test_svd_modes_agree(recovery, n):
    M, _, _, _, _, models = recovery[n]
    full = models["full"]
    for svd_solver in ("auto", "randomized"):
        other = models[svd_solver]
        assert other.rank_ == full.rank_
        # both stop at ‖M - L - S‖ < 1e-7 ‖M‖, so each is only that accurate
        assert np.linalg.norm(other.low_rank_ - full.low_rank_) / np.linalg.norm(M) < 1e-6
        assert np.linalg.norm(other.sparse_ - full.sparse_) / np.linalg.norm(M) < 1e-6
        np.testing.assert_array_equal(other.sparse_ != 0, full.sparse_ != 0)


@pytest.mark.parametrize("n", RECOVERY_SIZES)
def test_components_are_an_orthonormal_basis_of_the_row_space(recovery, n):
    _, L, _, _, rank, models = recovery[n]
    model = models["auto"]
    V = model.components_
    assert V.shape == (rank, n)
    np.testing.assert_allclose(V @ V.T, np.eye(rank), atol=1e-12)
    L_hat = model.low_rank_
    np.testing.assert_allclose(L_hat - L_hat @ V.T @ V, 0, atol=1e-12 * np.abs(L_hat).max())
    assert np.linalg.matrix_rank(L_hat) == rank
    # the recovered row space is the planted one (L recovered to 1e-5)
    assert largest_angle(V.T, scipy.linalg.orth(L.T)) < 1e-5
    # pcalib's sign convention: the largest entry of each component is positive
    assert np.all(V[np.arange(rank), np.argmax(np.abs(V), axis=1)] > 0)


def test_non_square_recovery_with_the_default_lambda():
    for shape in ((150, 60), (60, 150)):
        M, L, _, support = planted_problem(None, 3, 0.05, seed=14, shape=shape)
        model = RobustPCA(random_state=0).fit(M)
        assert model.l1_penalty_ == 1.0 / np.sqrt(150)
        assert model.rank_ == 3
        assert np.linalg.norm(model.low_rank_ - L) / np.linalg.norm(L) < 1e-5
        np.testing.assert_array_equal(model.sparse_ != 0, support)


# ---------------------------------------------------------------------------
# 6. Beyond the recovery region: failure without NaN
# ---------------------------------------------------------------------------


def test_recovery_fails_gracefully_at_high_rank_and_corruption():
    n = 200
    M, L, _, _ = planted_problem(n, round(0.4 * n), 0.4, seed=15)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = RobustPCA(random_state=0).fit(M)
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    for name in ("low_rank_", "sparse_", "residual_history_"):
        assert np.all(np.isfinite(getattr(model, name))), name
    assert model.residual_history_.shape == (model.n_iter_ + 1,) and model.n_iter_ >= 1
    assert warned != model.converged_
    # recovery is impossible here: the L found is far from the planted one
    assert np.linalg.norm(model.low_rank_ - L) / np.linalg.norm(L) > 0.5
    # whatever was found still splits M to the reported residual
    np.testing.assert_allclose(
        np.linalg.norm(M - model.low_rank_ - model.sparse_) / np.linalg.norm(M),
        model.residual_history_[-1],
        rtol=1e-8,
    )

    with pytest.warns(ConvergenceWarning, match=r"max_iter=5"):
        short = RobustPCA(max_iter=5, random_state=0).fit(M)
    assert not short.converged_ and short.n_iter_ == 5
    assert short.residual_history_.shape == (6,) and short.residual_history_[-1] > short.tol
    for name in ("low_rank_", "sparse_", "residual_history_", "components_"):
        assert np.all(np.isfinite(getattr(short, name))), name


# ---------------------------------------------------------------------------
# 7. Low-rank input without corruption: S = 0
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(60, 60), (80, 50), (50, 120), (150, 120)], ids=str)
def test_noise_free_low_rank_input_has_no_sparse_part(shape):
    rng = np.random.default_rng(16)
    M = rng.standard_normal((shape[0], 3)) @ rng.standard_normal((3, shape[1]))
    model = RobustPCA(random_state=0).fit(M)
    assert np.linalg.norm(model.sparse_) / np.linalg.norm(M) < 1e-6
    assert np.linalg.norm(model.low_rank_ - M) / np.linalg.norm(M) < 1e-6
    assert model.rank_ == 3 and model.converged_


# ---------------------------------------------------------------------------
# 8. Parameter and input validation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"l1_penalty": 0.0}, ValueError, "l1_penalty"),
        ({"l1_penalty": -0.1}, ValueError, "l1_penalty"),
        ({"l1_penalty": np.nan}, ValueError, "l1_penalty"),
        ({"l1_penalty": np.inf}, ValueError, "l1_penalty"),
        ({"l1_penalty": "a"}, TypeError, "l1_penalty"),
        ({"mu": 0.0}, ValueError, "mu"),
        ({"mu": -1.0}, ValueError, "mu"),
        ({"mu": "1"}, TypeError, "mu"),
        ({"rho": 0.99}, ValueError, "rho must be >= 1"),
        ({"rho": 0.5}, ValueError, "rho"),
        ({"rho": -2.0}, ValueError, "rho"),
        ({"rho": np.nan}, ValueError, "rho"),
        ({"noise_level": -0.1}, ValueError, "noise_level"),
        ({"noise_level": np.inf}, ValueError, "noise_level"),
        ({"noise_level": None}, TypeError, "noise_level"),
        ({"noise_level": "0"}, TypeError, "noise_level"),
        ({"tol": -1e-7}, ValueError, "tol"),
        ({"tol": np.inf}, ValueError, "tol"),
        ({"tol": "0"}, TypeError, "tol"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": -1}, ValueError, "max_iter"),
        ({"max_iter": 10.0}, TypeError, "max_iter"),
        (
            {"svd_solver": "bad"},
            ValueError,
            r"svd_solver must be one of 'auto', 'full', 'randomized'",
        ),
        ({"svd_solver": "truncated"}, ValueError, "svd_solver"),
        ({"svd_solver": None}, ValueError, "svd_solver"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
    ids=lambda value: repr(value) if isinstance(value, dict) else "",
)
def test_invalid_parameters_are_named(params, error, message):
    M, _, _, _ = planted_problem(20, 2, 0.05, seed=17)
    model = RobustPCA(**params)
    with pytest.raises(error, match=message):
        model.fit(M)
    assert not hasattr(model, "low_rank_")


@pytest.mark.parametrize(
    "make_bad, error, message",
    [
        (lambda X: np.where(X > 1, np.nan, X), ValueError, r"X contains NaN"),
        (lambda X: np.where(X > 1, np.inf, X), ValueError, r"X contains infinite"),
        (lambda X: X[:, 0], ValueError, r"X must be a 2-D array"),
        (lambda X: X[None], ValueError, r"X must be a 2-D array"),
        (lambda X: np.zeros_like(X), ValueError, r"X is all zeros"),
        (lambda X: X[:1], ValueError, r"X has 1 sample"),
        (lambda X: X[:, :1], ValueError, r"X has 1 feature"),
        (lambda X: None, TypeError, r"X must be a 2-D array-like"),
        (lambda X: X.astype(str), TypeError, r"X must contain only numbers"),
    ],
    ids=["nan", "inf", "1-D", "3-D", "zeros", "one-row", "one-column", "None", "strings"],
)
def test_bad_X_is_named(make_bad, error, message):
    M, _, _, _ = planted_problem(20, 2, 0.05, seed=18)
    with pytest.raises(error, match=message):
        RobustPCA().fit(make_bad(M))


def test_bad_X_in_transform_is_named():
    M, _, _, _ = planted_problem(20, 2, 0.05, seed=19)
    model = RobustPCA(random_state=0).fit(M)
    with pytest.raises(ValueError, match=r"X contains NaN"):
        model.transform(np.where(M > 1, np.nan, M))
    with pytest.raises(ValueError, match=r"X must be a 2-D array"):
        model.transform(M[0])
    with pytest.raises(ValueError, match=r"20 features"):
        model.transform(M[:, :5])


def test_default_lambda_for_non_square_input():
    for shape in ((30, 12), (12, 30)):
        M = np.random.default_rng(20).standard_normal(shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            model = RobustPCA(max_iter=3).fit(M)
        assert model.l1_penalty_ == 1.0 / np.sqrt(30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert RobustPCA(l1_penalty=0.25, max_iter=3).fit(M).l1_penalty_ == 0.25


def test_use_before_fit_raises_not_fitted():
    for method in (RobustPCA().transform, RobustPCA().inverse_transform):
        with pytest.raises(NotFittedError):
            method(np.ones((2, 3)))


# ---------------------------------------------------------------------------
# 9. Convergence warning
# ---------------------------------------------------------------------------


def test_convergence_warning_when_max_iter_is_too_small():
    M, _, _, _ = planted_problem(60, 3, 0.05, seed=21)
    with pytest.warns(
        ConvergenceWarning,
        match=r"RobustPCA stopped after max_iter=4 iterations before ‖M - L - S - N‖_F / ‖M‖_F "
        r"\(now \S+\) fell below tol=1e-07; increase max_iter or tol\.$",
    ) as record:
        model = RobustPCA(max_iter=4, svd_solver="full").fit(M)
    # the warning points at the caller of fit
    assert len(record) == 1 and record[0].filename == __file__
    assert not model.converged_ and model.n_iter_ == 4
    assert model.residual_history_.shape == (5,) and model.residual_history_[-1] >= model.tol
    assert f"(now {model.residual_history_[-1]:.3g})" in str(record[0].message)
    # the same fit with room to converge does not warn
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert RobustPCA(svd_solver="full").fit(M).converged_


def test_tol_zero_runs_exactly_max_iter():
    M, _, _, _ = planted_problem(60, 3, 0.05, seed=21)
    default = RobustPCA(svd_solver="full", random_state=0).fit(M)
    assert default.converged_ and default.n_iter_ < 40
    with pytest.warns(ConvergenceWarning, match=r"max_iter=40 iterations"):
        model = RobustPCA(tol=0, max_iter=40, svd_solver="full", random_state=0).fit(M)
    assert model.n_iter_ == 40 and not model.converged_
    assert model.residual_history_.shape == (41,) and model.n_svd_ == 40
    # tol only decides when to stop: the iterations the default fit ran are the same
    np.testing.assert_array_equal(
        model.residual_history_[: default.n_iter_ + 1], default.residual_history_
    )
    # and the residual keeps falling below the default tolerance
    assert model.residual_history_[-1] < default.tol


@pytest.mark.parametrize("svd_solver", SVD_SOLVERS)
@pytest.mark.parametrize("max_iter", [1, 2, 7])
def test_history_has_the_start_and_one_entry_per_iteration(svd_solver, max_iter):
    M, _, _, _ = planted_problem(120, 6, 0.05, seed=42)
    with pytest.warns(ConvergenceWarning):
        model = RobustPCA(max_iter=max_iter, svd_solver=svd_solver, random_state=0).fit(M)
    history = model.residual_history_
    assert isinstance(model.n_iter_, int) and model.n_iter_ == max_iter
    assert history.shape == (model.n_iter_ + 1,)
    # the start, L = 0 and S₀ = shrink(M + Y₀/μ₀)
    np.testing.assert_allclose(history[0], start_residual(M, model.l1_penalty_), rtol=1e-10)
    # the last entry is the residual of the returned L and S
    np.testing.assert_allclose(
        history[-1],
        np.linalg.norm(M - model.low_rank_ - model.sparse_) / np.linalg.norm(M),
        rtol=1e-10,
    )
    converged = RobustPCA(svd_solver=svd_solver, random_state=0).fit(M)
    assert converged.converged_ and converged.residual_history_.shape == (converged.n_iter_ + 1,)


def count_randomized_svds(monkeypatch):
    """Replace the randomized SVD that thresholded_svd calls by one that counts its calls."""
    calls = []
    original = pcalib._linalg.randomized_svd

    def counting(*args, **kwargs):
        calls.append(kwargs.get("iterated_power"))
        return original(*args, **kwargs)

    monkeypatch.setattr(pcalib._linalg, "randomized_svd", counting)
    return calls


@pytest.mark.parametrize(
    "n, rank, svd_solver, expected",
    [
        (120, 6, "full", "full"),
        (120, 6, "auto", "randomized"),  # min(n₁, n₂) ≥ 100
        (120, 6, "randomized", "randomized"),
        (60, 3, "auto", "full"),  # min(n₁, n₂) < 100
        (60, 3, "randomized", "randomized"),
        # 25 % of min(n₁, n₂) = 4 is one triplet, which no rank guess is below: full SVDs
        ((4, 30), 1, "randomized", "full"),
    ],
)
def test_svd_solver_records_the_svds_the_fit_used(monkeypatch, n, rank, svd_solver, expected):
    shape = n if isinstance(n, tuple) else (n, n)
    M, _, _, _ = planted_problem(None, rank, 0.05, seed=43, shape=shape)
    calls = count_randomized_svds(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # the 4 × 30 case may not converge
        model = RobustPCA(svd_solver=svd_solver, random_state=0).fit(M)
    assert model.svd_solver_ == expected
    if expected == "full":
        assert calls == [] and model.n_svd_ == model.n_iter_
    else:
        # 2 power iterations, as the docstring says; the thresholdings plus components_
        assert calls and set(calls) == {2}
        assert model.n_svd_ + 1 >= len(calls) >= 2
    assert model.get_params()["svd_solver"] == svd_solver


# ---------------------------------------------------------------------------
# 10. transform and inverse_transform
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def transform_problem():
    """A fitted n = 200 problem, its planted ``L`` and an orthonormal basis of its row space."""
    M, L, _, _ = planted_problem(200, 10, 0.05, seed=200)
    model = RobustPCA(random_state=0).fit(M)
    return model, M, L, scipy.linalg.orth(L.T)


def test_transform_of_training_low_rank_rows_is_their_projection(transform_problem):
    model, _, L, _ = transform_problem
    V = model.components_
    rows = model.low_rank_[:20]
    Z = model.transform(rows)
    assert Z.shape == (20, model.rank_)
    scale = np.abs(rows).max()
    # the rows lie in the row space of V: the L1 fit is exact and equals the projection
    np.testing.assert_allclose(Z @ V, rows @ V.T @ V, atol=1e-10 * scale)
    np.testing.assert_allclose(Z, rows @ V.T, atol=1e-10 * scale)
    # rows of the planted L lie in V's row space up to the recovery error (< 1e-5)
    planted = L[:20]
    assert np.abs(model.transform(planted) @ V - planted @ V.T @ V).max() < 1e-5 * scale


def test_transform_resists_gross_errors_in_new_rows(transform_problem):
    model, _, L, Q = transform_problem
    V = model.components_
    rng = np.random.default_rng(22)
    clean = 5 * np.abs(L).max() * rng.standard_normal((6, Q.shape[1])) @ Q.T
    corrupted = clean.copy()
    for row in corrupted:
        idx = rng.choice(row.size, 6, replace=False)  # 3 % of the entries
        row[idx] += rng.choice([-1.0, 1.0], 6) * rng.uniform(5, 10, 6) * np.abs(clean).max()
    robust_error = np.linalg.norm(model.transform(corrupted) @ V - clean, axis=1)
    ls_error = np.linalg.norm(corrupted @ V.T @ V - clean, axis=1)
    assert np.all(robust_error < 0.01 * ls_error)
    # the clean row itself is recovered to the accuracy of V (1e-5) and of IRLS (1e-6)
    assert np.all(robust_error < 1e-4 * np.linalg.norm(clean, axis=1))


def test_transform_is_l1_regression(transform_problem):
    model, M, _, _ = transform_problem
    V = model.components_
    X = M[:5]
    Z = model.transform(X)
    for x, z in zip(X, Z, strict=True):
        z_lp, loss_lp = l1_regression_lp(x, V)
        loss = np.abs(x - z @ V).sum()
        assert loss >= loss_lp * (1 - 1e-9)
        # IRLS weights are floored at ε = 1e-6 of the largest residual: the L1
        # minimum is reached to about that relative accuracy (measured 8e-7)
        assert loss <= loss_lp * (1 + 5e-6)
        assert np.abs(z - z_lp).max() < 1e-5 * np.abs(z_lp).max()


def test_transform_of_a_row_does_not_depend_on_the_rest_of_the_batch(transform_problem):
    model, M, _, _ = transform_problem
    alone = model.transform(M[:1])
    gross = M[1:2] + 1e4 * np.abs(M).max() * np.eye(1, M.shape[1])
    together = model.transform(np.vstack([M[:1], gross]))[:1]
    # rows are fitted independently (one L1 regression each)
    np.testing.assert_allclose(together, alone, rtol=1e-9, atol=1e-9 * np.abs(alone).max())
    by_row = np.vstack([model.transform(M[i : i + 1]) for i in range(5)])
    np.testing.assert_allclose(
        model.transform(M[:5]), by_row, rtol=1e-9, atol=1e-9 * np.abs(by_row).max()
    )


def test_fit_transform_scores_the_recovered_low_rank_rows(transform_problem):
    model, M, _, _ = transform_problem
    V = model.components_
    # each training row is its low-rank row plus ~5 % gross entries: L1 scores ignore
    # those, to the accuracy of V (L recovered to 1e-6) and of IRLS (ε = 1e-6)
    Z = model.transform(M[:10])
    assert np.abs(Z @ V - model.low_rank_[:10]).max() < 1e-4 * np.abs(model.low_rank_).max()
    again = clone(model).fit_transform(M)
    np.testing.assert_array_equal(again, model.transform(M))


def test_inverse_transform(transform_problem):
    model, M, _, _ = transform_problem
    Z = np.random.default_rng(23).standard_normal((7, model.rank_))
    X = model.inverse_transform(Z)
    assert X.shape == (7, M.shape[1])
    np.testing.assert_allclose(X, Z @ model.components_, rtol=1e-14, atol=1e-14)
    with pytest.raises(ValueError, match=r"Z has 11 columns but rank_ is 10"):
        model.inverse_transform(np.ones((3, 11)))
    with pytest.raises(ValueError, match=r"Z"):
        model.inverse_transform(np.ones(10))


def test_rank_zero_fit_transforms_to_no_columns_and_back_to_zeros():
    # a tiny λ puts everything into S
    M = np.random.default_rng(24).standard_normal((10, 8))
    model = RobustPCA(l1_penalty=1e-4).fit(M)
    assert model.rank_ == 0 and model.components_.shape == (0, 8)
    np.testing.assert_array_equal(model.low_rank_, 0.0)
    Z = model.transform(M)
    assert Z.shape == (10, 0)
    np.testing.assert_array_equal(model.inverse_transform(Z), np.zeros((10, 8)))


# ---------------------------------------------------------------------------
# 11. L1 factorisation by IRLS
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [25, 26, 27])
def test_l1_low_rank_ignores_outliers_that_ruin_pca(seed):
    X, W_true = l1_factor_data(200, 20, 2, 0.05, seed)
    result = l1_low_rank(X, 2)
    W = result.W
    assert result.Z.shape == (200, 2) and W.shape == (20, 2) and result.offset.shape == (20,)
    l1_angle = largest_angle(W, W_true)
    pca_angle = largest_angle(SklearnPCA(n_components=2).fit(X).components_.T, W_true)
    assert pca_angle > 0.3  # the outliers tilt the least-squares subspace
    assert l1_angle < 0.01 * pca_angle
    # IRLS with weights floored at 1e-6 of the largest residual: 1e-4, not rounding
    assert l1_angle < 1e-4


@pytest.mark.parametrize(
    "seed, noise, fraction", [(28, 0.0, 0.08), (29, 0.1, 0.08), (30, 1.0, 0.0), (31, 0.5, 0.2)]
)
def test_l1_loss_history_never_increases(seed, noise, fraction):
    X, _ = l1_factor_data(80, 12, 3, fraction, seed, noise=noise)
    result = l1_low_rank(X, 3)
    Z, W, offset, history = result.Z, result.W, result.offset, result.objective_history
    assert history.shape == (result.n_iter + 1,) and result.n_iter >= 1
    # each IRLS half-step minimises a majoriser of the L1 loss
    assert np.all(np.diff(history) <= 1e-10 * history[:-1])
    # the last entry is the L1 loss of the returned factors
    np.testing.assert_allclose(np.abs(X - offset - Z @ W.T).sum(), history[-1], rtol=1e-10)
    # the first is the loss of the robust start: column medians, top axes of the
    # residuals clipped at three robust standard deviations
    median = np.median(X, axis=0)
    spread = 1.4826 * np.median(np.abs(X - median), axis=0)
    clipped = np.clip(X - median, -3 * spread, 3 * spread)
    axes = np.linalg.svd(clipped, full_matrices=False)[2][:3].T
    start = median + (X - median) @ axes @ axes.T
    np.testing.assert_allclose(history[0], np.abs(X - start).sum(), rtol=1e-10)
    np.testing.assert_allclose(W.T @ W, np.eye(3), atol=1e-12)
    assert np.all(W[np.argmax(np.abs(W), axis=0), np.arange(3)] > 0)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_l1_low_rank_recovers_the_subspace_of_exact_low_rank_data(seed):
    X, W_true = l1_factor_data(100, 10, 2, 0.0, seed)
    result = l1_low_rank(X, 2)
    # IRLS converges slowly (linearly) towards an exact fit and stops at max_iter
    # (measured: angles up to 2e-6, residuals up to 4e-6), so 1e-4, not rounding
    assert largest_angle(result.W, W_true) < 1e-4
    assert np.abs(X - result.offset - result.Z @ result.W.T).max() < 1e-4 * np.abs(X).max()


def test_l1_low_rank_warns_when_stopped_at_max_iter():
    X, _ = l1_factor_data(80, 12, 3, 0.08, 32)
    with pytest.warns(
        ConvergenceWarning,
        match=r"l1_low_rank stopped after max_iter=2 iterations before the L1 loss decreased "
        r"by less than tol=1e-06 times its starting value in one sweep; increase max_iter or tol",
    ) as record:
        result = l1_low_rank(X, 3, max_iter=2)
    # the warning points at the caller of l1_low_rank
    assert len(record) == 1 and record[0].filename == __file__
    assert result.n_iter == 2 and not result.converged
    assert result.objective_history.shape == (3,)


@pytest.mark.parametrize(
    "args, error, message",
    [
        (dict(n_components=0), ValueError, "n_components"),
        (
            dict(n_components=11),
            ValueError,
            r"n_components must be between 1 and min\(n_samples, n_features\) = 10; got 11",
        ),
        (dict(n_components=2.0), TypeError, "n_components"),
        (dict(n_components=2, max_iter=0), ValueError, "max_iter"),
        (dict(n_components=2, tol=-1e-6), ValueError, "tol"),
        (dict(n_components=2, tol="0"), TypeError, "tol"),
    ],
)
def test_l1_low_rank_bad_parameters(args, error, message):
    X, _ = l1_factor_data(30, 10, 2, 0.0, 33)
    with pytest.raises(error, match=message):
        l1_low_rank(X, **args)


def test_l1_low_rank_bad_X():
    X, _ = l1_factor_data(30, 10, 2, 0.0, 34)
    X[3, 4] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN"):
        l1_low_rank(X, 2)
    with pytest.raises(ValueError, match=r"X must be a 2-D array"):
        l1_low_rank(X[0], 1)


def test_l1_low_rank_returns_a_factorization_result():
    X, _ = l1_factor_data(60, 9, 2, 0.05, 44)
    result = l1_low_rank(X, 2)
    assert isinstance(result, FactorizationResult)
    assert result.Z.shape == (60, 2) and result.W.shape == (9, 2)
    assert result.offset.shape == (9,)
    assert isinstance(result.n_iter, int) and result.n_iter >= 1 and result.converged is True
    assert result.objective_history.shape == (result.n_iter + 1,)
    # reconstruction() is X ≈ 1 offsetᵀ + Z Wᵀ, the model whose L1 loss was minimised
    X_hat = result.reconstruction()
    assert X_hat.shape == X.shape
    np.testing.assert_allclose(
        X_hat,
        np.outer(np.ones(60), result.offset) + result.Z @ result.W.T,
        rtol=1e-14,
        atol=1e-14 * np.abs(X).max(),
    )
    np.testing.assert_allclose(np.abs(X - X_hat).sum(), result.objective_history[-1], rtol=1e-10)
    # None asks for as many components as the data allow
    full = l1_low_rank(X, None, max_iter=3, tol=1e-3)
    assert full.W.shape == (9, 9)


def test_l1_low_rank_with_tol_zero_runs_exactly_max_iter():
    # data whose default fit converges (seed 28: in 350 sweeps); on some data
    # (e.g. seed 45) IRLS is still lowering the loss by 2e-6 per sweep at 500
    X, _ = l1_factor_data(80, 12, 3, 0.08, 28)
    default = l1_low_rank(X, 3)
    assert default.converged
    max_iter = default.n_iter + 5
    with pytest.warns(ConvergenceWarning, match=rf"max_iter={max_iter} iterations"):
        result = l1_low_rank(X, 3, max_iter=max_iter, tol=0)
    assert result.n_iter == max_iter and not result.converged
    assert result.objective_history.shape == (max_iter + 1,)
    np.testing.assert_array_equal(
        result.objective_history[: default.n_iter + 1], default.objective_history
    )


def test_irls_weights_turn_the_l1_loss_into_a_weighted_sum_of_squares():
    rng = np.random.default_rng(35)
    r = rng.standard_normal((6, 5))
    w = irls_weights(r)
    np.testing.assert_allclose(w, 1 / np.abs(r), rtol=1e-15)
    np.testing.assert_allclose(np.sum(w * r**2), np.abs(r).sum(), rtol=1e-14)
    # a vanishing residual gets a finite weight of at least 1/(ε max|r|), the others 1/|r|
    r[2, 3] = 0.0
    w = irls_weights(r, eps=1e-6)
    assert np.isfinite(w[2, 3]) and w[2, 3] >= 1 / (1e-6 * np.abs(r).max())
    keep = r != 0
    np.testing.assert_allclose(w[keep], 1 / np.abs(r[keep]), rtol=1e-15)


def test_irls_weights_of_an_all_zero_residual_are_finite():
    # the docstring: ε keeps the weights finite where a residual vanishes
    assert np.all(np.isfinite(irls_weights(np.zeros((2, 2)))))


def test_transform_of_zero_rows_is_zero(transform_problem):
    # argmin_z ‖0 - Vᵀ z‖₁ is z = 0 (V has orthonormal rows)
    model, _, _, _ = transform_problem
    np.testing.assert_array_equal(model.transform(np.zeros((2, model.n_features_in_))), 0.0)


def test_weighted_row_fits_equal_lstsq_with_square_root_weights():
    rng = np.random.default_rng(36)
    X = rng.standard_normal((4, 9))
    W = rng.standard_normal((9, 3))
    weights = rng.uniform(0.1, 5.0, (4, 9))
    Z = weighted_row_fits(X, W, weights)
    assert Z.shape == (4, 3)
    for i in range(4):
        root = np.sqrt(weights[i])
        z_ref = np.linalg.lstsq(root[:, None] * W, root * X[i], rcond=None)[0]
        np.testing.assert_allclose(Z[i], z_ref, rtol=1e-11, atol=1e-13)


# ---------------------------------------------------------------------------
# 12. Determinism and inputs left untouched
# ---------------------------------------------------------------------------


def test_same_random_state_gives_identical_results():
    M, _, _, _ = planted_problem(150, 5, 0.05, seed=37)
    a = RobustPCA(svd_solver="randomized", random_state=3).fit(M)
    b = RobustPCA(svd_solver="randomized", random_state=3).fit(M)
    for name in ("low_rank_", "sparse_", "components_", "residual_history_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert (a.n_iter_, a.n_svd_, a.mu_) == (b.n_iter_, b.n_svd_, b.mu_)
    c = RobustPCA(svd_solver="randomized", random_state=np.random.default_rng(3)).fit(M)
    np.testing.assert_array_equal(c.low_rank_, a.low_rank_)
    # another seed changes only the randomized SVDs' rounding
    d = RobustPCA(svd_solver="randomized", random_state=4).fit(M)
    assert np.linalg.norm(d.low_rank_ - a.low_rank_) / np.linalg.norm(M) < 1e-6


def test_inputs_are_not_modified():
    M, _, _, _ = planted_problem(120, 4, 0.05, seed=38)
    M_copy = M.copy()
    model = RobustPCA(random_state=0).fit(M)
    np.testing.assert_array_equal(M, M_copy)
    model.transform(M)
    model.fit_transform(M)
    np.testing.assert_array_equal(M, M_copy)
    Z = np.ones((2, model.rank_))
    model.inverse_transform(Z)
    np.testing.assert_array_equal(Z, 1.0)
    X, _ = l1_factor_data(40, 8, 2, 0.05, 39)
    X_copy = X.copy()
    l1_low_rank(X, 2)
    np.testing.assert_array_equal(X, X_copy)
    r = np.arange(-3.0, 3.0)
    irls_weights(r)
    np.testing.assert_array_equal(r, np.arange(-3.0, 3.0))
    A = np.arange(12.0).reshape(3, 4)
    singular_value_threshold(A, 1.0, rank_guess=1, random_state=0)
    np.testing.assert_array_equal(A, np.arange(12.0).reshape(3, 4))


# ---------------------------------------------------------------------------
# 13. scikit-learn API
# ---------------------------------------------------------------------------


def test_get_params_set_params_clone():
    model = RobustPCA(l1_penalty=0.1, tol=1e-8)
    expected = {
        "l1_penalty": 0.1,
        "noise_level": 0.0,
        "mu": None,
        "rho": 1.5,
        "tol": 1e-8,
        "max_iter": 500,
        "svd_solver": "auto",
        "random_state": None,
    }
    assert model.get_params() == expected
    assert model.set_params(random_state=4, svd_solver="full") is model
    assert model.get_params() == {**expected, "random_state": 4, "svd_solver": "full"}
    M, _, _, _ = planted_problem(40, 2, 0.05, seed=40)
    model.set_params(l1_penalty=None).fit(M)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert not hasattr(copy, "low_rank_")
    np.testing.assert_array_equal(copy.fit(M).low_rank_, model.low_rank_)


def test_feature_names_out():
    M, _, _, _ = planted_problem(40, 3, 0.05, seed=41)
    model = RobustPCA(random_state=0).fit(M)
    assert model.rank_ == 3
    assert model.n_samples_ == 40 and model.n_features_in_ == 40
    assert model.get_feature_names_out().tolist() == ["robustpca0", "robustpca1", "robustpca2"]
    frame = pd.DataFrame(M, columns=[f"c{j}" for j in range(40)])
    fitted = RobustPCA(random_state=0).set_output(transform="pandas").fit(frame)
    np.testing.assert_array_equal(fitted.feature_names_in_, frame.columns)
    out = fitted.transform(frame)
    assert list(out.columns) == ["robustpca0", "robustpca1", "robustpca2"]
    # the same fit up to rounding: the frame's values are stored column by column,
    # and some BLAS kernels (Prescott, Sandybridge) then sum in another order
    expected = model.transform(M)
    atol = 1e-10 * np.abs(expected).max()
    np.testing.assert_allclose(out.to_numpy(), expected, rtol=0, atol=atol)
    atol = 1e-10 * np.abs(model.low_rank_).max()
    np.testing.assert_allclose(fitted.low_rank_, model.low_rank_, rtol=0, atol=atol)


# ---------------------------------------------------------------------------
# 13. Units of the data, extreme magnitudes and failed refits
# ---------------------------------------------------------------------------

# The factors c of the units test: none is a power of two, so the rescaled data
# differ from X by rounding and the results by rounding only.
UNIT_FACTORS = [1e-8, 1e-3, 255.0, 1e8]


def assert_rpca_scaled(b, a, c):
    """``b`` is the fit of ``c M``, ``a`` that of ``M``: L, S scale with c, μ with 1/c."""
    assert_scaled(b.low_rank_, c * a.low_rank_)
    assert_scaled(b.sparse_, c * a.sparse_)
    assert_scaled(b.dual_, a.dual_)
    assert_scaled(b.components_, a.components_)
    assert_scaled(b.residual_history_, a.residual_history_)
    assert b.mu_ == pytest.approx(a.mu_ / c, rel=1e-6)
    assert (b.rank_, b.n_iter_, b.n_svd_, b.converged_, b.svd_solver_, b.l1_penalty_) == (
        a.rank_,
        a.n_iter_,
        a.n_svd_,
        a.converged_,
        a.svd_solver_,
        a.l1_penalty_,
    )


@pytest.mark.parametrize("svd_solver", ["full", "randomized"])
@pytest.mark.parametrize("c", UNIT_FACTORS)
def test_fit_does_not_depend_on_the_units_of_X(c, svd_solver):
    # the defaults λ = 1/√max(n₁, n₂) and μ₀ = 1.25/‖M‖₂ follow the units of M
    M, _, _, _ = planted_problem(60, 3, 0.05, seed=50, shape=(60, 45))
    a = RobustPCA(svd_solver=svd_solver, random_state=0).fit(M)
    b = RobustPCA(svd_solver=svd_solver, random_state=0).fit(c * M)
    assert a.converged_ and a.svd_solver_ == svd_solver
    assert_rpca_scaled(b, a, c)
    X_new = planted_problem(60, 3, 0.05, seed=51, shape=(5, 45))[0]
    assert_scaled(b.transform(c * X_new), c * a.transform(X_new))


@pytest.mark.parametrize("c", UNIT_FACTORS)
def test_a_given_mu_is_in_the_units_of_one_over_X(c):
    M, _, _, _ = planted_problem(30, 2, 0.05, seed=52)
    a = RobustPCA(mu=0.05, random_state=0).fit(M)
    b = RobustPCA(mu=0.05 / c, random_state=0).fit(c * M)
    assert_rpca_scaled(b, a, c)


@pytest.mark.parametrize("c", [4.0**-120, 1e-170, 1e-300, 1e145])
def test_fit_at_extreme_magnitudes(c):
    # tiny data whose squares underflow, and large data near the overflow bound,
    # are fitted as well as data of order 1; a power of four scales exactly
    M, _, _, _ = planted_problem(30, 2, 0.05, seed=53)
    a = RobustPCA(random_state=0).fit(M)
    b = RobustPCA(random_state=0).fit(c * M)
    assert_rpca_scaled(b, a, c)
    if c == 4.0**-120:
        np.testing.assert_array_equal(b.low_rank_, c * a.low_rank_)
        np.testing.assert_array_equal(b.residual_history_, a.residual_history_)


def test_data_too_small_for_mu_is_a_clear_error():
    # subnormal entries: μ, which scales as 1/X, would overflow float64
    M, _, _, _ = planted_problem(20, 2, 0.05, seed=54)
    model = RobustPCA(random_state=0)
    with pytest.raises(ValueError, match=r"X is too small for float64 arithmetic.*mu"):
        model.fit(M * 1e-310)
    assert not hasattr(model, "low_rank_")


def test_mu_out_of_range_for_the_magnitude_of_X_is_named():
    M, _, _, _ = planted_problem(20, 2, 0.05, seed=55)
    with pytest.raises(ValueError, match=r"mu=1e\+300 is out of range for X"):
        RobustPCA(mu=1e300).fit(M * 1e145)


@pytest.mark.parametrize("magnitude", [1e-310, 1e-300, 1e-170, 1e150])
def test_transform_of_rows_at_extreme_magnitudes_is_finite_and_scaled(magnitude):
    # the reproduction: subnormal rows made the weights 1/|r| overflow, scores NaN
    U = np.random.default_rng(0).uniform(0.1, 1.0, (12, 5))
    model = RobustPCA(random_state=0).fit(U)
    rows = np.vstack([np.full(5, 1.0), U[:3]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        Z = model.transform(magnitude * rows)
    assert np.all(np.isfinite(Z))
    # subnormal numbers carry fewer digits: 1e-310 keeps about 44 bits (1e-13)
    assert_scaled(Z, magnitude * model.transform(rows), rtol=1e-6)


def test_transform_is_exactly_equivariant_for_powers_of_four(transform_problem):
    model, M, _, _ = transform_problem
    Z = model.transform(M[:4])
    for c in (4.0**-200, 4.0**3, 4.0**200):
        np.testing.assert_array_equal(model.transform(c * M[:4]), c * Z)


def fitted_rpca_state(model):
    return {name: value for name, value in vars(model).items() if name.endswith("_")}


@pytest.mark.parametrize(
    "bad_fit",
    [
        lambda model, M: model.fit(np.where(M > 1, np.nan, M)),
        lambda model, M: model.fit(np.zeros_like(M)),
        lambda model, M: model.fit(M[:, :1]),
        lambda model, M: model.set_params(rho=0.5).fit(M),
        # fails after the iterations, when μ is scaled back to the units of X
        lambda model, M: model.fit(M[:, :10] * 1e-310),
    ],
    ids=["nan", "zeros", "one-column", "rho", "subnormal"],
)
def test_failed_refit_leaves_the_earlier_fit_usable(bad_fit):
    M, _, _, _ = planted_problem(30, 2, 0.05, seed=56)
    frame = pd.DataFrame(M, columns=[f"c{j}" for j in range(30)])
    model = RobustPCA(random_state=0).fit(frame)
    before = fitted_rpca_state(model)
    Z = model.transform(frame.iloc[:4])
    with pytest.raises(ValueError):
        bad_fit(model, M)
    after = fitted_rpca_state(model)
    assert after.keys() == before.keys()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    np.testing.assert_array_equal(model.transform(frame.iloc[:4]), Z)


@pytest.mark.parametrize(
    "params, error, message",
    [
        (
            {"l1_penalty": 10**400},
            ValueError,
            r"l1_penalty must be a finite number > 0, got an int",
        ),
        ({"mu": 10**400}, ValueError, r"mu must be a finite number > 0"),
        ({"rho": -(2**70)}, ValueError, r"rho must be a finite number > 0"),
        ({"tol": 10**400}, ValueError, r"tol must be a finite number >= 0"),
        ({"max_iter": 2**70}, ValueError, r"max_iter must be at most 2\*\*63 - 1"),
        ({"l1_penalty": [0.1]}, TypeError, r"l1_penalty must be a positive number"),
    ],
    ids=["l1_penalty", "mu", "rho", "tol", "max_iter", "list"],
)
def test_huge_and_odd_parameters_are_named(params, error, message):
    M, _, _, _ = planted_problem(20, 2, 0.05, seed=57)
    with pytest.raises(error, match=message):
        RobustPCA(**params).fit(M)


def test_huge_int_parameters_that_fit_a_float_are_used():
    # 2**70 converts exactly to a float: a huge λ leaves S empty and L = M
    M, _, _, _ = planted_problem(20, 2, 0.05, seed=58)
    model = RobustPCA(l1_penalty=2**70, tol=2**70, random_state=0).fit(M)
    assert model.l1_penalty_ == 2.0**70 and model.n_iter_ == 1 and model.converged_


@pytest.mark.parametrize(
    "tau, error, message",
    [
        (None, TypeError, r"tau must be a number >= 0, got None"),
        ("0.5", TypeError, r"tau must be a number >= 0"),
        ([0.5], TypeError, r"tau must be a number >= 0"),
        (-1.0, ValueError, r"tau must be a finite number >= 0, got -1.0"),
        (np.nan, ValueError, r"tau must be a finite number >= 0"),
        (10**400, ValueError, r"tau must be a finite number >= 0, got an int of 401 digits"),
    ],
)
def test_svt_threshold_is_checked_and_named(tau, error, message):
    with pytest.raises(error, match=message):
        singular_value_threshold(np.eye(3), tau)


def l1_loss(X, result):
    return np.abs(X - result.reconstruction()).sum()


def assert_valid_l1_fit(X, result, k):
    """Finite factors, orthonormal W, a loss history that never rises beyond rounding."""
    for array in (result.Z, result.W, result.offset, result.objective_history):
        assert np.all(np.isfinite(array))
    np.testing.assert_allclose(result.W.T @ result.W, np.eye(k), atol=1e-12)
    history = result.objective_history
    scale = np.abs(X).sum()
    assert np.all(np.diff(history) <= 1e-9 * scale)
    np.testing.assert_allclose(l1_loss(X, result), history[-1], rtol=1e-9, atol=1e-12 * scale)


@pytest.mark.parametrize(
    "X",
    [np.ones((5, 3)), np.zeros((5, 3)), np.full((4, 6), -2.5)],
    ids=["ones", "zeros", "constant-wide"],
)
def test_l1_low_rank_of_constant_X_is_exact(X):
    # the reproduction: the design [Z, 1] was singular (Z = 0), LinAlgError
    result = l1_low_rank(X, 1)
    assert_valid_l1_fit(X, result, 1)
    assert result.converged and result.objective_history[-1] == 0.0
    np.testing.assert_array_equal(result.offset, X[0])
    np.testing.assert_array_equal(result.Z, 0.0)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (6, 6)])
def test_l1_low_rank_with_all_components_fits_X_exactly(shape):
    # k = min(n, d): Z Wᵀ can equal X - offset; for n < d the design [Z, 1] has
    # more columns than rows and the minimum-norm least squares is used
    X = np.random.default_rng(59).standard_normal(shape)
    k = min(shape)
    result = l1_low_rank(X, k)
    assert_valid_l1_fit(X, result, k)
    np.testing.assert_allclose(result.reconstruction(), X, rtol=0, atol=1e-9)


def test_l1_low_rank_of_a_boolean_matrix_is_that_of_its_floats():
    X = np.random.default_rng(60).random((6, 4)) > 0.5
    for k in (1, 2, 4):
        result = l1_low_rank(X, k)
        reference = l1_low_rank(X.astype(float), k)
        assert_valid_l1_fit(X.astype(float), result, k)
        np.testing.assert_array_equal(result.Z, reference.Z)
        np.testing.assert_array_equal(result.W, reference.W)


def test_l1_low_rank_of_random_wide_matrices():
    # the reproduction: 6 of these 50 raised LinAlgError (a sample fitted exactly
    # got weights 1e21 next to weights of 1, and the normal equations were singular)
    for seed in range(50):
        X = np.random.default_rng(seed).standard_normal((3, 5))
        result = l1_low_rank(X, 1, max_iter=1000)  # seed 45 needs 549 sweeps
        assert result.converged
        assert_valid_l1_fit(X, result, 1)
        # no global L1 solver to compare with: the loss is below that of the start
        assert result.objective_history[-1] < result.objective_history[0]


@pytest.mark.parametrize("c", UNIT_FACTORS)
def test_l1_low_rank_does_not_depend_on_the_units_of_X(c):
    # noisy data: every residual is of the order of the noise, so the IRLS path is
    # a smooth function of X (see the next test for exact data)
    X, _ = l1_factor_data(50, 8, 2, 0.1, 3, noise=0.2)
    a = l1_low_rank(X, 2)
    b = l1_low_rank(c * X, 2)
    assert a.converged and (b.n_iter, b.converged) == (a.n_iter, a.converged)
    assert_scaled(b.Z, c * a.Z)
    assert_scaled(b.W, a.W)
    assert_scaled(b.offset, c * a.offset)
    assert_scaled(b.objective_history, c * a.objective_history)


def test_l1_low_rank_is_exactly_equivariant_for_powers_of_four():
    # On exact low-rank data with outliers, many residuals tend to 0 together and
    # IRLS amplifies rounding: rescaling by 255 changes the sweep count by a few and
    # the factors by about 1e-4 (the accuracy of IRLS there). A power of four only
    # changes exponents, so the fit is the same to the last bit at any magnitude.
    X, _ = l1_factor_data(60, 9, 2, 0.05, 44)
    a = l1_low_rank(X, 2)
    for c in (4.0**-150, 4.0**-3, 4.0**100):
        b = l1_low_rank(c * X, 2)
        assert b.n_iter == a.n_iter
        np.testing.assert_array_equal(b.Z, c * a.Z)
        np.testing.assert_array_equal(b.W, a.W)
        np.testing.assert_array_equal(b.offset, c * a.offset)


@pytest.mark.parametrize("magnitude", [1e-310, 1e-300, 1e-170, 1e145])
def test_l1_low_rank_at_extreme_magnitudes(magnitude):
    X, _ = l1_factor_data(50, 8, 2, 0.1, 3, noise=0.2)
    reference = l1_low_rank(X, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = l1_low_rank(magnitude * X, 2)
    assert result.n_iter == reference.n_iter
    # subnormal results (1e-310) keep fewer digits
    rtol = 1e-6 if magnitude > 1e-300 else 1e-3
    assert_scaled(result.Z, magnitude * reference.Z, rtol=rtol)
    assert_scaled(result.offset, magnitude * reference.offset, rtol=rtol)


# ---------------------------------------------------------------------------
# The dual residual, a fixed penalty, and stable principal component pursuit
# ---------------------------------------------------------------------------


def stopped_fit(M, n_iter, **params):
    """A fit run for exactly ``n_iter`` iterations (its warning is expected)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return RobustPCA(tol=0, max_iter=n_iter, random_state=0, **params).fit(M)


def tangent_projection(Y, U, V):
    """``P_T(Y) = UUᵀY + YVVᵀ - UUᵀYVVᵀ``."""
    return U @ (U.T @ Y) + (Y @ V) @ V.T - U @ (U.T @ Y @ V) @ V.T


@pytest.mark.parametrize("svd_solver", ["full", "randomized"])
@pytest.mark.parametrize("n_iter", [1, 2, 5, 12])
def test_dual_residual_is_mu_times_the_change_of_S(svd_solver, n_iter):
    M, _, _, _ = planted_problem(60, 3, 0.05, seed=71)
    before = stopped_fit(M, n_iter - 1, svd_solver=svd_solver) if n_iter > 1 else None
    after = stopped_fit(M, n_iter, svd_solver=svd_solver)
    # S₀ = shrink(M + Y₀/μ₀) and μ₀ = 1.25/‖M‖₂ before the first iteration
    S_before = start_sparse(M, after.l1_penalty_) if before is None else before.sparse_
    mu_before = 1.25 / np.linalg.norm(M, 2) if before is None else before.mu_
    expected = mu_before * np.linalg.norm(after.sparse_ - S_before)
    # (on this problem the first L is 0, so S₁ = S₀: a change of 0 up to rounding)
    atol = 1e-12 * mu_before * np.linalg.norm(M)
    np.testing.assert_allclose(after.dual_residual_, expected, rtol=1e-9, atol=atol)


@pytest.mark.parametrize("n_iter", [3, 8, 15])
def test_dual_plus_its_residual_is_a_subgradient_of_the_nuclear_norm(n_iter):
    # eq. (rpca-dual-residual): Y_k + μ_k (S_k - S_{k-1}) ∈ ∂‖L_k‖_*, i.e. it is
    # UVᵀ + W with W orthogonal to both singular spaces of L_k and ‖W‖₂ ≤ 1
    M, _, _, _ = planted_problem(60, 3, 0.05, seed=72)
    before = stopped_fit(M, n_iter - 1, svd_solver="full")
    after = stopped_fit(M, n_iter, svd_solver="full")
    Z = after.dual_ + before.mu_ * (after.sparse_ - before.sparse_)
    U, _, Vt = np.linalg.svd(after.low_rank_)
    U, V = U[:, : after.rank_], Vt[: after.rank_].T
    np.testing.assert_allclose(tangent_projection(Z, U, V), U @ V.T, atol=1e-10)
    assert np.linalg.norm(Z - tangent_projection(Z, U, V), 2) <= 1 + 1e-10
    # so the distance of P_T(Y) from UVᵀ is at most the dual residual
    gap = np.linalg.norm(tangent_projection(after.dual_, U, V) - U @ V.T)
    assert gap <= after.dual_residual_ * (1 + 1e-9) + 1e-12


def test_from_S_zero_the_primal_stop_can_be_at_a_wrong_split():
    # M = e₁e₁ᵀ: the solution is L = 0, S = M (certificate Y = λ e₁e₁ᵀ, ‖Y‖₂ = λ ≤ 1).
    # From S₀ = 0 the first iteration gives L + S = M exactly, at a wrong split that
    # only the dual residual μ₀‖S₁ - S₀‖ reveals; from pcalib's start the fit is right
    M = np.zeros((30, 30))
    M[0, 0] = 1.0
    lam = default_lambda(M.shape)
    L, S, _, history = reference_ialm(M, lam=lam, S_start=np.zeros_like(M))
    assert len(history) == 2 and history[-1] < 1e-15
    assert np.linalg.matrix_rank(L) == 1 and 1.25 * np.linalg.norm(S) > 0.5
    fit = RobustPCA(random_state=0).fit(M)
    assert fit.converged_ and fit.rank_ == 0 and fit.dual_residual_ < 1e-12
    np.testing.assert_allclose(fit.sparse_, M, atol=1e-12)


def test_fixed_mu_is_admm_with_candes_penalty_and_recovers_the_planted_problem():
    M, L, _, support = planted_problem(100, 5, 0.05, seed=73)
    growing = RobustPCA(random_state=0).fit(M)
    fixed = RobustPCA(rho=1.0, random_state=0).fit(M)
    mu_candes = M.shape[0] * M.shape[1] / (4 * np.abs(M).sum())
    np.testing.assert_allclose(fixed.mu_, mu_candes, rtol=1e-12)
    assert fixed.converged_ and fixed.rank_ == 5
    assert np.linalg.norm(fixed.low_rank_ - L) < 1e-5 * np.linalg.norm(L)
    assert np.array_equal(fixed.sparse_ != 0, support)
    assert fixed.n_iter_ > growing.n_iter_
    # a given μ with rho=1 stays where it is
    given = RobustPCA(rho=1.0, mu=2 * mu_candes, random_state=0).fit(M)
    np.testing.assert_allclose(given.mu_, 2 * mu_candes, rtol=1e-12)


def sparse_and_noise_objective(S, T, tau, delta):
    """``τ‖S‖₁ + ½ dist(T - S, ball of radius δ)²``: the step with ``N`` minimised out."""
    return tau * np.abs(S).sum() + 0.5 * max(np.linalg.norm(T - S) - delta, 0.0) ** 2


@pytest.mark.parametrize("delta_share", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("seed", [0, 1])
def test_sparse_and_noise_step_against_a_constrained_solver(delta_share, seed):
    # independent: SLSQP on the smooth form S = P - Q, P, Q ≥ 0, ‖N‖² ≤ δ²
    rng = np.random.default_rng(seed)
    T = rng.standard_normal((3, 3)) * 2
    tau, delta = 0.4, delta_share * np.linalg.norm(T)
    S, N = sparse_and_noise_step(T, tau, delta)
    assert np.linalg.norm(N) <= delta * (1 + 1e-12)

    def objective(x):
        P, Q, N_ = x[:9].reshape(3, 3), x[9:18].reshape(3, 3), x[18:].reshape(3, 3)
        return tau * (P + Q).sum() + 0.5 * np.sum((T - P + Q - N_) ** 2)

    best = None
    for start in rng.uniform(0, 1, (4, 27)):
        result = scipy.optimize.minimize(
            objective,
            start,
            method="SLSQP",
            bounds=[(0, None)] * 18 + [(None, None)] * 9,
            constraints=[{"type": "ineq", "fun": lambda x: delta**2 - np.sum(x[18:] ** 2)}],
            options=dict(ftol=1e-14, maxiter=1000),
        )
        if best is None or result.fun < best.fun:
            best = result
    value = tau * np.abs(S).sum() + 0.5 * np.sum((T - S - N) ** 2)
    # not beaten, and reached (SLSQP's accuracy)
    assert value <= best.fun + 1e-9
    np.testing.assert_allclose(value, best.fun, rtol=1e-6)
    S_slsqp = best.x[:9].reshape(3, 3) - best.x[9:18].reshape(3, 3)
    np.testing.assert_allclose(S, S_slsqp, atol=1e-4)
    # and S minimises the reduced objective against perturbations
    for _ in range(200):
        E = 1e-3 * rng.standard_normal((3, 3))
        assert sparse_and_noise_objective(S + E, T, tau, delta) >= (
            sparse_and_noise_objective(S, T, tau, delta) - 1e-13
        )


def test_sparse_and_noise_step_limits():
    T = np.random.default_rng(3).standard_normal((4, 5))
    S, N = sparse_and_noise_step(T, 0.3, 0.0)
    np.testing.assert_array_equal(S, soft_threshold(T, 0.3))
    assert not N.any()
    # inside the ball everything is noise
    S, N = sparse_and_noise_step(T, 0.3, 1.01 * np.linalg.norm(T))
    assert not S.any()
    np.testing.assert_array_equal(N, T)


def test_noise_level_zero_is_principal_component_pursuit():
    M, _, _, _ = planted_problem(60, 3, 0.05, seed=74)
    default = RobustPCA(random_state=0).fit(M)
    explicit = RobustPCA(noise_level=0.0, random_state=0).fit(M)
    for name in ("low_rank_", "sparse_", "dual_", "residual_history_", "dual_residual_"):
        np.testing.assert_array_equal(getattr(explicit, name), getattr(default, name))
    reference_L, _, _, _ = reference_ialm(M, lam=default.l1_penalty_)
    np.testing.assert_allclose(default.low_rank_, reference_L, atol=1e-6 * np.abs(M).max())


def penalised_pcp_by_fista(M, nu, lam, n_iter):
    """``min ‖L‖_* + λ‖S‖₁ + ‖M - L - S‖²_F / (2ν)`` by accelerated proximal gradient.

    The smooth part has a gradient ``-(M - L - S)/ν`` in both blocks, Lipschitz
    with constant ``2/ν``; the proximal steps are NumPy's SVD thresholding and
    soft thresholding, with FISTA's momentum.
    """
    L = S = L_old = S_old = np.zeros_like(M)
    t, step = 1.0, nu / 2
    for _ in range(n_iter):
        t_next = (1 + np.sqrt(1 + 4 * t * t)) / 2
        a = (t - 1) / t_next
        t = t_next
        L_bar, S_bar = L + a * (L - L_old), S + a * (S - S_old)
        gradient = -(M - L_bar - S_bar) / nu
        L_old, S_old = L, S
        L = reference_svt(L_bar - step * gradient, step)
        S = reference_shrink(S_bar - step * gradient, step * lam)
    return L, S


def noisy_planted_problem(n, rank, fraction, noise_share, seed):
    """``M = L + S + Z`` with ``‖Z‖_F = noise_share ‖L‖_F`` (Gaussian)."""
    M, L, S, _ = planted_problem(n, rank, fraction, seed)
    Z = np.random.default_rng(seed + 1).standard_normal(M.shape)
    Z *= noise_share * np.linalg.norm(L) / np.linalg.norm(Z)
    return M + Z, L, S, Z


def test_stable_pcp_matches_proximal_gradient_on_the_penalised_form():
    # the constrained problem with δ = ‖M - L_ν - S_ν‖_F has the solution (L_ν, S_ν)
    # of the penalised one (the multiplier of the constraint is 1/ν)
    M, _, _, _ = noisy_planted_problem(30, 2, 0.05, 0.05, seed=75)
    lam = default_lambda(M.shape)
    L_pg, S_pg = penalised_pcp_by_fista(M, 0.1, lam, 6000)
    delta = np.linalg.norm(M - L_pg - S_pg)
    fit = RobustPCA(noise_level=delta, rho=1.0, random_state=0).fit(M)
    assert fit.converged_
    assert np.linalg.norm(fit.low_rank_ - L_pg) < 1e-4 * np.linalg.norm(L_pg)
    assert np.linalg.norm(fit.sparse_ - S_pg) < 1e-4 * np.linalg.norm(S_pg)
    np.testing.assert_allclose(np.linalg.norm(M - fit.low_rank_ - fit.sparse_), delta, rtol=1e-4)


@pytest.mark.parametrize("noise_share", [0.01, 0.1])
def test_stable_pcp_error_is_of_the_order_of_the_noise(noise_share):
    # Zhou et al.: ‖L̂ - L₀‖²_F + ‖Ŝ - S₀‖²_F ≤ C n² δ² for ‖Z‖_F ≤ δ; on this planted
    # problem the error is well within C = 1, and it shrinks with δ
    M, L, S, Z = noisy_planted_problem(80, 3, 0.05, noise_share, seed=76)
    delta = np.linalg.norm(Z)
    fit = RobustPCA(noise_level=delta, rho=1.0, tol=1e-5, random_state=0).fit(M)
    assert fit.converged_
    error = np.hypot(np.linalg.norm(fit.low_rank_ - L), np.linalg.norm(fit.sparse_ - S))
    assert error <= M.shape[0] * delta
    assert error <= 2 * delta  # of the order of δ, far inside the bound
    # ‖M - L - S‖_F ≤ δ, up to the primal residual allowed by tol
    assert np.linalg.norm(M - fit.low_rank_ - fit.sparse_) <= delta + 1e-5 * np.linalg.norm(M)
    # without the noise term the noise goes into S, which is then dense
    pcp = RobustPCA(random_state=0).fit(M)
    assert np.mean(pcp.sparse_ != 0) > 0.5 > np.mean(fit.sparse_ != 0)


def test_stable_pcp_follows_the_units_of_X():
    M, _, _, Z = noisy_planted_problem(40, 2, 0.05, 0.05, seed=77)
    delta = np.linalg.norm(Z)
    base = RobustPCA(noise_level=delta, rho=1.0, random_state=0).fit(M)
    scaled = RobustPCA(noise_level=1000 * delta, rho=1.0, random_state=0).fit(1000 * M)
    assert scaled.n_iter_ == base.n_iter_
    np.testing.assert_allclose(scaled.low_rank_, 1000 * base.low_rank_, rtol=0, atol=1e-9 * 1000)


@pytest.mark.parametrize("delta", [0.0, 0.5, 3.0])
def test_sparse_and_noise_sum_is_s_and_s_plus_n(delta):
    T = np.random.default_rng(81).standard_normal((12, 9)) * 2.0
    S, SN = sparse_and_noise_sum(T, 0.4, delta)
    S_step, N_step = sparse_and_noise_step(T, 0.4, delta)
    np.testing.assert_array_equal(S, S_step)
    np.testing.assert_allclose(SN, S_step + N_step, rtol=0, atol=1e-15)
    if delta == 0.0:  # no noise: S + N is S, entry by entry the soft threshold
        np.testing.assert_array_equal(SN, np.sign(T) * np.maximum(np.abs(T) - 0.4, 0.0))
