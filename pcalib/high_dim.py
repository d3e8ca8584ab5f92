"""PCA in high dimension (chapter 2 of the book, ``book/high_dim.md``).

Three ways to find the principal axes of centred data ``X_c`` (n × d) that
avoid the ``d × d`` covariance matrix or compute only the top ``k`` axes:

* :func:`principal_axes_gram`: eigenvectors ``v`` of the ``n × n`` Gram matrix
  ``X_c X_cᵀ``, mapped back to axes ``u = X_cᵀ v / s`` (eq. ``eq-hd-gram-map``);
  the cost is ``O(n² d)`` instead of ``O(d³)``, which pays when ``d ≫ n``;
* :func:`subspace_iteration`: the block power method for the top ``k`` axes,
  whose convergence is governed by the eigengap ``λ_{k+1} / λ_k``
  (eq. ``eq-hd-subspace``);
* :func:`principal_axes_randomized`: the randomized range finder of
  :func:`pcalib._linalg.randomized_svd`, with oversampling and power
  iterations (eq. ``eq-hd-randomized``).

Every function returns ``components`` (k × d, orthonormal rows, pcalib's sign
convention) and ``singular_values`` (k,) of ``X_c``, the quantities
:func:`pcalib.pca.principal_axes_svd` returns, so that :class:`pcalib.PCA` can
use any of them.
"""

import numpy as np
import scipy.linalg

from ._linalg import (
    flip_signs,
    numerical_rank,
    randomized_svd,
    resolve_iterated_power,
    top_eigh,
)
from ._validation import as_generator, convergence_warning

# No entry points: these functions are the building blocks of PCA's solvers and trust
# their caller (PCA checks the data).
__all__ = []

EPS = np.finfo(np.float64).eps


def principal_axes_gram(X_centered, n_components):
    """Top principal axes from the eigenvectors of the Gram matrix (eq. ``eq-hd-gram``).

    With ``G = X_c X_cᵀ = V S² Vᵀ`` (n × n), the axes are
    ``u_i = X_cᵀ v_i / s_i`` (eq. ``eq-hd-gram-map``), of unit norm because
    ``‖X_cᵀ v_i‖² = v_iᵀ G v_i = s_i²``. Axes of zero variance (when ``k``
    exceeds the rank of ``X_c``) are not unique; they are completed by an
    orthonormal basis of the orthogonal complement (see
    :func:`orthonormal_completion`).

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
        Centred (and possibly scaled) data.
    n_components : int
        Number ``k ≤ min(n_samples, n_features)`` of axes to return.

    Returns
    -------
    components : ndarray of shape (k, n_features)
    singular_values : ndarray of shape (k,), in decreasing order
    """
    eigenvalues, V = top_eigh(X_centered @ X_centered.T, n_components)
    singular_values = np.sqrt(eigenvalues)
    rank = numerical_rank(eigenvalues, X_centered.shape)
    axes = (X_centered.T @ V[:, :rank]) / singular_values[:rank]
    if rank < n_components:
        axes = np.hstack([axes, orthonormal_completion(axes, n_components - rank)])
        singular_values[rank:] = 0.0
    components, _ = flip_signs(axes.T)
    return components, singular_values


def orthonormal_completion(basis, n_vectors):
    """``n_vectors`` orthonormal columns orthogonal to the orthonormal columns of ``basis``.

    Directions of zero variance are not unique: any orthonormal basis of the
    complement is a valid set of principal axes. pcalib takes a fixed one,
    from a Gaussian matrix seeded with 0, so results are reproducible.

    Parameters
    ----------
    basis : ndarray of shape (d, r)
        Orthonormal columns.
    n_vectors : int
        Number of columns to add, ``r + n_vectors ≤ d``.

    Returns
    -------
    ndarray of shape (d, n_vectors)
    """
    candidates = np.random.default_rng(0).standard_normal((basis.shape[0], n_vectors))
    for _ in range(2):  # project twice: one pass loses orthogonality to rounding
        candidates -= basis @ (basis.T @ candidates)
    completion, _ = np.linalg.qr(candidates)
    return completion


def subspace_iteration(X_centered, n_components, *, max_iter=1000, tol=1e-10, random_state=None):
    """Top-``k`` principal axes by subspace (block power) iteration (eq. ``eq-hd-subspace``).

    Repeats ``Q ← qr(X_cᵀ (X_c Q))``, a power step with the covariance up to
    its factor, keeping ``Q`` (d × k) orthonormal. The angle between the
    subspace of ``Q`` and the top-``k`` principal subspace shrinks by about
    ``λ_{k+1} / λ_k`` per step. A Rayleigh–Ritz step (SVD of ``X_c Q``) then
    gives the axes and singular values within the subspace.

    The objective recorded is the variance captured by the subspace,
    ``‖X_c Q‖²_F / (n - 1)``, the trace of ``Qᵀ C Q``: it grows towards
    ``λ_1 + … + λ_k`` (theorem ``thm-pca-max-variance`` of chapter 1). It
    costs nothing extra, since every step forms ``X_c Q`` anyway.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
        Centred (and possibly scaled) data.
    n_components : int
        Number ``k ≤ min(n_samples, n_features)`` of axes.
    max_iter : int, default=1000
        Maximum number of power steps.
    tol : float, default=1e-10
        Stop when the sine of the largest angle between two successive
        subspaces, ``‖Q_new - Q Qᵀ Q_new‖₂``, is below ``tol``; ``tol=0``
        runs exactly ``max_iter`` steps.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the random start.

    Returns
    -------
    components : ndarray of shape (k, n_features)
    singular_values : ndarray of shape (k,), in decreasing order
    objective_history : ndarray of shape (n_iter + 1,)
        The variance captured by the random start and after each power step;
        ``n_iter`` is the number of steps performed.
    converged : bool
        Whether the stopping rule was met within ``max_iter`` steps (if not,
        a ``ConvergenceWarning`` is emitted).
    """
    n_samples, n_features = X_centered.shape
    rng = as_generator(random_state)
    Q, _ = np.linalg.qr(rng.standard_normal((n_features, n_components)))
    XQ = X_centered @ Q
    objective_history = [captured_variance(XQ, n_samples)]
    converged = False
    for _ in range(max_iter):
        Q_new, R = np.linalg.qr(X_centered.T @ XQ)
        # Columns with a null R_jj (k above the rank of X_c) are rounding noise
        # that changes at every step: leave them out of the stopping test.
        signal = np.abs(np.diag(R)) > max(X_centered.shape) * EPS * np.abs(R).max()
        change = np.linalg.norm(Q_new[:, signal] - Q @ (Q.T @ Q_new[:, signal]), 2)
        Q = Q_new
        XQ = X_centered @ Q
        objective_history.append(captured_variance(XQ, n_samples))
        if change < tol:
            converged = True
            break
    if not converged:
        criterion = f"the change of subspace fell below tol={tol:g}"
        convergence_warning("subspace_iteration", max_iter, criterion)
    components, singular_values = rayleigh_ritz(XQ, Q)
    return components, singular_values, np.array(objective_history), converged


def captured_variance(XQ, n_samples):
    """``‖X_c Q‖²_F / (n - 1)``: the variance of the data within the span of ``Q``."""
    return float(np.einsum("ij,ij->", XQ, XQ)) / (n_samples - 1)


def rayleigh_ritz(XQ, Q):
    """Best axes within the span of the orthonormal columns of ``Q`` (d × l).

    The SVD ``X_c Q = U S Pᵀ`` gives the axes ``(Q P)ᵀ`` and their singular
    values ``S``: PCA of the data restricted to the subspace.

    Parameters
    ----------
    XQ : ndarray of shape (n_samples, l)
        The product ``X_c Q``.
    Q : ndarray of shape (n_features, l)
        Orthonormal columns.

    Returns
    -------
    components : ndarray of shape (l, n_features)
    singular_values : ndarray of shape (l,), in decreasing order
    """
    _, singular_values, Pt = scipy.linalg.svd(XQ, full_matrices=False, check_finite=False)
    components, _ = flip_signs(Pt @ Q.T)
    return components, singular_values


def principal_axes_randomized(
    X_centered, n_components, *, n_oversamples=10, iterated_power="auto", random_state=None
):
    """Top-``k`` principal axes by a randomized range finder (eq. ``eq-hd-randomized``).

    :func:`pcalib._linalg.randomized_svd` finds an orthonormal ``Q`` whose
    span captures the top of the range of ``X_c`` (algorithm
    ``alg-hd-randomized``); the SVD of ``Qᵀ X_c`` gives the right singular
    vectors, the principal axes, to which pcalib's sign convention is applied.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
        Centred (and possibly scaled) data.
    n_components : int
        Number ``k ≤ min(n_samples, n_features)`` of axes.
    n_oversamples : int, default=10
        Extra random directions ``p``; the error bound improves quickly with ``p``.
    iterated_power : int or "auto", default="auto"
        Number ``q`` of power iterations (see :func:`pcalib._linalg.resolve_iterated_power`).
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the random test matrix.

    Returns
    -------
    components : ndarray of shape (k, n_features)
    singular_values : ndarray of shape (k,), in decreasing order
    n_iter : int
        Number ``q`` of power iterations performed.
    """
    n_iter = resolve_iterated_power(iterated_power, n_components, X_centered.shape)
    _, singular_values, Vt = randomized_svd(
        X_centered,
        n_components,
        n_oversamples=n_oversamples,
        iterated_power=n_iter,
        random_state=random_state,
    )
    components, _ = flip_signs(Vt)
    return components, singular_values, n_iter
