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
  names) and also accepts a user callable ``kernel(X, Y) -> K``.

Like scikit-learn, ``gamma=None`` means ``1 / n_features``.
"""

import numpy as np

from ._validation import (
    as_float_matrix,
    check_finite_float,
    check_option,
    check_positive_float,
    check_positive_int,
)

__all__ = ["kernel_matrix", "linear_kernel", "polynomial_kernel", "rbf_kernel"]

KERNELS = ("linear", "poly", "rbf")


def _check_pair(X, Y):
    """Validate ``X`` and ``Y`` (``Y=None`` means ``Y = X``); return both as arrays."""
    X = as_float_matrix(X, name="X")
    if Y is None:
        return X, X
    Y = as_float_matrix(Y, name="Y")
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


def squared_distances(X, Y):
    """Matrix of squared Euclidean distances ``‖x_i - y_j‖²`` (n × m).

    Uses ``‖x‖² + ‖y‖² - 2 ⟨x, y⟩``, one matrix product, and clips the tiny
    negative values that rounding can produce; when ``Y is X`` the diagonal is
    set to exactly 0. The difference loses about ``eps · (‖x‖² + ‖y‖²)`` to
    cancellation, so both sets are first shifted by the mean of ``X``: the
    distances do not change, and the norms, hence the loss, shrink to the
    spread of the data instead of its distance from the origin.
    """
    same = Y is X
    shift = X.mean(axis=0)
    X = X - shift
    Y = X if same else Y - shift
    D = X @ Y.T
    D *= -2.0
    D += np.einsum("ij,ij->i", X, X)[:, np.newaxis]
    D += np.einsum("ij,ij->i", Y, Y)[np.newaxis, :]
    np.maximum(D, 0.0, out=D)
    if same:
        np.fill_diagonal(D, 0.0)
    return D


def linear_kernel(X, Y=None):
    """Linear kernel ``K = X Yᵀ``.

    Parameters
    ----------
    X : array-like of shape (n, d)
    Y : array-like of shape (m, d), default=None (means ``X``)

    Returns
    -------
    K : ndarray of shape (n, m)
    """
    X, Y = _check_pair(X, Y)
    return X @ Y.T


def polynomial_kernel(X, Y=None, *, degree=3, gamma=None, coef0=1.0):
    """Polynomial kernel ``K = (γ X Yᵀ + c)^p`` (eq. ``eq-kpca-poly``).

    Parameters
    ----------
    X : array-like of shape (n, d)
    Y : array-like of shape (m, d), default=None (means ``X``)
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
    X, Y = _check_pair(X, Y)
    degree = check_positive_int(degree, name="degree")
    gamma = resolve_gamma(gamma, None, X.shape[1])
    coef0 = check_finite_float(coef0, name="coef0")
    K = X @ Y.T
    with np.errstate(over="ignore", invalid="ignore"):  # checked just below
        K *= gamma
        K += coef0
        K **= degree
    if not np.isfinite(K).all():
        raise ValueError(
            f"the polynomial kernel of degree {degree} overflows float64 on this "
            "data; rescale X (e.g. standardise it) or lower gamma, |coef0| or degree."
        )
    return K


def rbf_kernel(X, Y=None, *, gamma=None, bandwidth=None):
    """Gaussian (RBF) kernel ``K = exp(-γ ‖x - y‖²)`` (eq. ``eq-kpca-rbf``).

    Parameters
    ----------
    X : array-like of shape (n, d)
    Y : array-like of shape (m, d), default=None (means ``X``)
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
    X : array-like of shape (n, d)
    Y : array-like of shape (m, d), default=None (means ``X``)
    kernel : {"linear", "poly", "rbf"} or callable, default="rbf"
        ``"poly"`` (scikit-learn's name) is :func:`polynomial_kernel`. A
        callable is called as ``kernel(X, Y)`` on two float arrays and must
        return the ``n × m`` matrix of kernel values (vectorised, not one pair
        at a time); wrap extra parameters with ``functools.partial``.
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
    """Call a user kernel and check that it returned a finite (n × m) matrix."""
    name = getattr(kernel, "__name__", type(kernel).__name__)
    K = np.asarray(kernel(X, Y))
    expected = (X.shape[0], Y.shape[0])
    if K.shape != expected or K.dtype.kind not in "biuf":
        raise ValueError(
            f"kernel {name} must return a real matrix of shape {expected} for "
            f"inputs of {expected[0]} and {expected[1]} rows; it returned "
            f"shape {K.shape}, dtype {K.dtype}. A kernel callable receives two "
            "2-D arrays and compares every row of the first with every row of "
            "the second."
        )
    K = np.asarray(K, dtype=np.float64)
    if not np.isfinite(K).all():
        raise ValueError(f"kernel {name} returned NaN or infinite values.")
    if Y is X and not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * np.abs(K).max()):
        raise ValueError(
            f"kernel {name} returned a non-symmetric matrix for kernel(X, X): "
            "a kernel must satisfy k(x, y) = k(y, x)."
        )
    return K
