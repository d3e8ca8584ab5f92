"""How far NMF factors are from a stationary point of the Frobenius loss (the KKT conditions)."""

import numpy as np


def kkt_residual(X, W, H):
    """``√(‖min(W, ∇_W F)‖²_F + ‖min(H, ∇_H F)‖²_F)`` for ``F = ½‖X - W H‖²_F``.

    ``min`` is taken entry by entry. An entry of ``min(H, ∇_H F)`` is 0
    exactly when ``h ≥ 0``, ``∂F/∂h ≥ 0`` and one of them is 0, so the
    residual is 0 exactly at the stationary points (the KKT conditions of
    exercise ``ex-nmf-kkt``). It mixes the units of the factors and of the
    gradient, so it is compared with its value at a reference point, such
    as the start. ``X`` is dense; ``W`` is n × k, ``H`` is k × d.
    """
    residual = W @ H - X
    gradient_W, gradient_H = residual @ H.T, W.T @ residual
    return float(
        np.sqrt(np.sum(np.minimum(W, gradient_W) ** 2) + np.sum(np.minimum(H, gradient_H) ** 2))
    )
