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

Every solver returns ``components`` (k × d, orthonormal rows, pcalib's sign
convention) and ``singular_values`` (k,) of ``X_c``, the quantities
:func:`pcalib.pca.principal_axes_svd` returns, so that :class:`pcalib.PCA` can
use any of them.

Sparse data (a ``scipy.sparse`` matrix, such as a document-term matrix) is
never densified: :func:`sparse_column_moments` computes the column means and
variances from the stored entries, :func:`centered_operator` multiplies by
``X - 1 μᵀ`` as ``X v - (μᵀ v) 1`` (eq. ``eq-hd-implicit``), and
:func:`principal_axes_sparse` runs ARPACK, the covariance route or the
randomized range finder on it.

:func:`range_error_bound` bounds the error ``‖X - Q Qᵀ X‖₂`` of a range
found, from a few Gaussian probes, and :func:`adaptive_range_finder` grows
``Q`` until that bound meets a tolerance, which chooses the rank
(eq. ``eq-hd-posterior``).

For choosing ``k`` in high dimension, :func:`optimal_hard_threshold` gives
Gavish and Donoho's threshold on the singular values (eqs. ``eq-hd-gd-known``
and ``eq-hd-gd-unknown``), with the noise level known or estimated from the
median singular value through the Marchenko–Pastur law.
"""

from typing import NamedTuple

import numpy as np
import scipy.integrate
import scipy.linalg
import scipy.optimize
import scipy.sparse
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
    as_float_matrix,
    as_float_vector,
    as_generator,
    as_sparse_float_matrix,
    check_array_size,
    check_n_components,
    check_non_negative_int,
    check_option,
    check_positive_float,
    check_positive_int,
    convergence_warning,
)

# The solvers are the building blocks of PCA's solvers and trust their caller (PCA
# checks the data); the entry points are the choice of k by the optimal hard threshold
# and the a-posteriori error bound of a range, with the range finder that uses it.
__all__ = [
    "AdaptiveRangeResult",
    "HardThresholdResult",
    "adaptive_range_finder",
    "optimal_hard_threshold",
    "range_error_bound",
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
# How good is a range found? An a-posteriori bound, and a range finder that stops
# when the bound meets a tolerance

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


# ----------------------------------------------------------------------------
# Sparse data: centring without densifying

SPARSE_SOLVERS = ("arpack", "covariance_eigh", "randomized")


def sparse_column_moments(X):
    """Column means and variances (``ddof=1``) of a sparse matrix, without densifying it.

    Column ``j`` holds ``nnz_j`` stored entries ``x_ij`` and ``n - nnz_j``
    zeros, so ``μ_j = Σ x_ij / n`` and

    ``(n - 1) σ_j² = Σ_stored (x_ij - μ_j)² + (n - nnz_j) μ_j²``,

    a sum of non-negative terms. Unlike ``Σ x_ij² - n μ_j²``, it loses no
    digits when the mean is large compared to the spread. The sums are
    accumulated in float64.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
        At least two samples.

    Returns
    -------
    mean : ndarray of shape (n_features,)
    variance : ndarray of shape (n_features,)
        Both in the dtype of ``X`` (float32 stays float32, other dtypes give float64).
    """
    X = as_sparse_float_matrix(X)
    n_samples, n_features = X.shape
    if n_samples < 2:
        raise ValueError(f"X has {n_samples} sample(s) while a minimum of 2 is required.")
    entries = X.tocoo()
    columns = entries.col
    n_stored = np.bincount(columns, minlength=n_features)
    # float64 sums: without stored entries, bincount returns int64 zeros
    sums = np.bincount(columns, weights=entries.data, minlength=n_features)
    mean = sums.astype(np.float64, copy=False) / n_samples
    deviations = entries.data - mean[columns]
    sum_of_squares = np.bincount(columns, weights=deviations**2, minlength=n_features)
    sum_of_squares = sum_of_squares.astype(np.float64, copy=False)
    sum_of_squares += (n_samples - n_stored) * mean**2
    variance = sum_of_squares / (n_samples - 1)
    return mean.astype(X.dtype), variance.astype(X.dtype)


def centered_operator(X, mean, scale=None):
    """The centred, scaled data ``(X - 1 μᵀ) D⁻¹`` as a linear operator (eq. ``eq-hd-implicit``).

    ``D`` is the diagonal of ``scale``. Products with the operator use only
    products with the sparse ``X``:

    * ``(X - 1 μᵀ) D⁻¹ V = X (D⁻¹ V) - 1 (μᵀ D⁻¹ V)``;
    * ``D⁻¹ (X - 1 μᵀ)ᵀ U = D⁻¹ (Xᵀ U - μ (1ᵀ U))``.

    Each costs ``O(nnz + (n + d) m)`` for ``m`` vectors, and the dense
    ``n × d`` centred matrix is never formed.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    mean : array-like of shape (n_features,)
        The vector ``μ`` subtracted from every row, usually the column means.
    scale : None, float > 0 or array-like of shape (n_features,), default=None
        The divisor of each column (e.g. the standard deviations, or a power
        of two that brings the data to unit size); None means 1.

    Returns
    -------
    scipy.sparse.linalg.LinearOperator of shape (n_samples, n_features)
        With ``matvec``, ``rmatvec``, ``matmat`` and ``rmatmat``; its dtype is that of ``X``.
    """
    X = as_sparse_float_matrix(X)
    mean, scale = _check_mean_and_scale(mean, scale, X)

    def matmat(V):
        V = V / scale[:, np.newaxis]
        return X @ V - mean @ V

    def rmatmat(U):
        return (X.T @ U - np.outer(mean, U.sum(axis=0))) / scale[:, np.newaxis]

    return scipy.sparse.linalg.LinearOperator(
        X.shape,
        matvec=lambda v: matmat(v.reshape(-1, 1)).ravel(),
        rmatvec=lambda u: rmatmat(u.reshape(-1, 1)).ravel(),
        matmat=matmat,
        rmatmat=rmatmat,
        dtype=X.dtype,
    )


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

    The solvers see the centred data ``(X - 1 μᵀ) D⁻¹`` only through
    :func:`centered_operator` (or, for the covariance, through ``Xᵀ X``), so
    the sparse ``X`` is never densified:

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
    mean : array-like of shape (n_features,)
        The column means (see :func:`sparse_column_moments`).
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
        Orthonormal rows, pcalib's sign convention; ``r = k``, or ``min(n, d)``
        for ``"covariance_eigh"``.
    singular_values : ndarray of shape (r,), in decreasing order
        Those of the centred, scaled data.
    iterated_power_used : int
        The power iterations of the randomized solver; 0 for the others.
    """
    svd_solver = check_option(svd_solver, name="svd_solver", allowed=SPARSE_SOLVERS)
    n_oversamples = check_non_negative_int(n_oversamples, name="n_oversamples")
    if iterated_power != "auto":
        iterated_power = check_non_negative_int(iterated_power, name="iterated_power")
    rng = as_generator(random_state)
    X = as_sparse_float_matrix(X)
    mean, scale = _check_mean_and_scale(mean, scale, X)
    rank_bound = min(X.shape)
    if svd_solver == "arpack":
        k = check_n_components(
            n_components, rank_bound - 1, upper_name="min(n_samples, n_features) - 1 for ARPACK"
        )
        components, singular_values = principal_axes_arpack(
            centered_operator(X, mean, scale), k, random_state=rng
        )
        return components, singular_values, 0
    k = check_n_components(n_components, rank_bound)
    if svd_solver == "covariance_eigh":
        C = sparse_covariance(X, mean, scale)
        eigenvalues, eigenvectors = top_eigh(C, rank_bound)
        components, _ = flip_signs(eigenvectors.T)
        return components, np.sqrt(eigenvalues * (X.shape[0] - 1)), 0
    return principal_axes_randomized(
        centered_operator(X, mean, scale),
        k,
        n_oversamples=n_oversamples,
        iterated_power=iterated_power,
        random_state=rng,
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


def sparse_covariance(X, mean, scale):
    """``C = D⁻¹ (X - 1 μᵀ)ᵀ (X - 1 μᵀ) D⁻¹ / (n - 1)`` from the sparse product ``Xᵀ X``.

    With the column sums ``t = Xᵀ 1``, ``(X - 1 μᵀ)ᵀ (X - 1 μᵀ) = Xᵀ X - μ tᵀ - t μᵀ + n μ μᵀ``,
    which is ``Xᵀ X - n μ μᵀ`` when ``μ`` is the column mean ``t / n``. The
    sums are accumulated in float64.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    mean : ndarray of shape (n_features,)
    scale : ndarray of shape (n_features,)

    Returns
    -------
    C : ndarray of shape (n_features, n_features), float64
    """
    n_samples = X.shape[0]
    X = X.astype(np.float64, copy=False)
    mean = mean.astype(np.float64, copy=False)
    column_sums = np.asarray(X.sum(axis=0)).ravel()
    cross = np.outer(mean, column_sums)
    scatter = (X.T @ X).toarray() - cross - cross.T + n_samples * np.outer(mean, mean)
    return scatter / np.outer(scale, scale) / (n_samples - 1)


def _check_mean_and_scale(mean, scale, X):
    """Return ``mean`` and ``scale`` as finite arrays of shape (n_features,) in X's dtype."""
    n_features = X.shape[1]
    mean = as_float_vector(mean, name="mean", length=n_features, meaning="one per feature")
    if scale is None:
        scale = np.ones(n_features)
    elif np.ndim(scale) == 0:
        scale = np.full(n_features, check_positive_float(scale, name="scale"))
    else:
        scale = as_float_vector(scale, name="scale", length=n_features, meaning="one per feature")
        if not np.all(scale > 0):
            raise ValueError(f"scale must be positive, got the minimum {scale.min():g}.")
    return mean.astype(X.dtype), scale.astype(X.dtype)


# ----------------------------------------------------------------------------
# Choosing k: the optimal hard threshold for singular values


class HardThresholdResult(NamedTuple):
    """What :func:`optimal_hard_threshold` returns.

    Attributes
    ----------
    threshold : float
        The threshold ``τ`` on the singular values, in the units of the data.
    n_components : int
        Number of singular values strictly above ``τ``.
    """

    threshold: float
    n_components: int


def optimal_hard_threshold(singular_values, shape, *, noise_variance=None):
    """Gavish and Donoho's optimal hard threshold for singular values (chapter 2).

    For an ``n × d`` matrix, signal plus white noise of variance ``σ²``, with
    ``N = max(n, d)`` and the aspect ratio ``β = min(n, d) / N``, the
    singular values kept are those above

    * ``τ = λ*(β) √N σ`` when ``σ²`` is known (eq. ``eq-hd-gd-known``);
    * ``τ = ω(β) y_med`` when it is not, with ``y_med`` the median singular
      value and ``ω(β) = λ*(β) / √μ_β``, where ``μ_β`` is the median of the
      Marchenko–Pastur law of ratio ``β`` (eq. ``eq-hd-gd-unknown``).

    ``ω(β)`` is computed from ``μ_β`` by quadrature, not by the paper's cubic
    approximation. If more than half of the singular values are 0, ``y_med = 0``
    and, with unknown noise, every non-zero singular value is kept.

    Parameters
    ----------
    singular_values : array-like of shape (n_singular_values,)
        Singular values of the data matrix, non-negative, in any order. With
        unknown noise all ``min(n, d)`` of them are needed (for the median);
        with known noise any of them (e.g. the top few).
    shape : tuple of two ints
        ``(n, d)``, the shape of the data matrix.
    noise_variance : float > 0, optional
        The variance ``σ²`` of each noise entry, in the units of the data
        squared; ``None`` (the default) estimates the noise level from the
        median singular value.

    Returns
    -------
    HardThresholdResult
        ``(threshold, n_components)``: ``τ`` and the number of singular values
        above it.
    """
    shape = _check_shape(shape)
    singular_values = _check_singular_values(singular_values, shape, noise_variance is None)
    beta = min(shape) / max(shape)
    if noise_variance is None:
        omega = hard_threshold_coefficient(beta) / np.sqrt(marchenko_pastur_median(beta))
        threshold = omega * float(np.median(singular_values))
    else:
        noise_variance = check_positive_float(noise_variance, name="noise_variance")
        threshold = hard_threshold_coefficient(beta) * np.sqrt(max(shape) * noise_variance)
    return HardThresholdResult(float(threshold), int(np.sum(singular_values > threshold)))


def hard_threshold_coefficient(beta):
    """``λ*(β)``, the optimal hard threshold in units of ``√N σ`` (eq. ``eq-hd-gd-known``).

    ``λ*(β) = √(2(β + 1) + 8β / (β + 1 + √(β² + 14β + 1)))``; ``λ*(1) = 4/√3``.

    Parameters
    ----------
    beta : float in (0, 1]
        Aspect ratio ``min(n, d) / max(n, d)`` of the data matrix.

    Returns
    -------
    float
        ``λ*(β)``, from ``√2`` (as ``β → 0``) to ``4/√3`` (``β = 1``).
    """
    return np.sqrt(2 * (beta + 1) + 8 * beta / (beta + 1 + np.sqrt(beta**2 + 14 * beta + 1)))


def marchenko_pastur_cdf(x, beta):
    """Distribution function of the Marchenko–Pastur law of ratio ``β``, σ² = 1 (eq. ``eq-hd-mp``).

    The integral of the density from the lower edge ``(1 - √β)²`` to ``x``,
    by adaptive quadrature (the density has integrable square-root
    singularities at the edges, and ``1/√t`` at 0 when ``β = 1``).

    Parameters
    ----------
    x : float
        A point of the support ``[(1 - √β)², (1 + √β)²]``.
    beta : float in (0, 1]
        Ratio of the law, ``γ`` of eq. ``eq-hd-mp``.

    Returns
    -------
    float
        ``F(x)``, the probability of an eigenvalue below ``x``.
    """
    low, high = (1 - np.sqrt(beta)) ** 2, (1 + np.sqrt(beta)) ** 2

    def density(t):
        return np.sqrt((high - t) * (t - low)) / (2 * np.pi * beta * t)

    return scipy.integrate.quad(density, low, x, epsabs=1e-13, epsrel=1e-12)[0]


def marchenko_pastur_median(beta):
    """Median ``μ_β`` of the Marchenko–Pastur law of ratio ``β``, σ² = 1.

    The root of ``F(μ) = 1/2`` on the support, by Brent's method on
    :func:`marchenko_pastur_cdf`.

    Parameters
    ----------
    beta : float in (0, 1]
        Ratio of the law; for singular values, ``min(n, d) / max(n, d)``.

    Returns
    -------
    float
        ``μ_β``, in ``[(1 - √β)², 1]``.
    """
    low, high = (1 - np.sqrt(beta)) ** 2, (1 + np.sqrt(beta)) ** 2
    return scipy.optimize.brentq(
        lambda mu: marchenko_pastur_cdf(mu, beta) - 0.5, low, high, xtol=1e-14, rtol=1e-14
    )


def _check_shape(shape):
    """Raise unless ``shape`` is a pair of positive ints; return it as a tuple."""
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (n, d) of positive ints, got {shape!r}.")
    return tuple(check_positive_int(size, name=f"shape[{i}]") for i, size in enumerate(shape))


def _check_singular_values(singular_values, shape, need_all):
    """Return ``singular_values`` as a 1-D float array of valid singular values of ``shape``."""
    name = "singular_values"
    if singular_values is None:
        raise TypeError(f"{name} must be a 1-D array-like of numbers, got None.")
    try:
        ndim = np.ndim(singular_values)
    except ValueError as exc:
        raise ValueError(f"{name} must be a 1-D array-like of numbers: {exc}") from exc
    if ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got {ndim} dimension(s).")
    values = as_float_matrix(np.asarray(singular_values)[np.newaxis, :], name=name)[0]
    if np.any(values < 0):
        raise ValueError(f"{name} must be non-negative, got the minimum {values.min():g}.")
    rank = min(shape)
    if len(values) > rank or (need_all and len(values) != rank):
        expected = f"all min(n, d) = {rank}" if need_all else f"at most min(n, d) = {rank}"
        raise ValueError(
            f"{name} has {len(values)} entries for a matrix of shape {shape}; expected "
            f"{expected} (the median, used when noise_variance is None, needs all of them)."
        )
    return values


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
