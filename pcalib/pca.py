"""Principal component analysis (chapter 1 of the book, ``book/pca.md``).

Conventions used throughout pcalib:

* rows of ``X`` are samples, columns are features: ``X`` has shape
  ``(n_samples, n_features)``;
* the sample covariance is ``C = X_centeredᵀ X_centered / (n - 1)``, so
  ``explained_variance_`` is the unbiased variance along each component, as in
  R's ``prcomp`` and scikit-learn (chapter 1, equation ``eq-pca-covariance``);
* the loading matrix ``W`` (d × k) has the principal axes as orthonormal
  columns, ``X ≈ 1 meanᵀ + Z Wᵀ`` (each column times its ``scale_`` after
  standardising); ``components_`` is ``Wᵀ``, as in scikit-learn;
* **sign convention**: in every component (row of ``components_``) the entry of
  largest absolute value is positive; on a tie the first such entry decides.
  Scores change sign with their component, so ``Z Wᵀ`` is unchanged.
"""

from numbers import Integral, Real
from typing import ClassVar, NamedTuple

import numpy as np
import scipy.linalg
import scipy.sparse
from sklearn.utils.validation import validate_data

from ._base import ComponentEstimator, PPCAModelMixin
from ._linalg import EPS, binary_exponent, flip_signs, numerical_rank, top_eigh
from ._validation import (
    MAX_SUM_OF_SQUARES,
    as_float_matrix,
    as_generator,
    as_sparse_float_matrix,
    check_array_size,
    check_bool,
    check_finite,
    check_fitted,
    check_fraction,
    check_n_components,
    check_new_data,
    check_non_negative_float,
    check_non_negative_int,
    check_positive_int,
    is_int,
    one_of,
    option_or,
    raise_zero_variance,
    result_dtype,
)
from .high_dim import (
    SPARSE_SOLVERS,
    implicitly_centered_axes,
    principal_axes_arpack,
    principal_axes_gram,
    principal_axes_randomized,
    subspace_iteration,
)
from .ppca import laplace_log_evidence
from .sparse_centering import column_moments, implicit_centering

# The entry points: the other public names are building blocks that trust their caller.
__all__ = ["PCA", "parallel_analysis"]

# Solvers that return every one of the min(n, d) axes, and those that
# compute only the top k (chapter 2).
FULL_SOLVERS = ("full", "covariance_eigh", "gram")
PARTIAL_SOLVERS = ("arpack", "subspace", "randomized")
SVD_SOLVERS = ("auto", *FULL_SOLVERS, *PARTIAL_SOLVERS)
# The re-orthonormalisation between power iterations of the randomized range finder.
POWER_ITERATION_NORMALIZERS = ("auto", "QR")


def principal_axes_svd(X_centered):
    """Principal axes from the SVD of the centred data (eq. ``eq-pca-svd``).

    With ``X_centered = U S Vᵀ`` the rows of ``Vᵀ`` are the eigenvectors of the
    covariance and ``s**2 / (n - 1)`` its eigenvalues. ``U`` is never formed.
    When the data is tall (``n ≥ 2d``) it is first reduced to the ``d × d``
    triangular factor of its QR decomposition ``X_centered = Q R``: since
    ``X_centeredᵀ X_centered = Rᵀ R``, ``R`` has the same singular values and
    right singular vectors, and its SVD is cheap.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
        Centred (and possibly scaled) data. It is overwritten.

    Returns
    -------
    components : ndarray of shape (r, n_features), r = min(n_samples, n_features)
    singular_values : ndarray of shape (r,), in decreasing order
    """
    n_samples, n_features = X_centered.shape
    if n_samples >= 2 * n_features:
        _, X_centered = scipy.linalg.qr(
            X_centered, mode="raw", overwrite_a=True, check_finite=False
        )
    _, s, Vt = scipy.linalg.svd(
        X_centered, full_matrices=False, overwrite_a=True, check_finite=False
    )
    components, _ = flip_signs(Vt)
    return components, s


def principal_axes_covariance(X_centered):
    """Principal axes as eigenvectors of the covariance (eq. ``eq-pca-eig``).

    Solves ``C v = λ v`` with ``C = X_centeredᵀ X_centered / (n - 1)``, the
    stationarity condition of the maximum-variance problem.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
        Centred (and possibly scaled) data.

    Returns
    -------
    components : ndarray of shape (r, n_features), r = min(n_samples, n_features)
    singular_values : ndarray of shape (r,), in decreasing order
        ``sqrt((n - 1) λ)``, so both solvers report the same quantities.
    """
    n_samples = X_centered.shape[0]
    C = X_centered.T @ X_centered / (n_samples - 1)
    eigenvalues, eigenvectors = top_eigh(C, min(X_centered.shape))
    components, _ = flip_signs(eigenvectors.T)
    return components, np.sqrt(eigenvalues * (n_samples - 1))


# Column variances inside this range are computed accurately from squares, and the
# products of squares that the solvers form (X_cᵀ X_c, X_c X_cᵀ, s²) stay far inside
# float64's normal range. Centred data whose largest variance lies outside it are first
# divided by a power of two, which is exact, so that every solver sees data of unit size.
VARIANCE_RANGE = (2.0**-500, 2.0**500)


class CenteredData(NamedTuple):
    """Centred data on a working scale, as :func:`center_and_scale` returns it.

    ``X - mean`` equals ``X_centered * scale`` (column by column) when
    standardising, and ``2**exponent * X_centered`` otherwise.

    Attributes
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
        The centred data on the working scale.
    mean : ndarray of shape (n_features,)
        The column means of ``X``.
    scale : ndarray of shape (n_features,) or None
        The standard deviations when standardising.
    exponent : int
        The power of two the centred data were divided by (0 when standardising).
    total_variance : float
        Trace of the covariance of ``X_centered``: the sum of its column
        variances, or ``n_features`` after standardising.
    """

    X_centered: np.ndarray
    mean: np.ndarray
    scale: np.ndarray | None
    exponent: int
    total_variance: float


def center_and_scale(X, *, standardize, order="F"):
    """Centre ``X``, then divide each column by its standard deviation, or all by a power of two.

    Without ``standardize`` the centred data are kept as they are, unless their
    variances leave :data:`VARIANCE_RANGE` (data of extreme scale, such as
    ``1e-160 * X``, whose squares are subnormal): they are then divided by the
    power of two ``2**exponent`` that brings their largest entry into
    ``[0.5, 1)``. The division is exact, so results on the working scale
    differ from those on ``X``'s scale only by that factor.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    standardize : bool
        Divide by the standard deviation, with the ``n - 1`` of
        eq. ``eq-pca-covariance``, so that the covariance of the result is the
        correlation matrix of ``X``.
    order : {"F", "C"}, default="F"
        Memory layout of the result: Fortran order saves LAPACK a copy in the
        SVD; C order makes the subtraction and later matrix products faster.

    Returns
    -------
    CenteredData
        ``(X_centered, mean, scale, exponent, total_variance)``; ``X_centered``
        is a new array in the requested order (``X`` is unchanged), ``scale``
        is None and ``exponent`` is 0 unless the data ask for them.

    Raises
    ------
    ValueError
        All samples are equal (no direction of variance exists), or
        ``standardize`` is True and a column is constant.
    """
    mean = X.mean(axis=0)
    X_centered = np.subtract(X, mean, order=order)
    variance = column_variances(X_centered)
    constant = _constant_columns(X, mean, variance)
    if constant.size == X.shape[1]:
        raise_zero_variance()
    if standardize:
        if constant.size:
            raise ValueError(
                f"standardize=True cannot scale feature(s) {constant.tolist()} of X: "
                "they are constant (standard deviation 0). Drop them first."
            )
        scale = standard_deviations(X_centered, variance)
        X_centered /= scale
        return CenteredData(X_centered, mean, scale, 0, float(X.shape[1]))
    exponent = 0
    if not VARIANCE_RANGE[0] <= variance.max() <= VARIANCE_RANGE[1]:
        exponent = binary_exponent(X_centered)
        np.ldexp(X_centered, -exponent, out=X_centered)
        variance = column_variances(X_centered)
    return CenteredData(X_centered, mean, None, exponent, float(variance.sum()))


def column_variances(X_centered):
    """``Σ_i x_ij² / (n - 1)`` for each column of the centred data."""
    return np.einsum("ij,ij->j", X_centered, X_centered) / (X_centered.shape[0] - 1)


def standard_deviations(X_centered, variance):
    """Column standard deviations, computed without squaring what would underflow.

    ``sqrt(variance)`` where the variance lies in :data:`VARIANCE_RANGE`.
    Below it the squares may be subnormal or 0 although the column varies
    (``1e-170 * x``): there the standard deviation is ``m · sqrt(Σ_i (x_ij /
    m)² / (n - 1))`` with ``m = max_i |x_ij|``, which squares numbers of unit
    size only.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
        Centred data, no column constant.
    variance : ndarray of shape (n_features,)
        Its :func:`column_variances`.

    Returns
    -------
    ndarray of shape (n_features,), positive

    Raises
    ------
    ValueError
        A standard deviation is too small for float64 even so.
    """
    std = np.sqrt(variance)
    small = np.flatnonzero(variance < VARIANCE_RANGE[0])
    if small.size:
        columns = X_centered[:, small]
        largest = np.abs(columns).max(axis=0)
        std[small] = largest * np.sqrt(column_variances(columns / largest))
    vanishing = np.flatnonzero(std == 0.0)
    if vanishing.size:
        raise ValueError(
            f"standardize=True cannot scale feature(s) {vanishing.tolist()} of X: they vary "
            "by amounts too small for float64 arithmetic (their standard deviation "
            "underflows to 0). Rescale them first."
        )
    return std


def _constant_columns(X, mean, variance):
    """Indices of the columns of ``X`` whose entries are all equal.

    A constant column does not always have zero computed variance: when its
    mean is not exact in floating point (e.g. 0.1), the centred column is
    rounding noise. Columns whose variance is at that noise level are tested
    exactly on ``X``; the others cannot be constant.
    """
    noise_level = (64 * EPS * np.abs(mean)) ** 2
    candidates = np.flatnonzero(variance <= noise_level)
    columns = X[:, candidates]
    return candidates[columns.min(axis=0, initial=np.inf) == columns.max(axis=0, initial=-np.inf)]


def choose_svd_solver(n_samples, n_features):
    """The solver ``"auto"`` tries first, by the shape of the data.

    * Wide data (``d ≥ 2n``): the Gram trick. The ``n × n`` Gram matrix costs
      ``O(n² d)`` to form and ``O(n³)`` to diagonalise, far less than any
      ``d × d`` computation (chapter 2).
    * Tall data (``n ≥ 10 d``, ``d ≤ 1000``): the covariance matrix. Forming
      it costs ``O(n d²)``, half the work of a QR factorisation, and its
      eigendecomposition is cheap; :func:`covariance_is_accurate` then checks
      that squaring the data cost no digits that matter, else ``"auto"`` falls
      back to the SVD.
    * Otherwise the SVD, reduced by a QR factorisation when ``n ≥ 2d``.
    """
    if n_features >= 2 * n_samples:
        return "gram"
    if n_samples >= 10 * n_features and n_features <= 1000:
        return "covariance_eigh"
    return "full"


# Relative error that "auto" accepts on the smallest variance it keeps when it
# takes the covariance route (see covariance_is_accurate).
COVARIANCE_RTOL = 1e-10


def covariance_is_accurate(explained_variance, n_components, *, mean_norm2=0.0):
    """Whether the covariance route resolves the top ``k`` variances well enough.

    Forming ``C = X_cᵀ X_c / (n - 1)`` in floating point perturbs it by about
    ``ε λ_1`` in norm, ``ε`` the machine precision; by Weyl's inequality
    every eigenvalue moves by as much, so ``λ_k`` keeps a relative accuracy of
    about ``ε λ_1 / λ_k``, where the SVD of ``X_c`` keeps ``ε σ_1 / σ_k``, the
    square root. The covariance route is accepted when
    ``ε λ_1 / λ_k ≤`` :data:`COVARIANCE_RTOL`, that is for
    ``λ_k / λ_1 ≥ 2.2e-6``. When ``C`` comes from the products of the raw data
    (:func:`covariance_from_raw_products`), the perturbation is that of
    ``XᵀX / (n - 1)``, whose norm is about ``λ_1 + ‖x̄‖²``: the test becomes
    ``ε (λ_1 + ‖x̄‖²) / λ_k ≤`` :data:`COVARIANCE_RTOL`.

    Parameters
    ----------
    explained_variance : ndarray of shape (r,)
        Eigenvalues of the covariance, in decreasing order.
    n_components : int
        Number ``k`` of components kept.
    mean_norm2 : float, default=0.0
        ``‖x̄‖²``, the squared norm of the mean, when the data were not centred
        before the product; 0 for centred data.

    Returns
    -------
    bool
    """
    largest, smallest_kept = explained_variance[0], explained_variance[n_components - 1]
    return EPS * (largest + mean_norm2) <= COVARIANCE_RTOL * smallest_kept


def covariance_from_raw_products(X):
    """``C = (XᵀX - n x̄ x̄ᵀ) / (n - 1)`` (eq. ``eq-pca-covariance``), with no centred copy.

    One pass for the mean and one product over the data, as scikit-learn's
    ``covariance_eigh`` does. The subtraction cancels digits when the mean is
    large next to the spread, so the result is used only where
    :func:`covariance_is_accurate`, given ``‖x̄‖²``, accepts it.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data, not centred, whose values have not been checked yet.

    Returns
    -------
    mean : ndarray of shape (n_features,)
    C : ndarray of shape (n_features, n_features)
        Symmetric.

    Raises
    ------
    ValueError
        ``X`` holds NaN or infinity, or its squares overflow
        (:func:`~pcalib._validation.check_finite`, called only when the
        trace of ``XᵀX``, the sum of those squares, says so).
    """
    n_samples = X.shape[0]
    mean = X.mean(axis=0)
    C = X.T @ X  # NumPy recognises XᵀX and computes one triangle (BLAS syrk)
    if not np.trace(C) <= MAX_SUM_OF_SQUARES:  # also False for NaN
        check_finite(X)
    C -= n_samples * np.outer(mean, mean)
    C /= n_samples - 1
    return mean, C


def n_components_for_variance(explained_variance_ratio, fraction):
    """Smallest k whose first k components explain strictly more than ``fraction``.

    scikit-learn's rule: a ``fraction`` equal to a cumulative ratio keeps one
    component more than that ratio's ``k`` (at most all of them).

    Parameters
    ----------
    explained_variance_ratio : ndarray of shape (r,)
        Proportions of variance, in decreasing order.
    fraction : float in (0, 1)

    Returns
    -------
    int
    """
    cumulative = np.cumsum(explained_variance_ratio)
    k = int(np.searchsorted(cumulative, fraction, side="right")) + 1
    return min(k, explained_variance_ratio.shape[0])


class PrincipalAxes(NamedTuple):
    """What a solver of :class:`PCA` found, on the working scale of :func:`center_and_scale`.

    Attributes
    ----------
    components : ndarray of shape (r, n_features)
        Orthonormal axes, in decreasing order of variance, signs flipped.
    singular_values : ndarray of shape (r,)
        The singular values of the centred data along them.
    objective_history : ndarray of shape (n_iter + 1,) or None
        Variance captured after each step of an iterative solver that
        monitors it; None for the others.
    converged : bool
        Whether the stopping rule was met (True without one).
    n_iter : int
        Steps made by an iterative solver with a stopping rule.
    iterated_power : int
        Power iterations of the randomized range finder.
    """

    components: np.ndarray
    singular_values: np.ndarray
    objective_history: np.ndarray | None = None
    converged: bool = True
    n_iter: int = 0
    iterated_power: int = 0


def check_pca_n_components(n_components, shape, svd_solver):
    """Validate ``n_components`` of :class:`PCA` for data of ``shape`` and a solver.

    scikit-learn's rules and messages: ``None`` keeps ``min(n, d)`` components
    (``min(n, d) - 1`` for ``"arpack"``, which cannot compute the last); an int
    may be 0 for the solvers that compute the whole spectrum, and must be
    below ``min(n, d)`` for ``"arpack"``; a fraction of variance and ``"mle"``
    need the whole spectrum, and ``"mle"`` needs ``n_samples >= n_features``.

    Parameters
    ----------
    n_components : int, float, "mle" or None
    shape : tuple of two ints
        ``(n_samples, n_features)``.
    svd_solver : str
        The solver that will run (``"auto"`` already resolved).

    Returns
    -------
    int, float or "mle"
    """
    rank_bound = min(shape)
    if svd_solver == "arpack" and rank_bound < 2:
        raise ValueError(
            "svd_solver='arpack' computes at most min(n_samples, n_features) - 1 "
            f"components, none for X with {shape[0]} sample(s) and {shape[1]} feature(s); "
            "use svd_solver='full'."
        )
    if n_components is None:
        return rank_bound - 1 if svd_solver == "arpack" else rank_bound
    if isinstance(n_components, str):
        if n_components != "mle":
            raise TypeError(
                "n_components must be an int, a float in (0, 1), 'mle' or None; "
                f"got {n_components!r} of type str."
            )
        if svd_solver in PARTIAL_SOLVERS:
            raise ValueError(
                f"n_components='mle' cannot be a string with svd_solver={svd_solver!r}: "
                "Minka's choice needs the whole spectrum, use 'full' or 'covariance_eigh'."
            )
        if shape[0] < shape[1]:
            raise ValueError(
                "n_components='mle' is only supported if n_samples >= n_features; "
                f"X has shape {shape}."
            )
        return n_components
    if is_int(n_components):
        lowest = 0 if svd_solver in FULL_SOLVERS else 1
        if not lowest <= n_components <= rank_bound:
            raise ValueError(
                f"n_components={n_components} must be between {lowest} and "
                f"min(n_samples, n_features)={rank_bound} with svd_solver={svd_solver!r}."
            )
        if svd_solver == "arpack" and n_components == rank_bound:
            raise ValueError(
                f"n_components={n_components} must be strictly less than "
                f"min(n_samples, n_features)={rank_bound} with svd_solver='arpack'."
            )
        return int(n_components)
    fraction = check_n_components(n_components, rank_bound, allow_fraction=True)
    if svd_solver in PARTIAL_SOLVERS:
        raise ValueError(
            f"n_components={fraction} is a fraction of variance, which needs the whole "
            f"spectrum, but svd_solver={svd_solver!r} computes only the top components: "
            "pass an int, or use svd_solver='full', 'covariance_eigh' or 'gram'."
        )
    return fraction


def needs_whole_spectrum(n_components):
    """Whether ``n_components`` is a fraction of variance or ``"mle"`` (not a count)."""
    return isinstance(n_components, str) or (
        isinstance(n_components, Real) and not isinstance(n_components, Integral)
    )


def kept_variance(singular_values, n_samples, n_components, total_variance):
    """Variances along the axes, their ratios to the total, and how many are kept.

    Parameters
    ----------
    singular_values : ndarray of shape (r,)
        Singular values of the centred data, in decreasing order.
    n_samples : int
    n_components : int, float or "mle"
        A count, a fraction of variance (see :func:`n_components_for_variance`)
        or Minka's choice (see :func:`mle_n_components`).
    total_variance : float
        Trace of the covariance, on the same scale as ``singular_values``.

    Returns
    -------
    explained_variance : ndarray of shape (r,)
        ``s**2 / (n - 1)`` (eq. ``eq-pca-svd``).
    ratio : ndarray of shape (r,)
    n_kept : int
    """
    explained_variance = singular_values**2 / (n_samples - 1)
    ratio = explained_variance / total_variance
    if isinstance(n_components, float):
        n_components = n_components_for_variance(ratio, n_components)
    elif n_components == "mle":
        n_components = mle_n_components(explained_variance, n_samples)
    return explained_variance, ratio, n_components


def mle_n_components(eigenvalues, n_samples):
    """Minka's choice of ``k`` from the spectrum of the covariance (``n_components="mle"``).

    The ``k`` in ``1, ..., d - 1`` that maximises the Laplace approximation of
    the evidence of PPCA (chapter 4, eq. ``eq-ppca-laplace``,
    :func:`pcalib.ppca.laplace_log_evidence`), as scikit-learn's
    ``PCA(n_components="mle")``. The evidence does not depend on the
    denominator of the covariance, nor on the units of the data. When the
    centred data have rank ``r < d``, the noise variance of ``k = r`` is 0 and
    the evidence unbounded: ``r`` is chosen (at least 1).

    Parameters
    ----------
    eigenvalues : ndarray of shape (n_features,)
        All eigenvalues of the covariance, in decreasing order (``n ≥ d``).
    n_samples : int

    Returns
    -------
    int
    """
    n_features = eigenvalues.shape[0]
    rank = numerical_rank(eigenvalues, (n_samples, n_features))
    if rank < n_features or n_features == 1:
        return max(rank, 1)
    log_evidence = [laplace_log_evidence(eigenvalues, k, n_samples) for k in range(1, n_features)]
    return 1 + int(np.argmax(log_evidence))


def noise_variance(explained_variance, n_kept, rank_bound, total_variance):
    """``σ²`` of the PPCA model: the mean of the ``min(n, d) - k`` discarded variances.

    scikit-learn's convention: the covariance has the ``1/(n - 1)`` of
    eq. ``eq-pca-covariance`` and the mean runs over ``min(n, d) - k``
    eigenvalues (chapter 4's closed form, eq. ``eq-ppca-ml-sigma2``, runs over
    ``d - k``; the two agree when ``n ≥ d``). 0 when ``k = min(n, d)``.

    Parameters
    ----------
    explained_variance : ndarray of shape (r,)
        The variances along the axes found: the whole spectrum
        (``r = min(n, d)``) or its top (then ``total_variance`` gives the rest).
    n_kept : int
    rank_bound : int
        ``min(n_samples, n_features)``.
    total_variance : float
        Trace of the covariance.

    Returns
    -------
    float
    """
    if n_kept >= rank_bound:
        return 0.0
    if explained_variance.shape[0] == rank_bound:
        return float(np.mean(explained_variance[n_kept:]))
    discarded = max(total_variance - float(explained_variance[:n_kept].sum()), 0.0)
    return discarded / (rank_bound - n_kept)


def singular_values_along(X_centered, components):
    """``‖X_c v_i‖`` for each axis ``v_i``, with the axes sorted by it (decreasing).

    Parameters
    ----------
    X_centered : ndarray or scipy.sparse.linalg.LinearOperator of shape (n_samples, n_features)
    components : ndarray of shape (k, n_features)
        Orthonormal rows.

    Returns
    -------
    components : ndarray of shape (k, n_features)
    singular_values : ndarray of shape (k,), in decreasing order
    """
    singular_values = np.linalg.norm(X_centered @ components.T, axis=0)
    order = np.argsort(-singular_values, kind="stable")
    return components[order], singular_values[order]


def sparse_solver_error(svd_solver):
    """The ``TypeError`` for a solver that needs the dense data, given sparse ``X``."""
    return TypeError(
        'PCA only support sparse inputs with the "arpack" and "covariance_eigh" solvers, '
        f'while "{svd_solver}" was passed (pcalib also accepts "randomized"; "auto" means '
        f'"arpack"). Densify X with X.toarray() to use "{svd_solver}", or see TruncatedSVD '
        "for a decomposition without centring."
    )


class PCA(PPCAModelMixin, ComponentEstimator):
    """Principal component analysis.

    Finds the orthonormal directions of largest variance of the (centred,
    optionally standardised) data and projects on the first ``k`` of them:
    ``Z = (X - mean_) / scale_ @ components_.T`` (chapter 1, eq. ``eq-pca-scores``).

    Parameters and attributes carry the names, values, defaults and meaning of
    scikit-learn's :class:`sklearn.decomposition.PCA`, so that either can
    replace the other. pcalib adds ``standardize``, the solvers ``"gram"`` and
    ``"subspace"`` (with ``max_iter``), the randomized solver on sparse input,
    and ``n_iter_``, ``converged_``, ``objective_history_``.

    Results do not depend on the units of ``X``: ``fit(c * X)`` gives the
    components of ``fit(X)``, with ``mean_``, ``scale_`` and
    ``singular_values_`` multiplied by ``c`` and the variances by ``c**2``,
    even for dense data of extreme scale (see :func:`center_and_scale`).

    float32 data give float32 results (``components_``, the variances,
    ``mean_``, the scores); the computation runs in float64. Any other dtype
    gives float64.

    Sparse ``X`` (scipy.sparse matrices and arrays, CSR or CSC) is centred
    implicitly, through products with ``X``, and never densified (chapter 2);
    it takes ``svd_solver`` in ``{"auto", "arpack", "covariance_eigh",
    "randomized"}``, where ``"auto"`` means ``"arpack"``.

    Parameters
    ----------
    n_components : int, float, "mle" or None, default=None
        Number of components ``k`` to keep. ``None`` keeps
        ``min(n_samples, n_features)``, or ``min(n_samples, n_features) - 1``
        with ``svd_solver="arpack"``. An int is at most ``min(n_samples,
        n_features)`` (strictly less for ``"arpack"``) and may be 0 for the
        solvers that compute the whole spectrum (``"full"``,
        ``"covariance_eigh"``, ``"gram"``). A float strictly between 0 and 1
        keeps the smallest ``k`` whose components explain strictly more than
        that fraction of the total variance. ``"mle"`` takes Minka's choice,
        the ``k`` of largest Laplace evidence under PPCA (chapter 4,
        :func:`mle_n_components`; needs ``n_samples >= n_features``). The
        fraction and ``"mle"`` need a solver of the whole spectrum.
    copy : bool, default=True
        Accepted for compatibility with scikit-learn, whose ``copy=False``
        lets the fit overwrite ``X``, and validated (a bool); pcalib never
        modifies ``X``, so both values give the same results.
    whiten : bool, default=False
        Divide each score by its standard deviation ``sqrt(explained_variance_)``
        in :meth:`transform` (and multiply back in :meth:`inverse_transform`),
        so that the scores of the training data have unit variance and are
        uncorrelated. The fitted axes and the PPCA model do not change.
    standardize : bool, default=False
        Divide each centred feature by its standard deviation (with the same
        ``n - 1`` denominator as the covariance), so that PCA diagonalises the
        correlation matrix. Use it when features are on different scales.
    svd_solver : {"auto", "full", "covariance_eigh", "gram", "arpack", "subspace", \
"randomized"}, default="auto"
        ``"full"``: thin SVD of the centred data (chapter 1; accurate).
        ``"covariance_eigh"``: eigendecomposition of the ``d × d`` covariance
        matrix (fast when ``n_samples ≫ n_features``, but squaring the data
        loses relative accuracy on small eigenvalues).
        ``"gram"``: eigendecomposition of the ``n × n`` Gram matrix, mapped
        back to axes (chapter 2; for ``n_features ≫ n_samples``).
        ``"arpack"``: ARPACK's Lanczos method (``scipy.sparse.linalg.svds``)
        for the top ``k``, ``0 < k < min(n_samples, n_features)``.
        ``"subspace"``: subspace (block power) iteration for the top ``k``.
        ``"randomized"``: randomized range finder for the top ``k``.
        ``"auto"``, on dense data: ``"gram"`` when ``n_features ≥ 2
        n_samples``; ``"covariance_eigh"`` when ``n_samples ≥ 10 n_features``
        and ``n_features ≤ 1000``, unless the kept variances span too wide a
        range for it (:func:`covariance_is_accurate`), where it falls back to
        ``"full"``; else ``"full"`` (see :func:`choose_svd_solver`). Unlike
        scikit-learn's, it never picks an approximate solver. On sparse data:
        ``"arpack"``. All solvers return the same components up to their
        accuracy, with the same sign convention.
    tol : float, default=1e-10
        Convergence tolerance of ``svd_solver="subspace"``: it stops when the
        sine of the largest angle between two successive subspaces is below
        ``tol``; ``tol=0`` runs exactly ``max_iter`` steps. ARPACK always
        converges to machine precision, what scikit-learn's default
        ``tol=0.0`` asks of it; pcalib's default differs because ``tol`` only
        stops subspace iteration, which ``tol=0`` would run ``max_iter`` times.
    max_iter : int, default=1000
        Maximum number of power steps of ``svd_solver="subspace"``.
    iterated_power : int or "auto", default="auto"
        Power iterations of ``svd_solver="randomized"``; ``"auto"`` takes 7
        when ``k < 0.1 min(n_samples, n_features)`` and 4 otherwise
        (scikit-learn's rule).
    n_oversamples : int, default=10
        Extra random directions of ``svd_solver="randomized"``.
    power_iteration_normalizer : {"auto", "QR"}, default="auto"
        How the randomized range finder re-orthonormalises between power
        iterations: by a QR factorisation, which ``"auto"`` also means in
        pcalib (scikit-learn's ``"LU"`` and ``"none"``, cheaper and less
        accurate, are not offered).
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed of the random start of ``"arpack"``, ``"subspace"`` and
        ``"randomized"`` (checked by ``fit`` whatever the solver).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Principal axes as orthonormal rows, sorted by decreasing variance, with
        the sign convention of the module docstring: the transpose ``Wᵀ`` of
        the book's loading matrix ``W`` (d × k).
    explained_variance_ : ndarray of shape (n_components_,)
        Variance of the data along each component, ``‖X_c v_i‖² / (n - 1)``:
        exactly the variance of the scores of the training data.
    explained_variance_ratio_ : ndarray of shape (n_components_,)
        ``explained_variance_`` divided by the total variance of the data.
    singular_values_ : ndarray of shape (n_components_,)
        Singular values of the centred (and scaled) training data.
    mean_ : ndarray of shape (n_features,)
        Per-feature training mean, subtracted from any data to project.
    scale_ : ndarray of shape (n_features,) or None
        Per-feature training standard deviation when ``standardize=True``.
    n_components_ : int
        Number of components kept.
    noise_variance_ : float
        The noise variance ``σ²`` of the PPCA model (chapter 4): the mean of
        the ``min(n_samples, n_features) - n_components_`` discarded
        eigenvalues of the covariance (``1/(n - 1)`` convention, as
        scikit-learn); 0 when ``n_components_ = min(n_samples, n_features)``.
        In the units of the standardised data when ``standardize=True``.
    svd_solver_ : str
        The solver used (what ``"auto"`` chose, after a fallback to ``"full"``).
    power_iteration_normalizer_ : str
        What ``power_iteration_normalizer="auto"`` means: always ``"QR"``.
    iterated_power_ : int
        Power iterations the randomized range finder performed (what
        ``"auto"`` chose); 0 when ``svd_solver_`` is not ``"randomized"``.
    n_iter_ : int
        Power steps of ``"subspace"``, set by its stopping rule; 0 for the
        other solvers, whose stopping rule is not pcalib's (ARPACK) or which
        have none (the randomized range finder's power iterations are
        ``iterated_power_``).
    converged_ : bool
        Whether subspace iteration met its stopping rule within ``max_iter``
        steps; True for the other solvers.
    objective_history_ : ndarray of shape (n_iter_ + 1,), or (1,) unless "subspace"
        Variance captured by the ``k``-dimensional subspace found,
        ``‖X_c Q‖²_F / (n - 1)`` for an orthonormal basis ``Q`` (d × k): for
        ``"subspace"`` at the random start and after every power step, for
        the other solvers once (the randomized range finder does not monitor
        its power iterations). The last entry is ``explained_variance_.sum()``.
    n_samples_ : int
        Number of training samples.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import PCA
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0], [-2.0, 0.0], [0.0, -1.0]])
    >>> pca = PCA(n_components=1).fit(X)
    >>> pca.components_
    array([[1., 0.]])
    >>> pca.explained_variance_ratio_.round(3)
    array([0.8])
    """

    _parameter_checks: ClassVar[dict] = {
        "copy": check_bool,
        "whiten": check_bool,
        "standardize": check_bool,
        "svd_solver": one_of(*SVD_SOLVERS),
        "tol": check_non_negative_float,
        "max_iter": check_positive_int,
        "iterated_power": option_or(check_non_negative_int, "auto", otherwise="an int >= 0"),
        "n_oversamples": check_non_negative_int,
        "power_iteration_normalizer": one_of(*POWER_ITERATION_NORMALIZERS),
    }

    def __init__(
        self,
        n_components=None,
        *,
        copy=True,
        whiten=False,
        standardize=False,
        svd_solver="auto",
        tol=1e-10,
        max_iter=1000,
        iterated_power="auto",
        n_oversamples=10,
        power_iteration_normalizer="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.copy = copy
        self.whiten = whiten
        self.standardize = standardize
        self.svd_solver = svd_solver
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state

    def __sklearn_tags__(self):
        """float32 is preserved; sparse input is accepted by the solvers of ``SPARSE_SOLVERS``."""
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        # "auto" means "arpack" on sparse input, which computes only the top
        # components: not enough for a fraction of variance or "mle"
        tags.input_tags.sparse = self.svd_solver in SPARSE_SOLVERS or (
            self.svd_solver == "auto" and not needs_whole_spectrum(self.n_components)
        )
        return tags

    def fit(self, X, y=None):
        """Fit the principal axes on ``X``.

        Attributes are set only once everything has succeeded, so a failed
        refit leaves a previously fitted estimator as it was.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data, at least two samples.
        y : None
            Ignored; accepted for pipeline compatibility.

        Returns
        -------
        self : PCA
            The fitted estimator.
        """
        self._check_parameters()
        random_state = as_generator(self.random_state)
        if scipy.sparse.issparse(X):
            attributes = self._fit_sparse(X, random_state)
        else:
            attributes = self._fit_dense(X, random_state)
        self._commit(X, attributes)
        return self

    def _fit_dense(self, X, random_state):
        """The fitted attributes for dense ``X``, as a dict."""
        dtype = result_dtype(X)
        X_checked = as_float_matrix(X, name="X", min_samples=2, finite=False)
        n_samples, n_features = X_checked.shape
        svd_solver = self.svd_solver
        if svd_solver == "auto":
            svd_solver = choose_svd_solver(n_samples, n_features)
        n_components = check_pca_n_components(self.n_components, X_checked.shape, svd_solver)
        if svd_solver == "covariance_eigh" and not self.standardize:
            # checks the values of X on the way (covariance_from_raw_products)
            attributes, fallback = self._fit_raw_covariance(X_checked, n_components, dtype)
            if attributes is not None:
                return attributes
            if self.svd_solver == "auto":
                svd_solver = fallback
        else:
            check_finite(X_checked)
        # The solvers work on X_centered = (X - mean) / 2**exponent; singular
        # values are multiplied back by 2**exponent and variances by 4**exponent.
        data = center_and_scale(
            X_checked, standardize=self.standardize, order="F" if svd_solver == "full" else "C"
        )
        n_wanted = n_components if isinstance(n_components, int) else min(n_samples, n_features)
        n_wanted = max(n_wanted, 1)
        axes = self._principal_axes(data.X_centered, svd_solver, n_wanted, random_state)
        explained_variance, _, n_kept = kept_variance(
            axes.singular_values, n_samples, n_components, data.total_variance
        )
        if (
            self.svd_solver == "auto"
            and svd_solver == "covariance_eigh"
            and n_kept > 0
            and not covariance_is_accurate(explained_variance, n_kept)
        ):  # squaring the data cost digits of the kept variances: the SVD instead
            svd_solver = "full"
            axes = self._principal_axes(data.X_centered, svd_solver, n_wanted, random_state)
        return self._fitted_attributes(axes, n_components, X_checked.shape, data, svd_solver, dtype)

    def _fit_raw_covariance(self, X, n_components, dtype):
        """The fitted attributes from :func:`covariance_from_raw_products`, if accurate.

        Returns ``(attributes, "covariance_eigh")`` when the kept variances pass
        :func:`covariance_is_accurate` with the mean's norm, else ``(None,
        solver)``, the solver ``"auto"`` should try next: ``"covariance_eigh"``
        on centred data, or ``"full"`` when even that would fail the test.
        Data whose variances leave :data:`VARIANCE_RANGE` are also handed to
        the centred route, which rescales them or reports that nothing varies.
        """
        mean, C = covariance_from_raw_products(X)
        variance = np.diag(C)
        if not VARIANCE_RANGE[0] <= variance.max() <= VARIANCE_RANGE[1]:
            return None, "covariance_eigh"  # center_and_scale rescales, or reports no variance
        n_samples = X.shape[0]
        eigenvalues, eigenvectors = top_eigh(C, min(X.shape))
        components, _ = flip_signs(eigenvectors.T)
        axes = PrincipalAxes(components, np.sqrt(eigenvalues * (n_samples - 1)))
        total_variance = float(variance.sum())
        explained_variance, _, n_kept = kept_variance(
            axes.singular_values, n_samples, n_components, total_variance
        )
        if n_kept > 0 and not covariance_is_accurate(
            explained_variance, n_kept, mean_norm2=float(mean @ mean)
        ):
            accurate_if_centred = covariance_is_accurate(explained_variance, n_kept)
            return None, "covariance_eigh" if accurate_if_centred else "full"
        data = CenteredData(None, mean, None, 0, total_variance)
        attributes = self._fitted_attributes(
            axes, n_components, X.shape, data, "covariance_eigh", dtype
        )
        return attributes, "covariance_eigh"

    def _fit_sparse(self, X, random_state):
        """The fitted attributes for sparse ``X``, centred implicitly, as a dict."""
        svd_solver = "arpack" if self.svd_solver == "auto" else self.svd_solver
        if svd_solver not in SPARSE_SOLVERS:
            raise sparse_solver_error(svd_solver)
        if self.svd_solver == "auto" and needs_whole_spectrum(self.n_components):
            raise ValueError(
                f"n_components={self.n_components!r} needs the whole spectrum, but on sparse "
                "X svd_solver='auto' means 'arpack', which computes only the top "
                "components: pass svd_solver='covariance_eigh' for sparse X."
            )
        dtype = result_dtype(X)
        X_checked = as_sparse_float_matrix(X, min_samples=2).astype(np.float64, copy=False)
        n_features = X_checked.shape[1]
        n_components = check_pca_n_components(self.n_components, X_checked.shape, svd_solver)
        mean, variance = column_moments(X_checked)
        if not np.any(variance > 0):
            raise_zero_variance()
        scale = None
        total_variance = float(variance.sum())
        if self.standardize:
            constant = np.flatnonzero(variance == 0)
            if constant.size:
                raise ValueError(
                    f"standardize=True cannot scale feature(s) {constant.tolist()} of X: "
                    "they are constant (standard deviation 0). Drop them first."
                )
            scale, total_variance = np.sqrt(variance), float(n_features)
        divisor = np.ones(n_features) if scale is None else scale
        components, singular_values, iterated_power = implicitly_centered_axes(
            X_checked,
            mean,
            divisor,
            n_components if svd_solver != "covariance_eigh" else None,
            svd_solver,
            n_oversamples=self.n_oversamples,
            iterated_power=self.iterated_power,
            random_state=random_state,
        )
        if svd_solver == "randomized":  # see _principal_axes
            components, singular_values = singular_values_along(
                implicit_centering(X_checked, mean, divisor), components
            )
        axes = PrincipalAxes(components, singular_values, iterated_power=iterated_power)
        data = CenteredData(None, mean, scale, 0, total_variance)
        return self._fitted_attributes(axes, n_components, X_checked.shape, data, svd_solver, dtype)

    def _fitted_attributes(self, axes, n_components, shape, data, svd_solver, dtype):
        """The attributes of a fit from what the solver found, on ``X``'s scale and dtype."""
        n_samples = shape[0]
        explained_variance, ratio, n_kept = kept_variance(
            axes.singular_values, n_samples, n_components, data.total_variance
        )
        objective_history = axes.objective_history
        if objective_history is None:  # no monitored iterations: the variance captured, once
            objective_history = np.array([explained_variance[:n_kept].sum()])
        sigma2 = noise_variance(explained_variance, n_kept, min(shape), data.total_variance)
        exponent = data.exponent
        return {
            "mean_": data.mean.astype(dtype),
            "scale_": None if data.scale is None else data.scale.astype(dtype),
            "svd_solver_": svd_solver,
            "power_iteration_normalizer_": "QR",
            "iterated_power_": axes.iterated_power,
            "n_iter_": axes.n_iter,
            "converged_": axes.converged,
            "objective_history_": np.ldexp(objective_history, 2 * exponent),
            "n_samples_": n_samples,
            "n_components_": int(n_kept),
            "components_": axes.components[:n_kept].astype(dtype),
            "singular_values_": np.ldexp(axes.singular_values[:n_kept], exponent).astype(dtype),
            "explained_variance_": np.ldexp(explained_variance[:n_kept], 2 * exponent).astype(
                dtype
            ),
            "explained_variance_ratio_": ratio[:n_kept].astype(dtype),
            "noise_variance_": float(np.ldexp(sigma2, 2 * exponent)),
        }

    def _principal_axes(self, X_centered, svd_solver, n_wanted, random_state):
        """Run ``svd_solver`` on the centred data; see :class:`PrincipalAxes`."""
        if svd_solver == "full":
            return PrincipalAxes(*principal_axes_svd(X_centered))
        if svd_solver == "covariance_eigh":
            return PrincipalAxes(*principal_axes_covariance(X_centered))
        if svd_solver == "gram":
            return PrincipalAxes(*principal_axes_gram(X_centered, n_wanted))
        if svd_solver == "arpack":
            return PrincipalAxes(
                *principal_axes_arpack(X_centered, n_wanted, random_state=random_state)
            )
        if svd_solver == "subspace":
            components, singular_values, history, converged = subspace_iteration(
                X_centered,
                n_wanted,
                max_iter=self.max_iter,
                tol=self.tol,
                random_state=random_state,
            )
            return PrincipalAxes(
                components, singular_values, history, converged, n_iter=len(history) - 1
            )
        components, _, iterated_power = principal_axes_randomized(
            X_centered,
            n_wanted,
            n_oversamples=self.n_oversamples,
            iterated_power=self.iterated_power,
            random_state=random_state,
        )
        # The range finder's singular values are those of Qᵀ X_c, the data
        # projected on the subspace it found: they underestimate ‖X_c v_i‖ by
        # the part of X_c v_i outside that subspace. ‖X_c v_i‖ is never below
        # them, its sum of squares never above the top-k variances (Ky Fan),
        # and its error is of the second order in the error of v_i; it is also
        # exactly the norm of the scores transform() returns for the training
        # data, so that explained_variance_ is their variance.
        components, singular_values = singular_values_along(X_centered, components)
        return PrincipalAxes(components, singular_values, iterated_power=iterated_power)

    def _check_new_data(self, X):
        """Validate data given to the fitted estimator; return it and the dtype of results.

        Dense data come back as float64 arrays, sparse data as CSR or CSC.
        """
        check_fitted(self, "components_")
        dtype = np.result_type(result_dtype(X), self.components_.dtype)
        if not scipy.sparse.issparse(X):
            return check_new_data(self, X, fitted_attribute="components_"), dtype
        X_checked = as_sparse_float_matrix(X).astype(np.float64, copy=False)
        validate_data(self, X, reset=False, skip_check_array=True)
        return X_checked, dtype

    def _center_and_scale(self, X):
        """Centre (and scale) new data with the *training* statistics."""
        X_centered = X - self.mean_
        if self.scale_ is not None:
            X_centered /= self.scale_
        return X_centered

    def _project_sparse(self, X):
        """``(X - mean_) / scale_ @ components_.T`` for sparse ``X``, without densifying it.

        ``X (V D⁻¹)ᵀ - (D⁻¹ mean_)ᵀ Vᵀ``: only the scores are dense.
        """
        axes = self.components_.astype(np.float64)
        mean = self.mean_.astype(np.float64)
        if self.scale_ is not None:
            axes = axes / self.scale_
        return X @ axes.T - mean @ axes.T

    def _whitening_scale(self):
        """``sqrt(explained_variance_)``, the standard deviations of the scores, floored.

        The floor, ``eps`` times the largest, keeps the whitened scores finite
        along a direction of rounding-level variance (rank-deficient data).
        scikit-learn floors at ``eps`` itself, which depends on the units of
        the data; a floor relative to the largest does not.
        """
        std = self._score_deviations()
        return np.maximum(std, EPS * np.max(std, initial=0.0))

    def _score_deviations(self):
        """``singular_values_ / sqrt(n - 1)``: ``sqrt(explained_variance_)``, in units of X.

        Computed from the singular values, which stay representable for data
        so small that their variances underflow.
        """
        return self.singular_values_.astype(np.float64) / np.sqrt(self.n_samples_ - 1)

    def transform(self, X):
        """Project ``X`` on the components: ``(X - mean_) / scale_ @ components_.T``.

        With ``whiten=True`` each score is then divided by its standard
        deviation ``sqrt(explained_variance_)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features_in_)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
        """
        X_checked, dtype = self._check_new_data(X)
        if scipy.sparse.issparse(X_checked):
            Z = self._project_sparse(X_checked)
        else:
            Z = self._center_and_scale(X_checked) @ self.components_.T
        if self.whiten:
            Z = Z / self._whitening_scale()
        return Z.astype(dtype, copy=False)

    def inverse_transform(self, Z):
        """Map scores back to the data space: ``Z @ components_ * scale_ + mean_``.

        With ``whiten=True`` the scores are first multiplied by
        ``sqrt(explained_variance_)``, undoing :meth:`transform`.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components_)

        Returns
        -------
        X_hat : ndarray of shape (n_samples, n_features_in_)
            The best rank-``n_components_`` approximation of the data that
            produced ``Z`` (eq. ``eq-pca-reconstruction``).
        """
        check_fitted(self, "components_")
        dtype = np.result_type(result_dtype(Z), self.components_.dtype)
        Z = as_float_matrix(Z, name="Z", min_features=0)
        if Z.shape[1] != self.n_components_:
            raise ValueError(
                f"Z has {Z.shape[1]} columns but this PCA has {self.n_components_} "
                "components; pass the output of transform()."
            )
        if self.whiten:
            Z = Z * self._score_deviations()
        X_hat = Z @ self.components_
        if self.scale_ is not None:
            X_hat *= self.scale_
        return (X_hat + self.mean_).astype(dtype, copy=False)


# ----------------------------------------------------------------------------
# Choosing k by parallel analysis


class ParallelAnalysisResult(NamedTuple):
    """What :func:`parallel_analysis` returns.

    Attributes
    ----------
    n_components : int
        Number of leading eigenvalues that exceed their null threshold, counted
        from the first and stopping at the first that does not (0 to ``d``).
    eigenvalues : ndarray of shape (n_features,)
        Eigenvalues of the covariance (or correlation) matrix of ``X``, in
        decreasing order.
    null_eigenvalues : ndarray of shape (n_draws, n_features)
        Row ``b``: the eigenvalues, in decreasing order, of the same matrix
        for ``X`` with each column permuted independently (draw ``b``).
    threshold : ndarray of shape (n_features,)
        The ``quantile`` of ``null_eigenvalues`` at each rank (column).
    quantile : float
        The quantile used.
    """

    n_components: int
    eigenvalues: np.ndarray
    null_eigenvalues: np.ndarray
    threshold: np.ndarray
    quantile: float


def parallel_analysis(X, *, n_draws=100, quantile=0.95, standardize=True, random_state=None):
    """Number of components by Horn's parallel analysis (chapter 1, eq. ``eq-pca-parallel``).

    The null is data with the same columns but no correlation: each column of
    ``X`` permuted independently. The ``j``-th eigenvalue of the covariance
    (eq. ``eq-pca-covariance``), or of the correlation matrix, is kept when it
    exceeds the ``quantile`` of the ``j``-th eigenvalue over ``n_draws``
    permuted copies; ``n_components`` counts the kept eigenvalues from the
    first and stops at the first that is not kept.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data, at least two samples.
    n_draws : int, default=100
        Number of permuted copies of ``X``.
    quantile : float in (0, 1), default=0.95
        Quantile of the null eigenvalues that an eigenvalue must exceed.
    standardize : bool, default=True
        Use the correlation matrix (True) or the covariance matrix (False).
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        Source of the permutations.

    Returns
    -------
    ParallelAnalysisResult
        ``(n_components, eigenvalues, null_eigenvalues, threshold, quantile)``;
        ``eigenvalues`` and ``threshold`` have shape ``(n_features,)``,
        ``null_eigenvalues`` shape ``(n_draws, n_features)``. Without
        ``standardize`` the eigenvalues are in the units of ``X`` squared.
    """
    X = as_float_matrix(X, name="X", min_samples=2)
    n_draws = check_positive_int(n_draws, name="n_draws")
    check_array_size((n_draws, X.shape[1]), name="n_draws")
    quantile = check_fraction(quantile, name="quantile", open_interval=True)
    standardize = check_bool(standardize, name="standardize")
    rng = as_generator(random_state)
    data = center_and_scale(X, standardize=standardize, order="C")
    eigenvalues = covariance_eigenvalues(data.X_centered)
    null_eigenvalues = np.array(
        [covariance_eigenvalues(permuted_columns(data.X_centered, rng)) for _ in range(n_draws)]
    )
    threshold = np.quantile(null_eigenvalues, quantile, axis=0)
    # the leading run of eigenvalues above their threshold
    n_components = int(np.cumprod(eigenvalues > threshold).sum())
    # back from the working scale of center_and_scale (exact: a power of four)
    return ParallelAnalysisResult(
        n_components,
        *(
            np.ldexp(values, 2 * data.exponent)
            for values in (eigenvalues, null_eigenvalues, threshold)
        ),
        quantile,
    )


def covariance_eigenvalues(X_centered):
    """Eigenvalues of ``X_centeredᵀ X_centered / (n - 1)`` in decreasing order, shape (d,)."""
    covariance = X_centered.T @ X_centered / (X_centered.shape[0] - 1)
    return np.linalg.eigvalsh(covariance)[::-1]


def permuted_columns(X, random_state):
    """``X`` (n × d) with each column permuted independently, one permutation per column.

    A ``Generator`` given as ``random_state`` is used as it is, so successive
    calls continue its stream.
    """
    rng = as_generator(random_state)
    return np.column_stack([rng.permutation(column) for column in X.T])
