"""Outlier pursuit (Xu, Caramanis and Sanghavi, chapter 7): whole samples corrupted.

:func:`outlier_pursuit` replaces the ``‖S‖₁`` of principal component pursuit
by the sum of the Euclidean norms of the rows of ``S`` (eq. ``eq-rpca-op``),
for data in which whole samples (rows) are corrupted: the loop of
:func:`~pcalib.robust_pca.pursuit.principal_component_pursuit` with the row
soft threshold :func:`row_soft_threshold` as its ``S``-step.
"""

from typing import NamedTuple

import numpy as np

from .._linalg import flip_signs, power_of_four_scale
from .._validation import (
    as_float_matrix,
    as_generator,
    check_non_negative_float,
    check_positive_float,
    check_positive_int,
    convergence_warning,
)
from .pursuit import principal_component_pursuit, spectral_norm
from .thresholds import row_soft_threshold

__all__ = ["OutlierPursuitResult", "outlier_pursuit"]

# Growth of μ per iteration of outlier pursuit: RobustPCA's default ``rho``.
OUTLIER_PURSUIT_RHO = 1.5


class OutlierPursuitResult(NamedTuple):
    """Result of :func:`outlier_pursuit`.

    Attributes
    ----------
    low_rank : ndarray of shape (n_samples, n_features)
        ``L``.
    sparse : ndarray of shape (n_samples, n_features)
        ``S``: exact zeros outside the rows in ``outliers``.
    outliers : ndarray of shape (n_outliers,), dtype int
        The rows where ``S`` is non-zero, in increasing order.
    components : ndarray of shape (rank, n_features)
        Orthonormal basis of the row space of ``L``: its right singular
        vectors, from the last thresholding (pcalib's sign convention).
    l1_penalty : float
        The ``λ`` used.
    dual : ndarray of shape (n_samples, n_features)
        The final multiplier ``Y``: at a solution ``Y_i = λ S_i / ‖S_i‖`` on
        the outlier rows, ``‖Y_i‖ ≤ λ`` on the others, and ``Y ∈ ∂‖L‖_*``.
    residual_history : ndarray of shape (n_iter + 1,)
        ``‖M - L - S‖_F / ‖M‖_F`` at the start (1) and after each iteration.
    n_iter : int
    converged : bool
    """

    low_rank: np.ndarray
    sparse: np.ndarray
    outliers: np.ndarray
    components: np.ndarray
    l1_penalty: float
    dual: np.ndarray
    residual_history: np.ndarray
    n_iter: int
    converged: bool


def default_outlier_lambda(shape):
    """``λ = √(λ_low λ_high)``, the geometric middle of the window where outlier pursuit recovers.

    The window was measured on planted problems with ``n`` rows (samples,
    50 to 1000) and ``d`` columns (10 to 100), rank 1 to 5 and 5 to 20 % of
    outlier rows, three draws each (chapter 7 measures it on one more
    problem): the outlier set and the row space were recovered exactly for
    ``λ`` from about ``λ_low = 4/√n`` (below it inlier rows go into ``S``:
    the rows of ``UVᵀ``, of norms about ``√(r/n)``, must fit in the ball of
    radius ``λ``) up to about ``λ_high = 0.9 / (1 + √(γn/d))`` (above it
    parts of outlier rows stay in ``L``: ``γn`` rows of norm ``λ`` in random
    directions have a spectral norm of about ``λ(1 + √(γn/d))``, which must
    stay below 1), taken at ``γ = 0.1``.

    Parameters
    ----------
    shape : tuple of int
        ``(n, d)``.

    Returns
    -------
    float
    """
    n, d = shape
    low = 4.0 / np.sqrt(n)
    high = 0.9 / (1.0 + np.sqrt(0.1 * n / d))
    return float(np.sqrt(low * high))


def row_sparse_step(T, tau):
    """The ``S``-step of outlier pursuit, :func:`row_soft_threshold`, as ``S`` and ``S + N``.

    Outlier pursuit has no noise part ``N``: both are the same ``S``.
    """
    S = row_soft_threshold(T, tau)
    return S, S


def outlier_pursuit(X, *, l1_penalty=None, tol=1e-7, max_iter=1000, random_state=None):
    """Outlier pursuit (Xu, Caramanis and Sanghavi): ``M = L + S``, ``S`` with few non-zero rows.

    Solves ``min ‖L‖_* + λ Σ_i ‖S_i‖₂ subject to L + S = M`` (eq.
    ``eq-rpca-op``), where ``S_i`` is row ``i`` of ``S``: whole samples are
    corrupted, and the group norm makes ``S`` zero outside a few rows. Xu et
    al. put samples in columns; pcalib puts them in rows, so their
    column-sparse ``C`` is ``S`` here, and their column space of ``L`` is the
    row space of ``L`` here (``components``). The inexact augmented
    Lagrangian method of :class:`~pcalib.robust_pca.RobustPCA` (algorithm ``alg-rpca``), with
    the row soft threshold :func:`row_soft_threshold` at ``λ/μ`` in place of
    the entrywise one: ``μ₀ = 1.25/‖M‖₂``, multiplied by 1.5 per iteration
    up to ``10⁷ μ₀``, and the multiplier starts at ``M / max(‖M‖₂,
    max_i ‖M_i‖₂ / λ)``. The iterations run on ``M`` divided by a power of
    four (exact), so ``c X`` gives ``low_rank`` and ``sparse`` times ``c``
    and the same iterations.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The matrix ``M``, at least 2 rows and not all zeros.
    l1_penalty : float, default=None
        ``λ > 0``, without units. None means
        ``√(4/√n · 0.9/(1 + √(0.1 n/d)))`` for ``n`` samples and ``d``
        features (:func:`default_outlier_lambda`). Xu et al.'s theorem
        takes ``3/(7√(γn))``, which needs the share ``γ`` of outliers and
        was below the window of exact recovery on every planted problem
        measured for chapter 7; this default is the geometric middle of
        that window, measured for 5 to 20 % of outlier rows. With many
        more outliers, or very few features, the window can close: pass
        ``λ`` then.
    tol : float, default=1e-7
        Stop when ``‖M - L - S‖_F / ‖M‖_F < tol``; ``tol=0`` runs exactly
        ``max_iter`` iterations.
    max_iter : int, default=1000
        Maximum number of iterations.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the start of the Lanczos estimate of ``‖M‖₂``.

    Returns
    -------
    OutlierPursuitResult
        ``low_rank``, ``sparse``, the ``outliers`` (rows of ``S`` that are
        non-zero), ``components``, ``l1_penalty``, ``dual``,
        ``residual_history``, ``n_iter`` and ``converged``.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import outlier_pursuit
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((100, 2)) @ rng.standard_normal((2, 20))
    >>> X[[3, 50, 71]] = 5 * rng.standard_normal((3, 20))
    >>> outlier_pursuit(X, random_state=0).outliers
    array([ 3, 50, 71])
    """
    M = as_float_matrix(X, name="X", min_samples=2)
    if l1_penalty is not None:
        check_positive_float(l1_penalty, name="l1_penalty")
    tol = check_non_negative_float(tol, name="tol")
    check_positive_int(max_iter, name="max_iter")
    rng = as_generator(random_state)
    if not np.any(M):
        raise ValueError("X is all zeros: there is nothing to decompose.")
    lam = default_outlier_lambda(M.shape) if l1_penalty is None else float(l1_penalty)
    # homogeneous problem: solve it for M / s, s a power of four (exact), and scale back
    scale = power_of_four_scale(M)
    M = M / scale
    norm_two = spectral_norm(M, random_state=rng)
    # the S-step: each row's norm shrunk by λ/μ; S starts at 0
    pursuit = principal_component_pursuit(
        M,
        lam,
        row_sparse_step,
        # dual start: M over the larger of its spectral norm and its largest row norm / λ
        dual=M / max(norm_two, np.linalg.norm(M, axis=1).max() / lam),
        mu=1.25 / norm_two,
        rho=OUTLIER_PURSUIT_RHO,
        tol=tol,
        max_iter=max_iter,
        sparse_start=False,
        random_state=rng,
    )
    history, converged = pursuit.residual_history, pursuit.converged
    if not converged:
        convergence_warning(
            "outlier_pursuit",
            max_iter,
            f"‖M - L - S‖_F / ‖M‖_F (now {history[-1]:.3g}) fell below tol={tol}",
        )
    # L = U (Σ - τ) Vᵀ: the right singular vectors span the row space of L
    components, _ = flip_signs(pursuit.components)
    return OutlierPursuitResult(
        low_rank=pursuit.low_rank * scale,
        sparse=pursuit.sparse * scale,
        outliers=np.flatnonzero(np.any(pursuit.sparse != 0.0, axis=1)),
        components=components,
        l1_penalty=lam,
        dual=pursuit.dual,
        residual_history=history,
        n_iter=history.size - 1,
        converged=converged,
    )
