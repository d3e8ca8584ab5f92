"""The penalties of NMF, ``λ₁ᵂ‖W‖₁ + λ₁ᴴ‖H‖₁ + ½ λ₂ᵂ‖W‖²_F + ½ λ₂ᴴ‖H‖²_F``.

Eq. ``eq-nmf-penalised``. The weights come from scikit-learn's ``alpha_W``,
``alpha_H`` and ``l1_ratio`` with scikit-learn's scaling
(:func:`scaled_penalties`) and are converted to the units of the fit
(:func:`penalties_in_units`).
"""

from typing import NamedTuple

import numpy as np

from .units import times_power_of_two


class Penalties(NamedTuple):
    """The weights ``λ₁ᵂ, λ₁ᴴ, λ₂ᵂ, λ₂ᴴ`` of eq. ``eq-nmf-penalised``."""

    l1_W: float
    l1_H: float
    l2_W: float
    l2_H: float


NO_PENALTIES = Penalties(0.0, 0.0, 0.0, 0.0)


def scaled_penalties(alpha_W, alpha_H, l1_ratio, n_samples, n_features):
    """The weights of eq. ``eq-nmf-penalised`` from ``alpha_W``, ``alpha_H`` and ``l1_ratio``.

    As scikit-learn's ``NMF`` computes them, with ``ρ = l1_ratio``::

        λ₁ᵂ = α_W ρ d,   λ₂ᵂ = α_W (1 - ρ) d,   λ₁ᴴ = α_H ρ n,   λ₂ᴴ = α_H (1 - ρ) n.

    A row of ``W`` is fitted to the ``d`` entries of its sample and a column
    of ``H`` to the ``n`` entries of its feature, so these factors keep each
    penalty in proportion to the part of the loss it is traded against.

    Parameters
    ----------
    alpha_W : float
        ``α_W ≥ 0``, the weight of the penalties on ``W``.
    alpha_H : float or "same"
        ``α_H ≥ 0``, the weight of the penalties on ``H``; ``"same"`` takes ``α_W``.
    l1_ratio : float
        ``ρ`` in [0, 1], the share of the L1 penalty.
    n_samples, n_features : int
        ``n`` and ``d``, the shape of ``X``.

    Returns
    -------
    Penalties
        ``(λ₁ᵂ, λ₁ᴴ, λ₂ᵂ, λ₂ᴴ)``.
    """
    if isinstance(alpha_H, str) and alpha_H == "same":
        alpha_H = alpha_W
    return Penalties(
        l1_W=alpha_W * l1_ratio * n_features,
        l1_H=alpha_H * l1_ratio * n_samples,
        l2_W=alpha_W * (1.0 - l1_ratio) * n_features,
        l2_H=alpha_H * (1.0 - l1_ratio) * n_samples,
    )


def penalties_in_units(penalties, W_exponent, H_exponent, objective_exponent):
    """The weights of eq. ``eq-nmf-penalised`` for factors and objective measured in powers of 2.

    With ``W = 2ᵃ W'``, ``H = 2ᵇ H'`` and the objective divided by ``2ᶜ``,
    ``λ₁ᵂ‖W‖₁ = 2ᶜ (2ᵃ⁻ᶜ λ₁ᵂ) ‖W'‖₁`` and
    ``½ λ₂ᵂ‖W‖²_F = 2ᶜ ½ (2²ᵃ⁻ᶜ λ₂ᵂ) ‖W'‖²_F``, and likewise for ``H``: the
    problem in ``W', H'`` with the returned weights is the original one
    divided by ``2ᶜ``. Multiplying by a power of 2 is exact; ``c = 2 e β``
    is an integer unless β is a fraction.

    Parameters
    ----------
    penalties : Penalties
        ``(λ₁ᵂ, λ₁ᴴ, λ₂ᵂ, λ₂ᴴ)`` in the units of the data.
    W_exponent, H_exponent : int
        ``a`` and ``b``.
    objective_exponent : float
        ``c``.

    Returns
    -------
    Penalties
        The weights for ``W'``, ``H'`` and the objective divided by ``2ᶜ``;
        ``inf`` where they overflow.
    """
    a, b, c = W_exponent, H_exponent, objective_exponent
    return Penalties(
        l1_W=float(times_power_of_two(penalties.l1_W, a - c)),
        l1_H=float(times_power_of_two(penalties.l1_H, b - c)),
        l2_W=float(times_power_of_two(penalties.l2_W, 2 * a - c)),
        l2_H=float(times_power_of_two(penalties.l2_H, 2 * b - c)),
    )


def penalty(W, H, penalties):
    """``λ₁ᵂ‖W‖₁ + λ₁ᴴ‖H‖₁ + ½ λ₂ᵂ‖W‖²_F + ½ λ₂ᴴ‖H‖²_F`` (eq. ``eq-nmf-penalised``).

    ``W, H ≥ 0``, so ``‖·‖₁`` is the sum.
    """
    if not any(penalties):
        return 0.0
    return float(
        penalties.l1_W * W.sum()
        + penalties.l1_H * H.sum()
        + 0.5 * (penalties.l2_W * np.sum(W * W) + penalties.l2_H * np.sum(H * H))
    )
