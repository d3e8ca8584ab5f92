"""PCA in high dimension: the solvers (chapter 2 of the book, ``book/high_dim.md``).

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

Every solver returns ``components`` (k × d, orthonormal rows, pcalib's sign
convention) and ``singular_values`` (k,) of ``X_c``, the quantities
:func:`pcalib.pca.principal_axes_svd` returns, so that :class:`pcalib.PCA` can
use any of them.

Sparse data (a ``scipy.sparse`` matrix, such as a document-term matrix) is
never densified: :func:`implicitly_centered_axes` runs ARPACK, the covariance
route or the randomized range finder on the data centred implicitly by
:mod:`pcalib.sparse_centering` (eq. ``eq-hd-implicit``), and
:func:`principal_axes_sparse` is its entry point, which checks its arguments.

The chapter's other subjects have their own modules, whose names are also
importable from here: :mod:`pcalib.sparse_centering`,
:mod:`pcalib.range_finder` (the a-posteriori error bound of a range, and the
range finder that uses it) and :mod:`pcalib.hard_threshold` (Gavish and
Donoho's choice of ``k``).
"""

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from ._linalg import (
    EPS,
    flip_signs,
    numerical_rank,
    randomized_svd,
    resolve_iterated_power,
    top_eigh,
)
from ._validation import (
    as_generator,
    as_sparse_float_matrix,
    check_n_components,
    check_non_negative_int,
    check_option,
    convergence_warning,
)

# The chapter's other modules: their names stay importable from here, the
# building blocks by the redundant aliases that mark a re-export.
from .hard_threshold import HardThresholdResult, optimal_hard_threshold
from .hard_threshold import hard_threshold_coefficient as hard_threshold_coefficient
from .hard_threshold import marchenko_pastur_cdf as marchenko_pastur_cdf
from .hard_threshold import marchenko_pastur_median as marchenko_pastur_median
from .range_finder import PROBE_FACTOR as PROBE_FACTOR
from .range_finder import AdaptiveRangeResult, adaptive_range_finder, range_error_bound
from .range_finder import probe_bound as probe_bound
from .range_finder import probe_residual as probe_residual
from .sparse_centering import (
    centered_operator,
    check_mean_and_scale,
    implicit_centering,
    sparse_column_moments,
    sparse_covariance,
)
from .sparse_centering import column_moments as column_moments

# The solvers are the building blocks of PCA's solvers and trust their caller (PCA
# checks the data); principal_axes_sparse checks its arguments. The other entry
# points are those of the chapter's other modules, importable from here too.
__all__ = [
    "AdaptiveRangeResult",
    "HardThresholdResult",
    "adaptive_range_finder",
    "centered_operator",
    "optimal_hard_threshold",
    "principal_axes_sparse",
    "range_error_bound",
    "sparse_column_moments",
]


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


# ----------------------------------------------------------------------------
# Sparse data, centred implicitly

SPARSE_SOLVERS = ("arpack", "covariance_eigh", "randomized")


def principal_axes_sparse(
    X,
    mean,
    scale,
    n_components,
    svd_solver,
    *,
    n_oversamples=10,
    iterated_power="auto",
    random_state=None,
):
    """Principal axes of sparse data, centred implicitly (eq. ``eq-hd-implicit``).

    Checks its arguments and runs :func:`implicitly_centered_axes`.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    mean : array-like of shape (n_features,)
        The column means (see :func:`pcalib.sparse_centering.sparse_column_moments`).
    scale : None, float > 0 or array-like of shape (n_features,)
        The divisor of each centred column; None means 1.
    n_components : int or None
        Number ``k`` of axes: ``1 ≤ k < min(n, d)`` for ``"arpack"``,
        ``1 ≤ k ≤ min(n, d)`` for ``"randomized"``; None asks for the most the
        solver can give. ``"covariance_eigh"`` returns all ``min(n, d)`` axes.
    svd_solver : {"arpack", "covariance_eigh", "randomized"}
    n_oversamples : int, default=10
        Extra random directions of the randomized solver.
    iterated_power : int or "auto", default="auto"
        Power iterations of the randomized solver (see
        :func:`pcalib._linalg.resolve_iterated_power`).
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of ARPACK's starting vector or of the randomized test matrix.

    Returns
    -------
    components : ndarray of shape (r, n_features)
    singular_values : ndarray of shape (r,)
    iterated_power_used : int
        As :func:`implicitly_centered_axes` returns them.
    """
    svd_solver = check_option(svd_solver, name="svd_solver", allowed=SPARSE_SOLVERS)
    n_oversamples = check_non_negative_int(n_oversamples, name="n_oversamples")
    if iterated_power != "auto":
        iterated_power = check_non_negative_int(iterated_power, name="iterated_power")
    rng = as_generator(random_state)
    X = as_sparse_float_matrix(X)
    mean, scale = check_mean_and_scale(mean, scale, X)
    rank_bound = min(X.shape)
    if svd_solver == "arpack":
        k = check_n_components(
            n_components, rank_bound - 1, upper_name="min(n_samples, n_features) - 1 for ARPACK"
        )
    else:
        k = check_n_components(n_components, rank_bound)
    return implicitly_centered_axes(
        X,
        mean,
        scale,
        k,
        svd_solver,
        n_oversamples=n_oversamples,
        iterated_power=iterated_power,
        random_state=rng,
    )


def implicitly_centered_axes(
    X, mean, scale, n_components, svd_solver, *, n_oversamples, iterated_power, random_state
):
    """Principal axes of the checked sparse ``X``, centred implicitly (eq. ``eq-hd-implicit``).

    The solvers see the centred data ``(X - 1 μᵀ) D⁻¹`` only through
    :func:`pcalib.sparse_centering.implicit_centering` (or, for the
    covariance, through ``Xᵀ X``), so the sparse ``X`` is never densified:

    * ``"arpack"``: the Lanczos method of ARPACK (``scipy.sparse.linalg.svds``)
      on the operator, for ``k < min(n, d)`` axes;
    * ``"covariance_eigh"``: the ``d × d`` covariance
      ``D⁻¹ (Xᵀ X - n μ μᵀ) D⁻¹ / (n - 1)``, formed from the sparse product
      and diagonalised; like every covariance route it squares the data, so
      axes whose variance is below about ``eps`` times the largest are lost;
    * ``"randomized"``: the randomized range finder of
      :func:`principal_axes_randomized`, applied to the operator.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
        CSR or CSC with float entries, as
        :func:`pcalib._validation.as_sparse_float_matrix` returns it.
    mean : ndarray of shape (n_features,)
        The column means, in the dtype of ``X``.
    scale : ndarray of shape (n_features,)
        The positive divisor of each centred column, in the dtype of ``X``.
    n_components : int or None
        Number ``k`` of axes: ``1 ≤ k < min(n, d)`` for ``"arpack"``,
        ``1 ≤ k ≤ min(n, d)`` for ``"randomized"``; not used by
        ``"covariance_eigh"``, which returns all ``min(n, d)`` axes.
    svd_solver : {"arpack", "covariance_eigh", "randomized"}
    n_oversamples : int
        Extra random directions of the randomized solver.
    iterated_power : int or "auto"
        Power iterations of the randomized solver.
    random_state : numpy.random.Generator
        Source of ARPACK's starting vector or of the randomized test matrix.

    Returns
    -------
    components : ndarray of shape (r, n_features)
        Orthonormal rows, pcalib's sign convention; ``r = k``, or ``min(n, d)``
        for ``"covariance_eigh"``.
    singular_values : ndarray of shape (r,), in decreasing order
        Those of the centred, scaled data.
    iterated_power_used : int
        The power iterations of the randomized solver; 0 for the others.
    """
    if svd_solver == "arpack":
        components, singular_values = principal_axes_arpack(
            implicit_centering(X, mean, scale), n_components, random_state=random_state
        )
        return components, singular_values, 0
    if svd_solver == "covariance_eigh":
        eigenvalues, eigenvectors = top_eigh(sparse_covariance(X, mean, scale), min(X.shape))
        components, _ = flip_signs(eigenvectors.T)
        return components, np.sqrt(eigenvalues * (X.shape[0] - 1)), 0
    return principal_axes_randomized(
        implicit_centering(X, mean, scale),
        n_components,
        n_oversamples=n_oversamples,
        iterated_power=iterated_power,
        random_state=random_state,
    )


def principal_axes_arpack(X_centered, n_components, *, random_state=None):
    """Top-``k`` principal axes by ARPACK's Lanczos method (``scipy.sparse.linalg.svds``).

    Parameters
    ----------
    X_centered : ndarray or scipy.sparse.linalg.LinearOperator of shape (n_samples, n_features)
        The centred (and possibly scaled) data, or an operator that multiplies by it.
    n_components : int
        Number ``k < min(n_samples, n_features)`` of axes.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the starting vector, uniform on ``[-1, 1]``.

    Returns
    -------
    components : ndarray of shape (k, n_features)
    singular_values : ndarray of shape (k,), in decreasing order
    """
    v0 = as_generator(random_state).uniform(-1.0, 1.0, min(X_centered.shape))
    _, singular_values, Vt = scipy.sparse.linalg.svds(
        X_centered, k=n_components, v0=v0, return_singular_vectors="vh"
    )
    order = np.argsort(singular_values)[::-1]
    components, _ = flip_signs(Vt[order])
    return components, singular_values[order]
