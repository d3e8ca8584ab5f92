"""Tests of outlier pursuit in :mod:`pcalib.robust_pca` (chapter 7): whole-sample outliers.

Expected values come from independent sources only: the proximal objective
``½‖s - t‖² + τ‖s‖₂`` minimised row by row by ``scipy.optimize.minimize``,
Moreau's decomposition (the proximal operator of a norm is the identity
minus the projection onto the dual-norm ball), random perturbations with
the strong-convexity bound ``f(s) - f(s*) ≥ ½‖s - s*‖²``, the planted
low-rank matrix and outlier rows that generated the data,
``scipy.linalg.subspace_angles``, the optimality (KKT) conditions and the
duality gap of the convex problem computed from NumPy's SVD, and the
inexact augmented Lagrangian iterations written out here with NumPy's full
SVD. None of them is produced by pcalib itself.
"""

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning

from pcalib import OutlierPursuitResult, outlier_pursuit
from pcalib.robust_pca import default_outlier_lambda, row_soft_threshold

pytestmark = pytest.mark.usefixtures("single_threaded_blas")


# ---------------------------------------------------------------------------
# Independent references and helpers
# ---------------------------------------------------------------------------


def prox_by_moreau(T, tau):
    """``T`` minus its rows projected onto the Euclidean ball of radius ``τ`` (Moreau)."""
    norms = np.linalg.norm(T, axis=1, keepdims=True)
    return T - T * np.minimum(1.0, tau / np.maximum(norms, 1e-300))


def row_objective(s, t, tau):
    """``½‖s - t‖² + τ‖s‖₂`` for one row."""
    return 0.5 * np.sum((s - t) ** 2) + tau * np.linalg.norm(s)


def planted_outliers(n, d, rank, share, seed):
    """``M``: rows of a rank-``rank`` ``L0``, a ``share`` of them replaced by unrelated rows.

    The outlier rows are Gaussian, scaled to 1 to 2 times the median norm of
    the inlier rows. ``L0`` is zero on them (Xu et al.'s model). Returns
    ``M, L0, outliers`` with the outlier rows sorted.
    """
    rng = np.random.default_rng(seed)
    L0 = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, d))
    outliers = np.sort(rng.choice(n, round(share * n), replace=False))
    L0[outliers] = 0.0
    typical = np.median(np.linalg.norm(np.delete(L0, outliers, axis=0), axis=1))
    rows = rng.standard_normal((outliers.size, d))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    rows *= typical * rng.uniform(1.0, 2.0, (outliers.size, 1))
    M = L0.copy()
    M[outliers] = rows
    return M, L0, outliers


def row_space(L, rank):
    """Orthonormal basis (columns) of the row space of ``L``, from NumPy's SVD."""
    return np.linalg.svd(L, full_matrices=False)[2][:rank].T


def group_objective(L, S, lam):
    """``‖L‖_* + λ Σ_i ‖S_i‖₂``."""
    return np.linalg.svd(L, compute_uv=False).sum() + lam * np.linalg.norm(S, axis=1).sum()


def reference_outlier_pursuit(M, lam, tol=1e-7, max_iter=1000):
    """The inexact ALM written out with NumPy's full SVD and the Moreau prox (``ρ = 1.5``)."""
    norm_two = np.linalg.norm(M, 2)
    mu = 1.25 / norm_two
    mu_bar = 1e7 * mu
    Y = M / max(norm_two, np.linalg.norm(M, axis=1).max() / lam)
    S = np.zeros_like(M)
    for _ in range(max_iter):
        U, s, Vt = np.linalg.svd(M - S + Y / mu, full_matrices=False)
        L = (U * np.maximum(s - 1.0 / mu, 0.0)) @ Vt
        S = prox_by_moreau(M - L + Y / mu, lam / mu)
        R = M - L - S
        Y = Y + mu * R
        mu = min(1.5 * mu, mu_bar)
        if np.linalg.norm(R) / np.linalg.norm(M) < tol:
            break
    return L, S


# planted problems: (n, d, rank, share of outlier rows, seed)
PLANTED = [(100, 20, 2, 0.1, 0), (200, 30, 3, 0.1, 1), (150, 40, 2, 0.2, 2), (80, 60, 3, 0.05, 3)]


@pytest.fixture(scope="module")
def fits():
    """``{case: (M, L0, outliers, result)}`` with the default λ."""
    problems = {case: planted_outliers(*case) for case in PLANTED}
    return {
        case: (M, L0, outliers, outlier_pursuit(M, random_state=0))
        for case, (M, L0, outliers) in problems.items()
    }


# ---------------------------------------------------------------------------
# The row soft threshold
# ---------------------------------------------------------------------------


def test_row_soft_threshold_minimises_the_proximal_objective_row_by_row():
    rng = np.random.default_rng(0)
    T = rng.standard_normal((6, 3)) * np.array([[0.2], [0.5], [1.0], [2.0], [3.0], [0.0]])
    tau = 0.9
    S = row_soft_threshold(T, tau)
    for s, t in zip(S, T, strict=True):
        best = min(
            (
                scipy.optimize.minimize(
                    row_objective,
                    start,
                    args=(t, tau),
                    method="Nelder-Mead",
                    options=dict(xatol=1e-10, fatol=1e-14, maxiter=20_000),
                )
                for start in rng.standard_normal((4, 3))
            ),
            key=lambda result: result.fun,
        )
        assert row_objective(s, t, tau) <= best.fun + 1e-12
        np.testing.assert_allclose(s, best.x, atol=1e-5)  # the optimiser's accuracy
        # 1-strongly convex: every perturbation raises the objective by at least ½‖δ‖²
        for delta in 1e-3 * rng.standard_normal((50, 3)):
            gain = row_objective(s + delta, t, tau) - row_objective(s, t, tau)
            assert gain >= 0.5 * np.sum(delta**2) - 1e-15


def test_row_soft_threshold_is_the_identity_minus_the_projection_on_the_ball():
    rng = np.random.default_rng(1)
    T = rng.standard_normal((40, 7)) * rng.uniform(0.0, 3.0, (40, 1))
    T[3] = 0.0
    for tau in (0.0, 0.5, 2.0, 10.0):
        np.testing.assert_allclose(row_soft_threshold(T, tau), prox_by_moreau(T, tau), atol=1e-15)


def test_row_soft_threshold_zeroes_exactly_the_rows_within_tau():
    T = np.array([[3.0, 4.0], [0.6, 0.8], [0.3, 0.4], [0.0, 0.0]])  # norms 5, 1, 0.5, 0
    S = row_soft_threshold(T, 1.0)
    np.testing.assert_array_equal(S[1:], 0.0)
    np.testing.assert_allclose(S[0], [3.0 * 4 / 5, 4.0 * 4 / 5], rtol=1e-15)


def test_row_soft_threshold_of_one_column_is_entrywise_soft_thresholding():
    x = np.linspace(-3.0, 3.0, 61)[:, np.newaxis]
    np.testing.assert_allclose(row_soft_threshold(x, 0.7), x - np.clip(x, -0.7, 0.7), atol=1e-15)


@settings(deadline=None, max_examples=50, database=None)
@given(
    T=arrays(
        np.float64, st.tuples(st.integers(1, 6), st.integers(1, 5)), elements=st.floats(-1e6, 1e6)
    ),
    tau=st.floats(0.0, 1e6),
)
def test_each_row_keeps_its_direction_and_loses_tau_of_its_norm(T, tau):
    S = row_soft_threshold(T, tau)
    norms_T, norms_S = np.linalg.norm(T, axis=1), np.linalg.norm(S, axis=1)
    np.testing.assert_allclose(
        norms_S, np.maximum(norms_T - tau, 0.0), atol=1e-12 * (1.0 + tau + norms_T.max())
    )
    # S_i is a non-negative multiple of T_i: ⟨S_i, T_i⟩ = ‖S_i‖ ‖T_i‖
    np.testing.assert_allclose(np.sum(S * T, axis=1), norms_S * norms_T, rtol=1e-12, atol=0)


@pytest.mark.parametrize("tau", [-1.0, float("nan"), "a", None])
def test_row_soft_threshold_refuses_a_bad_tau(tau):
    with pytest.raises((ValueError, TypeError), match="tau"):
        row_soft_threshold(np.ones((2, 2)), tau)


# ---------------------------------------------------------------------------
# Exact recovery and optimality
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", PLANTED, ids=str)
def test_the_planted_outliers_and_row_space_are_recovered_exactly(fits, case):
    M, L0, outliers, result = fits[case]
    rank = case[2]
    assert isinstance(result, OutlierPursuitResult) and result.converged
    np.testing.assert_array_equal(result.outliers, outliers)
    assert result.components.shape == (rank, M.shape[1])
    assert scipy.linalg.subspace_angles(result.components.T, row_space(L0, rank)).max() < 1e-6
    inliers = np.setdiff1d(np.arange(M.shape[0]), outliers)
    # off the outliers S is exactly 0 and L is the planted L0
    np.testing.assert_array_equal(result.sparse[inliers], 0.0)
    assert np.linalg.norm(result.low_rank[inliers] - L0[inliers]) < 1e-5 * np.linalg.norm(L0)
    angle_inliers = scipy.linalg.subspace_angles(
        row_space(result.low_rank[inliers], rank), row_space(L0, rank)
    ).max()
    assert angle_inliers < 1e-6


@pytest.mark.parametrize("case", PLANTED, ids=str)
def test_the_kkt_conditions_and_a_small_duality_gap_certify_the_solution(fits, case):
    M, _, outliers, result = fits[case]
    L, S, Y, lam = result.low_rank, result.sparse, result.dual, result.l1_penalty
    # Y in λ ∂(Σ ‖S_i‖): λ S_i/‖S_i‖ on the outlier rows, norms at most λ elsewhere
    norms_S = np.linalg.norm(S[outliers], axis=1, keepdims=True)
    np.testing.assert_allclose(Y[outliers], lam * S[outliers] / norms_S, rtol=1e-9, atol=0)
    assert np.linalg.norm(np.delete(Y, outliers, axis=0), axis=1).max() <= lam * (1 + 1e-9)
    # Y in ∂‖L‖_*: P_T(Y) = UVᵀ and ‖Y - P_T(Y)‖₂ ≤ 1, with U, V from NumPy's SVD of L
    rank = case[2]
    U, _, Vt = np.linalg.svd(L, full_matrices=False)
    U, V = U[:, :rank], Vt[:rank].T
    P_T = U @ (U.T @ Y) + (Y @ V) @ V.T - U @ (U.T @ Y @ V) @ V.T
    # the growing μ freezes the iterates once the primal residual is tiny: this half of
    # the conditions holds to about 2e-3 (measured; a smaller tol does not improve it)
    assert np.linalg.norm(P_T - U @ V.T) < 5e-3 * np.sqrt(rank)
    assert np.linalg.norm(Y - P_T, 2) < 0.9
    # the dual max ⟨Y, M⟩ s.t. ‖Y‖₂ ≤ 1, max_i ‖Y_i‖ ≤ λ bounds every feasible objective:
    # the fit is optimal to a relative gap of about 1e-4
    Y_feasible = Y / max(np.linalg.norm(Y, 2), np.linalg.norm(Y, axis=1).max() / lam)
    lower_bound = np.sum(Y_feasible * M)
    primal = group_objective(L, M - L, lam)
    assert 0.0 <= (primal - lower_bound) / primal < 5e-4


def test_the_iterations_are_the_written_out_augmented_lagrangian():
    M, _, _ = planted_outliers(60, 12, 2, 0.1, seed=4)
    lam = default_outlier_lambda(M.shape)
    result = outlier_pursuit(M, random_state=0)
    L_ref, S_ref = reference_outlier_pursuit(M, lam)
    # ‖M‖₂ by Lanczos (pcalib) against LAPACK (reference): the same to about 1e-13
    np.testing.assert_allclose(result.low_rank, L_ref, atol=1e-8 * np.abs(M).max())
    np.testing.assert_allclose(result.sparse, S_ref, atol=1e-8 * np.abs(M).max())


def test_the_default_lambda_is_inside_the_window_where_the_theorem_value_fails():
    M, _, outliers = planted_outliers(100, 20, 2, 0.1, seed=0)
    lam_theory = 3.0 / (7.0 * np.sqrt(0.1 * 100))  # Xu et al., with the true share
    theory = outlier_pursuit(M, l1_penalty=lam_theory, random_state=0)
    assert not np.array_equal(theory.outliers, outliers)  # inlier rows go into S
    assert 0.0 < lam_theory < default_outlier_lambda(M.shape) < 1.0


def test_a_large_lambda_keeps_everything_in_L():
    M, _, _ = planted_outliers(50, 10, 2, 0.1, seed=5)
    result = outlier_pursuit(M, l1_penalty=100.0, random_state=0)
    assert result.outliers.size == 0
    np.testing.assert_array_equal(result.sparse, 0.0)
    np.testing.assert_allclose(result.low_rank, M, atol=1e-6 * np.abs(M).max())


# ---------------------------------------------------------------------------
# Units, row order, result shape
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("c", [1e-8, 1e-3, 255.0, 1e8])
def test_the_fit_of_c_times_X_is_c_times_the_fit(c):
    M, _, _ = planted_outliers(60, 12, 2, 0.1, seed=6)
    base = outlier_pursuit(M, random_state=0)
    scaled = outlier_pursuit(c * M, random_state=0)
    assert scaled.n_iter == base.n_iter and scaled.converged == base.converged
    np.testing.assert_array_equal(scaled.outliers, base.outliers)
    for name in ("low_rank", "sparse"):
        np.testing.assert_allclose(
            getattr(scaled, name), c * getattr(base, name), atol=1e-12 * c * np.abs(M).max()
        )
    for name in ("components", "dual", "residual_history"):
        np.testing.assert_allclose(getattr(scaled, name), getattr(base, name), atol=1e-10)
    assert scaled.l1_penalty == base.l1_penalty


def test_permuting_the_rows_permutes_the_fit():
    M, _, _ = planted_outliers(80, 15, 2, 0.1, seed=7)
    order = np.random.default_rng(8).permutation(M.shape[0])
    base = outlier_pursuit(M, random_state=0)
    permuted = outlier_pursuit(M[order], random_state=0)
    np.testing.assert_array_equal(np.sort(order[permuted.outliers]), base.outliers)
    scale = np.abs(M).max()
    np.testing.assert_allclose(permuted.low_rank, base.low_rank[order], atol=1e-8 * scale)
    np.testing.assert_allclose(permuted.sparse, base.sparse[order], atol=1e-8 * scale)


def test_the_history_has_one_entry_per_iteration_and_tol_zero_runs_max_iter():
    M, _, _ = planted_outliers(40, 8, 1, 0.1, seed=9)
    with pytest.warns(ConvergenceWarning, match="outlier_pursuit"):
        result = outlier_pursuit(M, tol=0, max_iter=7, random_state=0)
    assert result.n_iter == 7 and not result.converged
    assert result.residual_history.shape == (8,) and result.residual_history[0] == 1.0


def test_a_tiny_max_iter_warns_and_says_so():
    M, _, _ = planted_outliers(40, 8, 1, 0.1, seed=10)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        result = outlier_pursuit(M, max_iter=2, random_state=0)
    assert not result.converged and result.n_iter == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        assert outlier_pursuit(M, random_state=0).converged


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"l1_penalty": -1.0}, "l1_penalty"),
        ({"l1_penalty": 0.0}, "l1_penalty"),
        ({"l1_penalty": float("nan")}, "l1_penalty"),
        ({"l1_penalty": "large"}, "l1_penalty"),
        ({"tol": -1e-3}, "tol"),
        ({"tol": float("inf")}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"max_iter": 2.5}, "max_iter"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_parameters_are_refused_by_name(kwargs, name):
    M, _, _ = planted_outliers(20, 5, 1, 0.1, seed=11)
    with pytest.raises((ValueError, TypeError), match=name):
        outlier_pursuit(M, **kwargs)


@pytest.mark.parametrize(
    "X",
    [
        np.array([[1.0, np.nan], [2.0, 3.0]]),
        np.array([[1.0, np.inf], [2.0, 3.0]]),
        np.zeros((4, 3)),
        np.ones((1, 3)),
        [["a", "b"], ["c", "d"]],
    ],
    ids=["nan", "inf", "zeros", "one row", "strings"],
)
def test_bad_X_is_refused_by_name(X):
    with pytest.raises((ValueError, TypeError), match="X"):
        outlier_pursuit(X)
