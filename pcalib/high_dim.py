"""PCA in high dimension (chapter 2 of the book, ``book/high_dim.md``).

Three ways to find the principal axes of centred data ``X_c`` (n × d) that
avoid the ``d × d`` covariance matrix or compute only the top ``k`` axes:

* :func:`principal_axes_gram`: eigenvectors ``v`` of the ``n × n`` Gram matrix
  ``X_c X_cᵀ``, mapped back to axes ``u = X_cᵀ v / s`` (eq. ``eq-hd-gram-map``);
  the cost is ``O(n² d)`` instead of ``O(d³)``, which pays when ``d ≫ n``;
* :func:`subspace_iteration`: the block power method for the top ``k`` axes,
  whose convergence is governed by the eigengap ``λ_{k+1} / λ_k``
  (eq. ``eq-hd-subspace``);
* :func:`randomized_svd`: a randomized range finder with oversampling and power
  iterations, followed by the SVD of a small matrix (eq. ``eq-hd-randomized``).

Every function returns ``components`` (k × d, orthonormal rows, pcalib's sign
convention) and ``singular_values`` (k,) of ``X_c``, the quantities
:func:`pcalib.pca.principal_axes_svd` returns, so that :class:`pcalib.PCA` can
use any of them.
"""

import warnings

import numpy as np
import scipy.linalg
from sklearn.exceptions import ConvergenceWarning

from ._linalg import flip_signs
from ._validation import as_generator

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
    n_samples, n_features = X_centered.shape
    G = X_centered @ X_centered.T
    eigenvalues, V = scipy.linalg.eigh(
        G, subset_by_index=[n_samples - n_components, n_samples - 1], check_finite=False
    )
    eigenvalues, V = np.clip(eigenvalues[::-1], 0.0, None), V[:, ::-1]
    singular_values = np.sqrt(eigenvalues)
    rank = numerical_rank(eigenvalues, X_centered.shape)
    axes = (X_centered.T @ V[:, :rank]) / singular_values[:rank]
    if rank < n_components:
        axes = np.hstack([axes, orthonormal_completion(axes, n_components - rank)])
        singular_values[rank:] = 0.0
    components, _ = flip_signs(axes.T)
    return components, singular_values


def numerical_rank(eigenvalues, shape):
    """Number of eigenvalues above the rounding level ``max(shape) · eps · λ_1``.

    ``eigenvalues`` are those of a Gram or covariance matrix, in decreasing
    order: their rounding error is ``eps · λ_1``, so a null eigenvalue comes
    out as about ``1e-16 λ_1`` and its square root as about ``1e-8 √λ_1``.
    """
    if eigenvalues.size == 0 or eigenvalues[0] == 0.0:
        return 0
    threshold = max(shape) * np.finfo(np.float64).eps * eigenvalues[0]
    return int(np.count_nonzero(eigenvalues > threshold))


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


def subspace_iteration(
    X_centered, n_components, *, max_iter=1000, tol=1e-10, random_state=None
):
    """Top-``k`` principal axes by subspace (block power) iteration (eq. ``eq-hd-subspace``).

    Repeats ``Q ← qr(X_cᵀ (X_c Q))``, a power step with the covariance up to
    its factor, keeping ``Q`` (d × k) orthonormal. The angle between the
    subspace of ``Q`` and the top-``k`` principal subspace shrinks by about
    ``λ_{k+1} / λ_k`` per step. A Rayleigh–Ritz step (SVD of ``X_c Q``) then
    gives the axes and singular values within the subspace.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    n_components : int
    max_iter : int, default=1000
        Maximum number of power steps.
    tol : float, default=1e-10
        Stop when the sine of the largest angle between two successive
        subspaces, ``‖Q_new - Q Qᵀ Q_new‖₂``, falls below ``tol``.
    random_state : None, int or numpy.random.Generator
        Seed of the random start.

    Returns
    -------
    components : ndarray of shape (k, n_features)
    singular_values : ndarray of shape (k,)
    n_iter : int
        Number of power steps performed.
    """
    rng = as_generator(random_state)
    Q, _ = np.linalg.qr(rng.standard_normal((X_centered.shape[1], n_components)))
    converged = False
    for n_iter in range(1, max_iter + 1):
        Q_new, R = np.linalg.qr(X_centered.T @ (X_centered @ Q))
        # Columns with a null R_jj (k above the rank of X_c) are rounding noise
        # that changes at every step: leave them out of the stopping test.
        signal = np.abs(np.diag(R)) > max(X_centered.shape) * EPS * np.abs(R).max()
        change = np.linalg.norm(Q_new[:, signal] - Q @ (Q.T @ Q_new[:, signal]), 2)
        Q = Q_new
        if change < tol:
            converged = True
            break
    if not converged:
        warnings.warn(
            f"subspace iteration stopped after max_iter={max_iter} steps with a "
            f"subspace change of {change:.1e} > tol={tol:g}: the eigengap "
            "lambda_(k+1) / lambda_k is close to 1. Increase max_iter or use "
            "solver='svd'.",
            ConvergenceWarning,
            stacklevel=2,
        )
    components, singular_values = rayleigh_ritz(X_centered, Q)
    return components, singular_values, n_iter


def rayleigh_ritz(X_centered, Q):
    """Best axes within the span of the orthonormal columns of ``Q`` (d × l).

    The SVD ``X_c Q = U S Wᵀ`` gives the axes ``(Q W)ᵀ`` and their singular
    values ``S``: PCA of the data restricted to the subspace.
    """
    _, singular_values, Wt = scipy.linalg.svd(
        X_centered @ Q, full_matrices=False, check_finite=False
    )
    components, _ = flip_signs(Wt @ Q.T)
    return components, singular_values


def randomized_svd(
    X_centered, n_components, *, n_oversamples=10, n_power_iterations="auto", random_state=None
):
    """Top-``k`` principal axes by a randomized range finder (eq. ``eq-hd-randomized``).

    1. Draw a Gaussian test matrix ``Ω`` (d × l) with ``l = k + n_oversamples``
       and form ``Y = X_c Ω``: its columns are random mixtures of the columns
       of ``X_c``, dominated by the top singular directions.
    2. Sharpen with ``q`` power iterations, ``Y ← X_c (X_cᵀ Y)``,
       re-orthonormalising after each product (without it, the small singular
       values drown in rounding); each iteration raises the decay of the
       spectrum seen by the range finder to a higher power.
    3. ``Q = qr(Y)`` spans (approximately) the top of the range of ``X_c``, and
       the Rayleigh–Ritz step on ``B = Qᵀ X_c`` (l × d) gives the axes.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    n_components : int
    n_oversamples : int, default=10
        Extra random directions ``p``; the error bound improves quickly with ``p``.
    n_power_iterations : int or "auto", default="auto"
        Number ``q`` of power iterations; ``"auto"`` takes 7 when
        ``k < 0.1 min(n, d)`` and 4 otherwise (the rule of scikit-learn's
        ``randomized_svd``, so that the two can be compared like for like).
    random_state : None, int or numpy.random.Generator
        Seed of ``Ω``.

    Returns
    -------
    components : ndarray of shape (k, n_features)
    singular_values : ndarray of shape (k,)
    n_iter : int
        Number of power iterations performed.
    """
    n_samples, n_features = X_centered.shape
    if n_power_iterations == "auto":
        small = n_components < 0.1 * min(n_samples, n_features)
        n_power_iterations = 7 if small else 4
    n_columns = min(n_components + n_oversamples, n_samples, n_features)
    Omega = as_generator(random_state).standard_normal((n_features, n_columns))
    Q, _ = np.linalg.qr(X_centered @ Omega)
    for _ in range(n_power_iterations):
        Q, _ = np.linalg.qr(X_centered.T @ Q)
        Q, _ = np.linalg.qr(X_centered @ Q)
    B = Q.T @ X_centered
    _, singular_values, Vt = scipy.linalg.svd(B, full_matrices=False, check_finite=False)
    components, _ = flip_signs(Vt[:n_components])
    return components, singular_values[:n_components], n_power_iterations
