"""Tests of :func:`pcalib.altproj`, non-convex robust PCA by alternating projections.

AltProj (Netrapalli et al. 2014) and principal component pursuit solve the
same decomposition by different algorithms, so each checks the other: both
must recover the planted problems of ``test_robust_pca.py`` (same generator,
same sizes), and agree with each other there.
"""

import warnings

import numpy as np
import pytest
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning
from test_robust_pca import RECOVERY_SIZES, planted_problem, recovery_problems

from pcalib import AltProjResult, RobustPCA, altproj
from pcalib._linalg import TRUNCATED_SVD_SHARE, top_svd
from pcalib.robust_pca import hard_threshold

pytestmark = pytest.mark.usefixtures("single_threaded_blas")


@pytest.fixture(scope="module")
def recovery():
    """``{n: (M, L, S, support, rank, altproj result, RobustPCA fit)}``, rank and corruption 5 %."""
    out = {}
    for n, rank, M, L, S, support in recovery_problems():
        result = altproj(M, rank, tol=1e-9, random_state=0)
        pcp = RobustPCA(random_state=0).fit(M)
        out[n] = (M, L, S, support, rank, result, pcp)
    return out


def relative_error(estimate, truth):
    return np.linalg.norm(estimate - truth) / np.linalg.norm(truth)


# ---------------------------------------------------------------------------
# Exact recovery, and agreement with principal component pursuit
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", RECOVERY_SIZES)
def test_exact_recovery_of_the_planted_decomposition(recovery, n):
    M, L, S, support, rank, result, _ = recovery[n]
    assert isinstance(result, AltProjResult)
    assert result.converged and result.rank == rank
    assert relative_error(result.low_rank, L) < 1e-6
    np.testing.assert_array_equal(result.sparse != 0, support)
    assert relative_error(result.sparse, S) < 1e-6
    assert np.linalg.matrix_rank(result.low_rank) == rank
    # the history: one entry per iteration, the last that of the returned L and S
    history = result.residual_history
    assert history.shape == (result.n_iter + 1,) and history[-1] < 1e-9
    np.testing.assert_allclose(
        history[-1],
        np.linalg.norm(M - result.low_rank - result.sparse) / np.linalg.norm(M),
        rtol=1e-8,
    )
    # every stage k = 1..r takes at least one iteration
    assert result.n_iter >= rank
    # the default β = 1.5 r^(1/4) / n^(3/4) of a square matrix
    np.testing.assert_allclose(result.beta, 1.5 * rank**0.25 / n**0.75, rtol=1e-14)


@pytest.mark.parametrize("n", RECOVERY_SIZES)
def test_default_tolerance_recovers_as_well_as_pcp(recovery, n):
    M, L, _, support, rank, _, pcp = recovery[n]
    result = altproj(M, rank, random_state=0)
    assert result.converged and result.residual_history[-1] < 1e-7
    # the residual is relative to ‖M‖_F, several times ‖L‖_F here: the same bound as PCP's test
    assert relative_error(result.low_rank, L) < 1e-5
    assert relative_error(pcp.low_rank_, L) < 1e-5
    np.testing.assert_array_equal(result.sparse != 0, support)


@pytest.mark.parametrize("n", RECOVERY_SIZES)
def test_altproj_agrees_with_principal_component_pursuit(recovery, n):
    _, _, _, _, _, result, pcp = recovery[n]
    # two algorithms for the same decomposition, each within about 1e-6 ‖L‖ of L
    assert relative_error(result.low_rank, pcp.low_rank_) < 1e-5
    np.testing.assert_array_equal(result.sparse != 0, pcp.sparse_ != 0)
    assert pcp.rank_ == result.rank
    # the same row space: the principal angles between the two are tiny
    V = scipy.linalg.orth(result.low_rank.T)
    assert scipy.linalg.subspace_angles(V, pcp.components_.T).max() < 1e-5


def test_non_square_recovery():
    for shape in ((150, 60), (60, 150)):
        M, L, _, support = planted_problem(None, 3, 0.05, seed=14, shape=shape)
        result = altproj(M, 3, tol=1e-9, random_state=0)
        assert result.converged and result.rank == 3
        assert relative_error(result.low_rank, L) < 1e-6
        np.testing.assert_array_equal(result.sparse != 0, support)


def test_uncorrupted_low_rank_input_stops_at_its_rank():
    # rank 2 without corruption, asked for rank 5: M - S has rank 2 once S = 0
    rng = np.random.default_rng(3)
    M = rng.standard_normal((80, 2)) @ rng.standard_normal((2, 60))
    result = altproj(M, 5, random_state=0)
    assert result.converged and result.rank == 2
    assert relative_error(result.low_rank, M) < 1e-6
    assert np.abs(result.sparse).max() < 1e-6 * np.abs(M).max()


def test_far_beyond_the_transition_recovery_fails_without_nan():
    n = 200
    M, L, _, _ = planted_problem(n, 80, 0.4, seed=15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = altproj(M, 80, max_iter=100, random_state=0)
    for field in (result.low_rank, result.sparse, result.residual_history):
        assert np.all(np.isfinite(field))
    assert relative_error(result.low_rank, L) > 0.5
    np.testing.assert_allclose(
        np.linalg.norm(M - result.low_rank - result.sparse) / np.linalg.norm(M),
        result.residual_history[-1],
        rtol=1e-8,
    )


# ---------------------------------------------------------------------------
# The two projections
# ---------------------------------------------------------------------------


def test_hard_threshold_against_its_definition_entry_by_entry():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((7, 5)) * 3.0
    zeta = 1.3
    expected = np.zeros_like(A)
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            if abs(A[i, j]) > zeta:
                expected[i, j] = A[i, j]
    np.testing.assert_array_equal(hard_threshold(A, zeta), expected)
    # a tie stays at 0 (the threshold is strict), ζ = 0 keeps every non-zero entry
    np.testing.assert_array_equal(hard_threshold(np.array([[1.3, -1.3]]), 1.3), [[0.0, 0.0]])
    np.testing.assert_array_equal(hard_threshold(A, 0.0), A)


def test_hard_threshold_is_the_proximal_operator_of_the_l0_penalty():
    # H_ζ(a) minimises ½(s - a)² + ½ζ² [s ≠ 0]: compare with a search on a fine grid
    rng = np.random.default_rng(5)
    zeta = 0.8
    grid = np.concatenate([np.linspace(-4.0, 4.0, 80_001), [0.0]])
    for a in rng.uniform(-3.0, 3.0, 40):
        objective = 0.5 * (grid - a) ** 2 + 0.5 * zeta**2 * (grid != 0.0)
        best = grid[np.argmin(objective)]
        found = hard_threshold(np.array([[a]]), zeta)[0, 0]
        assert abs(found - best) <= 1e-4  # the grid step
        assert 0.5 * (found - a) ** 2 + 0.5 * zeta**2 * (found != 0) <= objective.min() + 1e-12


@pytest.mark.parametrize("k", [3, 40])
def test_top_svd_against_lapack(k):
    # a decaying spectrum; k = 40 is past the randomized share and uses the full SVD
    rng = np.random.default_rng(6)
    U, _ = np.linalg.qr(rng.standard_normal((120, 100)))
    V, _ = np.linalg.qr(rng.standard_normal((100, 100)))
    spectrum = 0.7 ** np.arange(100)
    A = (U * spectrum) @ V.T
    assert (k >= TRUNCATED_SVD_SHARE * 100) == (k == 40)
    U_k, s_k, Vt_k = top_svd(A, k, random_state=0)
    np.testing.assert_allclose(s_k, spectrum[:k], rtol=1e-8, atol=1e-12)
    best = (U[:, :k] * spectrum[:k]) @ V[:, :k].T
    assert np.linalg.norm((U_k * s_k) @ Vt_k - best) < 1e-8
    # from a start near the top right singular vectors (the previous iteration's)
    start = np.linalg.qr(V[:, :k] + 1e-6 * rng.standard_normal((100, k)))[0].T
    _, s_warm, _ = top_svd(A, k, start=start, random_state=0)
    np.testing.assert_allclose(s_warm, spectrum[:k], rtol=1e-8, atol=1e-12)


# ---------------------------------------------------------------------------
# Units, iterations, input validation
# ---------------------------------------------------------------------------


def test_units_c_times_X_gives_c_times_L_and_S():
    M, _, _, _ = planted_problem(100, 5, 0.05, seed=7)
    base = altproj(M, 5, random_state=0)
    # a power of four: exactly the same arithmetic
    exact = altproj(M * 4.0**6, 5, random_state=0)
    np.testing.assert_array_equal(exact.low_rank, base.low_rank * 4.0**6)
    np.testing.assert_array_equal(exact.sparse, base.sparse * 4.0**6)
    for c in (1e-3, 255.0, 1e8):
        scaled = altproj(M * c, 5, random_state=0)
        assert scaled.n_iter == base.n_iter and scaled.rank == base.rank
        scale = c * np.abs(base.low_rank).max()
        np.testing.assert_allclose(scaled.low_rank, c * base.low_rank, atol=1e-9 * scale)
        np.testing.assert_allclose(scaled.sparse, c * base.sparse, atol=1e-9 * scale)
        np.testing.assert_allclose(scaled.residual_history, base.residual_history, atol=1e-12)


def test_convergence_warning_on_a_tiny_max_iter():
    M, _, _, _ = planted_problem(100, 5, 0.05, seed=8)
    with pytest.warns(ConvergenceWarning, match=r"altproj stopped after max_iter=3"):
        short = altproj(M, 5, max_iter=3, random_state=0)
    assert not short.converged and short.n_iter == 3
    assert short.residual_history.shape == (4,)
    for field in (short.low_rank, short.sparse, short.residual_history):
        assert np.all(np.isfinite(field))


def test_tol_zero_runs_max_iter():
    M, _, _, _ = planted_problem(60, 2, 0.05, seed=9)
    with pytest.warns(ConvergenceWarning):
        result = altproj(M, 2, tol=0.0, max_iter=40, random_state=0)
    assert result.n_iter == 40 and not result.converged and result.rank == 2


def test_seeded_runs_are_reproducible():
    M, _, _, _ = planted_problem(120, 6, 0.05, seed=10)
    first, second = altproj(M, 6, random_state=3), altproj(M, 6, random_state=3)
    np.testing.assert_array_equal(first.low_rank, second.low_rank)
    assert first.n_iter == second.n_iter


GOOD_X = np.random.default_rng(11).standard_normal((20, 8))


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"n_components": 2.5}, TypeError, "n_components"),
        ({"n_components": "2"}, TypeError, "n_components"),
        ({"n_components": None}, TypeError, "n_components"),
        ({"n_components": 0}, ValueError, "n_components"),
        ({"n_components": 9}, ValueError, "n_components"),
        ({"n_components": 2, "tol": -1e-3}, ValueError, "tol"),
        ({"n_components": 2, "tol": np.nan}, ValueError, "tol"),
        ({"n_components": 2, "beta": 0.0}, ValueError, "beta"),
        ({"n_components": 2, "beta": -0.1}, ValueError, "beta"),
        ({"n_components": 2, "max_iter": 0}, ValueError, "max_iter"),
        ({"n_components": 2, "max_iter": 2.0}, TypeError, "max_iter"),
        ({"n_components": 2, "random_state": "seed"}, (TypeError, ValueError), "random_state"),
    ],
    ids=str,
)
def test_bad_arguments_are_named(kwargs, error, name):
    with pytest.raises(error, match=name):
        altproj(GOOD_X, **kwargs)


@pytest.mark.parametrize(
    ("X", "message"),
    [
        (np.where(np.eye(5, 4) > 0, np.nan, 1.0), "X"),
        (np.full((5, 4), np.inf), "X"),
        (np.zeros((5, 4)), "all zeros"),
        (np.ones((1, 4)), "X"),
        (np.ones(5), "X"),
    ],
    ids=["nan", "inf", "zeros", "one row", "1-D"],
)
def test_bad_X_is_named(X, message):
    with pytest.raises(ValueError, match=message):
        altproj(X, 1)
