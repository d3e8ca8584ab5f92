"""Tests of the regularised factorisations of chapter 6 (pcalib.matrix_factorization).

References: the closed form of L2-regularised factorisation (NumPy SVD with
the singular values shrunk), objective values recomputed here, and planted
low-rank sign patterns.
"""

import itertools
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from pcalib import FactorizationResult
from pcalib.matrix_factorization import (
    logistic_factorization,
    ridge_factorization,
    sigmoid,
    sparse_factorization,
)


def low_rank(n, d, k, seed, noise=0.1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, k)) @ rng.standard_normal((k, d)) + noise * rng.standard_normal(
        (n, d)
    )


def binary_sample(seed, shape=(80, 40)):
    """A planted rank-2 log-odds matrix with biases, and a 0/1 sample of it."""
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal((shape[0], 2)) @ rng.standard_normal((2, shape[1])) * 2.0
    theta += rng.normal(0.0, 1.5, shape[1])
    return theta, (rng.random(theta.shape) < sigmoid(theta)).astype(float)


@pytest.mark.parametrize("l2_penalty", [0.5, 3.0])
def test_ridge_factorization_is_shrunk_truncated_svd(l2_penalty):
    X = low_rank(40, 25, 3, seed=0)
    result = ridge_factorization(
        X, 3, l2_penalty=l2_penalty, max_iter=5000, tol=1e-15, random_state=0
    )
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    expected = (U[:, :3] * np.maximum(s[:3] - l2_penalty, 0)) @ Vt[:3]
    # alternating minimisation converges linearly to the global minimum
    assert result.Z.shape == (40, 3) and result.W.shape == (25, 3) and result.offset is None
    np.testing.assert_allclose(result.Z @ result.W.T, expected, atol=1e-6 * np.abs(expected).max())
    np.testing.assert_allclose(
        result.reconstruction(), expected, atol=1e-6 * np.abs(expected).max()
    )


@pytest.mark.parametrize(
    "function, kwargs",
    [
        (ridge_factorization, dict(l2_penalty=1.0)),
        (sparse_factorization, dict(l1_penalty=2.0, l2_penalty=1.0)),
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objectives_never_increase_and_match_recomputation(function, kwargs, seed):
    X = low_rank(30, 20, 2, seed=seed)
    result = function(X, 2, random_state=seed, **kwargs)
    history = result.objective_history
    assert len(history) == result.n_iter + 1
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    Z, W = result.Z, result.W
    assert Z.shape == (30, 2) and W.shape == (20, 2)
    l2 = kwargs["l2_penalty"]
    penalty = (
        0.5 * l2 * (np.sum(Z * Z) + np.sum(W * W))
        if function is ridge_factorization
        else kwargs["l1_penalty"] * np.abs(W).sum() + 0.5 * l2 * np.sum(Z * Z)
    )
    np.testing.assert_allclose(history[-1], 0.5 * np.sum((X - Z @ W.T) ** 2) + penalty, rtol=1e-10)


@pytest.mark.parametrize(
    "function, kwargs, binary",
    [
        (ridge_factorization, dict(l2_penalty=1.0), False),
        (sparse_factorization, dict(l1_penalty=2.0), False),
        (logistic_factorization, dict(), True),
    ],
)
def test_tol_zero_runs_exactly_max_iter(function, kwargs, binary):
    X = binary_sample(5)[1] if binary else low_rank(30, 20, 2, seed=5)
    with pytest.warns(ConvergenceWarning, match=f"{function.__name__} stopped after max_iter=40"):
        result = function(X, 2, tol=0, max_iter=40, random_state=0, **kwargs)
    assert result.n_iter == 40 and result.converged is False
    assert result.objective_history.shape == (41,)


def test_converged_runs_stop_on_a_small_decrease():
    X = low_rank(30, 20, 2, seed=6)
    result = ridge_factorization(X, 2, l2_penalty=1.0, tol=1e-6, random_state=0)
    history = result.objective_history
    assert result.converged and result.n_iter < 500
    decreases = -np.diff(history)
    assert decreases[-1] < 1e-6 * history[0]
    assert np.all(decreases[:-1] >= 1e-6 * history[0])


def test_sparse_factorization_zeroes_more_loadings_as_l1_grows():
    X = low_rank(50, 30, 2, seed=3)
    counts = [
        np.count_nonzero(sparse_factorization(X, 2, l1_penalty=l1, random_state=0).W)
        for l1 in (0.0, 5.0, 20.0, 60.0)
    ]
    assert counts[0] == 60 and all(a >= b for a, b in itertools.pairwise(counts))
    assert counts[-1] < counts[0]


def test_sparse_factorization_with_a_penalty_that_zeroes_every_loading():
    X = low_rank(30, 20, 2, seed=8)
    # W = 0 makes Z = 0, where the gradient step in W has no Lipschitz constant
    result = sparse_factorization(X, 2, l1_penalty=1e6, random_state=0)
    assert np.all(result.W == 0) and np.all(result.Z == 0) and result.converged
    np.testing.assert_allclose(result.objective_history[-1], 0.5 * np.sum(X**2), rtol=1e-12)


def test_logistic_factorization_recovers_a_planted_sign_pattern():
    rng = np.random.default_rng(4)
    theta = rng.standard_normal((80, 2)) @ rng.standard_normal((2, 40)) * 2.0
    X = (rng.random(theta.shape) < sigmoid(theta)).astype(float)
    result = logistic_factorization(X, 2, l2_penalty=1.0, random_state=0)
    history = result.objective_history
    assert len(history) == result.n_iter + 1
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    theta_fit = result.Z @ result.W.T + result.offset
    agreement = np.mean(np.sign(theta_fit) == np.sign(theta))
    chance = max(np.mean(theta > 0), np.mean(theta < 0))
    # well above the best constant guess, and above the data's own agreement
    data_agreement = np.mean((X > 0.5) == (theta > 0))
    assert agreement > 0.85 and agreement > chance + 0.2 and agreement > data_agreement
    assert result.Z.shape == (80, 2) and result.W.shape == (40, 2)


def test_logistic_offset_holds_the_biases():
    theta, X = binary_sample(7)
    result = logistic_factorization(X, 2, l2_penalty=1.0, random_state=0)
    assert isinstance(result, FactorizationResult)
    assert result.offset.shape == (40,)
    # the log-odds are Z Wᵀ + offset, which reconstruction() returns
    np.testing.assert_allclose(result.reconstruction(), result.Z @ result.W.T + result.offset)
    # the objective recomputed here with the offset as the unpenalised bias
    fitted = result.reconstruction()
    value = np.sum(np.logaddexp(0.0, fitted) - X * fitted) + 0.5 * (
        np.sum(result.Z**2) + np.sum(result.W**2)
    )
    np.testing.assert_allclose(result.objective_history[-1], value, rtol=1e-10)
    # at the minimum the gradient in the bias is 0: each column's mean fitted
    # probability equals its observed frequency
    np.testing.assert_allclose(sigmoid(fitted).mean(axis=0), X.mean(axis=0), atol=1e-3)
    # the planted column biases are recovered in order
    planted = theta.mean(axis=0)
    assert np.corrcoef(planted, result.offset)[0, 1] > 0.8


def test_logistic_factorization_needs_binary_data():
    with pytest.raises(ValueError, match="binary"):
        logistic_factorization(np.full((4, 3), 0.5), 1)


def test_sigmoid_is_stable_for_large_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = sigmoid(np.array([-1000.0, 0.0, 1000.0]))
    np.testing.assert_allclose(values, [0.0, 0.5, 1.0])


@pytest.mark.parametrize(
    "function, kwargs, message",
    [
        (ridge_factorization, dict(l2_penalty=-1.0), "l2_penalty"),
        (sparse_factorization, dict(l1_penalty=-1.0), "l1_penalty"),
        (sparse_factorization, dict(l1_penalty=1.0, l2_penalty=0.0), "l2_penalty"),
        (logistic_factorization, dict(l2_penalty=-1.0), "l2_penalty"),
        (logistic_factorization, dict(l2_penalty="big"), "l2_penalty"),
        (ridge_factorization, dict(l2_penalty=1.0, tol=-1.0), "tol"),
        # ints beyond float64, and None
        (ridge_factorization, dict(l2_penalty=10**400), "l2_penalty must be a finite number"),
        (sparse_factorization, dict(l1_penalty=-(2**70)), "l1_penalty must be a finite number"),
        (sparse_factorization, dict(l1_penalty=None), "l1_penalty must be a number >= 0"),
        (logistic_factorization, dict(tol=10**400), "tol must be a finite number"),
        (ridge_factorization, dict(l2_penalty=1.0, max_iter=2**70), "max_iter must be at most"),
    ],
)
def test_bad_penalties_are_named(function, kwargs, message):
    X = (low_rank(10, 8, 2, seed=5) > 0).astype(float)
    with pytest.raises((ValueError, TypeError), match=message):
        function(X, 2, **kwargs)


@pytest.mark.parametrize(
    "function, kwargs",
    [(ridge_factorization, dict(l2_penalty=0.1)), (sparse_factorization, dict(l1_penalty=0.1))],
)
def test_data_whose_squares_underflow_is_refused_with_a_clear_error(function, kwargs):
    X = low_rank(10, 8, 2, seed=6) * 1e-170
    with pytest.raises(ValueError, match=r"X is too small for float64 arithmetic"):
        function(X, 2, random_state=0, **kwargs)


def test_huge_int_penalty_that_fits_a_float_is_used():
    # 2**70 is an exact float64: the ridge then shrinks Z Wᵀ to 0
    X = low_rank(10, 8, 2, seed=7)
    result = ridge_factorization(X, 2, l2_penalty=2**70, random_state=0)
    assert result.converged
    np.testing.assert_allclose(result.Z @ result.W.T, 0.0, atol=1e-12)
