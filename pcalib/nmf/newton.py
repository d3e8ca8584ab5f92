"""The exact solve for ``W`` with ``H`` fixed, by projected Newton on the rows of ``W``.

The final step of ``NMF.fit_transform`` and all of ``NMF.transform``:
:func:`solve_W` warms up with HALS sweeps (Frobenius) or multiplicative
updates (other β), then runs :func:`projected_newton_rows` (Bertsekas's
projected Newton), with the derivatives of :func:`frobenius_newton_W` or
:func:`beta_newton_W`.
"""

import numpy as np

from .divergences import beta_divergence_entries
from .units import TINY
from .updates import hals_update, multiplicative_update_for

# The exact solve for W given H: HALS sweeps or multiplicative updates before
# projected Newton, and the size of Newton's temporaries per block of rows.
WARM_SWEEPS = 10
NEWTON_BLOCK = 4_000_000


def projected_newton_rows(W, row_objectives, derivatives, *, max_iter=100, rtol=1e-10):
    """Projected Newton for ``min_{W ≥ 0}`` of a convex objective that separates over rows.

    ``row_objectives(W_rows, rows)`` returns the objective of each given row
    and ``derivatives(W_rows, rows)`` their gradients (rows × k) and
    Hessians (rows × k × k). Entries at 0 whose gradient pushes them below 0
    are held there (Bertsekas's projected Newton); the others take the
    Newton step, and a backtracking search along ``max(0, w - α p)`` makes
    every step lower its row's objective (up to rounding). A row is done when
    its step changes it by less than ``rtol`` times the largest entry of
    ``W``. Near the solution convergence is quadratic, and for a quadratic
    objective the step is exact once the zeros are identified; HALS and
    multiplicative updates only creep there.

    Returns ``W`` of shape (n, k).
    """
    W = W.copy()
    k = W.shape[1]
    diagonal_index = (slice(None), np.arange(k), np.arange(k))
    rows = np.arange(W.shape[0])
    value = row_objectives(W, rows)
    for _ in range(max_iter):
        W_rows = W[rows]
        gradient, hessian = derivatives(W_rows, rows)
        projected = W_rows - np.maximum(W_rows - gradient, 0.0)  # 0 exactly at a KKT point
        threshold = np.minimum(
            1e-3 * W_rows.max(axis=1, keepdims=True),
            np.linalg.norm(projected, axis=1, keepdims=True),
        )
        free = ~((W_rows <= threshold) & (gradient > 0))
        system = np.where(free[:, :, np.newaxis] & free[:, np.newaxis, :], hessian, 0.0)
        diagonal = np.einsum("iaa->ia", hessian)
        damping = 1e-12 * (diagonal.max(axis=1, keepdims=True) + TINY)
        system[diagonal_index] = diagonal + damping + np.where(free, 0.0, TINY)
        step = np.linalg.solve(system, gradient[:, :, np.newaxis])[:, :, 0]
        W_new = W_rows.copy()
        alpha, pending = 1.0, np.arange(rows.size)
        for _ in range(40):
            trial = np.maximum(W_rows[pending] - alpha * step[pending], 0.0)
            trial_value = row_objectives(trial, rows[pending])
            decrease = np.sum(gradient[pending] * (W_rows[pending] - trial), axis=1)
            slack = 1e-13 * np.abs(value[rows[pending]])  # rounding
            accepted = trial_value <= value[rows[pending]] - 1e-4 * decrease + slack
            W_new[pending[accepted]] = trial[accepted]
            value[rows[pending[accepted]]] = trial_value[accepted]
            pending = pending[~accepted]
            if pending.size == 0:
                break
            alpha *= 0.5
        change = np.abs(W_new - W_rows).max(axis=1)
        W[rows] = W_new
        rows = rows[change > rtol * max(np.abs(W).max(), TINY)]
        if rows.size == 0:
            break
    return W


def beta_newton_W(X, W, H, beta, l1_penalty, l2_penalty, *, rtol=1e-10):
    """:func:`projected_newton_rows` for the β-divergence in ``W`` with ``H`` fixed, β ≠ 2.

    With ``Y = W H`` (at least ``TINY``, as in the updates), the gradient is
    ``(Y^(β-2) ∘ (Y - X)) Hᵀ + λ₁ + λ₂ W`` and the Hessian of row ``i`` is
    ``H diag(c_i) Hᵀ + λ₂ I`` with ``c = Y^(β-3) ((β - 1) Y - (β - 2) X)``,
    the second derivative of ``d_β(x | y)`` in ``y``: ``x / y²`` for KL. It
    is non-negative for β in [1, 2], where the problem is convex; outside,
    its negative entries are set to 0, which keeps the Newton step a descent
    direction, and the result is a stationary point.
    """

    def derivatives(W_rows, rows):
        WH = np.maximum(W_rows @ H, TINY)
        X_rows = X[rows]
        gradient = (WH ** (beta - 2.0) * (WH - X_rows)) @ H.T + l1_penalty + l2_penalty * W_rows
        curvature = np.maximum(WH ** (beta - 3.0) * ((beta - 1.0) * WH - (beta - 2.0) * X_rows), 0)
        hessian = (curvature[:, np.newaxis, :] * H) @ H.T + l2_penalty * np.eye(H.shape[0])
        return gradient, hessian

    def row_objectives(W_rows, rows):
        return (
            beta_divergence_entries(X[rows], W_rows @ H, beta).sum(axis=1)
            + l1_penalty * W_rows.sum(axis=1)
            + 0.5 * l2_penalty * np.sum(W_rows * W_rows, axis=1)
        )

    return projected_newton_rows(W, row_objectives, derivatives, rtol=rtol)


def frobenius_newton_W(X, W, H, l1_penalty, l2_penalty, *, rtol=1e-10):
    """:func:`projected_newton_rows` for the Frobenius objective in ``W`` with ``H`` fixed.

    Row ``i`` minimises ``½ wᵀ Q w - b_iᵀ w + λ₁ Σ w`` over ``w ≥ 0``, with
    ``Q = H Hᵀ + λ₂ I`` (k × k, shared by all rows) and ``b_i = (X Hᵀ)_i``:
    a non-negative least-squares problem, whose Newton step is exact once
    the zero entries are found.
    """
    Q = H @ H.T + l2_penalty * np.eye(H.shape[0])
    B = X @ H.T

    def row_objectives(W_rows, rows):
        return (
            0.5 * np.sum((W_rows @ Q) * W_rows, axis=1)
            - np.sum(W_rows * B[rows], axis=1)
            + l1_penalty * W_rows.sum(axis=1)
        )

    def derivatives(W_rows, rows):
        return W_rows @ Q - B[rows] + l1_penalty, np.broadcast_to(Q, (len(rows), *Q.shape))

    return projected_newton_rows(W, row_objectives, derivatives, rtol=rtol)


def solve_W(X, W, H, *, beta, l1_penalty, l2_penalty, rtol=1e-10):
    """``argmin_W`` of the objective with ``H`` fixed: a convex problem for β in [1, 2].

    A few HALS sweeps (Frobenius) or multiplicative updates (other β) from
    ``W``, then projected Newton (:func:`frobenius_newton_W`,
    :func:`beta_newton_W`) until ``W`` changes by less than ``rtol``
    relative; for β outside [1, 2] the problem is not convex and this finds
    a stationary point. The rows are independent and are solved in blocks,
    so that Newton's temporaries, of ``rows × k × k`` numbers (Frobenius) or
    ``rows × k × d`` (other β), stay near ``NEWTON_BLOCK``. ``l1_penalty``
    and ``l2_penalty`` are ``λ₁ᵂ`` and ``λ₂ᵂ``.

    Returns ``W`` of shape (n, k).
    """
    k = H.shape[0]
    if beta == 2:
        HXt, HHt = (X @ H.T).T, H @ H.T
        for _ in range(WARM_SWEEPS):
            W = hals_update(W.T, HXt, HHt, l1_penalty, l2_penalty).T
        newton, size = frobenius_newton_W, k * k
    else:
        update = multiplicative_update_for(beta)
        for _ in range(WARM_SWEEPS):
            W = update(X.T, H.T, W.T, (W @ H).T, l1_penalty, l2_penalty).T

        def newton(X, W, H, l1_penalty, l2_penalty, *, rtol):
            return beta_newton_W(X, W, H, beta, l1_penalty, l2_penalty, rtol=rtol)

        size = k * H.shape[1]
    rows = max(1, NEWTON_BLOCK // size)
    blocks = [slice(start, start + rows) for start in range(0, X.shape[0], rows)]
    return np.vstack([newton(X[b], W[b], H, l1_penalty, l2_penalty, rtol=rtol) for b in blocks])
