"""Principal component analysis (chapter 1 of the book, ``book/pca.md``).

Conventions used throughout pcalib:

* rows of ``X`` are samples, columns are features: ``X`` has shape
  ``(n_samples, n_features)``;
* the sample covariance is ``C = X_centeredᵀ X_centered / (n - 1)``, so
  ``explained_variance_`` is the unbiased variance along each component, as in
  R's ``prcomp`` and scikit-learn (chapter 1, equation ``eq-pca-covariance``);
* **sign convention**: in every component (row of ``components_``) the entry of
  largest absolute value is positive; on a tie the first such entry decides.
  Scores change sign with their component, so ``X ≈ Z W + mean`` is unchanged.
"""

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import validate_data

from ._validation import (
    as_float_matrix,
    check_bool,
    check_fitted,
    check_option,
    resolve_n_components,
)

SOLVERS = ("svd", "covariance")


def flip_signs(components):
    """Apply pcalib's sign convention to the rows of ``components``.

    Parameters
    ----------
    components : ndarray of shape (k, n_features)
        Principal axes as rows.

    Returns
    -------
    components : ndarray of shape (k, n_features)
        The same axes, each multiplied by +1 or -1 so that its entry of largest
        absolute value is positive.
    signs : ndarray of shape (k,)
        The factors applied, to flip the matching scores the same way.
    """
    largest = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), largest])
    signs[signs == 0] = 1.0
    return components * signs[:, np.newaxis], signs


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
    eigenvalues, eigenvectors = scipy.linalg.eigh(C, check_finite=False)
    order = np.argsort(eigenvalues)[::-1][: min(X_centered.shape)]
    eigenvalues = np.clip(eigenvalues[order], 0.0, None)
    components, _ = flip_signs(eigenvectors[:, order].T)
    return components, np.sqrt(eigenvalues * (n_samples - 1))


def center_and_scale(X, *, standardize):
    """Centre ``X`` (and divide each column by its standard deviation).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    standardize : bool
        Also divide by the standard deviation, with the ``n - 1`` of
        eq. ``eq-pca-covariance``, so that the covariance of the result is the
        correlation matrix of ``X``.

    Returns
    -------
    X_centered : ndarray of shape (n_samples, n_features)
        A new array (in Fortran order, as LAPACK wants it); ``X`` is unchanged.
    mean : ndarray of shape (n_features,)
    scale : ndarray of shape (n_features,) or None
        The standard deviations, or None when ``standardize`` is False.

    Raises
    ------
    ValueError
        All samples are equal (no direction of variance exists), or
        ``standardize`` is True and a column is constant.
    """
    mean = X.mean(axis=0)
    X_centered = np.subtract(X, mean, order="F")
    variance = np.einsum("ij,ij->j", X_centered, X_centered) / (X.shape[0] - 1)
    constant = _constant_columns(X, mean, variance)
    if constant.size == X.shape[1]:
        raise ValueError(
            "X has zero variance in every feature: all samples are equal, so "
            "the principal directions are undefined."
        )
    if not standardize:
        return X_centered, mean, None
    if constant.size:
        raise ValueError(
            f"standardize=True cannot scale feature(s) {constant.tolist()} of X: "
            "they are constant (standard deviation 0). Drop them first."
        )
    scale = np.sqrt(variance)
    X_centered /= scale
    return X_centered, mean, scale


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


class PCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Principal component analysis.

    Finds the orthonormal directions of largest variance of the (centred,
    optionally standardised) data and projects on the first ``k`` of them:
    ``Z = (X - mean_) / scale_ @ components_.T`` (chapter 1, eq. ``eq-pca-scores``).

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
    solver : {"svd", "covariance"}, default="svd"
        ``"svd"``: thin SVD of the centred data (accurate, the default).
        ``"covariance"``: eigendecomposition of the ``d × d`` covariance
        matrix (fast when ``n_samples ≫ n_features``, but squaring the data
        loses relative accuracy on small eigenvalues).

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        Principal axes (loadings) as orthonormal rows, sorted by decreasing
        variance, with the sign convention of the module docstring.
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

    def __init__(self, n_components=None, *, standardize=False, solver="svd"):
        self.n_components = n_components
        self.standardize = standardize
        self.solver = solver

    def fit(self, X, y=None):
        """Fit the principal axes on ``X`` of shape (n_samples, n_features).

        ``y`` is ignored; it is accepted for pipeline compatibility. Attributes
        are set only once everything has succeeded, so a failed refit leaves a
        previously fitted estimator as it was.
        """
        check_bool(self.standardize, name="standardize")
        solver = check_option(self.solver, name="solver", allowed=SOLVERS)
        X_checked = as_float_matrix(X, name="X", min_samples=2)
        n_samples, n_features = X_checked.shape
        n_components = resolve_n_components(
            self.n_components, n_samples, n_features, allow_fraction=True
        )
        X_centered, mean, scale = center_and_scale(X_checked, standardize=self.standardize)
        if solver == "svd":
            components, singular_values = principal_axes_svd(X_centered)
        else:
            components, singular_values = principal_axes_covariance(X_centered)
        explained_variance = singular_values**2 / (n_samples - 1)
        total_variance = explained_variance.sum()  # all min(n, d) components: trace of C
        if total_variance == 0.0:  # the samples differ, but their squares underflow
            raise ValueError(
                "X varies by amounts too small for float64 arithmetic (the squared "
                "deviations from the mean underflow to 0); rescale X."
            )
        ratio = explained_variance / total_variance
        if isinstance(n_components, float):
            n_components = n_components_for_variance(ratio, n_components)

        validate_data(self, X, reset=True, skip_check_array=True)
        self.mean_, self.scale_ = mean, scale
        self.n_samples_ = n_samples
        self.n_components_ = n_components
        self.components_ = components[:n_components]
        self.singular_values_ = singular_values[:n_components]
        self.explained_variance_ = explained_variance[:n_components]
        self.explained_variance_ratio_ = ratio[:n_components]
        return self

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
        check_fitted(self, "components_")
        X_checked = as_float_matrix(X, name="X")
        validate_data(self, X, reset=False, skip_check_array=True)
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
