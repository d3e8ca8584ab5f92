"""Centring sparse data without densifying it (chapter 2 of the book, ``book/high_dim.md``).

A sparse matrix (a document-term matrix, say) loses its zeros when its column
means are subtracted. :func:`column_moments` computes the column means and
variances from the stored entries, :func:`implicit_centering` multiplies by
``(X - 1 μᵀ) D⁻¹`` as ``X (D⁻¹ v) - (μᵀ D⁻¹ v) 1`` (eq. ``eq-hd-implicit``),
and :func:`sparse_covariance` forms the covariance from ``Xᵀ X``.

The entry points :func:`sparse_column_moments` and :func:`centered_operator`
check their arguments and run these building blocks, which trust their caller
(:class:`pcalib.PCA` checks ``X`` once and calls them directly).
"""

import numpy as np
import scipy.sparse.linalg

from ._validation import as_float_vector, as_sparse_float_matrix, check_positive_float

__all__ = ["centered_operator", "sparse_column_moments"]


def sparse_column_moments(X):
    """Column means and variances (``ddof=1``) of a sparse matrix, without densifying it.

    Checks ``X`` and runs :func:`column_moments`.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
        At least two samples.

    Returns
    -------
    mean : ndarray of shape (n_features,)
    variance : ndarray of shape (n_features,)
        Both in the dtype of ``X`` (float32 stays float32, other dtypes give float64).
    """
    return column_moments(as_sparse_float_matrix(X, min_samples=2))


def column_moments(X):
    """Column means and variances (``ddof=1``) of a checked sparse matrix.

    Column ``j`` holds ``nnz_j`` stored entries ``x_ij`` and ``n - nnz_j``
    zeros, so ``μ_j = Σ x_ij / n`` and

    ``(n - 1) σ_j² = Σ_stored (x_ij - μ_j)² + (n - nnz_j) μ_j²``,

    a sum of non-negative terms. Unlike ``Σ x_ij² - n μ_j²``, it loses no
    digits when the mean is large compared to the spread. The sums are
    accumulated in float64.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
        CSR or CSC, float32 or float64, without duplicate entries (as
        :func:`pcalib._validation.as_sparse_float_matrix` returns it), with at
        least two samples.

    Returns
    -------
    mean : ndarray of shape (n_features,)
    variance : ndarray of shape (n_features,)
        Both in the dtype of ``X``.
    """
    n_samples, n_features = X.shape
    entries = X.tocoo()
    columns = entries.col
    n_stored = np.bincount(columns, minlength=n_features)
    # float64 sums: without stored entries, bincount returns int64 zeros
    sums = np.bincount(columns, weights=entries.data, minlength=n_features)
    mean = sums.astype(np.float64, copy=False) / n_samples
    deviations = entries.data - mean[columns]
    sum_of_squares = np.bincount(columns, weights=deviations**2, minlength=n_features)
    sum_of_squares = sum_of_squares.astype(np.float64, copy=False)
    sum_of_squares += (n_samples - n_stored) * mean**2
    variance = sum_of_squares / (n_samples - 1)
    return mean.astype(X.dtype), variance.astype(X.dtype)


def centered_operator(X, mean, scale=None):
    """The centred, scaled data ``(X - 1 μᵀ) D⁻¹`` as a linear operator (eq. ``eq-hd-implicit``).

    Checks its arguments and runs :func:`implicit_centering`.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    mean : array-like of shape (n_features,)
        The vector ``μ`` subtracted from every row, usually the column means.
    scale : None, float > 0 or array-like of shape (n_features,), default=None
        The divisor of each column (e.g. the standard deviations, or a power
        of two that brings the data to unit size); None means 1.

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (n_samples, n_features)
        With ``matvec``, ``rmatvec``, ``matmat`` and ``rmatmat``; its dtype is that of ``X``.
    """
    X = as_sparse_float_matrix(X)
    return implicit_centering(X, *check_mean_and_scale(mean, scale, X))


def implicit_centering(X, mean, scale):
    """``(X - 1 μᵀ) D⁻¹`` as a linear operator, for a checked sparse ``X`` (eq. ``eq-hd-implicit``).

    ``D`` is the diagonal of ``scale``. Products with the operator use only
    products with the sparse ``X``:

    * ``(X - 1 μᵀ) D⁻¹ V = X (D⁻¹ V) - 1 (μᵀ D⁻¹ V)``;
    * ``D⁻¹ (X - 1 μᵀ)ᵀ U = D⁻¹ (Xᵀ U - μ (1ᵀ U))``.

    Each costs ``O(nnz + (n + d) m)`` for ``m`` vectors, and the dense
    ``n × d`` centred matrix is never formed.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
        With float entries.
    mean : ndarray of shape (n_features,)
        The vector ``μ`` subtracted from every row, in the dtype of ``X``.
    scale : ndarray of shape (n_features,)
        The positive divisor of each column, in the dtype of ``X``.

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (n_samples, n_features)
        With ``matvec``, ``rmatvec``, ``matmat`` and ``rmatmat``; its dtype is that of ``X``.
    """

    def matmat(V):
        V = V / scale[:, np.newaxis]
        return X @ V - mean @ V

    def rmatmat(U):
        return (X.T @ U - np.outer(mean, U.sum(axis=0))) / scale[:, np.newaxis]

    return scipy.sparse.linalg.LinearOperator(
        X.shape,
        matvec=lambda v: matmat(v.reshape(-1, 1)).ravel(),
        rmatvec=lambda u: rmatmat(u.reshape(-1, 1)).ravel(),
        matmat=matmat,
        rmatmat=rmatmat,
        dtype=X.dtype,
    )


def sparse_covariance(X, mean, scale):
    """``C = D⁻¹ (X - 1 μᵀ)ᵀ (X - 1 μᵀ) D⁻¹ / (n - 1)`` from the sparse product ``Xᵀ X``.

    With the column sums ``t = Xᵀ 1``, ``(X - 1 μᵀ)ᵀ (X - 1 μᵀ) = Xᵀ X - μ tᵀ - t μᵀ + n μ μᵀ``,
    which is ``Xᵀ X - n μ μᵀ`` when ``μ`` is the column mean ``t / n``. The
    sums are accumulated in float64.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    mean : ndarray of shape (n_features,)
    scale : ndarray of shape (n_features,)

    Returns
    -------
    C : ndarray of shape (n_features, n_features), float64
    """
    n_samples = X.shape[0]
    X = X.astype(np.float64, copy=False)
    mean = mean.astype(np.float64, copy=False)
    column_sums = np.asarray(X.sum(axis=0)).ravel()
    cross = np.outer(mean, column_sums)
    scatter = (X.T @ X).toarray() - cross - cross.T + n_samples * np.outer(mean, mean)
    return scatter / np.outer(scale, scale) / (n_samples - 1)


def check_mean_and_scale(mean, scale, X):
    """Return ``mean`` and ``scale`` as finite arrays of shape (n_features,) in X's dtype."""
    n_features = X.shape[1]
    mean = as_float_vector(mean, name="mean", length=n_features, meaning="one per feature")
    if scale is None:
        scale = np.ones(n_features)
    elif np.ndim(scale) == 0:
        scale = np.full(n_features, check_positive_float(scale, name="scale"))
    else:
        scale = as_float_vector(scale, name="scale", length=n_features, meaning="one per feature")
        if not np.all(scale > 0):
            raise ValueError(f"scale must be positive, got the minimum {scale.min():g}.")
    return mean.astype(X.dtype), scale.astype(X.dtype)
