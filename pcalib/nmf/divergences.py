"""The β-divergences of NMF (eq. ``eq-nmf-beta``) and the objective they make with the penalties.

``D_β(X | W H) = Σ_ij d_β(x_ij | (WH)_ij)``, of which

* β = 2 is the Frobenius loss ``½ ‖X - W H‖²_F`` (eq. ``eq-nmf-frobenius``),
* β = 1 the generalised Kullback–Leibler divergence
  ``Σ_ij x_ij log(x_ij / (WH)_ij) - x_ij + (WH)_ij`` (eq. ``eq-nmf-kl``),
* β = 0 the Itakura–Saito divergence ``Σ_ij x_ij / (WH)_ij - log(x_ij / (WH)_ij) - 1``.

The Frobenius loss of a sparse ``X`` is computed in blocks of rows
(:func:`frobenius_loss`), and during the iterations from the products the
updates have formed (:func:`frobenius_from_products`).
"""

import numpy as np
import scipy.sparse

from .penalties import NO_PENALTIES, penalty
from .units import TINY

# β of the named losses (eq. eq-nmf-beta); beta_loss may also be any real β
BETA_LOSSES = {"frobenius": 2.0, "kullback-leibler": 1.0, "itakura-saito": 0.0}
# frobenius_loss densifies blocks of rows of X of about this many entries
DENSE_BLOCK = 4_000_000


def beta_value(beta_loss):
    """β of ``beta_loss``: 2, 1, 0 for the names of ``BETA_LOSSES``, else the number itself."""
    return BETA_LOSSES[beta_loss] if isinstance(beta_loss, str) else float(beta_loss)


def objective(X, W, H, beta, penalties=NO_PENALTIES):
    """The β-divergence ``D_β(X | W H)`` (eq. ``eq-nmf-beta``) plus the penalties.

    ``X`` may be sparse for β = 2 (:func:`frobenius_loss`); it is dense otherwise.
    """
    if beta == 2:
        value = frobenius_loss(X, W, H)
    else:
        value = beta_divergence(X, W @ H, beta)
    return value + penalty(W, H, penalties)


def frobenius_loss(X, W, H):
    """``½‖X - W H‖²_F`` from the residual, in blocks of rows.

    A block of ``X`` is densified at a time, so a sparse ``X`` never is as a
    whole, and the residual is formed entry by entry: for a near-exact fit
    the formula of :func:`frobenius_from_products` would lose the digits of
    the small loss to cancellation.
    """
    rows = max(1, DENSE_BLOCK // max(X.shape[1], 1))
    total = 0.0
    for start in range(0, X.shape[0], rows):
        block = X[start : start + rows]
        if scipy.sparse.issparse(block):
            block = block.toarray()
        total += float(np.sum((block - W[start : start + rows] @ H) ** 2))
    return 0.5 * total


def beta_divergence_entries(X, WH, beta):
    """``d_β(x_ij | (WH)_ij)`` entry by entry (eq. ``eq-nmf-beta``), dense ``X``.

    ``WH`` is at least ``TINY`` where it divides or is raised to a power
    below 1, as in the updates; ``0 log 0 = 0``.
    """
    if beta == 2:
        return 0.5 * (X - WH) ** 2
    WH = np.maximum(WH, TINY)
    if beta == 1:
        positive = X > 0
        logs = np.zeros_like(X)
        logs[positive] = X[positive] * np.log(X[positive] / WH[positive])
        return logs - X + WH
    if beta == 0:
        ratio = X / WH
        return ratio - np.log(ratio) - 1.0
    return (X**beta + (beta - 1.0) * WH**beta - beta * X * WH ** (beta - 1.0)) / (
        beta * (beta - 1.0)
    )


def beta_divergence(X, WH, beta):
    """``D_β(X | WH) = Σ_ij d_β(x_ij | (WH)_ij)`` (eq. ``eq-nmf-beta``), dense ``X``.

    ``d_β(x | y) = (xᵝ + (β - 1) yᵝ - β x yᵝ⁻¹) / (β (β - 1))`` for β ∉ {0, 1},
    and its limits: ``x/y - log(x/y) - 1`` (Itakura–Saito) at β = 0,
    ``x log(x/y) - x + y`` (:func:`kl_divergence`) at β = 1; β = 2 is
    ``½ (x - y)²``. ``WH`` is at least ``TINY`` where it divides or is raised
    to a negative power, as in the updates.
    """
    if beta == 1:
        return kl_divergence(X, WH)
    return float(np.sum(beta_divergence_entries(X, WH, beta)))


def kl_divergence(X, WH):
    """``Σ x log(x / WH) - x + WH`` over all entries, ``0 log 0 = 0`` (eq. ``eq-nmf-kl``)."""
    positive = X > 0
    return float(
        np.sum(X[positive] * np.log(X[positive] / np.maximum(WH[positive], TINY)))
        - X.sum()
        + WH.sum()
    )


def squared_norm(X):
    """``‖X‖²_F``, from the stored entries when ``X`` is sparse."""
    entries = X.data if scipy.sparse.issparse(X) else X
    return float(np.sum(entries * entries))


def frobenius_from_products(X_squared_norm, WtX, H, WtW, HHt):
    """``½‖X - W H‖²_F = ½‖X‖² - ⟨Wᵀ X, H⟩ + ½⟨Wᵀ W, H Hᵀ⟩`` from products at hand.

    The updates have just formed ``Wᵀ X`` (k × d), ``Wᵀ W`` and ``H Hᵀ`` (k × k),
    so the loss costs ``O(d k + k²)`` instead of the ``O(n d k)`` of ``W H``.
    """
    return 0.5 * X_squared_norm - float(np.sum(WtX * H)) + 0.5 * float(np.sum(WtW * HHt))
