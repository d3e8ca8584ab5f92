"""What several of pcalib's test modules share: their synthetic data and references.

The test modules import these by name (``from helpers import make_data``):
``conftest.py`` puts this folder on the path.
"""

import math

import numpy as np


def geometric_scales(n_features):
    """Column standard deviations from 3 down to 0.5, in geometric progression."""
    return np.geomspace(3.0, 0.5, n_features)


def make_data(n_samples, n_features, seed=0, *, scales=geometric_scales, offset=1.0, rotate=False):
    """Gaussian data with unequal column scales and a non-zero mean.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of the data.
    seed : int, default=0
        Seed of the generator.
    scales : callable, default=geometric_scales
        ``scales(n_features)``, shape (n_features,): the standard deviation of
        each axis, the square roots of the covariance's eigenvalues.
    offset : float, default=1.0
        The mean is drawn uniformly from ``[-offset, offset]`` in each feature.
    rotate : bool, default=False
        Turn the axes by a random orthogonal matrix, so that the covariance is
        not diagonal; otherwise axis j is feature j.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    """
    rng = np.random.default_rng(seed)
    rotation = np.linalg.qr(rng.standard_normal((n_features, n_features)))[0] if rotate else None
    X = rng.standard_normal((n_samples, n_features)) * scales(n_features)
    if rotate:
        X = X @ rotation.T
    return X + rng.uniform(-offset, offset, n_features)


def reference_spectrum(X):
    """All eigenvalues of the sample covariance of ``X``, decreasing (NumPy only)."""
    return np.sort(np.linalg.eigvalsh(np.atleast_2d(np.cov(X, rowvar=False))))[::-1]


def spectral_gaps(eigenvalues):
    """Distance from each eigenvalue to the nearest other one (inf for a single one)."""
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    if eigenvalues.size == 1:
        return np.array([np.inf])
    diffs = np.abs(eigenvalues[:, None] - eigenvalues[None, :])
    np.fill_diagonal(diffs, np.inf)
    return diffs.min(axis=1)


def assert_scaled(actual, expected, rtol=1e-6):
    """``actual`` equals ``expected`` to ``rtol`` of the largest entry of ``expected``."""
    expected = np.asarray(expected, dtype=float)
    atol = rtol * np.abs(expected).max() if expected.size else 0.0
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def laplacian(x, y):
    """The Laplacian kernel ``exp(-‖x - y‖₁)`` of two rows, positive definite."""
    return math.exp(-np.abs(x - y).sum())
