"""Regularised matrix factorisations beyond non-negativity (chapter 6, ``book/nmf.md``).

Three variations of ``X ≈ Z W`` (``Z``: n × k, ``W``: k × d), each fitted by
alternating minimisation and returning its objective history in a
:class:`pcalib.factorization.FactorizationResult` (whose ``objective`` is
here the penalised objective of the function):

* :func:`ridge_factorization`, ``½‖X - Z W‖²_F + ½λ(‖Z‖²_F + ‖W‖²_F)``
  (eq. ``eq-mf-ridge``), whose product is the singular-value soft
  thresholding of ``X`` restricted to rank ``k``;
* :func:`sparse_factorization`, ``½‖X - Z W‖²_F + λ₁‖W‖₁ + ½λ₂‖Z‖²_F``
  (eq. ``eq-mf-sparse``): sparse loadings by proximal gradient steps;
* :func:`logistic_factorization`, a latent-factor model for a binary matrix,
  ``P(x_ij = 1) = σ(z_iᵀ w_j + b_j)``, fitted by gradient descent on the
  penalised negative log-likelihood (eq. ``eq-mf-logistic``).
"""

import numpy as np

from ._validation import check_non_negative_float, check_positive_float
from ._linalg import soft_threshold
from .factorization import check_factorization_args, factorization_result, random_factors


def _ridge_solve(A, B, l2):
    """``argmin_Z ½‖B - Z A‖² + ½λ‖Z‖²`` = ``B Aᵀ (A Aᵀ + λ I)⁻¹`` (A: k × d, B: n × d)."""
    k = A.shape[0]
    return np.linalg.solve(A @ A.T + l2 * np.eye(k), A @ B.T).T


def ridge_factorization(X, n_components, *, l2, max_iter=500, tol=1e-10, random_state=None):
    """Alternating ridge regressions for ``½‖X - Z W‖² + ½λ(‖Z‖² + ‖W‖²)`` (eq. ``eq-mf-ridge``).

    Each half-step is an exact ridge regression, so the objective never
    increases. At a global minimum ``Z W = U_k (Σ_k - λ)₊ V_kᵀ``: the top
    ``k`` singular values of ``X`` shrunk by ``λ``.

    Returns
    -------
    FactorizationResult
    """
    X, k, rng = _validate_factorization_args(X, n_components, max_iter, tol, random_state)
    l2 = check_non_negative_float(l2, name="l2")
    Z, W = _random_init(rng, *X.shape, k, X)

    def value(Z, W):
        return 0.5 * np.sum((X - Z @ W) ** 2) + 0.5 * l2 * (np.sum(Z * Z) + np.sum(W * W))

    objective = [value(Z, W)]
    for n_iter in range(1, max_iter + 1):
        Z = _ridge_solve(W, X, l2)
        W = _ridge_solve(Z.T, X.T, l2).T
        objective.append(value(Z, W))
        if objective[-2] - objective[-1] <= tol * objective[0]:
            return _finish(Z, W, objective, n_iter, True, "ridge_factorization")
    return _finish(Z, W, objective, max_iter, False, "ridge_factorization")


def sparse_factorization(X, n_components, *, l1, l2=1.0, max_iter=1000, tol=1e-10,
                         random_state=None):
    """Sparse loadings: ``½‖X - Z W‖² + λ₁‖W‖₁ + ½λ₂‖Z‖²`` (eq. ``eq-mf-sparse``).

    ``Z`` is a ridge regression (exact); ``W`` takes one proximal gradient
    step per sweep, ``W ← S(W - t Zᵀ(Z W - X), t λ₁)`` with ``t = 1/‖ZᵀZ‖₂``
    (the Lipschitz constant of the gradient), which never increases the
    objective. The ridge on ``Z`` stops the trade in which ``Z`` grows and
    ``W`` shrinks to dodge the L1 penalty.

    Returns
    -------
    FactorizationResult
    """
    X, k, rng = _validate_factorization_args(X, n_components, max_iter, tol, random_state)
    l1 = check_non_negative_float(l1, name="l1")
    l2 = check_positive_float(l2, name="l2")
    Z, W = _random_init(rng, *X.shape, k, X)

    def value(Z, W):
        return (0.5 * np.sum((X - Z @ W) ** 2) + l1 * np.abs(W).sum()
                + 0.5 * l2 * np.sum(Z * Z))

    objective = [value(Z, W)]
    for n_iter in range(1, max_iter + 1):
        Z = _ridge_solve(W, X, l2)
        gram = Z.T @ Z
        step = 1.0 / max(np.linalg.eigvalsh(gram)[-1], np.finfo(float).tiny)
        W = soft_threshold(W - step * (gram @ W - Z.T @ X), step * l1)
        objective.append(value(Z, W))
        if objective[-2] - objective[-1] <= tol * objective[0]:
            return _finish(Z, W, objective, n_iter, True, "sparse_factorization")
    return _finish(Z, W, objective, max_iter, False, "sparse_factorization")


def sigmoid(t):
    """``1 / (1 + e^{-t})``, computed without overflow."""
    return np.exp(-np.logaddexp(0.0, -t))


def logistic_factorization(X, n_components, *, l2=1.0, max_iter=2000, tol=1e-9,
                           random_state=None):
    """Logistic latent factors for binary ``X`` (eq. ``eq-mf-logistic``).

    ``θ = Z W + 1 bᵀ`` and ``P(x_ij = 1) = σ(θ_ij)``; minimise
    ``Σ_ij [log(1 + e^{θ_ij}) - x_ij θ_ij] + ½λ(‖Z‖² + ‖W‖²)``. Alternating
    gradient steps on ``Z`` and on ``(W, b)``, each with the step ``1/L``
    for the block's Lipschitz constant (``L = ‖W‖₂²/4 + λ`` for ``Z``), so
    that the objective never increases (the descent lemma).

    Returns
    -------
    FactorizationResult
        ``W`` holds the loadings; the offsets ``b`` are its extra last row,
        paired with a last column of ones in ``Z``
        (``θ = Z W`` with ``Z`` of shape (n, k + 1)).
    """
    X, k, rng = _validate_factorization_args(X, n_components, max_iter, tol, random_state)
    if not np.all((X == 0) | (X == 1)):
        raise ValueError("X must be binary (entries 0 or 1) for logistic_factorization.")
    l2 = check_non_negative_float(l2, name="l2")
    n, d = X.shape
    Z = 0.1 * rng.standard_normal((n, k))
    W = 0.1 * rng.standard_normal((k, d))
    b = np.zeros(d)

    def value(Z, W, b):
        theta = Z @ W + b
        return (float(np.sum(np.logaddexp(0.0, theta) - X * theta))
                + 0.5 * l2 * (np.sum(Z * Z) + np.sum(W * W)))

    objective = [value(Z, W, b)]
    for n_iter in range(1, max_iter + 1):
        residual = sigmoid(Z @ W + b) - X                      # ∂/∂θ of the loss
        Z = Z - (residual @ W.T + l2 * Z) / (0.25 * np.linalg.norm(W, 2) ** 2 + l2)
        residual = sigmoid(Z @ W + b) - X
        Z_one = np.hstack([Z, np.ones((n, 1))])
        lipschitz = 0.25 * np.linalg.norm(Z_one, 2) ** 2 + l2
        W = W - (Z.T @ residual + l2 * W) / lipschitz
        b = b - residual.sum(axis=0) / lipschitz
        objective.append(value(Z, W, b))
        if objective[-2] - objective[-1] <= tol * objective[0]:
            return _finish(np.hstack([Z, np.ones((n, 1))]), np.vstack([W, b]), objective,
                           n_iter, True, "logistic_factorization")
    return _finish(np.hstack([Z, np.ones((n, 1))]), np.vstack([W, b]), objective, max_iter,
                   False, "logistic_factorization")
