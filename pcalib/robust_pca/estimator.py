"""The estimator :class:`RobustPCA`: principal component pursuit, stable or not (chapter 7).

Principal component pursuit (Candès, Li, Ma and Wright) splits a matrix into a
low-rank part and a sparse part (eq. ``eq-rpca-pcp``):

    minimise ‖L‖_* + λ ‖S‖₁   subject to   L + S = M ,

with ``λ = 1/√max(n₁, n₂)`` by default, solved by the inexact augmented
Lagrangian method of Lin, Chen and Ma (:func:`principal_component_pursuit`)
with the entrywise soft threshold as the ``S``-step; with ``noise_level=δ``
it solves stable principal component pursuit (Zhou et al., eq.
``eq-rpca-spcp``), with the joint step for ``S`` and the noise
(:func:`~pcalib.robust_pca.thresholds.sparse_and_noise_step`).
"""

from functools import partial
from typing import ClassVar

import numpy as np

from .._base import ComponentEstimator
from .._linalg import flip_signs, power_of_four_scale
from .._validation import (
    as_float_matrix,
    as_generator,
    check_fitted,
    check_new_data,
    check_non_negative_float,
    check_positive_float,
    check_positive_int,
    check_random_state,
    convergence_warning,
    one_of,
    optional,
)
from .l1 import l1_regressions
from .pursuit import principal_component_pursuit, spectral_norm
from .thresholds import sparse_and_noise_sum

__all__ = ["RobustPCA"]

SVD_SOLVERS = ("auto", "full", "randomized")
# svd_solver="auto" means "randomized" from this min(n₁, n₂) on, "full" below.
AUTO_RANDOMIZED_MIN_SIZE = 100
# Largest ratio accepted between μ₀ and 1 / s, and between 1 / s and μ₀, where s is
# the power of four by which M is divided (max|M| / s in [1/4, 1)): the iterates then
# reach about 1/μ₀ and 1e7 μ₀ ‖M‖_F, and the squares of both (in the norms and in the
# search of the noise step) stay below the largest float64.
MU_RANGE = 2.0**400


def default_lambda(shape):
    """``λ = 1/√max(n₁, n₂)`` (Candès, Li, Ma and Wright)."""
    return 1.0 / np.sqrt(max(shape))


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
        for new directions take them (:func:`~pcalib._linalg.warm_randomized_svd`).
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

    _parameter_checks: ClassVar[dict] = {
        "l1_penalty": optional(check_positive_float),
        "noise_level": check_non_negative_float,
        "mu": optional(check_positive_float),
        "rho": check_positive_float,
        "tol": check_non_negative_float,
        "max_iter": check_positive_int,
        "svd_solver": one_of(*SVD_SOLVERS),
        "random_state": check_random_state,
    }

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

    def _check_parameter_rules(self):
        if self.rho < 1.0:
            raise ValueError(f"rho must be >= 1 (mu must not decrease); got {self.rho}.")

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
        fitted = self._solve(M_scaled, mu_start, noise)
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

    def _solve(self, M, mu_start, noise):
        """Principal component pursuit of ``M`` with the entrywise ``S``-step (``alg-rpca``).

        ``mu_start`` is the given ``μ₀``, or None for the default of the
        ``rho`` in use; ``noise`` is ``δ`` in the units of ``M`` (0: ``N``
        stays 0 and the iterations are those of principal component pursuit).
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
        # "randomized" (and "auto" on large matrices): truncated SVDs sized by the predicted
        # rank, from Lin, Chen and Ma's first guess of 10, or 5 % of min(n₁, n₂) if more
        truncate = self.svd_solver == "randomized" or (
            self.svd_solver == "auto" and n_min >= AUTO_RANDOMIZED_MIN_SIZE
        )
        # S (and the noise N, ‖N‖_F ≤ δ) start from their step at L = 0, as Lin, Chen
        # and Ma's code does: the gross errors leave before the first thresholding,
        # which then keeps few singular values (with S = 0, about a quarter of them on the
        # planted problems of chapter 7)
        pursuit = principal_component_pursuit(
            M,
            lam,
            partial(sparse_and_noise_sum, delta=noise),
            dual=M / max(norm_two, np.abs(M).max() / lam),  # J(M) scaling
            mu=mu,
            rho=self.rho,
            tol=self.tol,
            max_iter=self.max_iter,
            rank_guess=max(10, round(0.05 * n_min)) if truncate else None,
            stop_on_dual=noise > 0.0,
            random_state=rng,
        )
        history = pursuit.residual_history
        if not pursuit.converged:
            convergence_warning(
                "RobustPCA",
                self.max_iter,
                f"‖M - L - S - N‖_F / ‖M‖_F (now {history[-1]:.3g}) fell below tol={self.tol}"
                + ("" if noise == 0.0 else " and the dual residual below tol ‖Y‖_F"),
                stacklevel=4,
            )
        # L = U (Σ - τ) Vᵀ: the right singular vectors span the row space of L
        components, _ = flip_signs(pursuit.components)
        return dict(
            low_rank_=pursuit.low_rank,
            sparse_=pursuit.sparse,
            rank_=pursuit.rank,
            components_=components,
            l1_penalty_=lam,
            mu_=pursuit.mu,
            svd_solver_="randomized" if "randomized" in pursuit.svds else "full",
            dual_=pursuit.dual,
            dual_residual_=pursuit.dual_residual,
            n_iter_=history.size - 1,
            n_svd_=len(pursuit.svds),
            residual_history_=history,
            converged_=pursuit.converged,
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
