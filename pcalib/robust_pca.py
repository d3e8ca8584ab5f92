"""Robust PCA: principal component pursuit and L1 factorisation (chapter 7, ``book/robust_pca.md``).

Principal component pursuit (Candès, Li, Ma and Wright) splits a matrix into a
low-rank part and a sparse part (eq. ``eq-rpca-pcp``):

    minimise ‖L‖_* + λ ‖S‖₁   subject to   L + S = M ,

with ``λ = 1/√max(n₁, n₂)`` by default (``RobustPCA(l1_penalty=λ)`` sets
another). :class:`RobustPCA` solves it by the inexact augmented Lagrangian
method of Lin, Chen and Ma: with the augmented Lagrangian
``‖L‖_* + λ‖S‖₁ + ⟨Y, M - L - S⟩ + (μ/2)‖M - L - S‖²_F``
(eq. ``eq-rpca-lagrangian``), minimising over ``L`` is singular-value
thresholding at ``1/μ`` and over ``S`` entrywise soft thresholding at
``λ/μ`` (eqs. ``eq-rpca-L-step`` and ``eq-rpca-S-step``). With
``noise_level=δ`` it solves stable principal component pursuit (Zhou et al.,
eq. ``eq-rpca-spcp``), where ``‖M - L - S‖_F ≤ δ`` replaces the equality,
with a joint step for ``S`` and the noise (:func:`sparse_and_noise_step`).

:func:`outlier_pursuit` (Xu, Caramanis and Sanghavi, eq. ``eq-rpca-op``)
replaces ``‖S‖₁`` by the sum of the Euclidean norms of the rows of ``S``,
for data in which whole samples (rows) are corrupted; its ``S``-step is the
row soft threshold :func:`row_soft_threshold`.

:func:`l1_low_rank` fits ``X ≈ 1 mᵀ + Z Wᵀ`` under the entrywise L1 loss by
iteratively reweighted least squares, for the chapter's comparison with the
squared loss of PCA.
"""

from typing import NamedTuple

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse.linalg

from ._base import ComponentEstimator
from ._linalg import EPS, flip_signs, power_of_four_scale, randomized_svd, soft_threshold
from ._validation import (
    as_float_matrix,
    as_generator,
    check_fitted,
    check_n_components,
    check_new_data,
    check_non_negative_float,
    check_option,
    check_positive_float,
    check_positive_int,
    convergence_warning,
)
from .factorization import factorization_result, small_decrease

__all__ = [
    "AltProjResult",
    "OutlierPursuitResult",
    "RobustPCA",
    "altproj",
    "l1_low_rank",
    "outlier_pursuit",
    "row_soft_threshold",
    "singular_value_threshold",
]

SVD_SOLVERS = ("auto", "full", "randomized")
# The randomized SVD is used while the predicted rank is below this share of
# min(n₁, n₂) (benchmarks/README.md, chapter 7, measures where it pays).
TRUNCATED_SVD_SHARE = 0.25
# svd_solver="auto" means "randomized" from this min(n₁, n₂) on, "full" below.
AUTO_RANDOMIZED_MIN_SIZE = 100
# Power iterations of the randomized SVDs: M - S + Y/μ is low rank plus a tail
# that the thresholding removes, so two suffice for the triplets above 1/μ.
RANDOMIZED_SVD_POWER_ITERATIONS = 2
# Columns of the randomized SVDs beyond the wanted triplets (randomized_svd's default).
RANDOMIZED_SVD_OVERSAMPLES = 10
# Largest ratio accepted between μ₀ and 1 / s, and between 1 / s and μ₀, where s is
# the power of four by which M is divided (max|M| / s in [1/4, 1)): the iterates then
# reach about 1/μ₀ and 1e7 μ₀ ‖M‖_F, and the squares of both (in the norms and in the
# search of the noise step) stay below the largest float64.
MU_RANGE = 2.0**400


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


def thresholded_svd(M, tau, *, rank_guess=None, start=None, random_state=None):
    """The factors ``U``, ``Σ - τ``, ``Vᵀ`` of ``D_τ(M)``, for the singular values above ``τ``.

    Parameters
    ----------
    M : ndarray of shape (n1, n2)
    tau : float
        Threshold ``τ ≥ 0``.
    rank_guess : int, optional
        Compute only this many singular triplets (randomized SVD), doubling
        the number until the smallest one computed is at or below ``τ``, so
        that no singular value above ``τ`` is missed; past
        ``TRUNCATED_SVD_SHARE · min(n1, n2)`` the full SVD is used. None
        computes the full SVD.
    start : ndarray of shape (m, n2), optional
        Orthonormal rows close to the top right singular vectors of ``M``
        (those of the previous iteration): the first randomized SVD starts
        from them (:func:`warm_randomized_svd`); once it finds more values
        above ``τ`` than it computed, the wider ones start from random
        vectors. None starts every randomized SVD from random vectors.
    random_state : None, int, numpy.random.Generator or RandomState
        Seeds the randomized SVD.

    Returns
    -------
    U : ndarray of shape (n1, rank)
    shrunk : ndarray of shape (rank,)
        The singular values above ``τ``, minus ``τ``.
    Vt : ndarray of shape (rank, n2)
    svds : list of str
        The SVDs computed, in order: ``"randomized"`` or ``"full"``.
    """
    tau = check_non_negative_float(tau, name="tau")
    if rank_guess is not None:
        check_positive_int(rank_guess, name="rank_guess")
    svds = []
    limit = TRUNCATED_SVD_SHARE * min(M.shape)
    k = rank_guess if rank_guess is not None and rank_guess < limit else None
    rng = as_generator(random_state)
    while k is not None:
        svds.append("randomized")
        if start is None:
            U, s, Vt = randomized_svd(
                M, k, iterated_power=RANDOMIZED_SVD_POWER_ITERATIONS, random_state=rng
            )
        else:
            U, s, Vt = warm_randomized_svd(M, k, start, random_state=rng)
        if s[-1] <= tau:
            break
        # values above τ outside the start: look for them from random vectors
        k, start = (2 * k if 2 * k < limit else None), None
    else:
        svds.append("full")
        U, s, Vt = scipy.linalg.svd(M, full_matrices=False, check_finite=False)
    keep = s > tau
    return U[:, keep], s[keep] - tau, Vt[keep], svds


def warm_randomized_svd(M, k, start, *, random_state=None):
    """Top-``k`` singular triplets of ``M`` by a range finder started from given vectors.

    ``start`` holds rows close to the top right singular vectors of ``M``, so
    ``M`` times them spans closely the top left ones (``Q_start``) without a
    power iteration: the triplets are then off by about ``‖tail‖₂ sin θ``,
    with ``θ`` the largest angle between ``start`` and the right singular
    vectors, and ``tail`` the rest of ``M``. Random columns, up to
    ``k + RANDOMIZED_SVD_OVERSAMPLES`` in all, look for the directions that
    ``start`` lacks: like those of :func:`randomized_svd`, they are
    sharpened by ``RANDOMIZED_SVD_POWER_ITERATIONS`` power iterations, of
    ``M`` with ``Q_start`` projected out, which costs products with a few
    columns instead of ``k``. The SVD of ``Qᵀ M`` then gives the triplets,
    as in :func:`randomized_svd`.

    Parameters
    ----------
    M : ndarray of shape (n1, n2)
    k : int
        Number of triplets, ``1 ≤ k ≤ min(n1, n2)``.
    start : ndarray of shape (m, n2)
        Orthonormal rows; the first ``min(m, k)`` are used.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the random columns.

    Returns
    -------
    U : ndarray of shape (n1, k)
    s : ndarray of shape (k,), in decreasing order
    Vt : ndarray of shape (k, n2)
    """
    n_columns = min(k + RANDOMIZED_SVD_OVERSAMPLES, *M.shape)
    Q_start, _ = np.linalg.qr(M @ start[:k].T)
    n_random = n_columns - Q_start.shape[1]
    Y = M @ as_generator(random_state).standard_normal((M.shape[1], n_random))
    for _ in range(RANDOMIZED_SVD_POWER_ITERATIONS):
        Y, _ = np.linalg.qr(Y - Q_start @ (Q_start.T @ Y))
        Y, _ = np.linalg.qr(M.T @ Y)
        Y = M @ Y
    Q, _ = np.linalg.qr(np.hstack([Q_start, Y - Q_start @ (Q_start.T @ Y)]))
    # NumPy's SVD, like the products and QRs above: a switch to SciPy's BLAS threads
    # would leave NumPy's spinning against them on a small machine
    U_small, s, Vt = np.linalg.svd(Q.T @ M, full_matrices=False)
    return Q @ U_small[:, :k], s[:k], Vt[:k]


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


def spectral_norm(M, random_state=None):
    """``‖M‖₂``, the largest singular value, by Lanczos (ARPACK) from a seeded random start."""
    if min(M.shape) < 3:
        return float(scipy.linalg.norm(M, 2))
    v0 = as_generator(random_state).standard_normal(min(M.shape))
    return float(scipy.sparse.linalg.svds(M, k=1, v0=v0, return_singular_vectors=False)[0])


def default_lambda(shape):
    """``λ = 1/√max(n₁, n₂)`` (Candès, Li, Ma and Wright)."""
    return 1.0 / np.sqrt(max(shape))


def predict_rank(rank, previous_guess, n_min):
    """Lin, Chen and Ma's rule for the number of singular values to compute next.

    If the last thresholding kept fewer values than were computed, ask for one
    more than it kept; otherwise grow by 5 % of ``min(n₁, n₂)``.
    """
    if rank < previous_guess:
        return min(rank + 1, n_min)
    return min(rank + max(1, round(0.05 * n_min)), n_min)


class RobustPCA(ComponentEstimator):
    """Principal component pursuit: ``M = L + S``, ``L`` low rank, ``S`` sparse.

    Solved by the inexact augmented Lagrangian method (algorithm ``alg-rpca``).

    Parameters
    ----------
    l1_penalty : float, default=None
        Weight ``λ`` of ``‖S‖₁`` (eq. ``eq-rpca-pcp``); None means
        ``1/√max(n₁, n₂)``.
    noise_level : float, default=0.0
        ``δ ≥ 0``, in the units of ``X``: stable principal component pursuit
        (Zhou et al.) asks only ``‖M - L - S‖_F ≤ δ`` (eq. ``eq-rpca-spcp``),
        leaving dense noise of that size out of both parts; 0 is principal
        component pursuit. With ``δ > 0`` the fit also stops only once the
        dual residual is below ``tol`` times ``‖dual_‖_F``: a growing ``μ``
        (``rho > 1``) then stalls short of the solution, and ``rho=1`` (a
        fixed ``μ``) is the setting that converges (chapter 7).
    mu : float, default=None
        Starting penalty ``μ₀``, in units of ``1 / X``; None means
        ``1.25 / ‖M‖₂`` (Lin, Chen and Ma) for a growing ``μ`` (``rho > 1``)
        and ``n₁n₂ / (4‖M‖₁)`` (Candès et al.) for a fixed one
        (``rho=1``); a given ``μ₀`` times the largest ``|X|`` must lie between
        about ``2**-400`` and ``2**400``. With the defaults the fit follows
        the units of ``X``: ``c X`` gives ``low_rank_`` and ``sparse_`` times
        ``c``, ``mu_`` divided by ``c`` and the same iterations.
    rho : float, default=1.5
        ``μ`` is multiplied by ``ρ ≥ 1`` after every iteration, up to
        ``1e7 μ₀``. The cap keeps ``Σ_k 1/μ_k`` infinite, which with a
        non-decreasing ``μ_k`` is Lin, Chen and Ma's condition for the
        iterates to converge to a solution. ``rho=1`` keeps ``μ`` fixed at
        ``μ₀``: the alternating direction method of multipliers with a
        constant penalty, which converges too, in more iterations on
        principal component pursuit, and is the setting that reaches the
        solution with ``noise_level``.
    tol : float, default=1e-7
        Stop when ``‖M - L - S - N‖_F / ‖M‖_F < tol`` (``N = 0`` without
        ``noise_level``; with it, once also ``dual_residual_ ≤ tol ‖dual_‖_F``);
        ``tol=0`` runs exactly ``max_iter`` iterations. Without
        ``noise_level`` this tests primal feasibility only;
        ``dual_residual_`` and ``dual_`` give the certificate of optimality
        (chapter 7 computes the duality gap from them).
    max_iter : int, default=500
        Maximum number of iterations.
    svd_solver : {"auto", "full", "randomized"}, default="auto"
        How the SVD of each singular-value thresholding is computed.
        ``"full"``: LAPACK's SVD every iteration. ``"randomized"``: only the
        predicted number of singular triplets, by the randomized SVD of
        chapter 2 (oversampling 10, 2 power iterations), doubling that number
        until no singular value above the threshold can be missed; the first
        iteration, which has no rank to predict yet, and any iteration whose
        number of triplets reaches 25 % of ``min(n₁, n₂)`` use the full SVD.
        Once the rank of ``L`` is the same in two successive iterations, the
        next randomized SVD starts from the right singular vectors of ``L``,
        which need no power iteration; only the few random vectors that look
        for new directions take them (:func:`warm_randomized_svd`).
        ``"auto"``: ``"randomized"`` for matrices with ``min(n₁, n₂) ≥ 100``,
        where it pays, ``"full"`` below.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the randomized SVDs and the start of the Lanczos estimate of
        ``‖M‖₂``.

    Attributes
    ----------
    low_rank_ : ndarray of shape (n1, n2)
        ``L``.
    sparse_ : ndarray of shape (n1, n2)
        ``S`` (exact zeros off its support).
    rank_ : int
        Rank of ``L`` (singular values kept by the last thresholding).
    components_ : ndarray of shape (rank_, n2)
        Orthonormal basis of the row space of ``L``: its right singular
        vectors, from the last thresholding (pcalib's sign convention).
    l1_penalty_ : float
        The ``λ`` used.
    mu_ : float
        The final ``μ``.
    svd_solver_ : {"full", "randomized"}
        What the fit used: ``"randomized"`` when at least one thresholding
        used the randomized SVD (the fit then mixes it with full SVDs, as
        described under ``svd_solver``), ``"full"`` when every SVD was a full one
        (always with ``svd_solver="full"``, and with ``"randomized"`` when
        the rank was never small enough).
    dual_ : ndarray of shape (n1, n2)
        The final multiplier ``Y``: at a solution it certifies optimality,
        ``Y = λ sign(S)`` on the support of ``S`` and ``|Y| ≤ λ`` elsewhere.
    dual_residual_ : float
        ``‖μ (S_k - S_{k-1})‖_F`` of the last iteration ``k``, with the ``μ``
        it used: ``dual_ + μ (S_k - S_{k-1})`` lies in the subdifferential
        ``∂‖L‖_*`` (the ``L``-step's optimality condition), so ``dual_`` is
        within this distance of it (the dual residual of the alternating
        direction method; the primal one is ``residual_history_[-1]``).
        Without units: ``dual_`` has none.
    n_iter_ : int
        Iterations run.
    n_svd_ : int
        SVDs computed by the thresholdings (more than ``n_iter_`` when a rank
        guess was too small).
    residual_history_ : ndarray of shape (n_iter_ + 1,)
        ``‖M - L - S - N‖_F / ‖M‖_F`` at the start (``L = 0`` and ``S``,
        ``N`` from their step, algorithm ``alg-rpca``) and after each
        iteration, with ``N`` the noise part of ``noise_level`` (0 without it).
    converged_ : bool
        Whether the residual fell below ``tol`` within ``max_iter`` iterations
        (and, with ``noise_level > 0``, the dual residual too).
    n_samples_ : int
        Number of rows ``n1`` of the fitted matrix.
    n_features_in_ : int
        Number of columns ``n2`` of the fitted matrix.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import RobustPCA
    >>> rng = np.random.default_rng(0)
    >>> L = rng.standard_normal((60, 2)) @ rng.standard_normal((2, 60))
    >>> S = np.zeros((60, 60)); S[rng.random((60, 60)) < 0.05] = 10.0
    >>> rpca = RobustPCA(random_state=0).fit(L + S)
    >>> rpca.rank_, bool(np.abs(rpca.low_rank_ - L).max() < 1e-4)
    (2, True)
    """

    def __init__(
        self,
        *,
        l1_penalty=None,
        noise_level=0.0,
        mu=None,
        rho=1.5,
        tol=1e-7,
        max_iter=500,
        svd_solver="auto",
        random_state=None,
    ):
        self.l1_penalty = l1_penalty
        self.noise_level = noise_level
        self.mu = mu
        self.rho = rho
        self.tol = tol
        self.max_iter = max_iter
        self.svd_solver = svd_solver
        self.random_state = random_state

    def _check_parameters(self):
        if self.l1_penalty is not None:
            check_positive_float(self.l1_penalty, name="l1_penalty")
        check_non_negative_float(self.noise_level, name="noise_level")
        if self.mu is not None:
            check_positive_float(self.mu, name="mu")
        check_positive_float(self.rho, name="rho")
        if self.rho < 1.0:
            raise ValueError(f"rho must be >= 1 (mu must not decrease); got {self.rho}.")
        check_non_negative_float(self.tol, name="tol")
        check_positive_int(self.max_iter, name="max_iter")
        check_option(self.svd_solver, name="svd_solver", allowed=SVD_SOLVERS)
        as_generator(self.random_state)

    def fit(self, X, y=None):
        """Decompose ``X`` into ``low_rank_ + sparse_`` (algorithm ``alg-rpca``).

        Parameters
        ----------
        X : array-like of shape (n1, n2)
            The matrix ``M``, at least 2 × 2 and not all zeros.
        y : None
            Ignored.

        Returns
        -------
        self : RobustPCA
            The fitted estimator.
        """
        self._check_parameters()
        M = as_float_matrix(X, name="X", min_samples=2, min_features=2)
        if not np.any(M):
            raise ValueError("X is all zeros: there is nothing to decompose.")
        # The problem is homogeneous: L, S scale with M and μ with 1/M. It is solved for
        # M / s, s a power of four (an exact division), so that no square of tiny data
        # underflows and the digits do not depend on the units of M.
        scale = power_of_four_scale(M)
        mu_start = None if self.mu is None else self._scaled_mu(scale, np.abs(M).max())
        M_scaled = M / scale
        noise = float(self.noise_level) / scale
        fitted = self._solve(M_scaled, np.linalg.norm(M_scaled), mu_start, noise)
        fitted["low_rank_"] *= scale
        fitted["sparse_"] *= scale
        fitted["mu_"] = self._unscaled_mu(fitted["mu_"], scale)
        fitted["n_samples_"] = M.shape[0]
        self._commit(X, fitted)
        return self

    def _scaled_mu(self, scale, largest):
        """The given ``μ₀`` in the units of ``M / scale``, refused outside ``MU_RANGE``.

        ``largest`` is the largest absolute entry of ``M``, for the message.
        """
        with np.errstate(over="ignore", under="ignore"):
            mu = float(self.mu) * scale
        if not 1.0 / MU_RANGE <= mu <= MU_RANGE:
            raise ValueError(
                f"mu={self.mu} is out of range for X of this magnitude (largest absolute "
                f"entry {largest:.3g}): mu times that entry must lie between about 2**-400 "
                "and 2**400 (about 3.9e-121 and 2.6e+120), where the thresholds 1 / mu, "
                "the growth of mu and their squares stay float64 numbers. Leave mu=None "
                "for the default 1.25 / ||X||_2."
            )
        return mu

    @staticmethod
    def _unscaled_mu(mu, scale):
        """The final ``μ`` in the units of ``X``; refused if it overflows (subnormal ``X``)."""
        with np.errstate(over="ignore"):
            mu = mu / scale
        if not np.isfinite(mu):
            raise ValueError(
                f"X is too small for float64 arithmetic (largest absolute entry about "
                f"{scale:.3g}): the final mu, which scales as 1 / X, overflows. Rescale X, "
                "e.g. divide it by its largest absolute entry."
            )
        return float(mu)

    def _solve(self, M, norm_fro, mu_start, noise):
        """The inexact augmented Lagrangian iterations (``alg-rpca``).

        ``mu_start`` is the given ``μ₀``, or None for ``1.25 / ‖M‖₂``;
        ``noise`` is ``δ`` in the units of ``M`` (0: ``N`` stays 0 and the
        iterations are those of principal component pursuit).
        """
        n_min = min(M.shape)
        lam = default_lambda(M.shape) if self.l1_penalty is None else float(self.l1_penalty)
        rng = as_generator(self.random_state)
        norm_two = spectral_norm(M, random_state=rng)
        if mu_start is not None:
            mu = mu_start
        elif self.rho > 1.0:
            mu = 1.25 / norm_two
        else:  # a fixed penalty: Candès et al.'s n₁n₂ / (4‖M‖₁)
            mu = M.size / (4.0 * np.abs(M).sum())
        mu_max = mu * 1e7
        Y = M / max(norm_two, np.abs(M).max() / lam)  # dual start, J(M) scaling
        # S (and the noise N, ‖N‖_F ≤ δ) start from their step at L = 0, as Lin, Chen
        # and Ma's code does: the gross errors leave before the first thresholding,
        # which then keeps few singular values (with S = 0, about a quarter of them on the
        # planted problems of chapter 7)
        S, SN = sparse_and_noise_sum(M + Y / mu, lam / mu, noise)
        # "randomized" (and "auto" on large matrices): truncated SVDs sized by the predicted
        # rank, from Lin, Chen and Ma's first guess of 10, or 5 % of min(n₁, n₂) if more
        truncate = self.svd_solver == "randomized" or (
            self.svd_solver == "auto" and n_min >= AUTO_RANDOMIZED_MIN_SIZE
        )
        guess = max(10, round(0.05 * n_min)) if truncate else None
        history = [np.linalg.norm(M - SN) / norm_fro]  # at the start, where L = 0
        rank = previous_rank = Vt = None
        svds, converged = [], False
        for _ in range(self.max_iter):
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
            # eq. (rpca-S-step), with the noise eq. (rpca-SN-step)
            S, SN = sparse_and_noise_sum(shifted - L, lam / mu, noise)
            residual = M - L
            residual -= SN
            Y += mu * residual
            # Y + μ(S + N - S_previous - N_previous) is in ∂‖L‖_*: the L-step's optimality
            dual_residual = mu * np.linalg.norm(SN - SN_previous)
            mu = min(mu * self.rho, mu_max)
            history.append(np.linalg.norm(residual) / norm_fro)
            if truncate:
                guess = predict_rank(rank, guess, n_min)
            dual_small = noise == 0.0 or dual_residual <= self.tol * np.linalg.norm(Y)
            if history[-1] < self.tol and dual_small:
                converged = True
                break
        if not converged:
            convergence_warning(
                "RobustPCA",
                self.max_iter,
                f"‖M - L - S - N‖_F / ‖M‖_F (now {history[-1]:.3g}) fell below tol={self.tol}"
                + ("" if noise == 0.0 else " and the dual residual below tol ‖Y‖_F"),
                stacklevel=4,
            )
        svd_solver = "randomized" if "randomized" in svds else "full"
        components, _ = flip_signs(Vt)  # L = U (Σ - τ) Vᵀ: Vt spans the row space of L
        return dict(
            low_rank_=L,
            sparse_=S,
            rank_=rank,
            components_=components,
            l1_penalty_=lam,
            mu_=mu,
            svd_solver_=svd_solver,
            dual_=Y,
            dual_residual_=float(dual_residual),
            n_iter_=len(history) - 1,
            n_svd_=len(svds),
            residual_history_=np.array(history),
            converged_=converged,
        )

    def transform(self, X):
        """Robust scores of new rows on ``components_`` (L1 regression, eq. ``eq-rpca-transform``).

        Each row ``x`` gets ``z = argmin ‖x - Vᵀ z‖₁`` over the row space of
        ``L`` (``V = components_``): like the decomposition, it lets a few
        entries of a new row be grossly wrong without moving its scores,
        where the least-squares projection ``x Vᵀ`` would follow them.
        Computed by iteratively reweighted least squares, each row until its
        scores stop changing (at most 200 reweightings).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)
            Rows to score.

        Returns
        -------
        Z : ndarray of shape (n_samples, rank_)
            Their scores.
        """
        X_checked = check_new_data(self, X, fitted_attribute="components_")
        if self.rank_ == 0:
            return np.zeros((X_checked.shape[0], 0))
        # Each row's L1 regression is homogeneous: solve it for the row divided by a
        # power of four (exact) that brings its largest entry to [0.25, 1), so that the
        # weights 1/|r| neither overflow nor depend on the units of X.
        row_scales = power_of_four_scale(X_checked, axis=1)
        return l1_regressions(X_checked / row_scales, self.components_.T) * row_scales

    def inverse_transform(self, Z):
        """Rows of the low-rank model from scores: ``Z @ components_``.

        Parameters
        ----------
        Z : array-like of shape (n_samples, rank_)
            Scores.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features_in_)
            The corresponding rows of the row space of ``L``.
        """
        check_fitted(self, "components_")
        Z = as_float_matrix(Z, name="Z", min_features=0)
        if Z.shape[1] != self.rank_:
            raise ValueError(f"Z has {Z.shape[1]} columns but rank_ is {self.rank_}.")
        return Z @ self.components_


# ------------------------------------------- non-convex robust PCA: AltProj
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


def top_singular_triplets(A, k, start, *, random_state=None):
    """Top-``k`` singular triplets of ``A``, by the randomized SVD while ``k`` is small.

    Past ``TRUNCATED_SVD_SHARE · min(n1, n2)`` triplets LAPACK's full SVD is
    cheaper. ``start`` (right singular vectors of a nearby matrix, or None)
    starts the range finder as in :func:`warm_randomized_svd`.

    Returns
    -------
    U : ndarray of shape (n1, k)
    s : ndarray of shape (k,), in decreasing order
    Vt : ndarray of shape (k, n2)
    """
    if k >= TRUNCATED_SVD_SHARE * min(A.shape):
        U, s, Vt = scipy.linalg.svd(A, full_matrices=False, check_finite=False)
        return U[:, :k], s[:k], Vt[:k]
    if start is None:
        return randomized_svd(
            A, k, iterated_power=RANDOMIZED_SVD_POWER_ITERATIONS, random_state=random_state
        )
    return warm_randomized_svd(A, k, start, random_state=random_state)


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

    Unlike principal component pursuit (:class:`RobustPCA`) the rank ``r``
    is an input: AltProj needs it, PCP finds it. In exchange each iteration
    costs one SVD of a rank ``k + 1`` known in advance, ``O(r n₁ n₂)`` by
    the randomized SVD (started from the previous singular vectors,
    :func:`warm_randomized_svd`), with LAPACK's full SVD once ``k + 1``
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
        recovery with ``β = 4μ²r/n`` for an ``n × n`` ``L`` of incoherence ``μ``, a
        bound far above what works in practice. ``β`` must lie between two
        limits: below about ``√r / n`` the threshold falls under the entries
        of the part of ``L`` not yet found, and ``S`` absorbs them; above
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
    _, s, Vt = top_singular_triplets(M, 1, None, random_state=rng)
    S = hard_threshold(M, beta * s[0])
    L = np.zeros_like(M)
    history = [np.linalg.norm(M - S) / norm_fro]
    converged = False
    for k in range(1, rank + 1):
        t = 0
        while len(history) <= max_iter:
            # the top k + 1 triplets: k for the projection, σ_{k+1} for the threshold
            U, s, Vt = top_singular_triplets(M - S, min(k + 1, n_min), Vt, random_state=rng)
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


# ----------------------------------------------------------- L1 factorisation
IRLS_EPS = 1e-6


def l1_regressions(X, W, max_iter=200):
    """For each row ``x`` of ``X``: ``argmin_z ‖x - W z‖₁``, by IRLS (eq. ``eq-rpca-irls``).

    Starts from the least-squares scores ``X W`` (exact for orthonormal
    columns) and reweights each row until its scores change by less than
    ``1e-12`` of ``max(|z|, 1)``; the rows are expected to have entries of
    order 1.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    W : ndarray of shape (d, k)
    max_iter : int, default=200
        Largest number of reweightings.

    Returns
    -------
    Z : ndarray of shape (n, k)
    """
    X = np.ascontiguousarray(X)  # the same rounding for any memory layout
    Z = X @ W
    active = np.arange(X.shape[0])  # rows still moving
    for _ in range(max_iter):
        X_active = X[active]
        weights = irls_weights(X_active - Z[active] @ W.T)
        Z_new = weighted_row_fits(X_active, W, weights)
        change = np.abs(Z_new - Z[active]).max(axis=1)
        Z[active] = Z_new
        scale = np.maximum(np.abs(Z_new).max(axis=1), 1.0)
        active = active[change > 1e-12 * scale]
        if active.size == 0:
            break
    return Z


def irls_weights(residual, eps=IRLS_EPS, *, axis=-1):
    """Weights ``1 / max(|r|, ε)`` that turn ``Σ |r|`` into a weighted sum of squares.

    At the current residual, ``Σ_ij w_ij r_ij² = Σ_ij |r_ij|`` (up to ``ε``), so
    each weighted least-squares step majorises the L1 loss (eq. ``eq-rpca-irls``).
    ``ε`` is ``eps`` times the largest residual along ``axis``: of each row by
    default, so that the weights of a row do not depend on the other rows;
    of the whole matrix for ``axis=None``. Where those residuals are all
    zero the weights are 1 (the fit is exact whatever the weights).
    """
    floor = eps * np.abs(residual).max(axis=axis, keepdims=True)
    floor[floor == 0.0] = 1.0
    return 1.0 / np.maximum(np.abs(residual), floor)


def weighted_row_fits(X, W, weights):
    """For each row ``i``: ``argmin_z Σ_j w_ij (x_ij - w_jᵀ z)²``, all rows at once.

    Normal equations ``(Wᵀ D_i W) z_i = Wᵀ D_i x_i`` with ``D_i = diag(w_i·)``,
    solved by the pseudo-inverse of ``Wᵀ D_i W``: where it is singular (a
    column of ``W`` that is zero, more columns than rows) this is the
    minimum-norm solution, which minimises the weighted squares all the same.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    W : ndarray of shape (d, k)
    weights : ndarray of shape (n, d)

    Returns
    -------
    Z : ndarray of shape (n, k)
    """
    k = W.shape[1]
    outer = (W[:, :, np.newaxis] * W[:, np.newaxis, :]).reshape(W.shape[0], k * k)
    A = (weights @ outer).reshape(-1, k, k)
    b = (weights * X) @ W
    return (np.linalg.pinv(A, hermitian=True) @ b[:, :, np.newaxis])[:, :, 0]


def robust_start(X, k):
    """Column medians and the top ``k`` axes of the winsorised residuals.

    IRLS only improves the fit locally, and PCA's own axes, pulled by the
    outliers, start it in a poor local minimum. Clipping each centred column
    at three robust standard deviations (``1.4826 × MAD``) first limits the
    pull of gross errors on the starting axes.

    Returns
    -------
    offset : ndarray of shape (n_features,)
    W : ndarray of shape (n_features, k)
    """
    offset = np.median(X, axis=0)
    residual = X - offset
    spread = 1.4826 * np.median(np.abs(residual), axis=0)
    clipped = np.clip(residual, -3.0 * spread, 3.0 * spread)
    _, _, Vt = scipy.linalg.svd(clipped, full_matrices=False, check_finite=False)
    return offset, Vt[:k].T


def l1_low_rank(X, n_components, *, max_iter=500, tol=1e-6):
    """Rank-``k`` fit ``X ≈ 1 mᵀ + Z Wᵀ`` under the entrywise L1 loss (eq. ``eq-rpca-l1``).

    Alternates weighted least squares for the rows of ``Z`` and for the rows
    of ``[W, m]``, with IRLS weights ``1/|residual|`` recomputed before each
    half-step (eq. ``eq-rpca-irls``; floored at ``1e-6`` times the largest
    residual, :func:`irls_weights`), so that the L1 loss
    ``Σ |x_ij - m_j - z_iᵀ w_j|`` does not increase. The offset ``m`` plays
    the role of PCA's mean. The start is deterministic (:func:`robust_start`).
    The fit is equivariant: ``X`` times ``c`` gives ``Z``, ``offset`` and the
    loss times ``c`` and the same ``W`` (the iterations run on ``X`` divided
    by a power of four, which is exact).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data, at least two rows.
    n_components : int or None
        Rank ``k``, ``1 ≤ k ≤ min(n_samples, n_features)``; None means
        ``min(n_samples, n_features)``.
    max_iter : int, default=500
        Maximum number of sweeps (one update of ``Z``, then of ``[W, m]``).
    tol : float, default=1e-6
        Stop when the L1 loss decreases by less than ``tol`` times its
        starting value in one sweep (relative to the start, so that a loss
        converging to 0 on exact data also stops), or reaches the rounding
        level ``max(n, d) · eps · Σ|x_ij|`` of an exact fit (at the start too,
        as for ``k = min(n, d)`` with ``n ≥ d``); ``tol=0`` runs exactly
        ``max_iter`` sweeps.

    Returns
    -------
    FactorizationResult
        ``Z`` of shape (n_samples, k); ``W`` of shape (n_features, k) with
        orthonormal columns (the rotation inside the subspace is fixed by an
        SVD of ``Z Wᵀ`` at the end), pcalib's sign convention; ``offset`` of
        shape (n_features,), the robust centre ``m``; ``objective_history``
        of shape (n_iter + 1,), the L1 loss at the start and after each
        sweep; ``n_iter`` and ``converged``. ``reconstruction()`` gives
        ``1 mᵀ + Z Wᵀ``.
    """
    X = as_float_matrix(X, name="X", min_samples=2)
    k = check_n_components(n_components, min(X.shape))
    check_positive_int(max_iter, name="max_iter")
    tol = check_non_negative_float(tol, name="tol")
    # the fit is homogeneous in X: run it on X / s (exact) and scale Z and m back
    scale = power_of_four_scale(X)
    X = X / scale
    offset, W = robust_start(X, k)
    Z = (X - offset) @ W
    ones = np.ones((X.shape[0], 1))
    history = [np.abs(X - offset - Z @ W.T).sum()]
    # an L1 loss at this level is an exact fit up to rounding: weights 1/|r| of
    # rounding noise would only make the weighted least squares ill-conditioned
    exact = max(X.shape) * EPS * np.abs(X).sum()
    converged = False
    for _ in range(max_iter):
        if tol > 0 and history[-1] <= exact:
            converged = True
            break
        weights = irls_weights(X - offset - Z @ W.T, axis=None)
        Z = weighted_row_fits(X - offset, W, weights)
        design = np.hstack([Z, ones])
        weights = irls_weights(X - offset - Z @ W.T, axis=None)
        W_and_offset = weighted_row_fits(X.T, design, weights.T)
        W, offset = W_and_offset[:, :k], W_and_offset[:, k]
        history.append(np.abs(X - offset - Z @ W.T).sum())
        if small_decrease(history, tol):
            converged = True
            break
    U, s, Vt = scipy.linalg.svd(Z @ W.T, full_matrices=False)
    components, signs = flip_signs(Vt[:k])
    return factorization_result(
        U[:, :k] * s[:k] * signs * scale,
        components.T,
        np.asarray(history) * scale,
        converged,
        name="l1_low_rank",
        criterion=f"the L1 loss decreased by less than tol={tol} times its starting value "
        "in one sweep",
        offset=offset * scale,
    )


# ----------------------------------------------------------------- outlier pursuit
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


def outlier_pursuit(X, *, l1_penalty=None, tol=1e-7, max_iter=1000, random_state=None):
    """Outlier pursuit (Xu, Caramanis and Sanghavi): ``M = L + S``, ``S`` with few non-zero rows.

    Solves ``min ‖L‖_* + λ Σ_i ‖S_i‖₂ subject to L + S = M`` (eq.
    ``eq-rpca-op``), where ``S_i`` is row ``i`` of ``S``: whole samples are
    corrupted, and the group norm makes ``S`` zero outside a few rows. Xu et
    al. put samples in columns; pcalib puts them in rows, so their
    column-sparse ``C`` is ``S`` here, and their column space of ``L`` is the
    row space of ``L`` here (``components``). The inexact augmented
    Lagrangian method of :class:`RobustPCA` (algorithm ``alg-rpca``), with
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
    norm_fro = np.linalg.norm(M)
    norm_two = spectral_norm(M, random_state=rng)
    mu = 1.25 / norm_two
    mu_max = 1e7 * mu
    # dual start: M over the larger of its spectral norm and its largest row norm / λ
    Y = M / max(norm_two, np.linalg.norm(M, axis=1).max() / lam)
    S = np.zeros_like(M)
    history, converged = [1.0], False
    for _ in range(max_iter):
        shifted = M + Y / mu
        # the L-step of principal component pursuit: singular-value thresholding at 1/μ
        U, shrunk, Vt, _ = thresholded_svd(shifted - S, 1.0 / mu)
        L = (U * shrunk) @ Vt
        # the S-step: each row's norm shrunk by λ/μ
        S = row_soft_threshold(shifted - L, lam / mu)
        residual = M - L - S
        Y += mu * residual
        mu = min(mu * OUTLIER_PURSUIT_RHO, mu_max)
        history.append(np.linalg.norm(residual) / norm_fro)
        if history[-1] < tol:
            converged = True
            break
    if not converged:
        convergence_warning(
            "outlier_pursuit",
            max_iter,
            f"‖M - L - S‖_F / ‖M‖_F (now {history[-1]:.3g}) fell below tol={tol}",
        )
    components, _ = flip_signs(Vt)  # L = U (Σ - τ) Vᵀ: Vt spans the row space of L
    return OutlierPursuitResult(
        low_rank=L * scale,
        sparse=S * scale,
        outliers=np.flatnonzero(np.any(S != 0.0, axis=1)),
        components=components,
        l1_penalty=lam,
        dual=Y,
        residual_history=np.asarray(history),
        n_iter=len(history) - 1,
        converged=converged,
    )
