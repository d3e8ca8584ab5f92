"""Bayesian PCA with automatic relevance determination (chapter 4, ``book/ppca.md``).

Bishop's Bayesian PCA puts on each column ``w_i`` of PPCA's loadings a
Gaussian prior ``N(0, α_i⁻¹ I_d)`` (eq. ``eq-ppca-ard-prior``) and
re-estimates its precision ``α_i = d / ‖w_i‖²`` (eq. ``eq-ppca-ard-alpha``)
between EM steps for the posterior mode of ``W`` and ``σ²`` (eq.
``eq-ppca-ard-mstep``). The columns the data do not support shrink to 0:
their ``α_i`` diverge and they are pruned, which chooses ``k``.
"""

from typing import NamedTuple

import numpy as np

from ._linalg import flip_signs, power_of_four_scale, times_scale_power
from ._validation import (
    as_float_matrix,
    check_non_negative_float,
    check_positive_int,
    convergence_warning,
)
from .ppca import PPCA, e_step

__all__ = ["BayesianPCAResult", "bayesian_pca"]

# A column is pruned once ‖w_i‖² falls below this fraction of trace(S).
PRUNE_THRESHOLD = 1e-12


class BayesianPCAResult(NamedTuple):
    """Result of :func:`bayesian_pca`.

    Attributes
    ----------
    W : ndarray of shape (n_features, n_kept)
        The columns that survived, by decreasing norm, pcalib's sign
        convention on each.
    mean : ndarray of shape (n_features,)
    noise_variance : float
        ``σ²``.
    alpha : ndarray of shape (n_kept,)
        The precisions ``α_i = d / ‖w_i‖²`` of the kept columns.
    objective_history : ndarray of shape (n_iter + 1,)
        Log-likelihood plus log-prior (eq. ``eq-ppca-ard-objective``) at the
        start and after each iteration; never decreasing.
    n_iter : int
    converged : bool
    """

    W: np.ndarray
    mean: np.ndarray
    noise_variance: float
    alpha: np.ndarray
    objective_history: np.ndarray
    n_iter: int
    converged: bool


def ard_precisions(W):
    """``α_i = d / ‖w_i‖²`` (eq. ``eq-ppca-ard-alpha``), the maximiser of the log-prior.

    Parameters
    ----------
    W : ndarray of shape (n_features, k)

    Returns
    -------
    alpha : ndarray of shape (k,)
    """
    return W.shape[0] / np.sum(W**2, axis=0)


def log_prior(W, alpha):
    """``Σ_i [d/2 log(α_i / 2π) - α_i ‖w_i‖² / 2]`` (eq. ``eq-ppca-ard-prior``).

    Parameters
    ----------
    W : ndarray of shape (n_features, k)
    alpha : ndarray of shape (k,)

    Returns
    -------
    float
    """
    n_features = W.shape[0]
    return float(
        np.sum(
            0.5 * n_features * np.log(alpha / (2.0 * np.pi)) - 0.5 * alpha * np.sum(W**2, axis=0)
        )
    )


def ard_em_step(X_centered, W, noise_variance, alpha):
    """One EM step for the posterior mode of ``(W, σ²)`` at fixed ``α`` (eq. ``eq-ppca-ard-mstep``).

    The E-step is PPCA's (:func:`pcalib.ppca.e_step`). The prior adds ``σ² A``,
    ``A = diag(α)``, to the matrix inverted in the M-step for ``W``:
    ``W_new = (Σ_n x_n E[z_n]ᵀ)(Σ_n E[z_n z_nᵀ] + σ² A)⁻¹``; then ``σ²`` is
    the mean squared residual ``(1/nd) Σ_n E‖x_n - W_new z_n‖²``. With
    ``α = 0`` this is PPCA's EM.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_features, k)
    noise_variance : float
    alpha : ndarray of shape (k,)

    Returns
    -------
    W_new : ndarray of shape (n_features, k)
    noise_variance_new : float
    log_likelihood : float
        PPCA's log-likelihood (eq. ``eq-ppca-loglik``) at the *input* ``(W, σ²)``.
    """
    n_samples, n_features = X_centered.shape
    squared_norm = float(np.einsum("ij,ij->", X_centered, X_centered))
    XtEz, sum_Ezz, log_likelihood = e_step(X_centered, W, noise_variance, n_samples, squared_norm)
    W_new = np.linalg.solve(sum_Ezz + noise_variance * np.diag(alpha), XtEz.T).T
    residual = squared_norm - 2.0 * np.sum(XtEz * W_new) + np.sum(sum_Ezz * (W_new.T @ W_new))
    noise_variance_new = float(residual) / (n_samples * n_features)
    return W_new, noise_variance_new, log_likelihood


def check_precisions_representable(X, scale):
    """Refuse ``X`` whose precisions ``α_i`` could overflow in the units of ``X``.

    A kept column has ``‖w_i‖² > 1e-12 trace(S)``, so its precision
    ``α_i = d / ‖w_i‖²`` (eq. ``eq-ppca-ard-alpha``) is below
    ``d / (1e-12 trace(S))``. Where that bound, in units of ``1 / X²``, is
    beyond float64's range, the fit could end in ``α_i = inf``: it is refused
    before any iteration. That happens only where ``trace(S) < 1e12 d / 1.8e308``,
    for standard deviations of about 1e-148 and below.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    scale : float
        The power of four that :func:`bayesian_pca` divides ``X`` by.
    """
    total_variance = float(np.sum(np.var(X / scale, axis=0)))
    if total_variance == 0.0:
        return  # PPCA refuses X without variance, by name
    bound = X.shape[1] / (PRUNE_THRESHOLD * total_variance)
    if not np.isfinite(times_scale_power(bound, scale, -2)):
        raise ValueError(
            f"X is too small for float64 arithmetic (largest absolute entry "
            f"{np.abs(X).max():.3g}): a kept column's precision alpha_i = d / ||w_i||^2 "
            "can reach d / (1e-12 trace(S)), beyond float64's largest number 1.8e308 in "
            "units of 1 / X^2. Rescale X, e.g. divide it by its largest absolute entry."
        )


def bayesian_pca(X, n_components=None, *, max_iter=1000, tol=1e-6):
    """Bayesian PCA with ARD (Bishop 1999): PPCA whose superfluous columns are pruned.

    Starts from PPCA's closed form with ``n_components`` columns and
    alternates :func:`ard_em_step` with :func:`ard_precisions`. A column whose
    ``‖w_i‖²`` falls below ``1e-12 trace(S)`` is pruned; its ``α_i`` is then
    held, with ``w_i = 0``, so the objective still never decreases.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        At least 2 samples and 2 features.
    n_components : int or None, default=None
        Columns at the start, between 1 and ``n_features - 1``; ``None``
        means ``n_features - 1``. Must be below the rank of the centred data.
    max_iter : int, default=1000
        Largest number of iterations.
    tol : float, default=1e-6
        Stop when the objective changes by less than ``tol`` per entry of
        ``X`` in one iteration; ``tol=0`` runs exactly ``max_iter``
        iterations.

    Returns
    -------
    BayesianPCAResult
        ``W`` has one column per kept component: ``W.shape[1]`` is the
        chosen ``k``.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import bayesian_pca
    >>> rng = np.random.default_rng(0)
    >>> X = 2 * rng.standard_normal((200, 2)) @ rng.standard_normal((2, 6))
    >>> X += rng.standard_normal((200, 6))
    >>> bayesian_pca(X).W.shape
    (6, 2)
    """
    X = as_float_matrix(X, min_samples=2, min_features=2)
    check_positive_int(max_iter, name="max_iter")
    check_non_negative_float(tol, name="tol")
    # X / scale is exact; PPCA validates n_components and refuses sigma^2 = 0
    scale = power_of_four_scale(X)
    check_precisions_representable(X, scale)
    start = PPCA(n_components=n_components).fit(X / scale)
    n_samples, n_features = X.shape
    X_centered = X / scale - start.mean_
    total_variance = float(np.einsum("ij,ij->", X_centered, X_centered)) / n_samples
    W, noise_variance = start.W_, start.noise_variance_
    kept = np.sum(W**2, axis=0) > PRUNE_THRESHOLD * total_variance
    held_prior, W = 0.0, W[:, kept]  # a column at 0 from the start is never a component
    alpha, k_total = ard_precisions(W), W.shape[1]
    history, converged = [], False
    for n_iter in range(max_iter + 1):
        W_new, noise_variance_new, log_likelihood = ard_em_step(
            X_centered, W, noise_variance, alpha
        )
        history.append(log_likelihood + log_prior(W, alpha) + held_prior)
        if n_iter > 0 and abs(history[-1] - history[-2]) < tol * X.size:
            converged = True
            break
        if n_iter == max_iter:
            break
        alpha_new = ard_precisions(W_new)
        kept = np.sum(W_new**2, axis=0) > PRUNE_THRESHOLD * total_variance
        held_prior += 0.5 * n_features * float(np.sum(np.log(alpha_new[~kept] / (2.0 * np.pi))))
        W, noise_variance, alpha = W_new[:, kept], noise_variance_new, alpha_new[kept]
    if not converged:
        convergence_warning(
            "bayesian_pca",
            max_iter,
            f"the objective changed by less than tol x entries = {tol * X.size:.3g}",
        )
    order = np.argsort(-np.sum(W**2, axis=0), kind="stable")
    components, _ = flip_signs(W[:, order].T)
    # σ² and α in the units of X, exact even where scale² itself would underflow
    alpha = times_scale_power(alpha[order], scale, -2)
    return BayesianPCAResult(
        W=components.T * scale,
        mean=start.mean_ * scale,
        noise_variance=float(times_scale_power(noise_variance, scale, 2)),
        alpha=alpha,
        objective_history=np.asarray(history) - (X.size + n_features * k_total) * np.log(scale),
        n_iter=n_iter,
        converged=converged,
    )
