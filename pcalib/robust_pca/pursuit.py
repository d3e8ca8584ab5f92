"""Principal component pursuit by the inexact augmented Lagrangian method (algorithm ``alg-rpca``).

:func:`principal_component_pursuit` is the one loop of :class:`~pcalib.robust_pca.RobustPCA`
(entrywise sparse part, stable or not) and :func:`~pcalib.robust_pca.outlier_pursuit`
(row-sparse part): they differ only in the proximal step of the sparse part
and in their starts.
"""

from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from .._linalg import thresholded_svd
from .._validation import as_generator

# Cap of the growing penalty, relative to its start: μ ≤ MU_GROWTH_CAP μ₀.
MU_GROWTH_CAP = 1e7


class PursuitResult(NamedTuple):
    """The last iterate of :func:`principal_component_pursuit`.

    Attributes
    ----------
    low_rank : ndarray of shape (n1, n2)
        ``L``.
    sparse : ndarray of shape (n1, n2)
        ``S``.
    components : ndarray of shape (rank, n2)
        The right singular vectors of the last thresholding, which span the
        row space of ``L`` (signs as the SVD returns them).
    rank : int
        Singular values kept by the last thresholding.
    dual : ndarray of shape (n1, n2)
        The multiplier ``Y``.
    dual_residual : float
        ``μ ‖(S + N)_k - (S + N)_{k-1}‖_F`` of the last iteration, with its ``μ``.
    mu : float
        The ``μ`` after the last iteration.
    residual_history : ndarray of shape (n_iter + 1,)
        ``‖M - L - S - N‖_F / ‖M‖_F`` at the start and after each iteration.
    svds : list of str
        The SVDs computed, in order: ``"randomized"`` or ``"full"``.
    converged : bool
    """

    low_rank: np.ndarray
    sparse: np.ndarray
    components: np.ndarray
    rank: int
    dual: np.ndarray
    dual_residual: float
    mu: float
    residual_history: np.ndarray
    svds: list
    converged: bool


def principal_component_pursuit(
    M,
    l1_penalty,
    sparse_step,
    *,
    dual,
    mu,
    rho,
    tol,
    max_iter,
    sparse_start=True,
    rank_guess=None,
    stop_on_dual=False,
    random_state=None,
):
    """The inexact augmented Lagrangian iterations (``alg-rpca``) for ``M = L + S (+ N)``.

    Each iteration minimises the augmented Lagrangian
    ``‖L‖_* + λ R(S) + ⟨Y, M - L - S⟩ + (μ/2)‖M - L - S‖²_F``
    (eq. ``eq-rpca-lagrangian``) over ``L`` (singular-value thresholding at
    ``1/μ``, eq. ``eq-rpca-L-step``), then over ``S`` (``sparse_step`` at
    ``λ/μ``, the proximal operator of ``R``), then moves ``Y`` by ``μ`` times
    the residual and multiplies ``μ`` by ``ρ``, up to ``MU_GROWTH_CAP μ₀``.

    Parameters
    ----------
    M : ndarray of shape (n1, n2)
        The matrix, not all zeros.
    l1_penalty : float
        ``λ > 0``, the weight of ``R(S)``.
    sparse_step : callable
        ``sparse_step(T, τ)`` returns ``S`` and ``S + N``: the minimiser
        over ``S`` (and a noise ``N``, or none: then ``S + N`` is ``S``) of
        ``τ R(S) + ½‖T - S - N‖²_F``.
    dual : ndarray of shape (n1, n2)
        The start of ``Y`` (not modified).
    mu : float
        ``μ₀ > 0``.
    rho : float
        ``ρ ≥ 1``; 1 keeps ``μ`` fixed.
    tol : float
        Stop when ``‖M - L - S - N‖_F / ‖M‖_F < tol``; 0 runs ``max_iter``
        iterations.
    max_iter : int
        Maximum number of iterations.
    sparse_start : bool, default=True
        Start ``S`` from its step at ``L = 0`` (the gross errors then leave
        before the first thresholding); False starts it at 0.
    rank_guess : int, optional
        Number of singular triplets for the first truncated SVD, then
        predicted by Lin, Chen and Ma's rule (:func:`predict_rank`); once
        the rank is the same in two iterations, the SVD starts from the last
        right singular vectors. None computes full SVDs.
    stop_on_dual : bool, default=False
        Also require ``dual_residual ≤ tol ‖Y‖_F`` to stop.
    random_state : None, int, numpy.random.Generator or RandomState
        Seeds the randomized SVDs.

    Returns
    -------
    PursuitResult
    """
    rng = as_generator(random_state)
    n_min, norm_fro = min(M.shape), np.linalg.norm(M)
    mu_max = mu * MU_GROWTH_CAP
    Y, guess = dual.copy(), rank_guess
    if sparse_start:
        S, SN = sparse_step(M + Y / mu, l1_penalty / mu)
    else:
        S = SN = np.zeros_like(M)
    history = [np.linalg.norm(M - SN) / norm_fro]  # at the start, where L = 0
    rank = previous_rank = Vt = None
    svds, converged = [], False
    for _ in range(max_iter):
        shifted = M + Y / mu
        # once the rank has settled, the singular vectors move little: start from them
        start = Vt if rank and rank == previous_rank else None
        U, shrunk, Vt, step_svds = thresholded_svd(  # eq. (rpca-L-step)
            shifted - SN, 1.0 / mu, rank_guess=guess, start=start, random_state=rng
        )
        previous_rank, rank = rank, shrunk.size
        L = (U * shrunk) @ Vt
        svds += step_svds
        SN_previous = SN
        S, SN = sparse_step(shifted - L, l1_penalty / mu)  # eq. (rpca-S-step)
        residual = M - L
        residual -= SN
        Y += mu * residual
        # Y + μ(S + N - S_previous - N_previous) is in ∂‖L‖_*: the L-step's optimality
        dual_residual = mu * np.linalg.norm(SN - SN_previous)
        mu = min(mu * rho, mu_max)
        history.append(np.linalg.norm(residual) / norm_fro)
        if guess is not None:
            guess = predict_rank(rank, guess, n_min)
        dual_small = not stop_on_dual or dual_residual <= tol * np.linalg.norm(Y)
        if history[-1] < tol and dual_small:
            converged = True
            break
    return PursuitResult(
        low_rank=L,
        sparse=S,
        components=Vt,
        rank=rank,
        dual=Y,
        dual_residual=float(dual_residual),
        mu=mu,
        residual_history=np.array(history),
        svds=svds,
        converged=converged,
    )


def predict_rank(rank, previous_guess, n_min):
    """Lin, Chen and Ma's rule for the number of singular values to compute next.

    If the last thresholding kept fewer values than were computed, ask for one
    more than it kept; otherwise grow by 5 % of ``min(n₁, n₂)``.
    """
    if rank < previous_guess:
        return min(rank + 1, n_min)
    return min(rank + max(1, round(0.05 * n_min)), n_min)


def spectral_norm(M, random_state=None):
    """``‖M‖₂``, the largest singular value, by Lanczos (ARPACK) from a seeded random start."""
    if min(M.shape) < 3:
        return float(scipy.linalg.norm(M, 2))
    v0 = as_generator(random_state).standard_normal(min(M.shape))
    return float(scipy.sparse.linalg.svds(M, k=1, v0=v0, return_singular_vectors=False)[0])
