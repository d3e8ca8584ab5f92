"""The update of one NMF factor with the other fixed: the half-steps of the solvers.

Each update returns a new ``H`` (k × d) given ``W``; the update of ``W`` is
the same one on the transposed problem ``Xᵀ ≈ Hᵀ Wᵀ``. For the Frobenius loss
the updates take the products ``A = Wᵀ X`` (k × d) and ``B = Wᵀ W`` (k × k):
HALS, scikit-learn's ``"cd"`` (:func:`hals_update`); the multiplicative
update of Lee and Seung (:func:`multiplicative_update_frobenius`); projected
gradient (:func:`projected_gradient_update`); and ANLS, exact over the whole
factor (:func:`anls_update`). For the other β, the multiplicative updates
(:func:`multiplicative_update_kl`, and :func:`multiplicative_update_beta`
with the exponent :func:`mm_exponent` of Févotte and Idier, chosen by
:func:`multiplicative_update_for`) take ``X``, ``W`` and ``W H``.
"""

import numpy as np

from .nnls import block_principal_pivoting
from .units import TINY


def multiplicative_update_frobenius(H, A, B, l1_penalty, l2_penalty):
    """Lee–Seung update of ``H`` for the Frobenius loss (eq. ``eq-nmf-mu-frobenius``).

    ``H ← H ∘ A / (B H + λ₁ + λ₂ H)`` with ``A = Wᵀ X`` (k × d) and
    ``B = Wᵀ W`` (k × k): gradient descent with the entrywise step
    ``H / (B H + λ₁ + λ₂ H)``, which keeps ``H`` non-negative and never
    increases the objective.
    """
    denominator = B @ H
    if l2_penalty > 0:
        denominator += l2_penalty * H
    denominator += l1_penalty + TINY
    H_new = A / denominator
    H_new *= H
    return H_new


def multiplicative_update_kl(X, W, H, WH, l1_penalty, l2_penalty):
    """Lee–Seung update of ``H`` for the KL divergence (eq. ``eq-nmf-mu-kl``).

    ``H ← H ∘ Wᵀ (X / W H) / (Wᵀ 1 + λ₁ + λ₂ H)``; ``WH`` is ``W @ H``, passed in
    because the caller has it already.
    """
    numerator = W.T @ (X / np.maximum(WH, TINY))
    denominator = W.sum(axis=0)[:, np.newaxis] + l2_penalty * H
    denominator += l1_penalty + TINY
    numerator /= denominator
    numerator *= H
    return numerator


def multiplicative_update_beta(X, W, H, WH, beta, l1_penalty, l2_penalty):
    """Update of ``H`` for the β-divergence (eq. ``eq-nmf-mu-beta``), Févotte and Idier.

    ``H ← H ∘ [Wᵀ((W H)^(β-2) ∘ X) / (Wᵀ (W H)^(β-1) + λ₁ + λ₂ H)]^γ``: the
    negative part of the gradient over its positive part, raised to the power
    ``γ = γ(β)`` of :func:`mm_exponent`, which makes the update the minimiser
    of a function that majorises the objective, so that the objective never
    increases. β = 2 and β = 1 (γ = 1) give :func:`multiplicative_update_frobenius`
    and :func:`multiplicative_update_kl`. ``WH`` is ``W @ H``, kept at least
    ``TINY`` where it is raised to a negative power.

    Returns the new ``H`` (k × d).
    """
    WH = np.maximum(WH, TINY)
    numerator = W.T @ (X * WH ** (beta - 2.0))
    denominator = W.T @ WH ** (beta - 1.0) + l1_penalty + l2_penalty * H + TINY
    return H * (numerator / denominator) ** mm_exponent(beta)


def mm_exponent(beta):
    """γ(β) of Févotte and Idier (2011): ``1/(2 - β)`` for β < 1, 1 on [1, 2], ``1/(β - 1)`` above.

    On [1, 2] the β-divergence is convex in ``y`` and the plain ratio of the
    gradient's parts minimises the majorising function; outside, its concave
    part has to be bounded by a tangent, and the minimiser is that ratio to
    the power γ(β) < 1.
    """
    if beta < 1:
        return 1.0 / (2.0 - beta)
    if beta > 2:
        return 1.0 / (beta - 1.0)
    return 1.0


def multiplicative_update_for(beta):
    """The multiplicative update of ``H`` for β ≠ 2, as a function of ``(X, W, H, WH, λ₁, λ₂)``."""
    if beta == 1:
        return multiplicative_update_kl

    def update(X, W, H, WH, l1_penalty, l2_penalty):
        return multiplicative_update_beta(X, W, H, WH, beta, l1_penalty, l2_penalty)

    return update


def hals_update(H, A, B, l1_penalty, l2_penalty):
    """One HALS sweep over the rows of ``H`` (eq. ``eq-nmf-hals``), Frobenius loss.

    With ``A = Wᵀ X`` (k × d) and ``B = Wᵀ W`` (k × k), row ``j`` minimises the
    objective exactly with the other rows fixed:
    ``h_j ← max(0, (a_j - λ₁ - Σ_{i≠j} B_ji h_i) / (B_jj + λ₂))``.
    Rows are updated in turn, each using the new values of those before it:
    coordinate descent, scikit-learn's ``solver="cd"``.
    A row with ``B_jj + λ₂ = 0`` (an all-zero column of ``W``, no ``λ₂``) does
    not enter the loss and is left as it is, as scikit-learn's ``cd`` does:
    setting it to 0 (the exact minimiser when ``λ₁ > 0``) would make the
    component dead for good, and keeping it lets the next ``W`` update revive
    it. :func:`drop_dead_components` zeroes what is still dead at the end.

    Returns the new ``H`` (k × d); ``H`` itself is not modified.
    """
    H = np.array(H, order="C")
    curvature = np.diag(B) + l2_penalty
    idle = curvature <= 0
    safe = np.where(idle, 1.0, curvature)[:, np.newaxis]
    A_scaled = (A - l1_penalty) / safe
    C = B / safe
    np.fill_diagonal(C, 0.0)
    row = np.empty(H.shape[1])
    for j in np.flatnonzero(~idle):
        np.dot(C[j], H, out=row)
        np.subtract(A_scaled[j], row, out=row)
        np.maximum(row, 0.0, out=H[j])
    return H


def anls_update(H, A, B, l1_penalty, l2_penalty):
    """Exact minimisation over all of ``H`` (ANLS half-step, eq. ``eq-nmf-anls``).

    Column ``c`` of ``H`` solves ``min_{h ≥ 0} ½ hᵀ (B + λ₂ I) h - (a_c - λ₁)ᵀ h``
    with ``A = Wᵀ X`` (k × d) and ``B = Wᵀ W`` (k × k), by
    :func:`block_principal_pivoting`. A row with ``B_jj + λ₂ = 0`` (an
    all-zero column of ``W``, no ``λ₂``) does not enter the loss and is
    left as it is, as in :func:`hals_update`. The positive entries of ``H``
    are the first guess of the positive entries of the solution.

    Returns the new ``H`` (k × d).
    """
    H = np.array(H)
    active = np.diag(B) + l2_penalty > 0
    Q = B[np.ix_(active, active)] + l2_penalty * np.eye(int(active.sum()))
    H[active] = block_principal_pivoting(Q, A[active] - l1_penalty, guess=H[active] > 0)
    return H


def projected_gradient_update(H, A, B, l1_penalty, l2_penalty):
    """One projected gradient step on ``H`` (eq. ``eq-nmf-pg``), Frobenius loss.

    ``H ← max(0, H - (B H - A + λ₁ + λ₂ H) / L)`` with ``A = Wᵀ X``,
    ``B = Wᵀ W`` and ``L = λ_max(B) + λ₂``, the Lipschitz constant of the
    gradient: with this step the objective never increases (the descent
    lemma), and projecting onto ``H ≥ 0`` is clipping at 0.

    Returns the new ``H`` (k × d).
    """
    lipschitz = np.linalg.eigvalsh(B)[-1] + l2_penalty
    if lipschitz <= 0:  # W = 0: H does not enter the loss; kept, as in hals_update
        return H.copy()
    gradient = B @ H - A + l1_penalty + l2_penalty * H
    return np.maximum(H - gradient / lipschitz, 0.0)
