"""Non-convex robust PCA by alternating projections: AltProj (Netrapalli et al. 2014, chapter 7)."""

from typing import NamedTuple

import numpy as np

from .._linalg import power_of_four_scale, top_svd
from .._validation import (
    as_float_matrix,
    as_generator,
    check_n_components,
    check_non_negative_float,
    check_positive_float,
    check_positive_int,
    convergence_warning,
)
from .thresholds import hard_threshold

__all__ = ["AltProjResult", "altproj"]

# β = ALTPROJ_BETA_SCALE r^(1/4) / (n₁ n₂)^(3/8) unless given (see altproj's docstring).
ALTPROJ_BETA_SCALE = 1.5


class AltProjResult(NamedTuple):
    """Result of :func:`altproj`.

    Attributes
    ----------
    low_rank : ndarray of shape (n1, n2)
        ``L``, of rank ``rank``.
    sparse : ndarray of shape (n1, n2)
        ``S`` (exact zeros off its support).
    rank : int
        Rank of ``L``: the last stage run (``n_components``, or fewer when
        ``M - S`` already had that rank to within ``tol``).
    beta : float
        The ``β`` of the thresholds used.
    residual_history : ndarray of shape (n_iter + 1,)
        ``‖M - L - S‖_F / ‖M‖_F`` at the start (``L = 0``, ``S`` the first
        thresholding of ``M``) and after each iteration.
    n_iter : int
        Iterations run, over all stages (one rank-``k`` projection each).
    converged : bool
        Whether the residual fell below ``tol`` within ``max_iter`` iterations.
    """

    low_rank: np.ndarray
    sparse: np.ndarray
    rank: int
    beta: float
    residual_history: np.ndarray
    n_iter: int
    converged: bool


def altproj(X, n_components, *, beta=None, tol=1e-7, max_iter=500, random_state=None):
    """Non-convex robust PCA by alternating projections (AltProj, Netrapalli et al. 2014).

    Splits ``M = L + S`` with ``L`` of rank ``r = n_components`` and ``S``
    sparse by projecting alternately onto the two sets (algorithm
    ``alg-rpca-altproj``): ``L`` is the best rank-``k`` approximation of
    ``M - S`` (a truncated SVD) and ``S = H_ζ(M - L)`` keeps the entries above
    the threshold (:func:`hard_threshold`, eq. ``eq-rpca-hard``)

        ζ = β (σ_{k+1}(M - S) + (1/2)^t σ_k(M - S))       (eq. ``eq-rpca-zeta``)

    at iteration ``t`` of stage ``k``. The rank grows in stages ``k = 1, …, r``,
    so that the threshold comes down with the spectrum: the large singular
    values are found before it reaches the small ones. ``S`` starts as
    ``H_{βσ₁(M)}(M)``. Stage ``k < r`` ends once
    ``(1/2)^t σ_k ≤ σ_{k+1}``, where Netrapalli et al.'s bound on the error of
    ``L`` is within a factor 2 of its floor ``β σ_{k+1}``; stage ``r`` runs to
    ``tol``. If ``M - S`` already has rank ``k`` to within ``tol``
    (``σ_{k+1} ≤ tol σ₁``) and the residual is below ``tol``, the fit stops
    at stage ``k``. On a matrix that is not low rank plus sparse (dense
    noise, say) the threshold stays near ``β σ_{r+1}(M - S)``, the residual
    does not vanish, and the fit stops at ``max_iter`` with a warning.

    Unlike principal component pursuit (:class:`~pcalib.robust_pca.RobustPCA`) the rank ``r``
    is an input: AltProj needs it, PCP finds it. In exchange each iteration
    costs one SVD of a rank ``k + 1`` known in advance, ``O(r n₁ n₂)`` by
    the randomized SVD (started from the previous singular vectors,
    :func:`~pcalib._linalg.top_svd`), with LAPACK's full SVD once ``k + 1``
    reaches ``TRUNCATED_SVD_SHARE · min(n₁, n₂)``; PCP's thresholding has to
    find how many singular values pass its threshold.

    Parameters
    ----------
    X : array-like of shape (n1, n2)
        The matrix ``M``, at least 2 × 2 and not all zeros.
    n_components : int
        Rank ``r`` of ``L``, ``1 ≤ r ≤ min(n1, n2)``; required (there is no
        default: AltProj needs the rank).
    beta : float, default=None
        ``β > 0`` of the thresholds, without units. Netrapalli et al. prove
        recovery with ``β = 4μ²r/n`` for an ``n × n`` ``L`` whose singular
        vectors have rows of norm at most ``μ√(r/n)`` (so ``μ²`` is the ``ν`` of
        eq. ``eq-rpca-incoherence`` from ``U`` and ``V``, not the penalty ``mu``
        of :class:`RobustPCA`) and a corrupted fraction of at most
        ``1/(512μ²r)`` in each row and column: a ``β`` far above what works in
        practice. ``β`` must lie between two limits: below about ``√r / n``
        the threshold falls under the entries of the part of ``L`` not yet
        found, and ``S`` absorbs them; above
        about ``1/√(α n)``, for a fraction ``α`` of corrupted entries, the
        corruptions left in ``M - S`` lift ``σ_{k+1}`` and with it the
        threshold above the smallest of them, which then stay and spoil the
        SVD. None means their geometric mean without ``α``,
        ``1.5 r^{1/4} / (n₁ n₂)^{3/8}`` (``ALTPROJ_BETA_SCALE``; ``1.5 r^{1/4}
        / n^{3/4}`` for a square matrix), the factor chosen on chapter 7's
        planted problems (n = 200 to 2000).
    tol : float, default=1e-7
        Stop when ``‖M - L - S‖_F / ‖M‖_F < tol`` in the last stage;
        ``tol=0`` runs exactly ``max_iter`` iterations.
    max_iter : int, default=500
        Maximum number of iterations over all stages (each stage takes at
        least one, so at least ``r`` are needed).
    random_state : None, int, numpy.random.Generator or RandomState
        Seeds the randomized SVDs.

    Returns
    -------
    AltProjResult
        ``low_rank``, ``sparse``, ``rank``, ``beta``, ``residual_history``,
        ``n_iter``, ``converged``. The fit follows the units of ``X``: ``c X``
        gives ``c L`` and ``c S`` with the same iterations (it runs on ``X``
        divided by a power of four, which is exact).
    """
    M = as_float_matrix(X, name="X", min_samples=2, min_features=2)
    if n_components is None:
        raise TypeError("n_components must be an int (the rank of L): AltProj needs it.")
    rank = check_n_components(n_components, min(M.shape))
    if beta is not None:
        beta = check_positive_float(beta, name="beta")
    tol = check_non_negative_float(tol, name="tol")
    check_positive_int(max_iter, name="max_iter")
    rng = as_generator(random_state)
    if not np.any(M):
        raise ValueError("X is all zeros: there is nothing to decompose.")
    if beta is None:
        beta = ALTPROJ_BETA_SCALE * rank**0.25 / float(M.size) ** 0.375
    scale = power_of_four_scale(M)  # exact: the thresholds are relative, L and S scale back
    M = M / scale
    n_min, norm_fro = min(M.shape), np.linalg.norm(M)
    _, s, Vt = top_svd(M, 1, random_state=rng)
    S = hard_threshold(M, beta * s[0])
    L = np.zeros_like(M)
    history = [np.linalg.norm(M - S) / norm_fro]
    converged = False
    for k in range(1, rank + 1):
        t = 0
        while len(history) <= max_iter:
            # the top k + 1 triplets: k for the projection, σ_{k+1} for the threshold
            U, s, Vt = top_svd(M - S, min(k + 1, n_min), start=Vt, random_state=rng)
            L = (U[:, :k] * s[:k]) @ Vt[:k]
            sigma_next = s[k] if k < n_min else 0.0
            # the threshold ζ of stage k, iteration t
            S = hard_threshold(M - L, beta * (sigma_next + 0.5**t * s[k - 1]))
            history.append(np.linalg.norm(M - L - S) / norm_fro)
            t += 1
            if history[-1] < tol and (k == rank or sigma_next <= tol * s[0]):
                converged = True
                break
            if k < rank and 0.5**t * s[k - 1] <= sigma_next:
                break  # the threshold is within a factor 2 of this stage's floor β σ_{k+1}
        if converged or len(history) > max_iter:
            break
    if not converged:
        convergence_warning(
            "altproj",
            max_iter,
            f"‖M - L - S‖_F / ‖M‖_F (now {history[-1]:.3g}) fell below tol={tol} at rank {rank}",
        )
    return AltProjResult(
        low_rank=L * scale,
        sparse=S * scale,
        rank=k,
        beta=float(beta),
        residual_history=np.asarray(history),
        n_iter=len(history) - 1,
        converged=converged,
    )
