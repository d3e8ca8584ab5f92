"""PCA as a matrix factorisation ``X ≈ Z Wᵀ`` (chapter 1, section "PCA as matrix factorisation").

Both solvers minimise the squared Frobenius error (eq. ``eq-pca-mf``)

    f(Z, W) = ‖X - Z Wᵀ‖²_F,   Z of shape (n, k),  W of shape (d, k),

which is smallest when the columns of ``W`` span the top-``k`` principal
subspace of ``X`` (pass centred data to obtain PCA). Neither ``Z`` nor ``W``
is unique, only their product and the subspace spanned by ``W`` are: compare
results with principal angles, not entry by entry.

The module also holds what every factorisation of pcalib shares (chapters 1,
6 and 7): the result type :class:`FactorizationResult`, the argument checks
and the random start.
"""

from dataclasses import dataclass

import numpy as np

from ._linalg import EPS
from ._validation import (
    as_float_matrix,
    as_generator,
    check_n_components,
    check_non_negative_float,
    check_option,
    check_positive_float,
    check_positive_int,
    check_squares_representable,
    convergence_warning,
)

__all__ = ["FactorizationResult", "pca_als", "pca_gradient_descent"]


@dataclass(frozen=True)
class FactorizationResult:
    """Result of an iterative factorisation ``X ≈ 1 offsetᵀ + Z Wᵀ``.

    Attributes
    ----------
    Z : ndarray of shape (n_samples, k)
        Scores (latent coordinates of the samples).
    W : ndarray of shape (n_features, k)
        Loadings, one column per component; their column space estimates the
        principal subspace.
    objective_history : ndarray of shape (n_iter + 1,)
        The objective of the function at the start and after every iteration.
    n_iter : int
        Number of iterations performed.
    converged : bool
        Whether the stopping rule was met before ``max_iter``.
    offset : ndarray of shape (n_features,) or None
        A fitted offset (the L1 factorisation's robust centre, the logistic
        model's biases), or None when the model has none.
    """

    Z: np.ndarray
    W: np.ndarray
    objective_history: np.ndarray
    n_iter: int
    converged: bool
    offset: np.ndarray | None = None

    def reconstruction(self):
        """``Z Wᵀ`` plus the offset in every row: the fitted ``X`` (n × d)."""
        X_hat = self.Z @ self.W.T
        return X_hat if self.offset is None else X_hat + self.offset


def check_factorization_args(X, n_components, max_iter, tol, random_state):
    """The checks every factorisation shares; returns ``X``, ``k`` and a random generator.

    ``tol=0`` is accepted and means "run exactly ``max_iter`` iterations". A
    non-zero ``X`` whose squares underflow (entries near ``1e-160``) is
    refused: the objectives, sums of squares, could not be computed.
    """
    X = as_float_matrix(X, name="X", min_samples=2)
    check_squares_representable(X)
    k = check_n_components(n_components, min(X.shape))
    check_positive_int(max_iter, name="max_iter")
    check_non_negative_float(tol, name="tol")
    return X, k, as_generator(random_state)


def random_factors(random_state, X, k):
    """Random Gaussian ``Z`` (n × k) and ``W`` (d × k) with ``Z Wᵀ`` about as large as ``X``."""
    rng = as_generator(random_state)
    n_samples, n_features = X.shape
    scale = np.sqrt(np.linalg.norm(X) / np.sqrt(n_samples * n_features))
    Z = rng.standard_normal((n_samples, k)) * scale
    W = rng.standard_normal((n_features, k)) * scale
    return Z, W


def factorization_result(Z, W, history, converged, *, name, criterion, offset=None):
    """Warn when the solver ``name`` stopped before ``criterion``; pack the result.

    ``history`` holds the objective at the start and after each iteration, so
    the number of iterations is one less than its length.
    """
    n_iter = len(history) - 1
    if not converged:
        convergence_warning(name, n_iter, criterion, stacklevel=4)
    return FactorizationResult(Z, W, np.asarray(history, dtype=float), n_iter, converged, offset)


def small_decrease(history, tol):
    """Whether the last iteration lowered the objective by less than ``tol`` times its start.

    Used by the factorisations of chapters 6 and 7.

    An objective of 0 cannot be lowered and counts as converged. The test is
    strict and never holds for ``tol=0``, which therefore runs exactly
    ``max_iter`` iterations, even where rounding makes the objective rise by
    an ulp.
    """
    return tol > 0 and (history[-2] - history[-1] < tol * history[0] or history[-1] <= 0)


def reconstruction_error(X, Z, W):
    """Squared Frobenius error ``‖X - Z Wᵀ‖²_F`` of eq. ``eq-pca-mf``."""
    residual = X - Z @ W.T
    return float(np.einsum("ij,ij->", residual, residual))


def _has_converged(objective_history, tol, floor):
    """Whether the relative decrease of the objective in the last sweep is below ``tol``.

    ``floor`` is the rounding level of the objective,
    ``(max(n, d) · eps)² · ‖X‖²_F``: an error at or below it is an exact fit
    (k ≥ rank of X), where relative changes are only noise, so the solver
    stops there too. ``tol=0`` never stops: the solver runs ``max_iter`` sweeps.
    """
    if tol == 0.0:
        return False
    previous, current = objective_history[-2], objective_history[-1]
    return current <= floor or abs(previous - current) < tol * previous


def _rounding_floor(X):
    """``(max(n, d) · eps)² · ‖X‖²_F``, the rounding level of ``‖X - Z Wᵀ‖²_F``."""
    return (max(X.shape) * EPS) ** 2 * np.einsum("ij,ij->", X, X)


def pca_als(X, n_components, *, max_iter=1000, tol=1e-12, random_state=None):
    """Alternating least squares for ``min ‖X - Z Wᵀ‖²_F`` (eq. ``eq-pca-als``).

    Each half-step solves a linear least-squares problem exactly:
    ``Z ← X W (Wᵀ W)⁻¹`` then ``W ← Xᵀ Z (Zᵀ Z)⁻¹``, so the objective never
    increases. The solves use ``numpy.linalg.lstsq`` so that a rank-deficient
    ``X`` (rank below ``k``) gives the minimum-norm solution instead of an
    error.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; centre it first to obtain PCA.
    n_components : int or None
        Rank ``k`` of the factorisation, ``1 ≤ k ≤ min(n_samples, n_features)``;
        ``None`` takes ``min(n_samples, n_features)``.
    max_iter : int, default=1000
        Maximum number of (Z, W) sweeps.
    tol : float, default=1e-12
        Stop when the relative decrease of the objective in one sweep is below
        ``tol``; ``tol=0`` runs exactly ``max_iter`` sweeps.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the random initialisation.

    Returns
    -------
    FactorizationResult
        ``Z`` (n_samples, k), ``W`` (n_features, k) and the objective
        ``‖X - Z Wᵀ‖²_F`` at the start and after every sweep.
    """
    X, k, rng = check_factorization_args(X, n_components, max_iter, tol, random_state)
    Z, W = random_factors(rng, X, k)
    objective_history = [reconstruction_error(X, Z, W)]
    floor = _rounding_floor(X)
    converged = False
    for _ in range(max_iter):
        Z = np.linalg.lstsq(W, X.T, rcond=None)[0].T
        W = np.linalg.lstsq(Z, X, rcond=None)[0].T
        objective_history.append(reconstruction_error(X, Z, W))
        if _has_converged(objective_history, tol, floor):
            converged = True
            break
    return factorization_result(
        Z, W, objective_history, converged, name="pca_als", criterion=_criterion(tol)
    )


def pca_gradient_descent(
    X, n_components, *, learning_rate="auto", max_iter=20000, tol=1e-12, random_state=None
):
    """Block gradient descent for ``min ‖X - Z Wᵀ‖²_F`` (eq. ``eq-pca-gd``).

    Alternates one gradient step in ``Z`` and one in ``W``:
    ``Z ← Z + 2 η_Z (X - Z Wᵀ) W`` then ``W ← W + 2 η_W (X - Z Wᵀ)ᵀ Z``, since
    the gradients are ``∇_Z f = -2 (X - Z Wᵀ) W`` and
    ``∇_W f = -2 (X - Z Wᵀ)ᵀ Z``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data; centre it first to obtain PCA.
    n_components : int or None
        Rank ``k`` of the factorisation, ``1 ≤ k ≤ min(n_samples, n_features)``;
        ``None`` takes ``min(n_samples, n_features)``.
    learning_rate : "auto" or float, default="auto"
        ``"auto"`` takes the step ``1 / L`` of each block, with
        ``L = 2 ‖Wᵀ W‖₂`` (resp. ``2 ‖Zᵀ Z‖₂``) the Lipschitz constant of
        that block's gradient, which guarantees a monotone decrease. A float
        is used as a fixed step for both blocks (too large a value diverges,
        which is reported as an error, not returned as NaN).
    max_iter : int, default=20000
        Maximum number of (Z, W) sweeps.
    tol : float, default=1e-12
        Stop when the relative decrease of the objective in one sweep is below
        ``tol``; ``tol=0`` runs exactly ``max_iter`` sweeps.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the random initialisation.

    Returns
    -------
    FactorizationResult
        ``Z`` (n_samples, k), ``W`` (n_features, k) and the objective
        ``‖X - Z Wᵀ‖²_F`` at the start and after every sweep.
    """
    X, k, rng = check_factorization_args(X, n_components, max_iter, tol, random_state)
    if isinstance(learning_rate, str):
        check_option(learning_rate, name="learning_rate", allowed=("auto",))
    else:
        check_positive_float(learning_rate, name="learning_rate")
    Z, W = random_factors(rng, X, k)
    objective_history = [reconstruction_error(X, Z, W)]
    floor = _rounding_floor(X)
    converged = False
    for n_iter in range(1, max_iter + 1):
        # A diverging fixed step overflows to inf/NaN; that is detected below
        # and reported as a ValueError, without RuntimeWarnings before it.
        with np.errstate(over="ignore", invalid="ignore"):
            step_Z = _step(learning_rate, W.T @ W)
            Z = Z + 2 * step_Z * (X - Z @ W.T) @ W
            step_W = _step(learning_rate, Z.T @ Z)
            W = W + 2 * step_W * (X - Z @ W.T).T @ Z
            objective_history.append(reconstruction_error(X, Z, W))
        if not np.isfinite(objective_history[-1]):
            raise ValueError(
                f"gradient descent diverged at iteration {n_iter} with "
                f"learning_rate={learning_rate}; use a smaller step or 'auto'."
            )
        if _has_converged(objective_history, tol, floor):
            converged = True
            break
    return factorization_result(
        Z,
        W,
        objective_history,
        converged,
        name="pca_gradient_descent",
        criterion=_criterion(tol),
    )


def _criterion(tol):
    """The stopping rule of both solvers, for the ``ConvergenceWarning``."""
    return f"the relative decrease of the objective fell below tol={tol:g}"


def _step(learning_rate, gram):
    """Step size ``1 / (2 ‖gram‖₂)`` for ``"auto"``, else the fixed ``learning_rate``."""
    if learning_rate == "auto":
        lipschitz = 2.0 * np.linalg.norm(gram, 2)
        # A zero Gram matrix (W = 0 or Z = 0) means a zero gradient: any step
        # is exact, so take none rather than dividing by zero.
        return 1.0 / lipschitz if lipschitz > 0 else 0.0
    return learning_rate
