"""How good is a range found? (chapter 2 of the book, ``book/high_dim.md``).

A randomized solver finds an orthonormal ``Q`` whose span should hold the top
of the range of ``X``. :func:`range_error_bound` bounds the error
``‖X - Q Qᵀ X‖₂`` of any such range from a few Gaussian probes, and
:func:`adaptive_range_finder` grows ``Q`` until that bound meets a tolerance,
which chooses the rank (eq. ``eq-hd-posterior``).
"""

from typing import NamedTuple

import numpy as np

from ._validation import (
    as_float_matrix,
    as_generator,
    check_array_size,
    check_positive_float,
    check_positive_int,
    convergence_warning,
)

__all__ = ["AdaptiveRangeResult", "adaptive_range_finder", "range_error_bound"]

# HMT's Lemma 4.1: ‖A‖₂ ≤ α √(2/π) max ‖A ωᵢ‖ except with probability α^(-r); α = 10
PROBE_FACTOR = 10.0 * np.sqrt(2.0 / np.pi)


class AdaptiveRangeResult(NamedTuple):
    """What :func:`adaptive_range_finder` returns.

    Attributes
    ----------
    Q : ndarray of shape (n_samples, rank)
        Orthonormal columns; ``Q Qᵀ X`` approximates ``X``.
    error_bound_history : ndarray of shape (n_blocks + 1,)
        The probabilistic bound on ``‖X - Q Qᵀ X‖₂`` before each new block of
        columns (the first with ``Q`` empty), the last one for the ``Q`` returned.
    converged : bool
        Whether the last bound is at most ``tol · ‖X‖_F``.
    """

    Q: np.ndarray
    error_bound_history: np.ndarray
    converged: bool


def probe_residual(X, Q, Omega):
    """``(I - Q Qᵀ) X Ω``: the residual of the range of ``Q``, seen by the probes ``Ω``.

    The projection is applied twice ("twice is enough"): one pass leaves a part
    along ``Q`` of the order of the rounding error times ``‖X Ω‖``, which
    matters once the residual is much smaller than ``X``.
    """
    Y = X @ Omega
    for _ in range(2):
        Y -= Q @ (Q.T @ Y)
    return Y


def probe_bound(Y):
    """``10 √(2/π) max_i ‖y_i‖`` over the columns of ``Y`` (eq. ``eq-hd-posterior``)."""
    return PROBE_FACTOR * float(np.max(np.linalg.norm(Y, axis=0), initial=0.0))


def range_error_bound(X, Q, *, n_probes=10, random_state=None):
    """A posteriori bound on ``‖X - Q Qᵀ X‖₂`` from Gaussian probes (eq. ``eq-hd-posterior``).

    With ``r`` independent standard Gaussian vectors ``ω_i``,
    ``‖(I - Q Qᵀ) X‖₂ ≤ 10 √(2/π) max_i ‖(I - Q Qᵀ) X ω_i‖`` except with
    probability at most ``10^(-r)`` (Halko, Martinsson and Tropp 2011,
    Lemma 4.1). The probes must not have been used to build ``Q``. The cost is
    ``r`` products with ``X``, against a full SVD for the exact error.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    Q : array-like of shape (n_samples, rank)
        Orthonormal columns (``rank`` may be 0).
    n_probes : int, default=10
        Number ``r`` of Gaussian probes.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the probes.

    Returns
    -------
    float
        The bound, in the units of ``X``.
    """
    X = as_float_matrix(X)
    Q = _check_orthonormal_columns(Q, X.shape[0])
    n_probes = check_positive_int(n_probes, name="n_probes")
    check_array_size((X.shape[1], n_probes), name="n_probes")
    Omega = as_generator(random_state).standard_normal((X.shape[1], n_probes))
    return probe_bound(probe_residual(X, Q, Omega))


def adaptive_range_finder(X, *, tol=1e-2, n_probes=10, max_rank=None, random_state=None):
    """Orthonormal ``Q`` with ``‖X - Q Qᵀ X‖₂ ≤ tol ‖X‖_F``, grown until a bound says so.

    Each step draws ``r = n_probes`` Gaussian vectors and computes the residual
    ``Y = (I - Q Qᵀ) X Ω`` of the current range. They serve twice:
    ``10 √(2/π) max_i ‖y_i‖`` bounds ``‖X - Q Qᵀ X‖₂`` except with probability
    ``10^(-r)`` (eq. ``eq-hd-posterior``), and, if the bound is above
    ``tol ‖X‖_F``, the orthonormalised ``Y`` is appended to ``Q`` (a blocked
    form of Halko, Martinsson and Tropp's Algorithm 4.2). Each bound uses
    probes drawn after the ``Q`` it judges was fixed, so it is valid for it.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    tol : float > 0, default=1e-2
        Target of the spectral error, relative to the Frobenius norm of ``X``.
    n_probes : int, default=10
        Number ``r`` of probes per step, and of columns added per step.
    max_rank : int, optional
        Largest number of columns of ``Q``; None means ``min(n_samples,
        n_features)``. When it is reached before the bound meets ``tol``,
        a ``ConvergenceWarning`` is given.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the probes.

    Returns
    -------
    AdaptiveRangeResult
        ``Q`` (n_samples × rank), ``error_bound_history`` and ``converged``.
    """
    X = as_float_matrix(X)
    tol = check_positive_float(tol, name="tol")
    n_probes = check_positive_int(n_probes, name="n_probes")
    check_array_size((X.shape[1], n_probes), name="n_probes")
    full_rank = min(X.shape)
    if max_rank is not None:
        full_rank = min(check_positive_int(max_rank, name="max_rank"), full_rank)
    rng = as_generator(random_state)
    target = tol * np.linalg.norm(X)
    Q = np.empty((X.shape[0], 0))
    history = []
    while True:
        Y = probe_residual(X, Q, rng.standard_normal((X.shape[1], n_probes)))
        history.append(probe_bound(Y))
        n_new = min(n_probes, full_rank - Q.shape[1])
        if history[-1] <= target or n_new == 0:
            break
        Q_new, _ = np.linalg.qr(Y[:, :n_new])
        Q = np.hstack([Q, Q_new])
    converged = history[-1] <= target
    if not converged:
        convergence_warning(
            "adaptive_range_finder",
            full_rank,
            f"the error bound fell below tol={tol:g} times the norm of X",
        )
    return AdaptiveRangeResult(Q, np.array(history), converged)


def _check_orthonormal_columns(Q, n_samples):
    """Return ``Q`` as a float matrix with ``n_samples`` rows and orthonormal columns, or raise."""
    Q = as_float_matrix(Q, name="Q", min_features=0)
    if Q.shape[0] != n_samples:
        raise ValueError(
            f"Q must have shape (n_samples, rank) = ({n_samples}, rank); got {Q.shape}."
        )
    error = np.abs(Q.T @ Q - np.eye(Q.shape[1])).max(initial=0.0)
    if error > 1e-8:
        raise ValueError(f"Q must have orthonormal columns; QᵀQ differs from I by {error:.1e}.")
    return Q
