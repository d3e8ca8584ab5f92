"""Tests of :func:`pcalib.pca_als` and :func:`pcalib.pca_gradient_descent`.

The reference is always NumPy's SVD of the same centred data: the top-k right
singular vectors span the principal subspace and, by the Eckart–Young theorem,
the smallest value of ``‖X - Z Wᵀ‖²_F`` over rank-k factorisations is the sum of
the discarded squared singular values. ``W`` is the loading matrix, of shape
(n_features, k).
"""

import warnings

import numpy as np
import pytest
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from pcalib import FactorizationResult, pca_als, pca_gradient_descent
from pcalib.datasets import make_low_rank, make_spectrum

METHODS = {"als": pca_als, "gd": pca_gradient_descent}


def centred(X):
    return X - X.mean(axis=0)


def low_rank_data():
    # signal variances 3, 2, 1 plus noise of variance 0.01 in 10 dimensions:
    # clear gaps after each of the first three components
    X, _ = make_low_rank(200, 10, 3, noise=0.1, random_state=0)
    return centred(X)


def spectrum_data():
    X, _ = make_spectrum(300, 8, [10, 6, 3, 0.5, 0.4, 0.3, 0.2, 0.1], random_state=1)
    return centred(X)


DATASETS = {"low_rank": low_rank_data, "spectrum": spectrum_data}


def svd_reference(X, k):
    """Top-k principal axes (rows) and the Eckart–Young minimum, via NumPy."""
    _, s, Vt = np.linalg.svd(X, full_matrices=False)
    return Vt[:k], float(np.sum(s[k:] ** 2)), s


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("dataset", DATASETS)
@pytest.mark.parametrize("method", METHODS)
def test_reaches_principal_subspace_and_eckart_young_minimum(method, dataset, k):
    X = DATASETS[dataset]()
    axes, minimum, s = svd_reference(X, k)
    # the test data has a clear eigengap at k (variance ratio of at least 1.3)
    assert s[k - 1] ** 2 > 1.3 * s[k] ** 2

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # must converge
        result = METHODS[method](X, k, random_state=0)

    assert isinstance(result, FactorizationResult)
    assert result.converged
    assert result.Z.shape == (X.shape[0], k)
    assert result.W.shape == (X.shape[1], k)
    assert result.objective_history.shape == (result.n_iter + 1,)
    assert result.offset is None

    # the column space of W is the top-k principal subspace
    angles = scipy.linalg.subspace_angles(result.W, axes.T)
    assert angles.max() < 1e-4

    objective = result.objective_history
    # never increases, up to rounding relative to the current value
    assert np.all(np.diff(objective) <= 1e-12 * objective[:-1])
    # the last value is the error of the returned factors...
    residual = X - result.Z @ result.W.T
    assert objective[-1] == pytest.approx(np.sum(residual**2), rel=1e-12)
    np.testing.assert_array_equal(result.reconstruction(), result.Z @ result.W.T)
    # ...and the Eckart–Young minimum, which no rank-k product can beat
    assert objective[-1] == pytest.approx(minimum, rel=1e-8)
    assert objective[-1] >= minimum * (1 - 1e-12)

    # first-order optimality: both block gradients vanish, relative to the
    # size of the terms that make them up
    grad_Z = residual @ result.W
    grad_W = residual.T @ result.Z
    assert np.linalg.norm(grad_Z) <= 1e-5 * np.linalg.norm(X) * np.linalg.norm(result.W)
    assert np.linalg.norm(grad_W) <= 1e-5 * np.linalg.norm(X) * np.linalg.norm(result.Z)


@pytest.mark.parametrize("max_iter", [1, 3])
def test_als_half_steps_are_exact_least_squares(max_iter):
    """The last half-step of ALS solves min_W ‖X - Z Wᵀ‖ exactly: W = XᵀZ (ZᵀZ)⁻¹."""
    X = spectrum_data()
    with pytest.warns(ConvergenceWarning):
        result = pca_als(X, 2, max_iter=max_iter, random_state=0)
    Z = result.Z
    W_ls = np.linalg.solve(Z.T @ Z, Z.T @ X).T
    np.testing.assert_allclose(result.W, W_ls, rtol=0, atol=1e-10 * np.abs(W_ls).max())
    # each sweep decreases the objective, the first one strictly
    assert result.objective_history[1] < result.objective_history[0]


@pytest.mark.parametrize("method", METHODS)
def test_reproducible_with_the_same_random_state(method):
    X = low_rank_data()
    function = METHODS[method]
    a = function(X, 2, random_state=42)
    b = function(X, 2, random_state=42)
    np.testing.assert_array_equal(a.Z, b.Z)
    np.testing.assert_array_equal(a.W, b.W)
    np.testing.assert_array_equal(a.objective_history, b.objective_history)
    assert a.n_iter == b.n_iter
    # a Generator seeded the same way gives the same run
    c = function(X, 2, random_state=np.random.default_rng(42))
    np.testing.assert_array_equal(a.W, c.W)
    # another seed starts elsewhere but reaches the same subspace
    d = function(X, 2, random_state=7)
    assert d.objective_history[0] != a.objective_history[0]
    assert not np.allclose(d.W, a.W)
    assert scipy.linalg.subspace_angles(d.W, a.W).max() < 1e-4
    # a legacy RandomState is accepted, and seeds the same start twice
    e = function(X, 2, random_state=np.random.RandomState(42))
    f = function(X, 2, random_state=np.random.RandomState(42))
    np.testing.assert_array_equal(e.W, f.W)


@pytest.mark.parametrize("max_iter", [1, 2, 5])
@pytest.mark.parametrize("method", METHODS)
def test_convergence_warning_when_max_iter_too_small(method, max_iter):
    X = spectrum_data()
    with pytest.warns(
        ConvergenceWarning,
        match=rf"pca_\w+ stopped after max_iter={max_iter} iterations before the relative "
        r"decrease of the objective fell below tol=1e-12; increase max_iter or tol\.",
    ):
        result = METHODS[method](X, 2, max_iter=max_iter, random_state=0)
    assert result.converged is False
    assert result.n_iter == max_iter
    assert result.objective_history.shape == (max_iter + 1,)
    assert np.all(np.isfinite(result.Z)) and np.all(np.isfinite(result.W))


@pytest.mark.parametrize("method", METHODS)
def test_no_convergence_warning_with_enough_iterations(method):
    X = spectrum_data()
    max_iter = 10_000
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        result = METHODS[method](X, 2, max_iter=max_iter, random_state=0)
    assert result.converged is True
    assert result.n_iter < max_iter


@pytest.mark.parametrize("learning_rate", [0.05, 0.5, 10.0, 1e6])
def test_too_large_learning_rate_raises(learning_rate):
    X = low_rank_data()
    # The Lipschitz constant of the gradient is about 2‖Wᵀ W‖₂ ≈ 40 here, so
    # these fixed steps are too long. Overflow must come out as the documented
    # ValueError, not as NaN and not as a RuntimeWarning.
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(
            ValueError, match=rf"gradient descent diverged .* learning_rate={learning_rate}"
        ):
            pca_gradient_descent(X, 2, learning_rate=learning_rate, random_state=0, max_iter=5000)


def test_small_fixed_learning_rate_converges():
    X = low_rank_data()
    axes, minimum, _ = svd_reference(X, 2)
    result = pca_gradient_descent(X, 2, learning_rate=0.005, random_state=0, max_iter=5000)
    assert result.converged
    assert scipy.linalg.subspace_angles(result.W, axes.T).max() < 1e-4
    objective = result.objective_history
    assert objective[-1] == pytest.approx(minimum, rel=1e-8)
    assert np.all(np.diff(objective) <= 1e-12 * objective[:-1])


# The minimum is 0 here: the objective falls to rounding level, where the
# stopping rule's floor (max(n, d)·eps)²·‖X‖² declares convergence, so no
# ConvergenceWarning may be emitted.
@pytest.mark.filterwarnings("error::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("k", [3, 4, 8])
@pytest.mark.parametrize("method", METHODS)
def test_rank_deficient_X_with_k_above_rank(method, k):
    X, _ = make_low_rank(50, 8, 2, noise=0.0, random_state=3)
    X = centred(X)
    assert np.linalg.matrix_rank(X) == 2
    scale = np.sum(X**2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = METHODS[method](X, k, random_state=0, max_iter=2000)
    assert result.W.shape == (8, k)
    assert result.converged
    assert np.all(np.isfinite(result.Z)) and np.all(np.isfinite(result.W))
    # objective ~ 0: rounding level of ‖X‖², far below the 1.6e-1 of the data
    assert result.objective_history[-1] <= 1e-20 * scale
    np.testing.assert_allclose(result.Z @ result.W.T, X, rtol=0, atol=1e-9 * np.abs(X).max())
    # the two true directions are in the column space of W
    axes, _, _ = svd_reference(X, 2)
    Q, _ = np.linalg.qr(result.W)  # orthonormal basis of the column space
    assert np.linalg.norm(axes.T - Q @ (Q.T @ axes.T)) < 1e-6


@pytest.mark.parametrize("method", METHODS)
def test_accepts_lists_and_does_not_modify_input(method):
    X = spectrum_data()
    X_copy = X.copy()
    a = METHODS[method](X, 2, random_state=0)
    np.testing.assert_array_equal(X, X_copy)
    b = METHODS[method](X.tolist(), 2, random_state=0)
    np.testing.assert_array_equal(a.W, b.W)


@pytest.mark.parametrize("max_iter", [1, 7, 200])
@pytest.mark.parametrize("method", METHODS)
def test_tol_zero_runs_exactly_max_iter(method, max_iter):
    # exactly rank 2: with the default tol both solvers stop early, at the
    # rounding floor of an exact fit; tol=0 must run every sweep anyway
    X, _ = make_low_rank(30, 6, 2, noise=0.0, random_state=4)
    X = centred(X)
    assert METHODS[method](X, 2, random_state=0).n_iter < 200
    with pytest.warns(
        ConvergenceWarning, match=rf"stopped after max_iter={max_iter} iterations .* tol=0;"
    ):
        result = METHODS[method](X, 2, max_iter=max_iter, tol=0, random_state=0)
    assert result.n_iter == max_iter
    assert result.converged is False
    assert result.objective_history.shape == (max_iter + 1,)
    # the extra sweeps change nothing that matters: still the exact fit
    if max_iter == 200:
        np.testing.assert_allclose(result.reconstruction(), X, rtol=0, atol=1e-9 * np.abs(X).max())


def test_stopping_rule_is_strict_and_relative():
    """One sweep more or less: a relative decrease equal to tol does not stop."""
    X = spectrum_data()
    full = pca_als(X, 2, random_state=0, tol=1e-8)
    history = full.objective_history
    # the relative decrease of the last sweep is below tol, the one before not
    decrease = -np.diff(history) / history[:-1]
    assert decrease[-1] < 1e-8 <= decrease[-2]
    # with tol equal to the decrease of the last sweep, that sweep no longer
    # stops the run: a strict comparison
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        later = pca_als(X, 2, random_state=0, tol=float(decrease[-1]), max_iter=full.n_iter + 50)
    assert later.n_iter > full.n_iter


# The units test multiplies X by factors that are not powers of two, so the
# rescaled data differ from X by rounding and the results by rounding only.
UNIT_FACTORS = [1e-8, 1e-3, 255.0, 1e8]


@pytest.mark.parametrize("c", UNIT_FACTORS)
@pytest.mark.parametrize("method", METHODS)
def test_does_not_depend_on_the_units_of_X(method, c):
    # the random start is scaled to ‖X‖, the step of "auto" is 1/(2‖WᵀW‖) and the
    # stopping rule is relative: Z and W each scale with √c, the objective with c²
    X = spectrum_data()[:60]
    a = METHODS[method](X, 3, random_state=0)
    b = METHODS[method](c * X, 3, random_state=0)
    assert a.converged and (b.n_iter, b.converged) == (a.n_iter, a.converged)
    root = np.sqrt(c)
    for actual, expected in ((b.Z, root * a.Z), (b.W, root * a.W)):
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6 * np.abs(expected).max())
    np.testing.assert_allclose(b.objective_history, c**2 * a.objective_history, rtol=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_data_whose_squares_underflow_is_refused_with_a_clear_error(method):
    # entries of 1e-170: every square, hence the objective, underflows to 0,
    # and the solvers would stop at once on a meaningless fit
    X = spectrum_data()[:20] * 1e-170
    with pytest.raises(ValueError, match=r"X is too small for float64 arithmetic"):
        METHODS[method](X, 2, random_state=0)
