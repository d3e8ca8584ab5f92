"""Tests of :func:`pcalib.bayesian_pca` (Bayesian PCA with ARD, chapter 4).

Expected values come from independent sources only: the subspace and rank
that generated the data, NumPy's eigendecomposition of the sample covariance
(PPCA's closed form, ``W W ᵀ = U (Λ - σ²) Uᵀ``, ``σ²`` the mean discarded
eigenvalue) and SciPy's ``multivariate_normal.logpdf``.
"""

import sys

import numpy as np
import pytest
import scipy.linalg
import scipy.stats
from sklearn.exceptions import ConvergenceWarning

from pcalib import bayesian_pca
from pcalib.bayesian_pca import ard_em_step, ard_precisions, log_prior


def planted(seed, n_samples=200, n_features=10, rank=3, noise=1.0):
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n_features, rank)) * np.linspace(3.0, 1.5, rank)
    Z = rng.standard_normal((n_samples, rank))
    X = Z @ W.T + noise * rng.standard_normal((n_samples, n_features)) + rng.uniform(-5, 5)
    return X, W


@pytest.mark.parametrize("seed", range(6))
def test_rank_three_in_ten_dimensions_is_pruned_to_three(seed):
    X, W_true = planted(seed)
    result = bayesian_pca(X)
    assert result.converged
    assert result.W.shape == (10, 3)
    assert result.alpha.shape == (3,)
    angle = scipy.linalg.subspace_angles(result.W, W_true).max()
    assert angle < 0.2


@pytest.mark.parametrize("seed", range(3))
def test_isotropic_noise_keeps_no_column(seed):
    X = np.random.default_rng(seed).standard_normal((500, 6))
    assert bayesian_pca(X).W.shape == (6, 0)


@pytest.mark.parametrize("seed", range(3))
def test_alpha_fixed_at_zero_is_the_maximum_likelihood_em(seed):
    X, _ = planted(seed, n_samples=300, n_features=6, rank=2)
    X_centered = X - X.mean(axis=0)
    rng = np.random.default_rng(seed + 10)
    W, sigma2 = rng.standard_normal((6, 2)), 1.0
    for _ in range(2000):
        W, sigma2, _ = ard_em_step(X_centered, W, sigma2, np.zeros(2))
    eigenvalues, U = np.linalg.eigh(X_centered.T @ X_centered / len(X))
    sigma2_ml = eigenvalues[:4].mean()
    WWt_ml = U[:, 4:] @ np.diag(eigenvalues[4:] - sigma2_ml) @ U[:, 4:].T
    assert sigma2 == pytest.approx(sigma2_ml, rel=1e-8)
    np.testing.assert_allclose(W @ W.T, WWt_ml, atol=1e-7 * np.abs(WWt_ml).max())


@pytest.mark.parametrize("seed", range(3))
def test_objective_history_never_decreases(seed):
    X, _ = planted(seed)
    with pytest.warns(ConvergenceWarning, match="max_iter=150"):
        result = bayesian_pca(X, tol=0, max_iter=150)
    history = result.objective_history
    assert result.n_iter == 150 and not result.converged and len(history) == 151
    assert np.all(np.diff(history) >= -1e-10 * np.abs(history).max())
    assert history[-1] > history[0]


def test_ard_step_log_likelihood_equals_scipy():
    X, _ = planted(3, n_features=6)
    X_centered = X - X.mean(axis=0)
    W = np.random.default_rng(0).standard_normal((6, 3))
    _, _, log_likelihood = ard_em_step(X_centered, W, 0.7, np.ones(3))
    C = W @ W.T + 0.7 * np.eye(6)
    expected = scipy.stats.multivariate_normal(np.zeros(6), C).logpdf(X_centered).sum()
    assert log_likelihood == pytest.approx(expected, rel=1e-12)


def test_objective_is_likelihood_plus_gaussian_log_prior():
    X, _ = planted(4)
    result = bayesian_pca(X)
    W, alpha = result.W, result.alpha
    np.testing.assert_allclose(alpha, 10 / np.sum(W**2, axis=0), rtol=1e-6)
    prior = sum(
        scipy.stats.multivariate_normal(np.zeros(10), np.eye(10) / a).logpdf(w)
        for w, a in zip(W.T, ard_precisions(W), strict=True)
    )
    assert log_prior(W, ard_precisions(W)) == pytest.approx(prior, rel=1e-12)


@pytest.mark.parametrize("c", [1e-140, 1e-8, 255.0, 1e8, 1e140])
def test_fit_is_equivariant_to_the_scale_of_X(c):
    X, _ = planted(5)
    base, scaled = bayesian_pca(X), bayesian_pca(c * X)
    assert scaled.n_iter == base.n_iter and scaled.W.shape == base.W.shape
    np.testing.assert_allclose(scaled.W, c * base.W, rtol=1e-6)
    assert scaled.noise_variance == pytest.approx(c**2 * base.noise_variance, rel=1e-6)
    np.testing.assert_allclose(scaled.alpha, base.alpha / c**2, rtol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_components": 10}, "n_components"),
        ({"n_components": 0}, "n_components"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": -1.0}, "tol"),
        ({"tol": "bogus"}, "tol"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, name):
    X, _ = planted(6)
    with pytest.raises((ValueError, TypeError), match=name):
        bayesian_pca(X, **kwargs)


def test_data_whose_precisions_could_overflow_is_refused_before_any_iteration(monkeypatch):
    X, _ = planted(8)
    standard_deviation = float(np.sqrt(np.mean(np.var(X, axis=0))))
    # 1e-150 / sigma: standard deviations near 1e-150, below the bound of about 7.5e-149
    tiny = X * (1e-150 / standard_deviation)

    def no_iteration(*args):
        raise AssertionError("an EM step ran before the refusal")

    monkeypatch.setattr(sys.modules["pcalib.bayesian_pca"], "ard_em_step", no_iteration)
    with pytest.raises(ValueError, match="X is too small"):
        bayesian_pca(tiny)


def test_bad_data_is_refused():
    X, _ = planted(7)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="X"):
        bayesian_pca(X)
    with pytest.raises(ValueError, match="X"):
        bayesian_pca(np.ones((5, 3)))
