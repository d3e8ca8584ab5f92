"""The elastic net by coordinate descent (chapter 5 of the book, ``book/sparse_pca.md``).

Sparse PCA in the manner of Zou, Hastie and Tibshirani solves one elastic-net
regression per component and iteration (eq. ``eq-spca-enet``):

    minimise over β   ‖y - X β‖² + λ₂ ‖β‖² + λ₁ ‖β‖₁ .

Expanding the square, the problem depends on the data only through the Gram
matrix ``G = Xᵀ X`` and ``c = Xᵀ y``:

    ‖y - X β‖² = yᵀy - 2 cᵀβ + βᵀ G β ,

so :func:`elastic_net_gram` works from ``(G, c)`` alone (what sparse PCA needs
when only a covariance or correlation table is published), and
:func:`elastic_net` forms them from ``(X, y)``.

Note the parameterisation: scikit-learn's ``ElasticNet(alpha, l1_ratio)``
minimises ``‖y - X w‖² / (2n) + α ρ ‖w‖₁ + α (1 - ρ) ‖w‖² / 2``; multiplied by
``2n`` this is the problem above with ``λ₁ = 2 n α ρ`` and
``λ₂ = n α (1 - ρ)``.
"""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._validation import as_float_matrix, check_positive_float, check_positive_int


def soft_threshold(value, threshold):
    """``sign(v) max(|v| - t, 0)``: the proximal operator of ``t |·|`` (eq. ``eq-spca-soft``)."""
    return np.sign(value) * np.maximum(np.abs(value) - threshold, 0.0)


def coordinate_descent_sweep(G, beta, residual, coordinates, l1, l2):
    """One pass of exact coordinate minimisation over ``coordinates``.

    For coordinate ``m`` the objective is a one-dimensional quadratic plus
    ``λ₁ |β_m|``; its minimiser is
    ``β_m = S(c_m - Σ_{l≠m} G_ml β_l, λ₁/2) / (G_mm + λ₂)`` (eq. ``eq-spca-cd``).
    ``residual = c - G β`` is kept up to date, so that
    ``c_m - Σ_{l≠m} G_ml β_l = residual_m + G_mm β_m``.

    Parameters
    ----------
    G : ndarray of shape (d, d)
    beta, residual : ndarray of shape (d,)
        Updated in place.
    coordinates : iterable of int
    l1, l2 : float

    Returns
    -------
    float
        The largest absolute change of a coefficient in this pass.
    """
    largest_change = 0.0
    half_l1 = 0.5 * l1
    for m in coordinates:
        curvature = G[m, m] + l2
        if curvature <= 0.0:  # a zero column of X without ridge: β_m stays 0
            continue
        old = beta[m]
        z = residual[m] + G[m, m] * old
        new = (z - half_l1 if z > half_l1 else z + half_l1 if z < -half_l1 else 0.0) / curvature
        if new != old:
            beta[m] = new
            residual -= (new - old) * G[m]
            largest_change = max(largest_change, abs(new - old))
    return largest_change


def kkt_violations(residual, beta, l1):
    """Zero coefficients whose optimality condition ``|c_m - (G β)_m| ≤ λ₁/2`` fails."""
    return np.flatnonzero((beta == 0.0) & (np.abs(residual) > 0.5 * l1 * (1 + 1e-12)))


def solve_on_support(G, c, signs, l1, l2):
    """The solution for a known support and signs (eq. ``eq-spca-support``), or None.

    If the non-zero coefficients are ``β_A`` with signs ``s``, stationarity of
    the objective on ``A`` is the linear system
    ``(G_AA + λ₂ I) β_A = c_A - (λ₁/2) s``. Its solution is *the* minimiser when
    it has the signs ``s`` and every other coefficient satisfies its KKT
    condition; coordinate descent finds the support, this step finishes the
    job exactly, instead of creeping on ill-conditioned (correlated) data.

    Returns
    -------
    ndarray of shape (d,) or None
        None when the solution does not have the assumed signs.
    """
    support = np.flatnonzero(signs)
    beta = np.zeros_like(c)
    system = G[np.ix_(support, support)] + l2 * np.eye(support.size)
    try:
        beta[support] = np.linalg.solve(system, c[support] - 0.5 * l1 * signs[support])
    except np.linalg.LinAlgError:  # singular system (lasso with collinear columns)
        return None
    if np.any(np.sign(beta[support]) != signs[support]):
        return None
    return beta


def elastic_net_gram(G, c, *, l1, l2, beta_init=None, max_iter=1000, tol=1e-10):
    """Minimise ``βᵀ G β - 2 cᵀβ + λ₂ ‖β‖² + λ₁ ‖β‖₁`` by coordinate descent.

    Active-set strategy: sweep only the non-zero coefficients; when a sweep
    leaves their signs unchanged, solve for them exactly on that support
    (:func:`solve_on_support`); then check the optimality (KKT) condition of
    every zero coefficient at once and add the violators. Cheap when the
    solution is sparse, which is the point of the method.

    Parameters
    ----------
    G : ndarray of shape (d, d)
        ``Xᵀ X`` (symmetric positive semi-definite).
    c : ndarray of shape (d,)
        ``Xᵀ y``.
    l1, l2 : float
        Penalties ``λ₁, λ₂ ≥ 0``. With ``λ₂ = 0`` this is the lasso.
    beta_init : ndarray of shape (d,), optional
        Warm start (copied).
    max_iter : int, default=1000
        Largest number of sweeps.
    tol : float, default=1e-10
        Stop when no coefficient moves by more than ``tol`` times the largest
        coefficient in a sweep and no zero coefficient violates its condition.

    Returns
    -------
    beta : ndarray of shape (d,)
    n_iter : int
        Number of sweeps made.
    """
    d = c.shape[0]
    beta = np.zeros(d) if beta_init is None else np.array(beta_init, dtype=np.float64)
    residual = c - G @ beta
    active = list(np.flatnonzero(beta))
    if not active:
        active = list(kkt_violations(residual, beta, l1))
    signs = np.sign(beta)
    for n_iter in range(1, max_iter + 1):
        change = coordinate_descent_sweep(G, beta, residual, active, l1, l2)
        new_signs = np.sign(beta)
        if np.any(new_signs) and np.array_equal(new_signs, signs):
            exact = solve_on_support(G, c, new_signs, l1, l2)
            if exact is not None:
                beta, residual, change = exact, c - G @ exact, 0.0
        signs = new_signs
        if change > tol * max(np.abs(beta).max(initial=0.0), np.finfo(float).tiny):
            continue
        violations = kkt_violations(residual, beta, l1)
        if violations.size == 0:
            return beta, n_iter
        active = sorted(set(np.flatnonzero(beta)) | set(violations))
    warnings.warn(
        f"elastic net: coordinate descent stopped after max_iter={max_iter} sweeps "
        "before converging; increase max_iter or tol.",
        ConvergenceWarning,
        stacklevel=2,
    )
    return beta, max_iter


def check_penalties(l1, l2):
    """Validate ``λ₁, λ₂``: finite numbers ``≥ 0``."""
    for value, name in ((l1, "l1"), (l2, "l2")):
        if value == 0:
            continue
        check_positive_float(value, name=name)
    return float(l1), float(l2)


def elastic_net(X, y, *, l1, l2, max_iter=1000, tol=1e-10):
    """Minimise ``‖y - X β‖² + λ₂ ‖β‖² + λ₁ ‖β‖₁`` (eq. ``eq-spca-enet``), no intercept.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    l1, l2 : float
        Penalties ``λ₁, λ₂ ≥ 0``.
    max_iter : int, default=1000
    tol : float, default=1e-10
        See :func:`elastic_net_gram`.

    Returns
    -------
    beta : ndarray of shape (n_features,)
    n_iter : int
    """
    X = as_float_matrix(X, name="X")
    if np.ndim(y) != 1 or np.shape(y)[0] != X.shape[0]:
        raise ValueError(
            f"y must be a vector with one entry per row of X ({X.shape[0]}); got shape "
            f"{np.shape(y)}."
        )
    y = as_float_matrix(np.reshape(y, (-1, 1)), name="y")
    l1, l2 = check_penalties(l1, l2)
    check_positive_int(max_iter, name="max_iter")
    check_positive_float(tol, name="tol")
    return elastic_net_gram(X.T @ X, X.T @ y[:, 0], l1=l1, l2=l2, max_iter=max_iter, tol=tol)


def elastic_net_n_nonzero(G, c, *, n_nonzero, l2, l1_start=None, max_iter=1000, tol=1e-10):
    """Elastic net with exactly ``n_nonzero`` non-zero coefficients.

    The number of non-zeros falls from ``d`` to 0 as ``λ₁`` grows to
    ``λ₁_max = 2 max|c|``. Bisection on ``log λ₁`` finds the smallest ``λ₁``
    whose solution has at most ``n_nonzero`` non-zeros: the point of the
    regularisation path where the next variable is about to enter, the least
    penalised solution with that support (this is what the LARS-EN path of
    Zou and Hastie stops at). Each solve is warm-started from the last one.

    Parameters
    ----------
    G : ndarray of shape (d, d)
    c : ndarray of shape (d,)
    n_nonzero : int
        ``1 ≤ n_nonzero ≤ d``.
    l2 : float
    l1_start : float, optional
        A guess of ``λ₁`` (the previous iteration's), to narrow the bracket.
    max_iter, tol
        Passed to :func:`elastic_net_gram`.

    Returns
    -------
    beta : ndarray of shape (d,)
    l1 : float
        The ``λ₁`` found.
    """
    l1_max = 2.0 * float(np.abs(c).max())
    if l1_max == 0.0:
        return np.zeros_like(c), 0.0
    if n_nonzero >= c.shape[0]:  # no L1 penalty needed: the ridge solution (G + λ₂ I) β = c
        return np.linalg.lstsq(G + l2 * np.eye(c.shape[0]), c, rcond=None)[0], 0.0
    low, high = 0.0, l1_max  # count(low) > n_nonzero >= count(high)
    beta_high = np.zeros_like(c)
    if l1_start is not None and 0.0 < l1_start < l1_max:
        beta, _ = elastic_net_gram(G, c, l1=l1_start, l2=l2, max_iter=max_iter, tol=tol)
        if np.count_nonzero(beta) > n_nonzero:
            low = l1_start
        else:
            high, beta_high = l1_start, beta
    for _ in range(200):
        middle = np.sqrt(low * high) if low > 0.0 else 0.5 * high
        beta, _ = elastic_net_gram(
            G, c, l1=middle, l2=l2, beta_init=beta_high, max_iter=max_iter, tol=tol
        )
        if np.count_nonzero(beta) > n_nonzero:
            low = middle
        else:
            high, beta_high = middle, beta
        if high - low <= 1e-9 * high:
            break
    if np.count_nonzero(beta_high) != n_nonzero:
        warnings.warn(
            f"elastic net: no penalty gives exactly {n_nonzero} non-zero coefficients "
            f"(several variables enter the path together); returning "
            f"{np.count_nonzero(beta_high)}.",
            stacklevel=2,
        )
    return beta_high, high
