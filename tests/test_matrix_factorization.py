"""Tests of the regularised factorisations of chapter 6 (pcalib.matrix_factorization).

References: the closed form of L2-regularised factorisation (NumPy SVD with
the singular values shrunk), objective values recomputed here, and planted
low-rank sign patterns.
"""

import warnings

import numpy as np
import pytest

from pcalib.matrix_factorization import (
    logistic_factorization,
    ridge_factorization,
    sigmoid,
    sparse_factorization,
)


def low_rank(n, d, k, seed, noise=0.1):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, k)) @ rng.standard_normal((k, d)) + noise * rng.standard_normal((n, d))


@pytest.mark.parametrize("l2", [0.5, 3.0])
def test_ridge_factorization_is_shrunk_truncated_svd(l2):
    X = low_rank(40, 25, 3, seed=0)
    result = ridge_factorization(X, 3, l2=l2, max_iter=5000, tol=1e-15, random_state=0)
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    expected = (U[:, :3] * np.maximum(s[:3] - l2, 0)) @ Vt[:3]
    # alternating minimisation converges linearly to the global minimum
    np.testing.assert_allclose(result.Z @ result.W, expected, atol=1e-6 * np.abs(expected).max())


@pytest.mark.parametrize("function, kwargs", [
    (ridge_factorization, dict(l2=1.0)),
    (sparse_factorization, dict(l1=2.0, l2=1.0)),
])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objectives_never_increase_and_match_recomputation(function, kwargs, seed):
    X = low_rank(30, 20, 2, seed=seed)
    result = function(X, 2, random_state=seed, **kwargs)
    assert np.all(np.diff(result.objective) <= 1e-12 * result.objective[0])
    Z, W = result.Z, result.W
    penalty = (0.5 * kwargs.get("l2", 0) * (np.sum(Z * Z) + np.sum(W * W))
               if function is ridge_factorization
               else kwargs["l1"] * np.abs(W).sum() + 0.5 * kwargs["l2"] * np.sum(Z * Z))
    np.testing.assert_allclose(result.objective[-1],
                               0.5 * np.sum((X - Z @ W) ** 2) + penalty, rtol=1e-10)


def test_sparse_factorization_zeroes_more_loadings_as_l1_grows():
    X = low_rank(50, 30, 2, seed=3)
    counts = [np.count_nonzero(sparse_factorization(X, 2, l1=l1, random_state=0).W)
              for l1 in (0.0, 5.0, 20.0, 60.0)]
    assert counts[0] == 60 and all(a >= b for a, b in zip(counts, counts[1:]))
    assert counts[-1] < counts[0]


def test_logistic_factorization_recovers_a_planted_sign_pattern():
    rng = np.random.default_rng(4)
    theta = rng.standard_normal((80, 2)) @ rng.standard_normal((2, 40)) * 2.0
    X = (rng.random(theta.shape) < sigmoid(theta)).astype(float)
    result = logistic_factorization(X, 2, l2=1.0, random_state=0)
    assert np.all(np.diff(result.objective) <= 1e-12 * result.objective[0])
    agreement = np.mean(np.sign(result.Z @ result.W) == np.sign(theta))
    chance = max(np.mean(theta > 0), np.mean(theta < 0))
    # well above the best constant guess, and above the data's own agreement
    data_agreement = np.mean((X > 0.5) == (theta > 0))
    assert agreement > 0.85 and agreement > chance + 0.2 and agreement > data_agreement
    assert result.Z.shape == (80, 3) and result.W.shape == (3, 40)


def test_logistic_factorization_needs_binary_data():
    with pytest.raises(ValueError, match="binary"):
        logistic_factorization(np.full((4, 3), 0.5), 1)


def test_sigmoid_is_stable_for_large_arguments():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = sigmoid(np.array([-1000.0, 0.0, 1000.0]))
    np.testing.assert_allclose(values, [0.0, 0.5, 1.0])


@pytest.mark.parametrize("function, kwargs, message", [
    (ridge_factorization, dict(l2=-1.0), "l2"),
    (sparse_factorization, dict(l1=-1.0), "l1"),
    (sparse_factorization, dict(l1=1.0, l2=0.0), "l2"),
    (logistic_factorization, dict(l2=-1.0), "l2"),
])
def test_bad_penalties_are_named(function, kwargs, message):
    X = (low_rank(10, 8, 2, seed=5) > 0).astype(float)
    with pytest.raises((ValueError, TypeError), match=message):
        function(X, 2, **kwargs)
