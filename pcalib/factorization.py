"""PCA as a matrix factorisation ``X ≈ Z W`` (chapter 1, section "PCA as matrix factorisation").

Both functions minimise the squared Frobenius error (eq. ``eq-pca-mf``)

    f(Z, W) = ‖X - Z W‖²_F,   Z of shape (n, k),  W of shape (k, d),

which is smallest when the rows of ``W`` span the top-``k`` principal
subspace of ``X`` (pass centred data to obtain PCA). Neither ``Z`` nor ``W``
is unique, only their product and the subspace spanned by ``W`` are: compare
results with principal angles, not entry by entry.
"""

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from ._validation import (
    as_float_matrix,
    as_generator,
    check_option,
    check_positive_float,
    check_positive_int,
    resolve_n_components,
)


@dataclass(frozen=True)
class FactorizationResult:
    """Result of an iterative factorisation ``X ≈ Z W``.

    Attributes
    ----------
    Z : ndarray of shape (n_samples, k)
        Scores (latent coordinates of the samples).
    W : ndarray of shape (k, n_features)
        Loadings; their row space estimates the principal subspace.
    objective : ndarray of shape (n_iter + 1,)
        ``‖X - Z W‖²_F`` at the start and after every iteration.
    n_iter : int
        Number of iterations performed.
    converged : bool
        Whether the relative decrease of the objective fell below ``tol``.
    """

    Z: np.ndarray
    W: np.ndarray
    objective: np.ndarray
    n_iter: int
    converged: bool


def reconstruction_error(X, Z, W):
    """Squared Frobenius error ``‖X - Z W‖²_F`` of eq. ``eq-pca-mf``."""
    residual = X - Z @ W
    return float(np.einsum("ij,ij->", residual, residual))


def _validate_factorization_args(X, n_components, max_iter, tol, random_state):
    """Shared checks of the two solvers; returns ``X``, ``k`` and a random generator."""
    X = as_float_matrix(X, name="X", min_samples=2)
    k = resolve_n_components(n_components, *X.shape, allow_fraction=False)
    check_positive_int(max_iter, name="max_iter")
    check_positive_float(tol, name="tol")
    return X, k, as_generator(random_state)


def _random_init(rng, n_samples, n_features, k, X):
    """Random Gaussian ``Z`` and ``W`` scaled to the size of ``X``."""
    scale = np.sqrt(np.linalg.norm(X) / np.sqrt(n_samples * n_features))
    Z = rng.standard_normal((n_samples, k)) * scale
    W = rng.standard_normal((k, n_features)) * scale
    return Z, W


def _has_converged(objective, tol, floor):
    """Relative change of the objective in the last sweep below ``tol``.

    ``floor`` is the rounding level of the objective,
    ``(max(n, d) · eps)² · ‖X‖²_F``: an error below it is an exact fit
    (k ≥ rank of X), where relative changes are only noise.
    """
    previous, current = objective[-2], objective[-1]
    return current <= floor or abs(previous - current) <= tol * previous


def _finish(Z, W, objective, n_iter, converged, method):
    """Warn when the solver stopped early and pack the result."""
    if not converged:
        warnings.warn(
            f"{method} stopped after max_iter={n_iter} iterations before the "
            "relative decrease of the objective fell below tol; increase max_iter.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return FactorizationResult(Z, W, np.asarray(objective), n_iter, converged)


def pca_als(X, n_components, *, max_iter=1000, tol=1e-12, random_state=None):
    """Alternating least squares for ``min ‖X - Z W‖²_F`` (eq. ``eq-pca-als``).

    Each half-step solves a linear least-squares problem exactly:
    ``Z ← X Wᵀ (W Wᵀ)⁻¹`` then ``W ← (Zᵀ Z)⁻¹ Zᵀ X``, so the objective never
    increases. The solves use ``numpy.linalg.lstsq`` so that a rank-deficient
    ``X`` (rank below ``k``) gives the minimum-norm solution instead of an
    error.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; centre it first to obtain PCA.
    n_components : int
        Rank ``k`` of the factorisation, ``1 ≤ k ≤ min(n_samples, n_features)``.
    max_iter : int, default=1000
        Maximum number of (Z, W) sweeps.
    tol : float, default=1e-12
        Stop when the relative decrease of the objective in one sweep is below.
    random_state : None, int or numpy.random.Generator
        Seed of the random initialisation.

    Returns
    -------
    FactorizationResult
    """
    X, k, rng = _validate_factorization_args(X, n_components, max_iter, tol, random_state)
    Z, W = _random_init(rng, *X.shape, k, X)
    objective = [reconstruction_error(X, Z, W)]
    floor = (max(X.shape) * np.finfo(np.float64).eps) ** 2 * np.einsum("ij,ij->", X, X)
    converged = False
    for n_iter in range(1, max_iter + 1):
        Z = np.linalg.lstsq(W.T, X.T, rcond=None)[0].T
        W = np.linalg.lstsq(Z, X, rcond=None)[0]
        objective.append(reconstruction_error(X, Z, W))
        if _has_converged(objective, tol, floor):
            converged = True
            break
    return _finish(Z, W, objective, n_iter, converged, "pca_als")


def pca_gradient_descent(
    X, n_components, *, learning_rate="auto", max_iter=20000, tol=1e-12, random_state=None
):
    """Block gradient descent for ``min ‖X - Z W‖²_F`` (eq. ``eq-pca-gd``).

    Alternates one gradient step in ``Z`` and one in ``W``:
    ``Z ← Z + 2 η_Z (X - Z W) Wᵀ`` then ``W ← W + 2 η_W Zᵀ (X - Z W)``, since
    the gradients are ``∇_Z f = -2 (X - Z W) Wᵀ`` and ``∇_W f = -2 Zᵀ (X - Z W)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; centre it first to obtain PCA.
    n_components : int
        Rank ``k`` of the factorisation.
    learning_rate : "auto" or float, default="auto"
        ``"auto"`` takes the step ``1 / L`` of each block, with
        ``L = 2 ‖W Wᵀ‖₂`` (resp. ``2 ‖Zᵀ Z‖₂``) the Lipschitz constant of
        that block's gradient, which guarantees a monotone decrease. A float
        is used as a fixed step for both blocks (too large a value diverges,
        which is reported as an error, not returned as NaN).
    max_iter : int, default=20000
        Maximum number of (Z, W) sweeps.
    tol : float, default=1e-12
        Stop when the relative decrease of the objective in one sweep is below.
    random_state : None, int or numpy.random.Generator
        Seed of the random initialisation.

    Returns
    -------
    FactorizationResult
    """
    X, k, rng = _validate_factorization_args(X, n_components, max_iter, tol, random_state)
    if isinstance(learning_rate, str):
        check_option(learning_rate, name="learning_rate", allowed=("auto",))
    else:
        check_positive_float(learning_rate, name="learning_rate")
    Z, W = _random_init(rng, *X.shape, k, X)
    objective = [reconstruction_error(X, Z, W)]
    floor = (max(X.shape) * np.finfo(np.float64).eps) ** 2 * np.einsum("ij,ij->", X, X)
    converged = False
    for n_iter in range(1, max_iter + 1):
        # A diverging fixed step overflows to inf/NaN; that is detected below
        # and reported as a ValueError, without RuntimeWarnings before it.
        with np.errstate(over="ignore", invalid="ignore"):
            step_Z = _step(learning_rate, W @ W.T)
            Z = Z + 2 * step_Z * (X - Z @ W) @ W.T
            step_W = _step(learning_rate, Z.T @ Z)
            W = W + 2 * step_W * Z.T @ (X - Z @ W)
            objective.append(reconstruction_error(X, Z, W))
        if not np.isfinite(objective[-1]):
            raise ValueError(
                f"gradient descent diverged at iteration {n_iter} with "
                f"learning_rate={learning_rate}; use a smaller step or 'auto'."
            )
        if _has_converged(objective, tol, floor):
            converged = True
            break
    return _finish(Z, W, objective, n_iter, converged, "pca_gradient_descent")


def _step(learning_rate, gram):
    """Step size ``1 / (2 ‖gram‖₂)`` for ``"auto"``, else the fixed ``learning_rate``."""
    if learning_rate == "auto":
        lipschitz = 2.0 * np.linalg.norm(gram, 2)
        # A zero Gram matrix (W = 0 or Z = 0) means a zero gradient: any step
        # is exact, so take none rather than dividing by zero.
        return 1.0 / lipschitz if lipschitz > 0 else 0.0
    return learning_rate
