"""Robust PCA under the entrywise L1 loss, by iteratively reweighted least squares (chapter 7).

:func:`l1_low_rank` fits ``X ≈ 1 mᵀ + Z Wᵀ`` under the entrywise L1 loss
(eq. ``eq-rpca-l1``), for the chapter's comparison with the squared loss of
PCA; :func:`l1_regressions` scores rows by L1 regression, as
:meth:`~pcalib.robust_pca.RobustPCA.transform` does.
"""

import numpy as np
import scipy.linalg

from .._linalg import EPS, flip_signs, power_of_four_scale
from .._validation import (
    as_float_matrix,
    check_n_components,
    check_non_negative_float,
    check_positive_int,
)
from ..factorization import factorization_result, small_decrease

__all__ = ["l1_low_rank"]

IRLS_EPS = 1e-6


def l1_regressions(X, W, max_iter=200):
    """For each row ``x`` of ``X``: ``argmin_z ‖x - W z‖₁``, by IRLS (eq. ``eq-rpca-irls``).

    Starts from the least-squares scores ``X W`` (exact for orthonormal
    columns) and reweights each row until its scores change by less than
    ``1e-12`` of ``max(|z|, 1)``; the rows are expected to have entries of
    order 1.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    W : ndarray of shape (d, k)
    max_iter : int, default=200
        Largest number of reweightings.

    Returns
    -------
    Z : ndarray of shape (n, k)
    """
    X = np.ascontiguousarray(X)  # the same rounding for any memory layout
    Z = X @ W
    active = np.arange(X.shape[0])  # rows still moving
    for _ in range(max_iter):
        X_active = X[active]
        weights = irls_weights(X_active - Z[active] @ W.T)
        Z_new = weighted_row_fits(X_active, W, weights)
        change = np.abs(Z_new - Z[active]).max(axis=1)
        Z[active] = Z_new
        scale = np.maximum(np.abs(Z_new).max(axis=1), 1.0)
        active = active[change > 1e-12 * scale]
        if active.size == 0:
            break
    return Z


def irls_weights(residual, eps=IRLS_EPS, *, axis=-1):
    """Weights ``1 / max(|r|, ε)`` that turn ``Σ |r|`` into a weighted sum of squares.

    At the current residual, ``Σ_ij w_ij r_ij² = Σ_ij |r_ij|`` (up to ``ε``), so
    each weighted least-squares step majorises the L1 loss (eq. ``eq-rpca-irls``).
    ``ε`` is ``eps`` times the largest residual along ``axis``: of each row by
    default, so that the weights of a row do not depend on the other rows;
    of the whole matrix for ``axis=None``. Where those residuals are all
    zero the weights are 1 (the fit is exact whatever the weights).
    """
    floor = eps * np.abs(residual).max(axis=axis, keepdims=True)
    floor[floor == 0.0] = 1.0
    return 1.0 / np.maximum(np.abs(residual), floor)


def weighted_row_fits(X, W, weights):
    """For each row ``i``: ``argmin_z Σ_j w_ij (x_ij - w_jᵀ z)²``, all rows at once.

    Normal equations ``(Wᵀ D_i W) z_i = Wᵀ D_i x_i`` with ``D_i = diag(w_i·)``,
    solved by the pseudo-inverse of ``Wᵀ D_i W``: where it is singular (a
    column of ``W`` that is zero, more columns than rows) this is the
    minimum-norm solution, which minimises the weighted squares all the same.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    W : ndarray of shape (d, k)
    weights : ndarray of shape (n, d)

    Returns
    -------
    Z : ndarray of shape (n, k)
    """
    k = W.shape[1]
    outer = (W[:, :, np.newaxis] * W[:, np.newaxis, :]).reshape(W.shape[0], k * k)
    A = (weights @ outer).reshape(-1, k, k)
    b = (weights * X) @ W
    return (np.linalg.pinv(A, hermitian=True) @ b[:, :, np.newaxis])[:, :, 0]


def robust_start(X, k):
    """Column medians and the top ``k`` axes of the winsorised residuals.

    IRLS only improves the fit locally, and PCA's own axes, pulled by the
    outliers, start it in a poor local minimum. Clipping each centred column
    at three robust standard deviations (``1.4826 × MAD``) first limits the
    pull of gross errors on the starting axes.

    Returns
    -------
    offset : ndarray of shape (n_features,)
    W : ndarray of shape (n_features, k)
    """
    offset = np.median(X, axis=0)
    residual = X - offset
    spread = 1.4826 * np.median(np.abs(residual), axis=0)
    clipped = np.clip(residual, -3.0 * spread, 3.0 * spread)
    _, _, Vt = scipy.linalg.svd(clipped, full_matrices=False, check_finite=False)
    return offset, Vt[:k].T


def l1_low_rank(X, n_components, *, max_iter=500, tol=1e-6):
    """Rank-``k`` fit ``X ≈ 1 mᵀ + Z Wᵀ`` under the entrywise L1 loss (eq. ``eq-rpca-l1``).

    Alternates weighted least squares for the rows of ``Z`` and for the rows
    of ``[W, m]``, with IRLS weights ``1/|residual|`` recomputed before each
    half-step (eq. ``eq-rpca-irls``; floored at ``1e-6`` times the largest
    residual, :func:`irls_weights`), so that the L1 loss
    ``Σ |x_ij - m_j - z_iᵀ w_j|`` does not increase. The offset ``m`` plays
    the role of PCA's mean. The start is deterministic (:func:`robust_start`).
    The fit is equivariant: ``X`` times ``c`` gives ``Z``, ``offset`` and the
    loss times ``c`` and the same ``W`` (the iterations run on ``X`` divided
    by a power of four, which is exact).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data, at least two rows.
    n_components : int or None
        Rank ``k``, ``1 ≤ k ≤ min(n_samples, n_features)``; None means
        ``min(n_samples, n_features)``.
    max_iter : int, default=500
        Maximum number of sweeps (one update of ``Z``, then of ``[W, m]``).
    tol : float, default=1e-6
        Stop when the L1 loss decreases by less than ``tol`` times its
        starting value in one sweep (relative to the start, so that a loss
        converging to 0 on exact data also stops), or reaches the rounding
        level ``max(n, d) · eps · Σ|x_ij|`` of an exact fit (at the start too,
        as for ``k = min(n, d)`` with ``n ≥ d``); ``tol=0`` runs exactly
        ``max_iter`` sweeps.

    Returns
    -------
    FactorizationResult
        ``Z`` of shape (n_samples, k); ``W`` of shape (n_features, k) with
        orthonormal columns (the rotation inside the subspace is fixed by an
        SVD of ``Z Wᵀ`` at the end), pcalib's sign convention; ``offset`` of
        shape (n_features,), the robust centre ``m``; ``objective_history``
        of shape (n_iter + 1,), the L1 loss at the start and after each
        sweep; ``n_iter`` and ``converged``. ``reconstruction()`` gives
        ``1 mᵀ + Z Wᵀ``.
    """
    X = as_float_matrix(X, name="X", min_samples=2)
    k = check_n_components(n_components, min(X.shape))
    check_positive_int(max_iter, name="max_iter")
    tol = check_non_negative_float(tol, name="tol")
    # the fit is homogeneous in X: run it on X / s (exact) and scale Z and m back
    scale = power_of_four_scale(X)
    X = X / scale
    offset, W = robust_start(X, k)
    Z = (X - offset) @ W
    ones = np.ones((X.shape[0], 1))
    history = [np.abs(X - offset - Z @ W.T).sum()]
    # an L1 loss at this level is an exact fit up to rounding: weights 1/|r| of
    # rounding noise would only make the weighted least squares ill-conditioned
    exact = max(X.shape) * EPS * np.abs(X).sum()
    converged = False
    for _ in range(max_iter):
        if tol > 0 and history[-1] <= exact:
            converged = True
            break
        weights = irls_weights(X - offset - Z @ W.T, axis=None)
        Z = weighted_row_fits(X - offset, W, weights)
        design = np.hstack([Z, ones])
        weights = irls_weights(X - offset - Z @ W.T, axis=None)
        W_and_offset = weighted_row_fits(X.T, design, weights.T)
        W, offset = W_and_offset[:, :k], W_and_offset[:, k]
        history.append(np.abs(X - offset - Z @ W.T).sum())
        if small_decrease(history, tol):
            converged = True
            break
    U, s, Vt = scipy.linalg.svd(Z @ W.T, full_matrices=False)
    components, signs = flip_signs(Vt[:k])
    return factorization_result(
        U[:, :k] * s[:k] * signs * scale,
        components.T,
        np.asarray(history) * scale,
        converged,
        name="l1_low_rank",
        criterion=f"the L1 loss decreased by less than tol={tol} times its starting value "
        "in one sweep",
        offset=offset * scale,
    )
