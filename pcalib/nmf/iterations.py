"""The alternating iterations of NMF: ``W``, then ``H``, until the objective stops falling.

:func:`frobenius_iterations` alternates the Frobenius updates (HALS, MU, PG,
ANLS), optionally extrapolated (Ang and Gillis, eq.
``eq-nmf-extrapolation``); :func:`beta_iterations` alternates the
multiplicative updates of any other β. Both record the objective after each
iteration and stop on a decrease below ``tol`` times the start
(:func:`pcalib.factorization.small_decrease`).
"""

import numpy as np

from .._linalg import EPS
from ..factorization import small_decrease
from .divergences import beta_divergence, frobenius_from_products, squared_norm
from .penalties import penalty
from .updates import (
    anls_update,
    hals_update,
    multiplicative_update_for,
    multiplicative_update_frobenius,
    projected_gradient_update,
)

# Extrapolation of HALS (Ang and Gillis): the starting weight β, its growth
# after an accepted iteration, the growth of its cap, and its shrink factor
# after a rejected one.
EXTRAPOLATION_START = 0.5
EXTRAPOLATION_GROW = 1.05
EXTRAPOLATION_GROW_CAP = 1.01
EXTRAPOLATION_SHRINK = 1.5
# Multiplicative updates for β ≤ 1 drive entries towards 0 geometrically
# without reaching it. Entries of H (β ≤ 1) and of W (β < 1) below this are set
# to 0 after each update, as scikit-learn does; the factors are of order 1 in
# the units of the fit, so this is relative to the data, and zeros of X are
# then reproduced exactly.
MU_ZERO = EPS


def extrapolate_factor(H_new, H, beta):
    """``max(0, H_new + β (H_new - H))``, rows of ``H`` that this would zero kept as ``H_new``.

    Clipping can zero a whole row (a component); with a penalty a zero row
    can never come back, so extrapolation is not allowed to kill one.
    """
    H_from = np.maximum(H_new + beta * (H_new - H), 0.0)
    killed = (H_from.max(axis=1) <= 0) & (H_new.max(axis=1) > 0)
    H_from[killed] = H_new[killed]
    return H_from


def frobenius_iterations(X, W, H, *, solver, penalties, max_iter, tol, extrapolate=False):
    """Alternate ``W`` then ``H`` updates (HALS, MU or PG) for the Frobenius loss.

    Each half-step computes the two products it needs, ``H Xᵀ, H Hᵀ`` or
    ``Wᵀ X, Wᵀ W``, and the loss comes from them (:func:`frobenius_from_products`).

    With ``extrapolate`` (eq. ``eq-nmf-extrapolation``), each iteration starts
    from ``max(0, W + β (W - W_previous))`` and the same for ``H``, not from
    ``W`` and ``H`` themselves. An iteration that does not lower the objective
    is rejected: the next one restarts from the last accepted factors with a
    smaller ``β`` (a plain step, which cannot increase it), so the history
    never increases. Convergence (a decrease below ``tol``) is only declared
    after a plain step.

    Returns ``W, H``, the objective history (``n_iter + 1`` values: the start,
    then after every iteration; a rejected iteration repeats the previous
    value) and whether an iteration lowered it by less than ``tol`` times the
    start (:func:`small_decrease`).
    """
    update = {
        "cd": hals_update,
        "mu": multiplicative_update_frobenius,
        "pg": projected_gradient_update,
        "anls": anls_update,
    }[solver]
    X_squared_norm = squared_norm(X)
    HHt = H @ H.T
    loss = frobenius_from_products(X_squared_norm, W.T @ X, H, W.T @ W, HHt)
    history = [loss + penalty(W, H, penalties)]
    W_from, H_from = W, H  # where the next iteration starts
    beta, beta_cap, beta_accepted = EXTRAPOLATION_START, 1.0, EXTRAPOLATION_START
    for _ in range(max_iter):
        plain = W_from is W and H_from is H
        HHt_from = HHt if plain else H_from @ H_from.T  # HHt belongs to the accepted H
        # H Xᵀ as (X Hᵀ)ᵀ: BLAS is faster with the C-ordered X on the left
        W_new = update(W_from.T, (X @ H_from.T).T, HHt_from, penalties.l1_W, penalties.l2_W).T
        WtX, WtW = W_new.T @ X, W_new.T @ W_new
        H_new = update(H_from, WtX, WtW, penalties.l1_H, penalties.l2_H)
        HHt_new = H_new @ H_new.T
        loss = frobenius_from_products(X_squared_norm, WtX, H_new, WtW, HHt_new)
        value = loss + penalty(W_new, H_new, penalties)
        if not plain and value > history[-1]:  # reject; restart from (W, H)
            W_from, H_from = W, H
            beta_cap, beta = beta_accepted, beta / EXTRAPOLATION_SHRINK
            history.append(history[-1])
            continue
        if extrapolate:
            W_from = extrapolate_factor(W_new.T, W.T, beta).T
            H_from = extrapolate_factor(H_new, H, beta)
            beta_accepted = beta
            beta = min(beta_cap, EXTRAPOLATION_GROW * beta)
            beta_cap = min(1.0, EXTRAPOLATION_GROW_CAP * beta_cap)
        else:
            W_from, H_from = W_new, H_new
        W, H, HHt = W_new, H_new, HHt_new
        history.append(value)
        if small_decrease(history, tol):
            if plain:
                return W, H, history, True
            W_from, H_from = W, H  # a small gain after extrapolating: confirm by a plain step
    return W, H, history, False


def beta_iterations(X, W, H, *, beta, penalties, max_iter, tol):
    """Alternate multiplicative ``W`` then ``H`` updates for the β-divergence, β ≠ 2.

    ``W H`` is formed twice per iteration; the second serves both the
    objective and the next ``W`` update. Entries below ``MU_ZERO`` are set
    to 0 (of ``H`` for β ≤ 1, of ``W`` for β < 1). Returns as
    :func:`frobenius_iterations`.
    """
    update = multiplicative_update_for(beta)
    WH = W @ H
    history = [beta_divergence(X, WH, beta) + penalty(W, H, penalties)]
    for _ in range(max_iter):
        W = update(X.T, H.T, W.T, WH.T, penalties.l1_W, penalties.l2_W).T
        if beta < 1:
            W[W < MU_ZERO] = 0.0
        H = update(X, W, H, W @ H, penalties.l1_H, penalties.l2_H)
        if beta <= 1:
            H[H < MU_ZERO] = 0.0
        WH = W @ H
        history.append(beta_divergence(X, WH, beta) + penalty(W, H, penalties))
        if small_decrease(history, tol):
            return W, H, history, True
    return W, H, history, False
