"""What pcalib's estimators share.

* :class:`ComponentEstimator`, the base of every estimator: constructor
  arguments checked against one table per class, fitted attributes set in one
  step once a fit has succeeded (:meth:`~ComponentEstimator._commit`), and
  one output column of ``transform`` per component, named ``<class name><i>``
  by ``get_feature_names_out``;
* :class:`LikelihoodScoreMixin`, ``score`` as the mean of ``score_samples``, for
  the estimators that are density models (PCA, PPCA, factor analysis);
* :class:`PPCAModelMixin`, the PPCA model of a fitted PCA (chapter 4,
  eq. ``eq-ppca-marginal``): its covariance, precision and likelihood, as in
  scikit-learn's ``_BasePCA``.
"""

from typing import ClassVar

import numpy as np
import scipy.sparse
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import validate_data

from ._linalg import EPS, LOG_2PI
from ._validation import check_fitted, check_parameters

# Fitted attributes that validate_data sets from X, not the fit itself.
INPUT_ATTRIBUTES = ("n_features_in_", "feature_names_in_")


class ComponentEstimator(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Base of pcalib's estimators, whose ``transform`` gives one column per component.

    A subclass computes all its fitted attributes first, as a dict, and calls
    :meth:`_commit` as the last step of ``fit``. A fit that fails therefore
    changes nothing: a previously fitted estimator keeps its earlier fit.

    Its constructor arguments are checked, when ``fit`` starts (scikit-learn
    defers the checks to ``fit``), against the class's table
    ``_parameter_checks`` (``{name: check}``, see
    :func:`~pcalib._validation.check_parameters`) and then by
    :meth:`_check_parameter_rules`, the rules that tie two arguments together.
    """

    _parameter_checks: ClassVar[dict] = {}

    def _check_parameters(self):
        """Validate the constructor arguments: each by its table entry, then the joint rules."""
        check_parameters(self, self._parameter_checks)
        self._check_parameter_rules()

    def _check_parameter_rules(self):
        """Rules that tie constructor arguments together; none unless a subclass has some."""

    def _commit(self, X, fitted):
        """Replace the fitted state by ``fitted``, from a fit on ``X`` that succeeded.

        Sets ``n_features_in_`` and ``feature_names_in_`` from ``X`` (scikit-learn's
        ``validate_data``) and each ``name: value`` of ``fitted``, and removes the
        fitted attributes of an earlier fit that this one does not set (for
        example KernelPCA's ``dual_coef_`` after a refit without
        ``fit_inverse_transform``).

        Parameters
        ----------
        X : array-like, sparse matrix or None
            The training data as the user passed it. None when the fit saw no
            data matrix (``ElasticNetSPCA.fit_gram``): ``fitted`` then holds
            ``n_features_in_`` and the estimator has no ``feature_names_in_``.
        fitted : dict
            The fitted attributes, names ending in ``_``.
        """
        kept = set(fitted)
        if X is not None:
            validate_data(self, X, reset=True, skip_check_array=True)
            kept.update(INPUT_ATTRIBUTES)
        for name in [name for name in vars(self) if is_fitted_name(name) and name not in kept]:
            delattr(self, name)
        for name, value in fitted.items():
            setattr(self, name, value)

    @property
    def _n_features_out(self):
        """Number of columns of ``transform`` (rows of ``components_``), for feature names."""
        return self.components_.shape[0]


def is_fitted_name(name):
    """Whether an attribute name is a fitted attribute's (``name_``, not ``_name``)."""
    return name.endswith("_") and not name.startswith("_")


class LikelihoodScoreMixin:
    """``score``: the mean log-likelihood of the rows, from ``score_samples``."""

    def score(self, X, y=None):
        """Average log-likelihood of the rows of ``X`` under the fitted model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)
            As :meth:`score_samples` takes it.
        y : None
            Ignored.

        Returns
        -------
        float
            The mean of :meth:`score_samples`.
        """
        return float(np.mean(self.score_samples(X)))


class PPCAModelMixin(LikelihoodScoreMixin):
    """The PPCA model of a fitted PCA: covariance, precision and likelihood (chapter 4).

    For an estimator with ``components_``, ``explained_variance_``,
    ``noise_variance_``, ``scale_`` (None unless standardised), ``n_components_``,
    ``n_samples_`` and the methods ``_check_new_data`` and ``_center_and_scale``.
    """

    def _model_spectrum(self):
        """Eigenvalues of the PPCA model's covariance on the standardised scale.

        The covariance ``C = Vᵀ diag(λ) V + σ² (I - Vᵀ V)``, ``V`` the
        components, has the eigenvalues ``λ_i = max(explained_variance_i, σ²)``
        along the components and ``σ² = noise_variance_`` on their orthogonal
        complement (eq. ``eq-ppca-marginal``).

        Returns
        -------
        V : ndarray of shape (n_components_, n_features), float64
        eigenvalues : ndarray of shape (n_components_,)
        noise_variance : float
        """
        check_fitted(self, "components_")
        noise_variance = self.noise_variance_
        eigenvalues = np.maximum(self.explained_variance_.astype(np.float64), noise_variance)
        return self.components_.astype(np.float64), eigenvalues, noise_variance

    def _check_model_invertible(self, eigenvalues, noise_variance):
        """Raise ``ValueError`` when the model covariance is singular (``σ² = 0``, rank < d)."""
        n_features = self.components_.shape[1]
        spectrum = eigenvalues if self.n_components_ == n_features else [noise_variance]
        largest = max(float(np.max(eigenvalues, initial=0.0)), noise_variance)
        if np.min(spectrum) <= max(self.n_samples_, n_features) * EPS * largest:
            raise ValueError(
                "The PPCA model of this PCA has a singular covariance: noise_variance_ is 0 "
                f"because n_components_ = min(n_samples, n_features) = {self.n_components_}, "
                "or a kept variance is 0 (rank-deficient X), so the model has no density. "
                "Fit with fewer components to score samples or get the precision."
            )

    def get_covariance(self):
        """Covariance of the PPCA model, ``C = W Wᵀ + σ² I`` (chapter 4, eq. ``eq-ppca-marginal``).

        ``W = components_ᵀ diag(max(explained_variance_ - σ², 0))^{1/2}`` with
        ``σ² = noise_variance_``: the maximum-likelihood PPCA fit of chapter 4
        (eqs. ``eq-ppca-ml-W`` and ``eq-ppca-ml-sigma2``) with the ``1/(n - 1)``
        covariance, as scikit-learn's ``PCA.get_covariance``. It does not
        depend on ``whiten``. With ``standardize=True`` the model is fitted to
        the standardised data and ``C`` is returned in the units of ``X``:
        ``D C_std D`` with ``D = diag(scale_)``.

        Returns
        -------
        C : ndarray of shape (n_features_in_, n_features_in_)
        """
        V, eigenvalues, noise_variance = self._model_spectrum()
        C = (V.T * (eigenvalues - noise_variance)) @ V
        C[np.diag_indices_from(C)] += noise_variance
        if self.scale_ is not None:
            C *= np.outer(self.scale_, self.scale_)
        return C.astype(self.components_.dtype, copy=False)

    def get_precision(self):
        """Inverse of :meth:`get_covariance`, from the spectrum of the model.

        ``C⁻¹ = I / σ² + Vᵀ diag(1/λ_i - 1/σ²) V`` (``Vᵀ diag(1/λ_i) V`` when
        ``n_components_ = n_features``), then ``D⁻¹ C_std⁻¹ D⁻¹`` with
        ``standardize=True``.

        Returns
        -------
        precision : ndarray of shape (n_features_in_, n_features_in_)

        Raises
        ------
        ValueError
            The model covariance is singular (``noise_variance_ = 0`` with fewer
            components than features, or a kept variance of 0).
        """
        V, eigenvalues, noise_variance = self._model_spectrum()
        self._check_model_invertible(eigenvalues, noise_variance)
        if self.n_components_ == V.shape[1]:
            precision = (V.T / eigenvalues) @ V
        else:
            precision = (V.T * (1 / eigenvalues - 1 / noise_variance)) @ V
            precision[np.diag_indices_from(precision)] += 1 / noise_variance
        if self.scale_ is not None:
            precision /= np.outer(self.scale_, self.scale_)
        return precision.astype(self.components_.dtype, copy=False)

    def score_samples(self, X):
        """Log-likelihood ``log N(x | mean_, C)`` of each row (PPCA, eq. ``eq-ppca-loglik``).

        With ``x_s = (x - mean_) / scale_`` and its scores ``z = V x_s``:
        ``-½ (d log 2π + log det C + Σ_i z_i² / λ_i + ‖x_s - Vᵀ z‖² / σ²)``,
        the part of ``x_s`` along the components and the part orthogonal to
        them; ``log det C = Σ_i log λ_i + (d - k) log σ² + 2 Σ_j log scale_j``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)

        Raises
        ------
        ValueError
            The model covariance is singular (see :meth:`get_precision`).
        """
        X_checked, dtype = self._check_new_data(X)
        if scipy.sparse.issparse(X_checked):
            raise TypeError("score_samples takes dense X; convert it with X.toarray().")
        V, eigenvalues, noise_variance = self._model_spectrum()
        self._check_model_invertible(eigenvalues, noise_variance)
        X_s = self._center_and_scale(X_checked)
        Z = X_s @ V.T
        n_features, n_components = V.shape[1], V.shape[0]
        quadratic = (Z**2 / eigenvalues).sum(axis=1)
        log_det = float(np.sum(np.log(eigenvalues)))
        if n_components < n_features:
            residual = X_s - Z @ V
            quadratic += np.einsum("ij,ij->i", residual, residual) / noise_variance
            log_det += (n_features - n_components) * np.log(noise_variance)
        if self.scale_ is not None:
            log_det += 2 * float(np.sum(np.log(self.scale_.astype(np.float64))))
        log_likelihood = -0.5 * (n_features * LOG_2PI + log_det + quadratic)
        return log_likelihood.astype(dtype, copy=False)
