"""Non-negative matrix factorisation (chapter 6 of the book, ``book/nmf.md``).

``X ≈ W H`` with ``X`` (n × d), ``W`` (n × k) and ``H`` (k × d) all
non-negative. ``W`` and ``H`` are the names of the field (Lee and Seung,
scikit-learn): here ``W`` holds the coefficients of the samples, not the
loading matrix (d × k) that ``W`` names in the rest of pcalib. The factors
minimise a β-divergence ``D_β(X | W H) = Σ_ij d_β(x_ij | (WH)_ij)``
(eq. ``eq-nmf-beta``), of which

* β = 2 is the Frobenius loss ``½ ‖X - W H‖²_F`` (eq. ``eq-nmf-frobenius``),
* β = 1 the generalised Kullback–Leibler divergence
  ``Σ_ij x_ij log(x_ij / (WH)_ij) - x_ij + (WH)_ij`` (eq. ``eq-nmf-kl``),
* β = 0 the Itakura–Saito divergence ``Σ_ij x_ij / (WH)_ij - log(x_ij / (WH)_ij) - 1``,

plus the penalties ``λ₁ᵂ‖W‖₁ + λ₁ᴴ‖H‖₁ + ½ λ₂ᵂ‖W‖²_F + ½ λ₂ᴴ‖H‖²_F``
(eq. ``eq-nmf-penalised``), whose weights come from scikit-learn's
``alpha_W``, ``alpha_H`` and ``l1_ratio`` with scikit-learn's scaling
(:func:`scaled_penalties`).

Solvers, named as in scikit-learn: ``"cd"``, coordinate descent on the rows
of each factor, which is HALS (hierarchical alternating least squares: exact
minimisation over one row at a time, Frobenius only), usually the fastest;
``"mu"``, the multiplicative updates of Lee and Seung (every β; each
update never increases the objective; for a general β with the exponent
γ(β) of Févotte and Idier, :func:`mm_exponent`); and pcalib's ``"pg"``, projected
gradient (Frobenius only), the simplest non-negative method, and ``"anls"``,
alternating non-negative least squares (Frobenius only): exact minimisation
over a whole factor by block principal pivoting (:func:`anls_update`). The
problem is not convex, and NP-hard: the solvers decrease the objective, and
at best reach a stationary point (for ANLS every limit point is one, for
HALS while no component becomes zero; :func:`kkt_residual` measures the
distance), not necessarily a local minimum; for the multiplicative updates
even that is not guaranteed. For separable data, :func:`successive_projection`
finds the parts among the samples in one pass.
``components_`` is ``H``, ``transform`` returns ``W``.

Non-uniqueness: ``W H = (W D)(D⁻¹ H)`` for any positive diagonal ``D`` and
any permutation. Without penalties pcalib normalises the rows of ``H`` to
unit Euclidean norm (moving the scale into ``W``) and orders the components
by decreasing ``‖w_j‖ ‖h_j‖``; with penalties the scale is part of the
objective and is left as fitted.

Units: the factors are in units of ``√X`` and the objective in units of
``Xᵝ`` (``d_β(c x | c y) = cᵝ d_β(x | y)``). ``NMF`` fits ``X / 4ᵉ``, whose
largest entry is near 1 (:func:`unit_exponent`), and multiplies the factors
back by ``2ᵉ``: powers of two, so the rescaling is exact, nothing overflows,
and the constants of the algorithm (``TINY``, the tolerance, the start) are
relative to the data. ``fit(c X)`` is therefore ``fit(X)`` rescaled.

``X`` may be a ``scipy.sparse`` matrix: the Frobenius solvers use only the
products ``X Hᵀ`` and ``Wᵀ X`` and never densify it. ``float32`` data give
``float32`` results, computed in ``float64``.
"""

import warnings
from typing import NamedTuple

import numpy as np
import scipy.sparse
from sklearn.utils.validation import validate_data

from ._base import ComponentEstimator
from ._linalg import EPS, randomized_svd
from ._validation import (
    MAX_SUM_OF_SQUARES,
    as_float_matrix,
    as_generator,
    as_real_array,
    as_sparse_float_matrix,
    check_array_size,
    check_bool,
    check_finite_float,
    check_fitted,
    check_fraction,
    check_n_components,
    check_non_negative_float,
    check_option,
    check_positive_int,
    convergence_warning,
    result_dtype,
)
from .factorization import small_decrease

__all__ = ["NMF", "successive_projection"]

# β of the named losses (eq. eq-nmf-beta); beta_loss may also be any real β
BETA_LOSSES = {"frobenius": 2.0, "kullback-leibler": 1.0, "itakura-saito": 0.0}
SOLVERS = ("cd", "mu", "pg", "anls")
INITS = ("random", "nndsvd", "nndsvda", "nndsvdar", "custom")
# Added to denominators and arguments of logarithms so that zero rows,
# zero columns and exact zeros never divide by zero. NMF runs on data whose
# largest entry is near 1 (unit_exponent), so this is relative to the data.
TINY = 1e-12
# Above this min(n, d), NNDSVD takes its k singular triplets from a randomized
# SVD (seeded, so the start stays deterministic) instead of a full SVD.
FULL_SVD_MAX = 1000
# Extrapolation of HALS (Ang and Gillis): the starting weight β, its growth
# after an accepted iteration, the growth of its cap, and its shrink factor
# after a rejected one.
EXTRAPOLATION_START = 0.5
EXTRAPOLATION_GROW = 1.05
EXTRAPOLATION_GROW_CAP = 1.01
EXTRAPOLATION_SHRINK = 1.5
# The exact solve for W given H: HALS sweeps or multiplicative updates before
# projected Newton, and the size of Newton's temporaries per block of rows.
WARM_SWEEPS = 10
NEWTON_BLOCK = 4_000_000
# Multiplicative updates for β ≤ 1 drive entries towards 0 geometrically
# without reaching it. Entries of H (β ≤ 1) and of W (β < 1) below this are set
# to 0 after each update, as scikit-learn does; the factors are of order 1 in
# the units of the fit, so this is relative to the data, and zeros of X are
# then reproduced exactly.
MU_ZERO = EPS
# NNDSVD entries below this times √σ₁, the largest an entry can be, are set
# to zero (and filled, for "nndsvda" and "nndsvdar").
NNDSVD_ZERO = 1e-6
# "nndsvdar" fills the zeros with |N(0, 1)| times this fraction of typical_entry,
# as scikit-learn fills them with |N(0, 1)| mean(X) / 100
NNDSVDAR_FILL = 0.01


def beta_value(beta_loss):
    """β of ``beta_loss``: 2, 1, 0 for the names of ``BETA_LOSSES``, else the number itself."""
    return BETA_LOSSES[beta_loss] if isinstance(beta_loss, str) else float(beta_loss)


def times_power_of_two(x, exponent):
    """``x 2^exponent``: exact (``np.ldexp``) for an integer exponent; ``inf`` on overflow.

    ``exponent`` is ``2 e β`` or a multiple, a fraction when β is one; 0 stays 0.
    """
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        if float(exponent).is_integer() and abs(exponent) < 2**31:
            return np.ldexp(x, int(exponent))
        x = np.asarray(x, dtype=np.float64)
        return np.where(x == 0, 0.0, x * np.exp2(exponent))


def scaled_data(X, exponent):
    """``X 2^exponent`` for an integer exponent, dense or sparse, exactly."""
    if scipy.sparse.issparse(X):
        X = X.copy()
        X.data = np.ldexp(X.data, exponent)
        return X
    return np.ldexp(X, exponent)


def largest_entry(X):
    """The largest entry of the non-negative, non-empty ``X`` (dense or sparse)."""
    return float(X.max()) if scipy.sparse.issparse(X) else float(X.max(initial=0.0))


def as_data_matrix(X):
    """``X`` as a finite float64 array or CSR matrix, and the dtype of the results.

    ``float32`` data give ``float32`` results, as in scikit-learn. The fit
    itself runs in ``float64``: the stopping rule compares decreases of the
    objective down to ``tol`` (1e-6) times its start, below the resolution of
    ``float32`` (6e-8 relative per operation, accumulated over sums of n d
    terms), and the results, rounded once, are within half a ``float32`` ulp
    of the ``float64`` fit of the same numbers.
    """
    dtype = result_dtype(X)
    if scipy.sparse.issparse(X):
        return as_sparse_float_matrix(X).tocsr().astype(np.float64, copy=False), dtype
    return as_float_matrix(X, name="X"), dtype


def check_zeros_for_beta(X, beta):
    """Refuse zeros in ``X`` for β ≤ 0, where ``d_β(0 | y)`` is infinite."""
    if beta <= 0 and X.shape[0] * X.shape[1] > 0 and float(X.min()) == 0:
        raise ValueError(
            "When beta_loss <= 0 and X contains zeros, the solver may diverge. Please add "
            "small values to X, or use a positive beta_loss: d_β(0 | y) is infinite for "
            f"β <= 0 (here β = {beta:g})."
        )


def check_custom_factor(A, shape, *, name, dtype):
    """Validate a factor given with ``init="custom"``, with scikit-learn's messages.

    ``shape`` is the expected shape, ``dtype`` the dtype of ``X`` (float32 or
    float64), which the factor must share. Returns it as a float64 array.
    """
    A_array = as_real_array(A, name=name) if A is not None else None
    if A_array is None or A_array.ndim != 2:
        raise ValueError(
            f"init='custom' needs {name} as a 2-D array of shape {shape}; got "
            f"{None if A_array is None else A_array.shape}."
        )
    for axis, which in ((0, "first"), (1, "second")):
        if A_array.shape[axis] != shape[axis]:
            raise ValueError(
                f"Array with wrong {which} dimension passed to NMF (input {name}). "
                f"Expected {shape[axis]}, but got {A_array.shape[axis]}."
            )
    A_checked = as_float_matrix(A_array, name=name)
    check_non_negative(A_checked, name=name)
    if A_checked.max() == 0:
        raise ValueError(f"Array passed to NMF (input {name}) is full of zeros.")
    if A_array.dtype != dtype:
        raise TypeError(
            f"H and W should have the same dtype as X. Got {name}.dtype = {A_array.dtype}; "
            f"X gives {np.dtype(dtype)}."
        )
    return A_checked


def check_custom_product(W, H, unit):
    """Refuse custom factors whose product is too far from the scale of ``X``.

    ``W`` and ``H`` are in the units of ``X / unit`` (largest entry near 1),
    where the iterations run; ``‖W H‖²_F``, the quadratic term of the
    Frobenius objective, is ``Σ (WᵀW) ∘ (H Hᵀ)`` (k × k products) and must be
    a float64 number below ``MAX_SUM_OF_SQUARES``.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        squared_norm = np.sum((W.T @ W) * (H @ H.T))
    if not squared_norm <= MAX_SUM_OF_SQUARES:
        raise ValueError(
            "W and H (init='custom') are too far from the scale of X: in units of X's "
            f"magnitude ({unit:.3g}), the squares of the entries of their product W @ H "
            "overflow float64. Rescale W and H so that W @ H is near X."
        )


def check_non_negative(X, *, name="X"):
    """Raise ``ValueError`` naming the smallest entry when ``X`` has a negative one.

    ``X`` is a dense array or a sparse matrix.
    """
    smallest = float(X.min()) if X.shape[0] * X.shape[1] > 0 else 0.0
    if smallest < 0.0:
        where = tuple(int(i) for i in np.unravel_index(X.argmin(), X.shape))
        raise ValueError(
            f"Negative values in data passed to NMF: {name} must be non-negative; its "
            f"smallest entry is {smallest:.6g} at index {where}. Shift or clip the data, "
            "or use PCA."
        )


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


def unit_exponent(X):
    """``e`` such that the largest entry of ``X / 4ᵉ`` lies in [1/2, 2]; 0 when ``X = 0``.

    ``NMF`` fits ``X / 4ᵉ`` and multiplies ``W`` and ``H`` by ``2ᵉ``, the
    objective by ``4ᵉᵝ``. ``X`` (dense or sparse) is finite, so ``4ᵉ`` is a
    finite float.
    """
    largest = largest_entry(X)
    return 0 if largest <= 0.0 else int(np.round(np.log2(largest) / 2))


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
    rows = max(1, NEWTON_BLOCK // max(X.shape[1], 1))
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


def block_principal_pivoting(Q, q, *, guess=None, max_iter=None):
    """Non-negative least squares ``min_{x ≥ 0} ½ xᵀ Q x - qᵀ x`` for many ``q`` at once.

    Block principal pivoting of Kim and Park (2011), eq. ``eq-nmf-nnls-kkt``.
    ``Q`` (k × k) is symmetric positive definite and ``q`` (k × m) holds one
    right-hand side per column. For each column, a guess ``F`` of the set of
    positive entries gives ``x_F = Q_FF⁻¹ q_F``, ``x = 0`` elsewhere, and the
    gradient ``y = Q x - q``, zero on ``F``; the guess is right when
    ``x_F ≥ 0`` and ``y ≥ 0`` off ``F`` (the KKT conditions). The entries
    that break them all change sides at once while their number falls; when
    it stops falling three times, only the one with the largest index moves
    (the backup rule), which cannot cycle. Signs are tested to ``1e-12`` of the
    column's scale, rounding.
    ``guess`` (k × m, boolean) is the first guess of ``F``, for example the
    positive entries of the previous iterate; by default it is empty. The
    backup rule ends the exchanges in finitely many steps; ``max_iter`` (by
    default ``10 k + 100``) only guards against rounding, and the last ``x``,
    clipped at 0, is returned if it is reached.

    Returns ``x`` of shape (k, m).
    """
    k, m = q.shape
    max_iter = 10 * k + 100 if max_iter is None else max_iter
    if guess is None or not guess.any():
        positive = np.zeros((k, m), dtype=bool)  # the guess F, column by column
        x, y = np.zeros((k, m)), -q
    else:
        positive = np.array(guess, dtype=bool)
        x, y = solve_on_guess(Q, q, positive)
    # initial=0: a problem with no unknowns (k = 0) gives x of shape (0, m)
    slack = 1e-12 * np.maximum(np.abs(q).max(axis=0, initial=0.0), TINY)
    fewest = np.full(m, k + 1)  # the fewest infeasible entries seen so far
    chances = np.full(m, 3)  # full exchanges left without progress
    for _ in range(max_iter):
        scale_x = 1e-12 * np.maximum(np.abs(x).max(axis=0, initial=0.0), TINY)
        infeasible = (positive & (x < -scale_x)) | (~positive & (y < -slack))
        count = infeasible.sum(axis=0)
        if not count.any():
            break
        progress = (count > 0) & (count < fewest)
        fewest[progress], chances[progress] = count[progress], 3
        stalled = (count > 0) & ~progress
        patient = stalled & (chances > 0)
        chances[patient] -= 1
        full = progress | patient
        positive[:, full] ^= infeasible[:, full]
        for column in np.flatnonzero(stalled & ~patient):  # backup rule
            last = np.flatnonzero(infeasible[:, column])[-1]
            positive[last, column] = not positive[last, column]
        changed = count > 0
        x[:, changed], y[:, changed] = solve_on_guess(Q, q[:, changed], positive[:, changed])
    return np.maximum(x, 0.0)


def solve_on_guess(Q, q, positive):
    """``x`` and ``y = Q x - q`` for the guesses ``positive`` (k × m), all columns at once.

    Column ``c`` solves ``Q_FF x_F = q_F`` on its guess ``F``: the system with
    the rows and columns outside ``F`` replaced by those of the identity and
    ``q`` set to 0 there, so one batched solve serves every guess.
    """
    free = positive.T  # m × k
    systems = np.where(free[:, :, np.newaxis] & free[:, np.newaxis, :], Q, 0.0)
    systems[:, np.arange(Q.shape[0]), np.arange(Q.shape[0])] += ~free
    rhs = np.where(free, q.T, 0.0)[:, :, np.newaxis]
    try:
        x = np.linalg.solve(systems, rhs)[:, :, 0].T
    except np.linalg.LinAlgError:  # collinear columns of the fixed factor
        solutions = [
            np.linalg.lstsq(S, r, rcond=None)[0][:, 0] for S, r in zip(systems, rhs, strict=True)
        ]
        x = np.stack(solutions).T
    y = Q @ x - q
    y[positive] = 0.0
    return x, y


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


def successive_projection(X, n_components):
    """Indices of ``n_components`` rows of ``X`` that span the others: SPA.

    The successive projection algorithm (Gillis and Vavasis 2014),
    eq. ``eq-nmf-spa``, on the rows of ``X`` (the samples): take the row of
    largest Euclidean norm, project every row onto the orthogonal complement
    of it, and repeat. If ``X = W H`` is separable, with ``H`` among the rows
    of ``X`` (those rows of ``W`` are the rows of the identity) and every row
    of ``W`` non-negative with sum at most 1, the rows found are the rows of
    ``H``, up to order, and SPA is robust to a small noise.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data; finite.
    n_components : int
        ``k``, ``1 ≤ k ≤ min(n_samples, n_features)``: after ``d`` steps the
        projected rows are 0.

    Returns
    -------
    rows : ndarray of shape (n_components,)
        Indices of the rows, in the order chosen.
    """
    R = as_float_matrix(X, name="X").copy()
    k = check_n_components(n_components, min(R.shape))
    if not np.any(R):
        raise ValueError("X must have a non-zero entry: SPA picks rows by their norm.")
    R /= np.abs(R).max()  # relative to the data, so that squares cannot overflow
    rows = []
    for _ in range(k):
        norms = np.einsum("ij,ij->i", R, R)
        chosen = int(np.argmax(norms))
        rows.append(chosen)
        if norms[chosen] > 0:
            u = R[chosen] / np.sqrt(norms[chosen])
            R -= np.outer(R @ u, u)
    return np.array(rows)


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


def nndsvd(X, k, *, fill_zeros=None, random_state=None):
    """Non-negative double SVD start of Boutsidis and Gallopoulos (eq. ``eq-nmf-nndsvd``).

    For each of the top ``k`` singular triplets ``(σ, u, v)``, keep the positive
    or the negative parts of ``u`` and ``v``, whichever pair has the larger
    product of norms, scaled by ``√σ``. Entries below ``NNDSVD_ZERO √σ₁`` (no
    entry exceeds ``√σ₁``) count as zeros. ``fill_zeros="nndsvda"``
    replaces the zeros by :func:`typical_entry`, ``√(mean(X) / k)``, which
    multiplicative updates need, since they can never move an entry away
    from 0; ``"nndsvdar"`` by ``|N(0, 1)|`` times ``NNDSVDAR_FILL`` times
    that entry, drawn from ``random_state``. All are in units of ``√X``, so
    ``nndsvd(c X)`` is ``√c`` times ``nndsvd(X)``. scikit-learn's NNDSVD is
    a different start: it takes the triplets from a randomized SVD, fills
    with the mean of ``X`` (over 100, at random, for ``"nndsvdar"``) and
    uses the absolute threshold ``1e-6``, which depend on the units of
    ``X``; to start both libraries from the same factors, pass this
    function's output to scikit-learn with ``init="custom"``.

    Returns
    -------
    W : ndarray of shape (n, k)
    H : ndarray of shape (k, d)
    """
    U, s, Vt = top_singular_triplets(X, k)
    W = np.zeros((X.shape[0], k))
    H = np.zeros((k, X.shape[1]))
    W[:, 0] = np.sqrt(s[0]) * np.abs(U[:, 0])
    H[0] = np.sqrt(s[0]) * np.abs(Vt[0])
    for j in range(1, k):
        u, v = U[:, j], Vt[j]
        u_plus, u_minus = np.maximum(u, 0), np.maximum(-u, 0)
        v_plus, v_minus = np.maximum(v, 0), np.maximum(-v, 0)
        plus = np.linalg.norm(u_plus) * np.linalg.norm(v_plus)
        minus = np.linalg.norm(u_minus) * np.linalg.norm(v_minus)
        u_part, v_part, size = (
            (u_plus, v_plus, plus) if plus >= minus else (u_minus, v_minus, minus)
        )
        if size > 0:
            W[:, j] = np.sqrt(s[j] * size) * u_part / np.linalg.norm(u_part)
            H[j] = np.sqrt(s[j] * size) * v_part / np.linalg.norm(v_part)
    zero = NNDSVD_ZERO * np.sqrt(s[0])
    W[W < zero] = 0.0
    H[H < zero] = 0.0
    fill = typical_entry(X, k)
    if fill_zeros == "nndsvda":
        W[W == 0] = fill
        H[H == 0] = fill
    elif fill_zeros == "nndsvdar":
        rng = as_generator(random_state)
        for factor in (W, H):
            zeros = factor == 0
            factor[zeros] = NNDSVDAR_FILL * fill * np.abs(rng.standard_normal(zeros.sum()))
    return W, H


def top_singular_triplets(X, k):
    """``U`` (n × k), ``s`` (k,), ``Vt`` (k × d) of the top ``k`` singular triplets.

    A full SVD up to ``min(n, d) = FULL_SVD_MAX``, a randomized one (seed 0)
    beyond and for a sparse ``X``, which it only multiplies; NumPy's LAPACK
    either way, as the updates use NumPy's BLAS.
    """
    if min(X.shape) <= FULL_SVD_MAX and not scipy.sparse.issparse(X):
        U, s, Vt = np.linalg.svd(X, full_matrices=False)
        return U[:, :k], s[:k], Vt[:k]
    return randomized_svd(X, k, random_state=0)


def drop_dead_components(W, H):
    """Zero ``h_j`` where ``w_j = 0`` and ``w_j`` where ``h_j = 0``.

    ``W H`` is unchanged and the penalties can only fall; afterwards a zero
    row of ``H`` is exactly a dead component, whose coefficient
    :meth:`NMF.transform` reports as 0.
    """
    dead = (W.max(axis=0) <= 0) | (H.max(axis=1) <= 0)
    W, H = W.copy(), H.copy()
    W[:, dead] = 0.0
    H[dead] = 0.0
    return W, H


def typical_entry(X, k):
    """``√(mean(X) / k)``: factors with all entries this size give ``W H`` the mean of ``X``.

    In units of ``√X``, as the factors are; ``TINY`` stands in for the mean
    of an all-zero ``X``.
    """
    return float(np.sqrt(max(float(X.mean()), TINY) / k))


def random_start(X, k, random_state):
    """``|N(0, 1)|`` entries times :func:`typical_entry`, as scikit-learn's random start."""
    rng = as_generator(random_state)
    scale = typical_entry(X, k)
    return (
        np.abs(rng.standard_normal((X.shape[0], k))) * scale,
        np.abs(rng.standard_normal((k, X.shape[1]))) * scale,
    )


def normalise(W, H):
    """Unit-norm rows of ``H``, components by decreasing ``‖w_j‖ ‖h_j‖``."""
    norms = np.linalg.norm(H, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    W, H = W * safe, H / safe[:, np.newaxis]
    order = np.argsort(-np.linalg.norm(W, axis=0), kind="stable")
    return W[:, order], H[order]


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


def multiplicative_update(beta):
    """The multiplicative update of ``H`` for β ≠ 2, as a function of ``(X, W, H, WH, λ₁, λ₂)``."""
    if beta == 1:
        return multiplicative_update_kl

    def update(X, W, H, WH, l1_penalty, l2_penalty):
        return multiplicative_update_beta(X, W, H, WH, beta, l1_penalty, l2_penalty)

    return update


def beta_iterations(X, W, H, *, beta, penalties, max_iter, tol):
    """Alternate multiplicative ``W`` then ``H`` updates for the β-divergence, β ≠ 2.

    ``W H`` is formed twice per iteration; the second serves both the
    objective and the next ``W`` update. Entries below ``MU_ZERO`` are set
    to 0 (of ``H`` for β ≤ 1, of ``W`` for β < 1). Returns as
    :func:`frobenius_iterations`.
    """
    update = multiplicative_update(beta)
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
        update = multiplicative_update(beta)
        for _ in range(WARM_SWEEPS):
            W = update(X.T, H.T, W.T, (W @ H).T, l1_penalty, l2_penalty).T

        def newton(X, W, H, l1_penalty, l2_penalty, *, rtol):
            return beta_newton_W(X, W, H, beta, l1_penalty, l2_penalty, rtol=rtol)

        size = k * H.shape[1]
    rows = max(1, NEWTON_BLOCK // size)
    blocks = [slice(start, start + rows) for start in range(0, X.shape[0], rows)]
    return np.vstack([newton(X[b], W[b], H, l1_penalty, l2_penalty, rtol=rtol) for b in blocks])


class NMF(ComponentEstimator):
    """Non-negative matrix factorisation ``X ≈ W H``, with scikit-learn's names.

    ``W`` (n_samples × k) holds the coefficients of the samples and ``H``
    (k × n_features) the parts: the names of Lee and Seung and of
    scikit-learn, not the loading matrix ``W`` (n_features × k) of the rest of
    pcalib.

    Parameters
    ----------
    n_components : int, "auto" or None, default=None
        ``k``, any positive int (more than ``min(n_samples, n_features)``
        needs ``init="random"`` or ``"custom"``); ``None`` takes
        ``n_features``; ``"auto"`` takes the number of rows of the ``H``
        given with ``init="custom"``, and ``n_features`` otherwise.
    init : {"nndsvda", "nndsvd", "nndsvdar", "random", "custom"} or None, default=None
        The start (eq. ``eq-nmf-nndsvd`` for the NNDSVD ones). ``None``
        takes ``"nndsvda"`` when ``n_components <= min(n_samples,
        n_features)`` and ``"random"`` otherwise, as scikit-learn does; the
        choice is recorded in ``init_``. ``"custom"`` starts from the ``W``
        and ``H`` passed to :meth:`fit` or :meth:`fit_transform`.
    solver : {"cd", "mu", "pg", "anls"}, default="cd"
        ``"cd"``, coordinate descent on the rows of each factor (HALS,
        eq. ``eq-nmf-hals``), the fastest; ``"mu"``, the multiplicative
        updates (eq. ``eq-nmf-mu-frobenius``, ``eq-nmf-mu-beta``), the only
        one for a ``beta_loss`` other than ``"frobenius"``; ``"pg"``,
        projected gradient (eq. ``eq-nmf-pg``), the simplest; ``"anls"``,
        alternating non-negative least squares (eq. ``eq-nmf-anls``), exact
        over each factor in turn.
    beta_loss : {"frobenius", "kullback-leibler", "itakura-saito"} or float, default="frobenius"
        The β-divergence (eq. ``eq-nmf-beta``): β = 2, 1 and 0 for the
        three names, or any real β. Other than 2, it needs ``solver="mu"``;
        β <= 0 needs ``X`` without zeros.
    tol : float, default=1e-6
        Stop when an iteration lowers the objective by less than ``tol``
        times its starting value. This is pcalib's criterion, with its own
        default: scikit-learn's ``tol=1e-4`` bounds the projected gradient
        (``"cd"``) or the decrease of √(2 × loss) over ten iterations
        (``"mu"``), which stops later than a decrease of the loss below
        1e-4 of its start would. ``tol=0`` runs exactly ``max_iter``
        iterations.
    max_iter : int, default=200
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seeds ``init="random"`` and ``"nndsvdar"``.
    alpha_W : float, default=0.0
        Weight ``α_W ≥ 0`` of the penalties on ``W``.
    alpha_H : float or "same", default="same"
        Weight ``α_H ≥ 0`` of the penalties on ``H``; ``"same"`` takes ``alpha_W``.
    l1_ratio : float, default=0.0
        ``ρ`` in [0, 1], the share of the L1 penalty. With scikit-learn's
        scaling (:func:`scaled_penalties`) the penalties of
        eq. ``eq-nmf-penalised`` are ``λ₁ᵂ = α_W ρ d``,
        ``λ₂ᵂ = α_W (1 - ρ) d``, ``λ₁ᴴ = α_H ρ n`` and ``λ₂ᴴ = α_H (1 - ρ) n``.
    extrapolate : bool or "auto", default="auto"
        Start each HALS iteration from an extrapolation of the last two
        (eq. ``eq-nmf-extrapolation``); ``"auto"`` does so for
        ``solver="cd"``, and ``True`` needs that solver.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        ``H``, of the dtype of ``X`` (float32 or float64).
    n_components_ : int
        ``k``.
    init_ : str
        The start used, ``init`` or what ``None`` chose.
    extrapolate_ : bool
        Whether the iterations were extrapolated, ``extrapolate`` or what
        ``"auto"`` chose.
    n_iter_ : int
        Number of iterations (updates of ``W`` then ``H``) performed.
    converged_ : bool
        Whether an iteration lowered the objective by less than ``tol`` times
        its start before ``max_iter``.
    objective_history_ : ndarray of shape (n_iter_ + 1,)
        The objective (loss + penalties) at the start and after every
        iteration; it never increases. The final solve for ``W`` given ``H``
        (the ``W`` that ``fit_transform`` returns and ``transform``
        computes) is not an iteration and is not recorded here: its result
        shows in ``reconstruction_err_``.
    reconstruction_err_ : float
        ``√(2 D_β(X | W H))`` of the returned factors, scikit-learn's
        definition: ``‖X - W H‖_F`` for the Frobenius loss.
    n_samples_ : int
        Number of training samples.
    n_features_in_ : int
        Number of features.

    Notes
    -----
    Each iteration updates ``W`` and then ``H``, as scikit-learn's ``cd`` and
    ``mu`` solvers do.

    ``X`` may be dense or a ``scipy.sparse`` matrix; the Frobenius solvers
    only multiply a sparse ``X``, and the other losses densify it (their
    updates form the dense ``W H`` anyway). ``float32`` data give
    ``float32`` factors, computed in ``float64``.

    The fit does not depend on the units of ``X``. Without penalties,
    ``fit(c X)`` for ``c > 0`` gives the same ``components_`` (unit rows),
    ``c`` times ``W`` (from ``fit_transform`` and ``transform``),
    ``c^(β/2)`` times ``reconstruction_err_`` (``c`` for the Frobenius
    loss, ``√c`` for KL, 1 for Itakura–Saito), the ``objective_history_``
    times ``cᵝ``, and the same ``n_iter_`` and ``converged_``, up to
    rounding. With penalties the factors each scale by ``√c`` when the
    weights are given in the units of ``c X``: ``λ₁`` times ``c^(β - 1/2)``
    and ``λ₂`` times ``c^(β - 1)`` (``alpha_W`` and ``alpha_H`` with
    ``l1_ratio`` 1 or 0). Internally the fit runs on ``X`` divided by a
    power of 4 near its largest entry (:func:`unit_exponent`), so no product
    overflows or underflows.

    A call of ``fit`` that raises leaves the estimator as it was: attributes
    are set only once the fit has succeeded.
    """

    def __init__(
        self,
        n_components=None,
        *,
        init=None,
        solver="cd",
        beta_loss="frobenius",
        tol=1e-6,
        max_iter=200,
        random_state=None,
        alpha_W=0.0,
        alpha_H="same",
        l1_ratio=0.0,
        extrapolate="auto",
    ):
        self.n_components = n_components
        self.init = init
        self.solver = solver
        self.beta_loss = beta_loss
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.alpha_W = alpha_W
        self.alpha_H = alpha_H
        self.l1_ratio = l1_ratio
        self.extrapolate = extrapolate

    def __sklearn_tags__(self):
        """scikit-learn's tags: ``positive_only`` and sparse input, float32 kept."""
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _check_parameters(self):
        """Validate the parameters that do not depend on the data."""
        if not (isinstance(self.n_components, str) and self.n_components == "auto"):
            if isinstance(self.n_components, str):
                raise ValueError(
                    f"n_components must be a positive int, 'auto' or None; got "
                    f"{self.n_components!r}."
                )
            if self.n_components is not None:
                check_positive_int(self.n_components, name="n_components")
        if self.init is not None:
            check_option(self.init, name="init", allowed=INITS)
        check_option(self.solver, name="solver", allowed=SOLVERS)
        self._check_beta_loss()
        check_non_negative_float(self.tol, name="tol")
        check_positive_int(self.max_iter, name="max_iter")
        as_generator(self.random_state)
        check_non_negative_float(self.alpha_W, name="alpha_W")
        if not (isinstance(self.alpha_H, str) and self.alpha_H == "same"):
            if isinstance(self.alpha_H, str):
                raise ValueError(f"alpha_H must be a number >= 0 or 'same'; got {self.alpha_H!r}.")
            check_non_negative_float(self.alpha_H, name="alpha_H")
        check_fraction(self.l1_ratio, name="l1_ratio")
        if not (isinstance(self.extrapolate, str) and self.extrapolate == "auto"):
            check_bool(self.extrapolate, name="extrapolate")
            if self.extrapolate and self.solver != "cd":
                raise ValueError(f"extrapolate=True needs solver='cd'; got solver={self.solver!r}.")

    def _check_beta_loss(self):
        """A name of ``BETA_LOSSES`` or a finite real β; other than 2 only with ``"mu"``."""
        if isinstance(self.beta_loss, str):
            if self.beta_loss not in BETA_LOSSES:
                names = ", ".join(repr(name) for name in BETA_LOSSES)
                raise ValueError(
                    f"beta_loss must be one of {names} or a real number; got {self.beta_loss!r}."
                )
        else:
            check_finite_float(self.beta_loss, name="beta_loss")
        if self.solver != "mu" and beta_value(self.beta_loss) != 2:
            raise ValueError(
                f"Invalid beta_loss parameter: solver {self.solver!r} does not handle "
                f"beta_loss = {self.beta_loss!r}; only solver='mu' minimises a beta_loss "
                "other than 'frobenius' (2)."
            )

    def _resolve_n_components(self, X, H):
        """``k``: ``n_components``, or what ``None`` or ``"auto"`` stand for."""
        if isinstance(self.n_components, str):  # "auto"
            if self.init == "custom" and H is not None:
                H = as_real_array(H, name="H")
                if H.ndim == 2:
                    return H.shape[0]
            return X.shape[1]
        k = X.shape[1] if self.n_components is None else int(self.n_components)
        # beside the factors, the solvers form k × k matrices (Gram matrices, Hessians)
        check_array_size((max(X.shape), k), name="n_components")
        check_array_size((k, k), name="n_components")
        return k

    def _penalties(self, X, W_exponent, H_exponent, objective_exponent):
        """The weights for the problem in powers of 2 (:func:`penalties_in_units`), or raise."""
        penalties = penalties_in_units(
            scaled_penalties(self.alpha_W, self.alpha_H, self.l1_ratio, *X.shape),
            W_exponent,
            H_exponent,
            objective_exponent,
        )
        if not np.all(np.isfinite(penalties)):
            raise ValueError(
                f"alpha_W={self.alpha_W!r} and alpha_H={self.alpha_H!r} are too large for the "
                f"scale of X (largest entry {largest_entry(X):.3g}): measured in units of that "
                "entry, the penalty weights overflow float64. Multiply X by a constant, and the "
                "alphas as the NMF docstring says, so that its entries are nearer 1."
            )
        return penalties

    def _resolve_init(self, k, X):
        """``init``, or scikit-learn's choice for ``None``; NNDSVD needs ``k <= min(n, d)``."""
        smallest = min(X.shape)
        if self.init is None:
            return "nndsvda" if k <= smallest else "random"
        if self.init not in ("random", "custom") and k > smallest:
            raise ValueError(
                f"init = '{self.init}' can only be used when n_components <= "
                f"min(n_samples, n_features) = {smallest}; got n_components = {k}. Use "
                "init='random'."
            )
        return self.init

    def _start(self, X_unit, k, init, W, H, dtype, e):
        """The starting ``W`` (n × k) and ``H`` (k × d) for ``X_unit = X / 4ᵉ``."""
        if init == "custom":
            H = check_custom_factor(H, (k, X_unit.shape[1]), name="H", dtype=dtype)
            W = check_custom_factor(W, (X_unit.shape[0], k), name="W", dtype=dtype)
            W, H = np.ldexp(W, -e), np.ldexp(H, -e)
            check_custom_product(W, H, 4.0**e)
            return W, H
        if W is not None or H is not None:
            warnings.warn(
                "When init!='custom', provided W or H are ignored. Set init='custom' to use "
                "them as initialization.",
                RuntimeWarning,
                stacklevel=4,
            )
        if init == "random":
            return random_start(X_unit, k, self.random_state)
        return nndsvd(X_unit, k, fill_zeros=init, random_state=self.random_state)

    def fit(self, X, y=None, W=None, H=None):
        """Fit ``W`` and ``H`` on non-negative ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative data.
        y : None
            Ignored.
        W : array-like of shape (n_samples, n_components), default=None
            The starting ``W`` with ``init="custom"``; ignored otherwise.
        H : array-like of shape (n_components, n_features), default=None
            The starting ``H`` with ``init="custom"``; ignored otherwise.

        Returns
        -------
        self : NMF
            The fitted estimator.
        """
        self.fit_transform(X, W=W, H=H)
        return self

    def fit_transform(self, X, y=None, W=None, H=None):
        """Fit ``W`` and ``H`` on non-negative ``X`` and return ``W``.

        The iterations alternate updates of ``W`` and ``H``; after them, ``W``
        is solved for given the final ``H`` (:func:`solve_W`), as
        :meth:`transform` does.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative data.
        y : None
            Ignored.
        W : array-like of shape (n_samples, n_components), default=None
            The starting ``W`` with ``init="custom"``; ignored otherwise.
        H : array-like of shape (n_components, n_features), default=None
            The starting ``H`` with ``init="custom"``; ignored otherwise.

        Returns
        -------
        W : ndarray of shape (n_samples, n_components_)
            The coefficients of the samples, of the dtype of ``X`` (float32 or float64).
        """
        self._check_parameters()
        X_checked, dtype = as_data_matrix(X)
        check_non_negative(X_checked)
        beta = beta_value(self.beta_loss)
        check_zeros_for_beta(X_checked, beta)
        k = self._resolve_n_components(X_checked, H)
        init = self._resolve_init(k, X_checked)
        # the fit runs on X' = X / 4ᵉ, with W = 2ᵉ W', H = 2ᵉ H' and the objective 4ᵉᵝ times
        e = unit_exponent(X_checked)
        objective_exponent = 2 * e * beta
        penalties = self._penalties(X_checked, e, e, objective_exponent)
        X_unit = scaled_data(X_checked, -2 * e)
        if beta != 2 and scipy.sparse.issparse(X_unit):
            # the multiplicative updates for β ≠ 2 form the dense n × d product W H at
            # every step, so a dense X at most doubles their memory
            X_unit = X_unit.toarray()
        W, H = self._start(X_unit, k, init, W, H, dtype, e)
        extrapolate = self.solver == "cd" if self.extrapolate == "auto" else bool(self.extrapolate)
        options = dict(penalties=penalties, max_iter=self.max_iter, tol=self.tol)
        if beta == 2:
            W, H, history, converged = frobenius_iterations(
                X_unit, W, H, solver=self.solver, extrapolate=extrapolate, **options
            )
        else:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                W, H, history, converged = beta_iterations(X_unit, W, H, beta=beta, **options)
        history = times_power_of_two(np.asarray(history), objective_exponent)
        if not (np.all(np.isfinite(history)) and np.all(np.isfinite(H))):
            raise ValueError(
                f"beta_loss={self.beta_loss!r} is too far from [0, 2] for the values of X: "
                "the β-divergence or its updates overflow float64 (powers x^β of the "
                "entries of X). Use a beta_loss nearer [0, 2]."
            )
        if not converged:
            convergence_warning(
                "NMF",
                self.max_iter,
                f"an iteration lowered the objective by less than tol={self.tol:g} times its "
                "starting value",
            )
        # not an iteration: the W for the final H, as transform computes it
        W = solve_W(X_unit, W, H, beta=beta, l1_penalty=penalties.l1_W, l2_penalty=penalties.l2_W)
        W, H = drop_dead_components(W, H)
        loss = max(objective(X_unit, W, H, beta), 0.0)
        W, H = np.ldexp(W, e), np.ldexp(H, e)
        if not any(penalties):
            W, H = normalise(W, H)
        self._commit(
            X,
            {
                "components_": H.astype(dtype, copy=False),
                "n_components_": k,
                "init_": init,
                "extrapolate_": extrapolate,
                "objective_history_": history,
                "n_iter_": len(history) - 1,
                "converged_": converged,
                "n_samples_": X_checked.shape[0],
                # √(2 × loss) is in units of 2^(objective_exponent / 2)
                "reconstruction_err_": float(
                    times_power_of_two(np.sqrt(2.0 * loss), objective_exponent / 2)
                ),
            },
        )
        return W.astype(dtype, copy=False)

    def transform(self, X):
        """``W`` for new data with ``H = components_`` fixed (:func:`solve_W`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative data.

        Returns
        -------
        W : ndarray of shape (n_samples, n_components_)
            The minimiser over ``W ≥ 0`` of the loss plus the penalties on
            ``W`` (for β = 1 and 2; a stationary point reached by
            multiplicative updates for other β), of the dtype of ``X``.
        """
        check_fitted(self, "components_")
        self._check_parameters()
        X_checked, dtype = as_data_matrix(X)
        check_non_negative(X_checked)
        beta = beta_value(self.beta_loss)
        check_zeros_for_beta(X_checked, beta)
        validate_data(self, X, reset=False, skip_check_array=True)
        # solved for X' = X / 4ᵉ and H' = H / 4ᶠ, both with largest entries near 1: W = 4ᵉ⁻ᶠ W'
        components = self.components_.astype(np.float64)
        e, f = unit_exponent(X_checked), unit_exponent(components)
        objective_exponent = 2 * e * beta
        penalties = self._penalties(X_checked, 2 * (e - f), 2 * f, objective_exponent)
        X_unit, H_unit = scaled_data(X_checked, -2 * e), np.ldexp(components, -2 * f)
        if beta != 2 and scipy.sparse.issparse(X_unit):
            X_unit = X_unit.toarray()  # as in fit_transform
        k = self.n_components_
        W = np.full((X_checked.shape[0], k), typical_entry(X_unit, k))
        W[:, H_unit.max(axis=1) <= 0] = 0.0  # dead components stay at 0
        W = solve_W(
            X_unit, W, H_unit, beta=beta, l1_penalty=penalties.l1_W, l2_penalty=penalties.l2_W
        )
        return np.ldexp(W, 2 * (e - f)).astype(dtype, copy=False)

    def inverse_transform(self, W):
        """``W @ components_``, the data that the coefficients ``W`` stand for.

        Parameters
        ----------
        W : array-like of shape (n_samples, n_components_)
            Coefficients, e.g. from :meth:`transform`.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            ``W H``.
        """
        check_fitted(self, "components_")
        W = as_float_matrix(W, name="W")
        if W.shape[1] != self.n_components_:
            raise ValueError(f"W has {W.shape[1]} columns; expected {self.n_components_}.")
        return W @ self.components_
