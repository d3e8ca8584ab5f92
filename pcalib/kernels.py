"""Kernel functions (chapter 3 of the book, ``book/kernel_pca.md``).

A kernel ``k(x, y) = ⟨φ(x), φ(y)⟩`` is an inner product in a feature space
that is never formed. Every function here takes the row sets ``X`` (n × d)
and ``Y`` (m × d) and returns the ``n × m`` matrix ``K[i, j] = k(x_i, y_j)``
in a few vectorised NumPy operations:

* :func:`linear_kernel`: ``⟨x, y⟩`` (``φ`` is the identity, so kernel PCA is
  ordinary PCA);
* :func:`polynomial_kernel`: ``(γ ⟨x, y⟩ + c)^p`` (eq. ``eq-kpca-poly``);
* :func:`rbf_kernel`: the Gaussian kernel
  ``exp(-‖x - y‖² / (2 σ²)) = exp(-γ ‖x - y‖²)`` with ``γ = 1 / (2 σ²)``
  (eq. ``eq-kpca-rbf``); give either ``gamma`` or the bandwidth ``σ``;
* :func:`kernel_matrix`: the dispatcher used by :class:`pcalib.KernelPCA`,
  which names them ``"linear"``, ``"poly"`` and ``"rbf"`` (scikit-learn's
  names) and also accepts a user callable, called as ``kernel(x, y)`` on two
  rows, returning a float, as in scikit-learn: one call per entry of ``K``.

Like scikit-learn, ``gamma=None`` means ``1 / n_features``, and the named
kernels accept a ``scipy.sparse`` matrix for ``X`` or ``Y`` (the kernel matrix
they return is dense).
"""

import functools
import math
import numbers

import numpy as np
import scipy.sparse

from ._validation import (
    as_float_matrix,
    as_sparse_float_matrix,
    check_finite_float,
    check_option,
    check_positive_float,
    check_positive_int,
)

__all__ = ["kernel_matrix", "linear_kernel", "polynomial_kernel", "rbf_kernel"]

KERNELS = ("linear", "poly", "rbf")


class KernelOverflowError(ValueError):
    """A kernel matrix that overflows float64 on the data it was given."""


def as_kernel_input(X, *, name="X", min_samples=1):
    """``X`` as a float64 array, or as a float64 CSR matrix when it is sparse.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
    name : str, default="X"
        Name of the argument, for the error messages.
    min_samples : int, default=1
        Smallest number of rows accepted.

    Returns
    -------
    X : ndarray or scipy.sparse CSR matrix of shape (n_samples, n_features), dtype float64
        Dense input is checked by :func:`pcalib._validation.as_float_matrix`;
        sparse input is converted to CSR float64 (a copy unless it is one
        already) and its stored entries are checked to be finite. ``X`` itself
        is returned when it needs no conversion (a C-ordered float64 array, a
        float64 CSR matrix).
    """
    if not scipy.sparse.issparse(X):
        return as_float_matrix(X, name=name, min_samples=min_samples)
    X = as_sparse_float_matrix(X, name=name, min_samples=min_samples)
    return X.tocsr().astype(np.float64, copy=False)


def _check_pair(X, Y):
    """Validate ``X`` and ``Y``; return both as arrays.

    ``Y=None`` or ``Y is X`` means ``Y = X``, and then the same array is
    returned twice, which tells a callable kernel that ``K`` is symmetric.
    """
    if Y is X:
        Y = None
    X = as_kernel_input(X, name="X")
    if Y is None:
        return X, X
    Y = as_kernel_input(Y, name="Y")
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features but Y has {Y.shape[1]}: a kernel compares "
            "points of the same space, so both need the same number of columns."
        )
    return X, Y


def resolve_gamma(gamma, bandwidth, n_features):
    """The ``γ`` of the RBF kernel from ``gamma`` or the bandwidth ``σ``.

    Parameters
    ----------
    gamma : float or None
        ``γ > 0``, used as given.
    bandwidth : float or None
        ``σ > 0``; then ``γ = 1 / (2 σ²)`` (eq. ``eq-kpca-rbf``).
    n_features : int
        Used for the default ``γ = 1 / n_features`` when both are None.

    Returns
    -------
    float
    """
    if gamma is not None and bandwidth is not None:
        raise ValueError(
            f"give either gamma or bandwidth, not both (got gamma={gamma}, "
            f"bandwidth={bandwidth}); they are linked by gamma = 1 / (2 bandwidth**2)."
        )
    if bandwidth is not None:
        sigma = check_positive_float(bandwidth, name="bandwidth")
        with np.errstate(over="ignore", under="ignore"):
            gamma = np.float64(0.5) / sigma / sigma
        if not 0.0 < gamma < np.inf:
            raise ValueError(
                f"bandwidth={bandwidth} is out of range: gamma = 1 / (2 "
                f"bandwidth**2) {'overflows' if gamma else 'underflows to 0'} "
                "in float64. Rescale X instead."
            )
        return float(gamma)
    if gamma is not None:
        return check_positive_float(gamma, name="gamma")
    return 1.0 / n_features


def inner_products(X, Y):
    """The dense matrix ``X Yᵀ`` of inner products, for arrays or sparse matrices.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)
    Y : ndarray or scipy.sparse matrix of shape (m, d)

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    K = X @ Y.T
    return K.toarray() if scipy.sparse.issparse(K) else np.asarray(K)


def squared_row_norms(X):
    """``‖x_i‖²`` for every row of an array or a sparse matrix.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)

    Returns
    -------
    ndarray of shape (n,)
    """
    if scipy.sparse.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)


def distance_frame(X):
    """The shift by which :func:`squared_distances` moves the points first.

    The mean of ``X`` for an array; 0 for a sparse matrix, which shifting
    would make dense.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n, d)

    Returns
    -------
    ndarray of shape (d,)
    """
    if scipy.sparse.issparse(X):
        return np.zeros(X.shape[1])
    return X.mean(axis=0)


def squared_distances(X, Y):
    """Matrix of squared Euclidean distances ``‖x_i - y_j‖²`` (n × m).

    Uses ``‖x‖² + ‖y‖² - 2 ⟨x, y⟩``, one matrix product, and clips the tiny
    negative values that rounding can produce; when ``Y is X`` the diagonal is
    set to exactly 0. The difference loses about ``eps · (‖x‖² + ‖y‖²)`` to
    cancellation, so both sets are first shifted by the mean of ``X``
    (:func:`distance_frame`): the distances do not change, and the norms,
    hence the loss, shrink to the spread of the data instead of its distance
    from the origin. Sparse matrices are not shifted, so as to stay sparse.
    """
    same = Y is X
    shift = distance_frame(X)
    if shift.any():
        X = X - shift
        Y = X if same else Y - shift
    D = inner_products(X, Y)
    D *= -2.0
    D += squared_row_norms(X)[:, np.newaxis]
    D += squared_row_norms(Y)[np.newaxis, :]
    np.maximum(D, 0.0, out=D)
    if same:
        np.fill_diagonal(D, 0.0)
    return D


def linear_kernel(X, Y=None):
    """Linear kernel ``K = X Yᵀ``.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, d)
    Y : array-like or scipy.sparse matrix of shape (m, d), default=None (means ``X``)

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    X, Y = _check_pair(X, Y)
    return inner_products(X, Y)


def polynomial_kernel(X, Y=None, *, degree=3, gamma=None, coef0=1.0):
    """Polynomial kernel ``K = (γ X Yᵀ + c)^p`` (eq. ``eq-kpca-poly``).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, d)
    Y : array-like or scipy.sparse matrix of shape (m, d), default=None (means ``X``)
    degree : int, default=3
        The power ``p ≥ 1``.
    gamma : float, default=None
        Scale ``γ > 0`` of the inner product; None means ``1 / d``.
    coef0 : float, default=1.0
        The constant ``c``; with ``c > 0`` all monomials of degree ``≤ p``
        appear in the feature map, with ``c = 0`` only those of degree ``p``.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    one_set = Y is None or Y is X
    data = "X (e.g. standardise it)" if one_set else "X and Y alike (e.g. standardise both)"
    X, Y = _check_pair(X, Y)
    degree = check_positive_int(degree, name="degree")
    gamma = resolve_gamma(gamma, None, X.shape[1])
    coef0 = check_finite_float(coef0, name="coef0")
    K = inner_products(X, Y)
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below
        K *= gamma
        K += coef0
        K **= degree
    if not np.isfinite(K).all():
        raise KernelOverflowError(
            f"the polynomial kernel of degree {degree} overflows float64 on this "
            f"data; rescale {data} or lower gamma, |coef0| or degree."
        )
    return K


def rbf_kernel(X, Y=None, *, gamma=None, bandwidth=None):
    """Gaussian (RBF) kernel ``K = exp(-γ ‖x - y‖²)`` (eq. ``eq-kpca-rbf``).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, d)
    Y : array-like or scipy.sparse matrix of shape (m, d), default=None (means ``X``)
    gamma : float, default=None
        ``γ > 0``. None (and no ``bandwidth``) means ``1 / d``.
    bandwidth : float, default=None
        The ``σ > 0`` of ``exp(-‖x - y‖² / (2 σ²))``; exclusive with ``gamma``.

    Returns
    -------
    K : ndarray of shape (n, m), entries in (0, 1], ones on the diagonal when
        ``Y`` is None.
    """
    X, Y = _check_pair(X, Y)
    gamma = resolve_gamma(gamma, bandwidth, X.shape[1])
    K = squared_distances(X, Y)
    with np.errstate(over="ignore"):  # -inf for huge gamma: exp gives the right 0
        K *= -gamma
    return np.exp(K, out=K)


def kernel_matrix(X, Y=None, *, kernel="rbf", gamma=None, bandwidth=None, degree=3, coef0=1.0):
    """Kernel matrix of ``X`` against ``Y`` for a named kernel or a callable.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n, d)
    Y : array-like or scipy.sparse matrix of shape (m, d), default=None (means ``X``)
    kernel : {"linear", "poly", "rbf"} or callable, default="rbf"
        ``"poly"`` (scikit-learn's name) is :func:`polynomial_kernel`. A
        callable is called as ``kernel(x, y)`` on two rows, returning a float,
        as in scikit-learn: ``K[i, j] = kernel(x_i, y_j)`` with ``x_i`` and
        ``y_j`` 1-D float64 arrays of length ``d`` (1 × d sparse matrices when
        the input is sparse). For ``Y`` None only the upper triangle of the
        symmetric ``K`` is computed, and ``k(x_{i+1}, x_i) = k(x_i, x_{i+1})``
        is checked. Wrap extra parameters with ``functools.partial``.
    gamma, bandwidth, degree, coef0
        Parameters of the named kernels (see :func:`rbf_kernel` and
        :func:`polynomial_kernel`); checked always, used by their kernel only.

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    check_positive_int(degree, name="degree")
    check_finite_float(coef0, name="coef0")
    if gamma is not None:
        check_positive_float(gamma, name="gamma")
    if bandwidth is not None:
        check_positive_float(bandwidth, name="bandwidth")
    if callable(kernel):
        return _call_user_kernel(kernel, *_check_pair(X, Y))
    check_option(kernel, name="kernel", allowed=KERNELS)
    if kernel == "linear":
        return linear_kernel(X, Y)
    if kernel == "poly":
        return polynomial_kernel(X, Y, degree=degree, gamma=gamma, coef0=coef0)
    return rbf_kernel(X, Y, gamma=gamma, bandwidth=bandwidth)


def _call_user_kernel(kernel, X, Y):
    """``K[i, j] = kernel(x_i, y_j)``, one call per pair of rows (scikit-learn's convention).

    When ``Y is X``, ``K`` is symmetric: its upper triangle is computed and
    mirrored, and the ``n - 1`` pairs ``(x_{i+1}, x_i)`` are evaluated as well
    to refuse a callable that is not symmetric.
    """
    rows_X, rows_Y = _rows(X), _rows(Y)
    if Y is not X:
        return np.array([[_kernel_value(kernel, x, y) for y in rows_Y] for x in rows_X])
    n = len(rows_X)
    K = np.zeros((n, n))
    for i in range(n):
        K[i, i:] = [_kernel_value(kernel, rows_X[i], y) for y in rows_X[i:]]
    K += np.triu(K, 1).T
    above = np.diagonal(K, 1)
    below = np.array([_kernel_value(kernel, rows_X[i + 1], rows_X[i]) for i in range(n - 1)])
    if np.any(np.abs(above - below) > 1e-10 * np.abs(above) + 1e-12 * np.abs(K).max()):
        raise ValueError(
            f"kernel {_name(kernel)} is not symmetric: kernel(x, y) differs from "
            "kernel(y, x) for two rows of X, so kernel(X, X) would be a non-symmetric "
            "matrix; a kernel must satisfy k(x, y) = k(y, x)."
        )
    return K


def _rows(X):
    """The rows of ``X``: 1-D arrays, or 1 × d sparse matrices as scikit-learn passes them."""
    if scipy.sparse.issparse(X):
        return [X[[i], :] for i in range(X.shape[0])]
    return list(X)


def _name(kernel):
    """The name of a callable (or of the function a ``functools.partial`` wraps), for messages."""
    if isinstance(kernel, functools.partial):
        kernel = kernel.func
    return getattr(kernel, "__name__", type(kernel).__name__)


def _kernel_value(kernel, x, y):
    """``kernel(x, y)`` as a finite float, or a ValueError naming ``kernel``."""
    value = kernel(x, y)
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if not isinstance(value, numbers.Real):
        shape = getattr(value, "shape", None)
        got = f"type {type(value).__name__}" + ("" if shape is None else f", shape {shape}")
        raise ValueError(
            f"kernel {_name(kernel)} must return a float for one pair of rows: it is "
            "called as kernel(x, y) on two rows x and y, as in scikit-learn, not on "
            f"whole matrices; it returned an object of {got}."
        )
    try:
        value = float(value)
    except OverflowError:  # an int beyond the float64 range
        value = math.inf
    if not math.isfinite(value):
        raise ValueError(
            f"kernel {_name(kernel)} returned {value} for a pair of rows; a kernel value "
            "must be finite."
        )
    return value
