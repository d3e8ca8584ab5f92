"""The proximal steps of robust PCA (chapter 7): thresholding operators.

* :func:`singular_value_threshold`, the proximal operator of the nuclear norm
  (eq. ``eq-rpca-svt``), from :func:`~pcalib._linalg.thresholded_svd`;
* :func:`sparse_and_noise_step` and :func:`sparse_and_noise_sum`, the
  ``S``-step of principal component pursuit, stable or not (eqs.
  ``eq-rpca-S-step`` and ``eq-rpca-SN-step``);
* :func:`row_soft_threshold`, the ``S``-step of outlier pursuit (eq.
  ``eq-rpca-row-shrink``);
* :func:`hard_threshold`, the ``S``-step of AltProj (eq. ``eq-rpca-hard``).
"""

import numpy as np
import scipy.optimize

from .._linalg import soft_threshold, thresholded_svd
from .._validation import as_float_matrix, check_non_negative_float

__all__ = ["row_soft_threshold", "singular_value_threshold"]


def singular_value_threshold(M, tau, *, rank_guess=None, random_state=None):
    """``D_τ(M) = U max(Σ - τ, 0) Vᵀ``: the proximal operator of ``τ‖·‖_*`` (eq. ``eq-rpca-svt``).

    Parameters
    ----------
    M : array-like of shape (n1, n2)
        Finite real numbers, never modified.
    tau : float
        Threshold ``τ ≥ 0``.
    rank_guess : int, optional
        Compute only this many singular triplets (randomized SVD), as in
        :func:`thresholded_svd`. None computes the full SVD.
    random_state : None, int, numpy.random.Generator or RandomState
        Seeds the randomized SVD.

    Returns
    -------
    L : ndarray of shape (n1, n2)
    rank : int
        Number of singular values above ``τ``.
    svds : list of str
        The SVDs computed, in order: ``"randomized"`` or ``"full"`` (more than
        one when the rank guess was too small).
    """
    M = as_float_matrix(M, name="M")
    U, shrunk, Vt, svds = thresholded_svd(M, tau, rank_guess=rank_guess, random_state=random_state)
    return (U * shrunk) @ Vt, shrunk.size, svds


def sparse_and_noise_step(T, tau, delta):
    """``argmin τ‖S‖₁ + ½‖T - S - N‖²_F`` over ``S`` and ``‖N‖_F ≤ δ`` (eq. ``eq-rpca-SN-step``).

    For a given ``S`` the best ``N`` is the projection of ``T - S`` onto the
    ball ``‖N‖_F ≤ δ``, which leaves ``τ‖S‖₁ + ½ max(‖T - S‖_F - δ, 0)²``
    to minimise. Its minimiser is a soft thresholding ``S = shrink_θ(T)``:
    if ``‖T‖_F ≤ δ``, ``S = 0``; otherwise ``θ`` is the root of
    ``θ (1 - δ / r(θ)) = τ``, with ``r(θ) = ‖T - shrink_θ(T)‖_F`` (the
    stationarity condition of the soft thresholding with the weight
    ``1 - δ/r`` of the quadratic), found by Brent's method; ``δ = 0`` gives
    ``θ = τ``, the ``S``-step of principal component pursuit.

    Parameters
    ----------
    T : ndarray of shape (n1, n2)
    tau : float
        Weight ``τ > 0`` of the L1 norm.
    delta : float
        Radius ``δ ≥ 0`` of the ball of ``N``.

    Returns
    -------
    S : ndarray of shape (n1, n2)
    N : ndarray of shape (n1, n2)
        ``T - S`` projected onto the ball.
    """
    if delta == 0.0:
        return soft_threshold(T, tau), np.zeros_like(T)
    norm_T = np.linalg.norm(T)
    if norm_T <= delta:
        return np.zeros_like(T), T.copy()
    squares = T * T

    def clipped_norm_gap(theta):
        # θ (r - δ) - τ r: negative while r(θ) ≤ δ, increasing through its root after
        r = np.sqrt(np.minimum(squares, theta * theta).sum())
        return theta * (r - delta) - tau * r

    # r(low) ≤ √(n1 n2) low = δ; from max|T| on r = ‖T‖_F, and the gap is positive
    # beyond τ‖T‖_F / (‖T‖_F - δ) (doubled: rounding cannot make it a root)
    low = delta / np.sqrt(T.size)
    high = 2.0 * max(np.abs(T).max(), tau * norm_T / (norm_T - delta))
    theta = scipy.optimize.brentq(clipped_norm_gap, low, high, xtol=1e-300, rtol=1e-15)
    S = soft_threshold(T, theta)
    rest = T - S
    return S, rest * min(1.0, delta / np.linalg.norm(rest))


def sparse_and_noise_sum(T, tau, delta):
    """``S`` and ``S + N`` of :func:`sparse_and_noise_step`, the parts the iterations use.

    Without noise (``δ = 0``) ``N`` is 0 and ``S + N`` is ``S`` itself, which
    saves the iterations of principal component pursuit a matrix of zeros and
    the passes that would add it.
    """
    if delta == 0.0:
        S = soft_threshold(T, tau)
        return S, S
    S, N = sparse_and_noise_step(T, tau, delta)
    return S, S + N


def row_soft_threshold(T, tau):
    """Shrink each row's Euclidean norm by ``τ``: the proximal operator of ``τ Σ_i ‖S_i‖₂``.

    ``argmin_S τ Σ_i ‖S_i‖₂ + ½‖S - T‖²_F`` separates by rows, and each row
    is ``max(1 - τ/‖T_i‖₂, 0) T_i`` (eq. ``eq-rpca-row-shrink``): kept in its
    direction with its norm reduced by ``τ``, or set to zero when its norm is
    at most ``τ``. With one column it is entrywise soft thresholding.

    Parameters
    ----------
    T : array-like of shape (n, d)
        Finite real numbers, never modified.
    tau : float
        Threshold ``τ ≥ 0``.

    Returns
    -------
    S : ndarray of shape (n, d)
    """
    T = as_float_matrix(T, name="T")
    tau = check_non_negative_float(tau, name="tau")
    norms = np.linalg.norm(T, axis=1, keepdims=True)
    kept = norms > tau
    # τ/‖T_i‖ only on the kept rows, whose norm is positive: no division by zero
    factors = np.where(kept, 1.0 - tau / np.where(kept, norms, 1.0), 0.0)
    return factors * T


def hard_threshold(A, zeta):
    """``H_ζ(A)``: the entries of ``A`` with ``|a_ij| > ζ``, zeros elsewhere (eq. ``eq-rpca-hard``).

    Parameters
    ----------
    A : ndarray of shape (n1, n2)
    zeta : float
        Threshold ``ζ ≥ 0``.

    Returns
    -------
    S : ndarray of shape (n1, n2)
    """
    return np.where(np.abs(A) > zeta, A, 0.0)
