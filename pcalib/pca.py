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

from typing import NamedTuple

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import validate_data

from ._linalg import binary_exponent, flip_signs, top_eigh
from ._validation import (
    as_float_matrix,
    as_generator,
    check_array_size,
    check_bool,
    check_fitted,
    check_fraction,
    check_n_components,
    check_new_data,
    check_non_negative_float,
    check_non_negative_int,
    check_option,
    check_positive_int,
)
from .high_dim import principal_axes_gram, principal_axes_randomized, subspace_iteration

# The entry points: the other public names are building blocks that trust their caller.
__all__ = ["PCA", "parallel_analysis"]

# Solvers that return every one of the min(n, d) axes, and those that
# compute only the top k (chapter 2).
FULL_SOLVERS = ("full", "covariance_eigh", "gram")
PARTIAL_SOLVERS = ("subspace", "randomized")
SVD_SOLVERS = ("auto", *FULL_SOLVERS, *PARTIAL_SOLVERS)


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
        raise ValueError(
            "X has zero variance in every feature: all samples are equal, so "
            "the principal directions are undefined."
        )
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
    noise_level = (64 * np.finfo(np.float64).eps * np.abs(mean)) ** 2
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


def covariance_is_accurate(explained_variance, n_components):
    """Whether the covariance route resolves the top ``k`` variances well enough.

    Forming ``C = X_cᵀ X_c / (n - 1)`` in floating point perturbs it by about
    ``ε λ_1`` in norm, ``ε`` the machine precision; by Weyl's inequality
    every eigenvalue moves by as much, so ``λ_k`` keeps a relative accuracy of
    about ``ε λ_1 / λ_k``, where the SVD of ``X_c`` keeps ``ε σ_1 / σ_k``, the
    square root. The covariance route is accepted when
    ``ε λ_1 / λ_k ≤`` :data:`COVARIANCE_RTOL`, that is for
    ``λ_k / λ_1 ≥ 2.2e-6``.

    Parameters
    ----------
    explained_variance : ndarray of shape (r,)
        Eigenvalues of the covariance, in decreasing order.
    n_components : int
        Number ``k`` of components kept.

    Returns
    -------
    bool
    """
    largest, smallest_kept = explained_variance[0], explained_variance[n_components - 1]
    return np.finfo(np.float64).eps * largest <= COVARIANCE_RTOL * smallest_kept


def n_components_for_variance(explained_variance_ratio, fraction):
    """Smallest k whose first k components explain at least ``fraction``.

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
    k = int(np.searchsorted(cumulative, fraction, side="left")) + 1
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


def kept_variance(singular_values, n_samples, n_components, total_variance):
    """Variances along the axes, their ratios to the total, and how many are kept.

    Parameters
    ----------
    singular_values : ndarray of shape (r,)
        Singular values of the centred data, in decreasing order.
    n_samples : int
    n_components : int or float
        A count, or a fraction of variance (see :func:`n_components_for_variance`).
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
    return explained_variance, ratio, n_components


class PCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Principal component analysis.

    Finds the orthonormal directions of largest variance of the (centred,
    optionally standardised) data and projects on the first ``k`` of them:
    ``Z = (X - mean_) / scale_ @ components_.T`` (chapter 1, eq. ``eq-pca-scores``).

    Parameters and attributes carry the names of scikit-learn's
    :class:`sklearn.decomposition.PCA`, so that either can replace the other.
    pcalib adds ``standardize``, the solvers ``"gram"`` and ``"subspace"``, and
    ``max_iter`` for the latter.

    Results do not depend on the units of ``X``: ``fit(c * X)`` gives the
    components of ``fit(X)``, with ``mean_``, ``scale_`` and
    ``singular_values_`` multiplied by ``c`` and the variances by ``c**2``,
    even for data of extreme scale (see :func:`center_and_scale`).

    Parameters
    ----------
    n_components : int, float or None, default=None
        Number of components ``k`` to keep. ``None`` keeps
        ``min(n_samples, n_features)``; a float strictly between 0 and 1 keeps
        the smallest ``k`` whose components explain at least that fraction of
        the total variance.
    standardize : bool, default=False
        Divide each centred feature by its standard deviation (with the same
        ``n - 1`` denominator as the covariance), so that PCA diagonalises the
        correlation matrix. Use it when features are on different scales.
    svd_solver : {"auto", "full", "covariance_eigh", "gram", "subspace", "randomized"}, \
default="auto"
        ``"full"``: thin SVD of the centred data (chapter 1; accurate).
        ``"covariance_eigh"``: eigendecomposition of the ``d × d`` covariance
        matrix (fast when ``n_samples ≫ n_features``, but squaring the data
        loses relative accuracy on small eigenvalues).
        ``"gram"``: eigendecomposition of the ``n × n`` Gram matrix, mapped
        back to axes (chapter 2; for ``n_features ≫ n_samples``).
        ``"subspace"``: subspace (block power) iteration for the top ``k``.
        ``"randomized"``: randomized range finder for the top ``k``.
        ``"auto"``: ``"gram"`` when ``n_features ≥ 2 n_samples``;
        ``"covariance_eigh"`` when ``n_samples ≥ 10 n_features`` and
        ``n_features ≤ 1000``, unless the kept variances span too wide a range
        for it (:func:`covariance_is_accurate`), where it falls back to
        ``"full"``; else ``"full"`` (see :func:`choose_svd_solver`). The
        iterative solvers are used only when asked for. All solvers return
        the same components up to their accuracy, with the same sign
        convention.
    max_iter : int, default=1000
        Maximum number of power steps of ``svd_solver="subspace"``.
    tol : float, default=1e-10
        Convergence tolerance of ``svd_solver="subspace"``: it stops when the
        sine of the largest angle between two successive subspaces is below
        ``tol``; ``tol=0`` runs exactly ``max_iter`` steps.
    n_oversamples : int, default=10
        Extra random directions of ``svd_solver="randomized"``.
    iterated_power : int or "auto", default="auto"
        Power iterations of ``svd_solver="randomized"``; ``"auto"`` takes 7
        when ``k < 0.1 min(n_samples, n_features)`` and 4 otherwise
        (scikit-learn's rule).
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seed of the random start of the iterative solvers (checked by ``fit``
        whatever the solver).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Principal axes as orthonormal rows, sorted by decreasing variance, with
        the sign convention of the module docstring: the transpose ``Wᵀ`` of
        the book's loading matrix ``W`` (d × k).
    explained_variance_ : ndarray of shape (n_components_,)
        Variance of the data along each component, ``s**2 / (n - 1)``.
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
    svd_solver_ : str
        The solver used (what ``"auto"`` chose, after a fallback to ``"full"``).
    iterated_power_ : int
        Power iterations the randomized range finder performed (what
        ``"auto"`` chose); 0 when ``svd_solver_`` is not ``"randomized"``.
    n_iter_ : int
        Power steps of ``"subspace"``, set by its stopping rule; 0 for the
        direct solvers and for ``"randomized"``, whose fixed amount of work
        has no stopping rule (its power iterations are ``iterated_power_``).
    converged_ : bool
        Whether subspace iteration met its stopping rule within ``max_iter``
        steps; True for the other solvers, which have no stopping rule.
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

    def __init__(
        self,
        n_components=None,
        *,
        standardize=False,
        svd_solver="auto",
        max_iter=1000,
        tol=1e-10,
        n_oversamples=10,
        iterated_power="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.standardize = standardize
        self.svd_solver = svd_solver
        self.max_iter = max_iter
        self.tol = tol
        self.n_oversamples = n_oversamples
        self.iterated_power = iterated_power
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit the principal axes on ``X``.

        Attributes are set only once everything has succeeded, so a failed
        refit leaves a previously fitted estimator as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
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
        X_checked = as_float_matrix(X, name="X", min_samples=2)
        n_samples, n_features = X_checked.shape
        n_components = check_n_components(
            self.n_components, min(n_samples, n_features), allow_fraction=True
        )
        svd_solver = self.svd_solver
        if svd_solver == "auto":
            svd_solver = choose_svd_solver(n_samples, n_features)
        if isinstance(n_components, float) and svd_solver in PARTIAL_SOLVERS:
            raise ValueError(
                f"n_components={n_components} is a fraction of variance, which needs "
                f"the whole spectrum, but svd_solver={svd_solver!r} computes only the "
                "top components: pass an int, or use svd_solver='full' or 'gram'."
            )
        # The solvers work on X_centered = (X - mean) / 2**exponent; singular
        # values are multiplied back by 2**exponent and variances by 4**exponent.
        X_centered, mean, scale, exponent, total_variance = center_and_scale(
            X_checked, standardize=self.standardize, order="F" if svd_solver == "full" else "C"
        )
        n_wanted = min(n_samples, n_features) if isinstance(n_components, float) else n_components
        axes = self._principal_axes(X_centered, svd_solver, n_wanted, random_state)
        explained_variance, ratio, n_kept = kept_variance(
            axes.singular_values, n_samples, n_components, total_variance
        )
        if (
            self.svd_solver == "auto"
            and svd_solver == "covariance_eigh"
            and not covariance_is_accurate(explained_variance, n_kept)
        ):  # squaring the data cost digits of the kept variances: the SVD instead
            svd_solver = "full"
            axes = self._principal_axes(X_centered, svd_solver, n_wanted, random_state)
            explained_variance, ratio, n_kept = kept_variance(
                axes.singular_values, n_samples, n_components, total_variance
            )
        objective_history = axes.objective_history
        if objective_history is None:  # no monitored iterations: the variance captured, once
            objective_history = np.array([explained_variance[:n_kept].sum()])

        validate_data(self, X, reset=True, skip_check_array=True)
        self.mean_, self.scale_ = mean, scale
        self.svd_solver_, self.iterated_power_ = svd_solver, axes.iterated_power
        self.n_iter_ = axes.n_iter
        self.converged_ = axes.converged
        self.objective_history_ = np.ldexp(objective_history, 2 * exponent)
        self.n_samples_ = n_samples
        self.n_components_ = n_kept
        self.components_ = axes.components[:n_kept]
        self.singular_values_ = np.ldexp(axes.singular_values[:n_kept], exponent)
        self.explained_variance_ = np.ldexp(explained_variance[:n_kept], 2 * exponent)
        self.explained_variance_ratio_ = ratio[:n_kept]
        return self

    def _principal_axes(self, X_centered, svd_solver, n_wanted, random_state):
        """Run ``svd_solver`` on the centred data; see :class:`PrincipalAxes`."""
        if svd_solver == "full":
            return PrincipalAxes(*principal_axes_svd(X_centered))
        if svd_solver == "covariance_eigh":
            return PrincipalAxes(*principal_axes_covariance(X_centered))
        if svd_solver == "gram":
            return PrincipalAxes(*principal_axes_gram(X_centered, n_wanted))
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
        components, singular_values, iterated_power = principal_axes_randomized(
            X_centered,
            n_wanted,
            n_oversamples=self.n_oversamples,
            iterated_power=self.iterated_power,
            random_state=random_state,
        )
        return PrincipalAxes(components, singular_values, iterated_power=iterated_power)

    def _check_parameters(self):
        """Validate the constructor arguments (scikit-learn defers this to fit)."""
        check_bool(self.standardize, name="standardize")
        check_option(self.svd_solver, name="svd_solver", allowed=SVD_SOLVERS)
        check_positive_int(self.max_iter, name="max_iter")
        check_non_negative_float(self.tol, name="tol")
        check_non_negative_int(self.n_oversamples, name="n_oversamples")
        if isinstance(self.iterated_power, str):
            check_option(self.iterated_power, name="iterated_power", allowed=("auto",))
        else:
            check_non_negative_int(self.iterated_power, name="iterated_power")

    def _center_and_scale(self, X):
        """Centre (and scale) new data with the *training* statistics."""
        X_centered = X - self.mean_
        if self.scale_ is not None:
            X_centered /= self.scale_
        return X_centered

    def transform(self, X):
        """Project ``X`` on the components: ``(X - mean_) / scale_ @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
        """
        X_checked = check_new_data(self, X, fitted_attribute="components_")
        return self._center_and_scale(X_checked) @ self.components_.T

    def inverse_transform(self, Z):
        """Map scores back to the data space: ``Z @ components_ * scale_ + mean_``.

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
        Z = as_float_matrix(Z, name="Z")
        if Z.shape[1] != self.n_components_:
            raise ValueError(
                f"Z has {Z.shape[1]} columns but this PCA has {self.n_components_} "
                "components; pass the output of transform()."
            )
        X_hat = Z @ self.components_
        if self.scale_ is not None:
            X_hat *= self.scale_
        return X_hat + self.mean_

    @property
    def _n_features_out(self):
        """Number of output features, used by ``get_feature_names_out``."""
        return self.components_.shape[0]


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
