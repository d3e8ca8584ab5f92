"""Regularised matrix factorisations beyond non-negativity (chapter 6, ``book/nmf.md``).

Three variations of ``X ≈ Z Wᵀ``, with the scores ``Z`` (n × k) and the
loading matrix ``W`` (d × k) of the rest of pcalib, each fitted by
alternating minimisation and returned as a
:class:`pcalib.factorization.FactorizationResult` whose
``objective_history`` is the penalised objective of the function:

* :func:`ridge_factorization`, ``½‖X - Z Wᵀ‖²_F + ½λ(‖Z‖²_F + ‖W‖²_F)``
  (eq. ``eq-mf-ridge``), whose product is the singular-value soft
  thresholding of ``X`` restricted to rank ``k``;
* :func:`sparse_factorization`, ``½‖X - Z Wᵀ‖²_F + λ₁‖W‖₁ + ½λ₂‖Z‖²_F``
  (eq. ``eq-mf-sparse``): sparse loadings by proximal gradient steps;
* :func:`logistic_factorization`, a latent-factor model for a binary matrix,
  ``P(x_ij = 1) = σ(z_iᵀ w_j + b_j)``, fitted by gradient descent on the
  penalised negative log-likelihood (eq. ``eq-mf-logistic``); the biases
  ``b`` are the result's ``offset``.
"""

import numpy as np

from ._linalg import soft_threshold
from ._validation import check_non_negative_float, check_positive_float
from .factorization import (
    check_factorization_args,
    factorization_result,
    random_factors,
    small_decrease,
)

__all__ = ["logistic_factorization", "ridge_factorization", "sparse_factorization"]


def _ridge_solve(X, W, l2_penalty):
    """``argmin_Z ½‖X - Z Wᵀ‖² + ½λ‖Z‖² = X W (Wᵀ W + λ I)⁻¹`` (X: n × d, W: d × k)."""
    k = W.shape[1]
    return np.linalg.solve(W.T @ W + l2_penalty * np.eye(k), W.T @ X.T).T


def _criterion(tol):
    """What the stopping rule of the three functions waits for, for the ConvergenceWarning."""
    return f"a sweep lowered the objective by less than tol={tol:g} times its starting value"


def _descend(sweep, value, factors, *, max_iter, tol):
    """Apply ``sweep`` to ``factors`` until it lowers ``value`` by little (:func:`small_decrease`).

    Returns the final factors, the objective at the start and after every
    sweep, and whether the stopping rule was met within ``max_iter`` sweeps.
    """
    history = [value(*factors)]
    for _ in range(max_iter):
        factors = sweep(*factors)
        history.append(value(*factors))
        if small_decrease(history, tol):
            return factors, history, True
    return factors, history, False


def ridge_factorization(X, n_components, *, l2_penalty, max_iter=500, tol=1e-10, random_state=None):
    """Alternating ridge regressions for ``½‖X - Z Wᵀ‖² + ½λ(‖Z‖² + ‖W‖²)`` (eq. ``eq-mf-ridge``).

    Each half-step is an exact ridge regression, ``Z ← X W (Wᵀ W + λ I)⁻¹``
    then ``W ← Xᵀ Z (Zᵀ Z + λ I)⁻¹``, so the objective never increases. At a
    global minimum ``Z Wᵀ = U_k (Σ_k - λ)₊ V_kᵀ``: the top ``k`` singular
    values of ``X`` shrunk by ``λ``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; centre it first for a PCA-like fit.
    n_components : int or None
        Rank ``k``, at most ``min(n_samples, n_features)`` (``None``).
    l2_penalty : float
        ``λ ≥ 0``.
    max_iter : int, default=500
        Maximum number of (Z, W) sweeps.
    tol : float, default=1e-10
        Stop when a sweep lowers the objective by less than ``tol`` times its
        starting value; ``tol=0`` runs exactly ``max_iter`` sweeps.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of the random start.

    Returns
    -------
    FactorizationResult
        ``Z`` (n_samples, k), ``W`` (n_features, k), no offset.
    """
    X, k, rng = check_factorization_args(X, n_components, max_iter, tol, random_state)
    l2_penalty = check_non_negative_float(l2_penalty, name="l2_penalty")
    Z, W = random_factors(rng, X, k)

    def value(Z, W):
        residual = X - Z @ W.T
        return 0.5 * np.sum(residual**2) + 0.5 * l2_penalty * (np.sum(Z * Z) + np.sum(W * W))

    def sweep(Z, W):
        Z = _ridge_solve(X, W, l2_penalty)
        return Z, _ridge_solve(X.T, Z, l2_penalty)

    (Z, W), history, converged = _descend(sweep, value, (Z, W), max_iter=max_iter, tol=tol)
    return factorization_result(
        Z, W, history, converged, name="ridge_factorization", criterion=_criterion(tol)
    )


def sparse_factorization(
    X, n_components, *, l1_penalty, l2_penalty=1.0, max_iter=1000, tol=1e-10, random_state=None
):
    """Sparse loadings: ``½‖X - Z Wᵀ‖² + λ₁‖W‖₁ + ½λ₂‖Z‖²`` (eq. ``eq-mf-sparse``).

    ``Z`` is a ridge regression (exact); ``W`` takes one proximal gradient
    step per sweep, ``W ← S(W - t (W Zᵀ Z - Xᵀ Z), t λ₁)`` with
    ``t = 1/‖Zᵀ Z‖₂`` (the inverse Lipschitz constant of the gradient), which
    never increases the objective. The ridge on ``Z`` stops the trade in
    which ``Z`` grows and ``W`` shrinks to dodge the L1 penalty.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; centre it first for a PCA-like fit.
    n_components : int or None
        Rank ``k``, at most ``min(n_samples, n_features)`` (``None``).
    l1_penalty : float
        ``λ₁ ≥ 0``, the weight of the L1 penalty on the loadings ``W``.
    l2_penalty : float, default=1.0
        ``λ₂ > 0``, the weight of the ridge on the scores ``Z``.
    max_iter : int, default=1000
        Maximum number of (Z, W) sweeps.
    tol : float, default=1e-10
        Stop when a sweep lowers the objective by less than ``tol`` times its
        starting value; ``tol=0`` runs exactly ``max_iter`` sweeps.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of the random start.

    Returns
    -------
    FactorizationResult
        ``Z`` (n_samples, k), ``W`` (n_features, k) with exact zeros, no offset.
    """
    X, k, rng = check_factorization_args(X, n_components, max_iter, tol, random_state)
    l1_penalty = check_non_negative_float(l1_penalty, name="l1_penalty")
    l2_penalty = check_positive_float(l2_penalty, name="l2_penalty")
    Z, W = random_factors(rng, X, k)

    def value(Z, W):
        residual = X - Z @ W.T
        return (
            0.5 * np.sum(residual**2)
            + l1_penalty * np.abs(W).sum()
            + 0.5 * l2_penalty * np.sum(Z * Z)
        )

    def sweep(Z, W):
        Z = _ridge_solve(X, W, l2_penalty)
        gram = Z.T @ Z
        lipschitz = np.linalg.eigvalsh(gram)[-1]
        if lipschitz <= 0:
            # Z = 0: the loss does not depend on W, and the L1 penalty is least at W = 0
            return Z, np.zeros_like(W)
        step = 1.0 / lipschitz
        return Z, soft_threshold(W - step * (W @ gram - X.T @ Z), step * l1_penalty)

    (Z, W), history, converged = _descend(sweep, value, (Z, W), max_iter=max_iter, tol=tol)
    return factorization_result(
        Z, W, history, converged, name="sparse_factorization", criterion=_criterion(tol)
    )


def sigmoid(t):
    """``1 / (1 + e^{-t})``, computed without overflow."""
    return np.exp(-np.logaddexp(0.0, -t))


def logistic_factorization(
    X, n_components, *, l2_penalty=1.0, max_iter=2000, tol=1e-9, random_state=None
):
    """Logistic latent factors for binary ``X`` (eq. ``eq-mf-logistic``).

    ``Θ = Z Wᵀ + 1 bᵀ`` and ``P(x_ij = 1) = σ(θ_ij)``; minimise
    ``Σ_ij [log(1 + e^{θ_ij}) - x_ij θ_ij] + ½λ(‖Z‖² + ‖W‖²)``. Alternating
    gradient steps on ``Z`` and on ``(W, b)``, each with the step ``1/L``
    for the block's Lipschitz constant (``L = ‖W‖₂²/4 + λ`` for ``Z``,
    ``‖[Z, 1]‖₂²/4 + λ`` for ``(W, b)``), so that the objective never
    increases (the descent lemma).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Binary data, entries 0 or 1.
    n_components : int or None
        Rank ``k`` of the log-odds, at most ``min(n_samples, n_features)`` (``None``).
    l2_penalty : float, default=1.0
        ``λ ≥ 0``; the biases ``b`` are not penalised.
    max_iter : int, default=2000
        Maximum number of sweeps (a step on ``Z``, then one on ``(W, b)``).
    tol : float, default=1e-9
        Stop when a sweep lowers the objective by less than ``tol`` times its
        starting value; ``tol=0`` runs exactly ``max_iter`` sweeps.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Seed of the random start.

    Returns
    -------
    FactorizationResult
        ``Z`` (n_samples, k), ``W`` (n_features, k) and the biases ``b`` as
        ``offset`` (n_features,): the log-odds are ``Z Wᵀ + offset``, what
        ``reconstruction()`` returns.
    """
    X, k, rng = check_factorization_args(X, n_components, max_iter, tol, random_state)
    if not np.all((X == 0) | (X == 1)):
        raise ValueError("X must be binary (entries 0 or 1) for logistic_factorization.")
    l2_penalty = check_non_negative_float(l2_penalty, name="l2_penalty")
    n, d = X.shape
    Z = 0.1 * rng.standard_normal((n, k))
    W = 0.1 * rng.standard_normal((d, k))
    b = np.zeros(d)

    def value(Z, W, b):
        theta = Z @ W.T + b
        loss = float(np.sum(np.logaddexp(0.0, theta) - X * theta))
        return loss + 0.5 * l2_penalty * (np.sum(Z * Z) + np.sum(W * W))

    def sweep(Z, W, b):
        residual = sigmoid(Z @ W.T + b) - X  # ∂/∂θ of the loss
        Z = Z - (residual @ W + l2_penalty * Z) / (0.25 * np.linalg.norm(W, 2) ** 2 + l2_penalty)
        residual = sigmoid(Z @ W.T + b) - X
        Z_one = np.hstack([Z, np.ones((n, 1))])
        lipschitz = 0.25 * np.linalg.norm(Z_one, 2) ** 2 + l2_penalty
        W = W - (residual.T @ Z + l2_penalty * W) / lipschitz
        return Z, W, b - residual.sum(axis=0) / lipschitz

    (Z, W, b), history, converged = _descend(sweep, value, (Z, W, b), max_iter=max_iter, tol=tol)
    return factorization_result(
        Z,
        W,
        history,
        converged,
        name="logistic_factorization",
        criterion=_criterion(tol),
        offset=b,
    )
