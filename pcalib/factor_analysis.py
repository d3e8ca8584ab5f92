"""Factor analysis (chapter 4 of the book, ``book/ppca.md``).

The model (eq. ``eq-fa-model``) is PPCA's with a diagonal noise: a latent
``z ~ N(0, I_k)`` and ``x | z ~ N(W z + μ, Ψ)``, ``Ψ = diag(ψ_1, …, ψ_d)``,
so that ``x ~ N(μ, W Wᵀ + Ψ)``. It is fitted by EM (eqs. ``eq-fa-estep`` and
``eq-fa-mstep``), started from the principal components of ``Ψ^{-1/2} x``.

Conventions:

* ``W`` is identified only up to a rotation ``W R``. Without ``rotation``
  pcalib reports the one whose columns are orthogonal in the metric ``Ψ⁻¹``
  (``Wᵀ Ψ⁻¹ W`` diagonal, decreasing), as scikit-learn's ``FactorAnalysis``
  does; ``rotation="varimax"`` or ``"quartimax"`` rotates it to maximise the
  orthomax criterion (eq. ``eq-fa-varimax``).
* Units: factor analysis is equivariant to the scale of each feature
  separately. ``fit`` divides each column by a power of four (exact) and
  scales back, so features in very different units are fitted as well as
  standardised ones.
* A noise variance whose maximum-likelihood value would be 0 or negative (a
  Heywood case) is held at the floor ``0.005`` times its feature's variance,
  the default lower bound of R's ``factanal`` on the uniquenesses.
"""

from typing import ClassVar

import numpy as np
import scipy.linalg

from ._base import ComponentEstimator, LikelihoodScoreMixin
from ._linalg import EPS, LOG_2PI, flip_signs, power_of_four_scale, times_scale_power
from ._validation import (
    as_float_matrix,
    as_float_vector,
    check_fitted,
    check_n_components,
    check_new_data,
    check_non_negative_float,
    check_positive_int,
    convergence_warning,
    one_of,
    optional,
)

__all__ = ["FactorAnalysis"]

ROTATIONS = ("varimax", "quartimax")
# Floor of each noise variance relative to its feature's variance (a Heywood
# case stops there), as R's factanal(lower = 0.005).
NOISE_FLOOR = 0.005


def fa_log_likelihood(X_centered, W, psi):
    """``Σ_n log N(x_n | μ, W Wᵀ + Ψ)`` in ``O(n d k)`` (eq. ``eq-fa-loglik``).

    With ``G = (I + Wᵀ Ψ⁻¹ W)⁻¹`` (Woodbury),
    ``log det C = Σ_j log ψ_j - log det G`` and
    ``xᵀ C⁻¹ x = xᵀ Ψ⁻¹ x - xᵀ Ψ⁻¹ W G Wᵀ Ψ⁻¹ x``.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_features, k)
    psi : ndarray of shape (n_features,)

    Returns
    -------
    log_likelihood : ndarray of shape (n_samples,)
    """
    n_features, k = W.shape
    W_psi = W / psi[:, np.newaxis]
    G_inv = np.eye(k) + W.T @ W_psi
    B = X_centered @ W_psi
    quadratic = X_centered**2 @ (1.0 / psi) - np.einsum("ni,ni->n", B @ np.linalg.inv(G_inv), B)
    log_det_C = np.sum(np.log(psi)) + np.linalg.slogdet(G_inv)[1]
    return -0.5 * (n_features * LOG_2PI + log_det_C + quadratic)


def fa_em_step(X_centered, W, psi, floor):
    """One EM iteration of factor analysis (eqs. ``eq-fa-estep`` and ``eq-fa-mstep``).

    E-step: ``G = (I + Wᵀ Ψ⁻¹ W)⁻¹``, ``E[z_n] = G Wᵀ Ψ⁻¹ x_n`` and
    ``Σ_n E[z_n z_nᵀ] = n G + Σ_n E[z_n] E[z_n]ᵀ``.
    M-step: ``W_new = (Σ_n x_n E[z_n]ᵀ)(Σ_n E[z_n z_nᵀ])⁻¹`` and
    ``ψ_j = S_jj - (W_new (1/n) Σ_n E[z_n] x_nᵀ)_jj``, at least ``floor_j``.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_features, k)
    psi : ndarray of shape (n_features,)
    floor : ndarray of shape (n_features,)
        Smallest value of each ``ψ_j``.

    Returns
    -------
    W_new : ndarray of shape (n_features, k)
    psi_new : ndarray of shape (n_features,)
    """
    n_samples, k = X_centered.shape[0], W.shape[1]
    W_psi = W / psi[:, np.newaxis]
    G = np.linalg.inv(np.eye(k) + W.T @ W_psi)
    Ez = X_centered @ W_psi @ G
    sum_Ezz = n_samples * G + Ez.T @ Ez
    XtEz = X_centered.T @ Ez
    W_new = np.linalg.solve(sum_Ezz, XtEz.T).T
    variances = np.einsum("ij,ij->j", X_centered, X_centered) / n_samples
    psi_new = variances - np.sum(W_new * XtEz, axis=1) / n_samples
    return W_new, np.maximum(psi_new, floor)


def principal_component_loadings(S, psi, n_components):
    """EM's start: the principal components of ``Ψ^{-1/2} x``, scaled back.

    ``W = Ψ^{1/2} U_k Λ_k^{1/2}`` with ``(Λ, U)`` the top eigenpairs of
    ``Ψ^{-1/2} S Ψ^{-1/2}``; with ``Ψ = diag(S)`` these are the principal
    components of the correlation matrix (the "principal-component method"
    of factor analysis). No column is zero unless ``S`` has rank below ``k``,
    so EM can move every column (a zero column stays zero under EM).

    Parameters
    ----------
    S : ndarray of shape (n_features, n_features)
        Sample covariance (denominator ``n``).
    psi : ndarray of shape (n_features,)
    n_components : int

    Returns
    -------
    W : ndarray of shape (n_features, n_components)
    """
    sqrt_psi = np.sqrt(psi)
    eigenvalues, U = np.linalg.eigh(S / np.outer(sqrt_psi, sqrt_psi))
    top = slice(-1, -n_components - 1, -1)
    return sqrt_psi[:, np.newaxis] * U[:, top] * np.sqrt(np.maximum(eigenvalues[top], 0.0))


def canonical_factor_loadings(W, psi):
    """Rotate ``W`` so that ``Wᵀ Ψ⁻¹ W`` is diagonal and decreasing.

    Parameters
    ----------
    W : ndarray of shape (n_features, k)
    psi : ndarray of shape (n_features,)

    Returns
    -------
    W : ndarray of shape (n_features, k)
    """
    _, _, Vt = scipy.linalg.svd(W / np.sqrt(psi)[:, np.newaxis], full_matrices=False)
    return W @ Vt.T


def orthomax_criterion(W, gamma=1.0):
    """``Σ_j [Σ_i w_ij⁴ - (γ/d) (Σ_i w_ij²)²]`` (eq. ``eq-fa-varimax``).

    ``γ = 1`` is varimax (the variance of the squared loadings of each
    column, times ``d``), ``γ = 0`` quartimax.

    Parameters
    ----------
    W : ndarray of shape (n_features, k)
    gamma : float, default=1.0

    Returns
    -------
    float
    """
    squares = W**2
    return float(np.sum(squares**2) - gamma / W.shape[0] * np.sum(squares.sum(axis=0) ** 2))


def orthomax_rotation(W, gamma=1.0, max_iter=1000, tol=1e-10):
    """The rotation ``R`` maximising ``orthomax_criterion(W R, gamma)``.

    Each step maximises the criterion's linearisation at the current
    rotation over all rotations: with
    ``B = Wᵀ (L³ - (γ/d) L diag(Σ_i l_ij²))``, ``L = W R``, the maximiser of
    ``tr(Rᵀ B)`` is ``U Vᵀ`` from the SVD ``B = U Σ Vᵀ``; the criterion is
    convex in ``L``, so it never decreases. Stops when ``tr Σ`` grows by less
    than ``tol ‖W‖_F⁴``.

    Parameters
    ----------
    W : ndarray of shape (n_features, k)
    gamma : float, default=1.0
    max_iter : int, default=1000
    tol : float, default=1e-10

    Returns
    -------
    R : ndarray of shape (k, k)
        Orthogonal.
    """
    n_features, k = W.shape
    R = np.eye(k)
    objective = 0.0
    # the criterion is of degree 4 in W: its scale is ‖W‖_F⁴
    resolution = tol * np.sum(W**2) ** 2
    for _ in range(max_iter):
        L = W @ R
        B = W.T @ (L**3 - (gamma / n_features) * L * np.sum(L**2, axis=0))
        U, s, Vt = scipy.linalg.svd(B)
        R = U @ Vt
        if s.sum() <= objective + resolution:
            return R
        objective = s.sum()
    convergence_warning("the orthomax rotation", max_iter, f"its criterion converged (tol={tol})")
    return R


class FactorAnalysis(LikelihoodScoreMixin, ComponentEstimator):
    """Factor analysis: ``x = W z + μ + ε``, ``z ~ N(0, I)``, ``ε ~ N(0, Ψ)`` with ``Ψ`` diagonal.

    Fitted by maximum likelihood with EM. scikit-learn's ``FactorAnalysis``
    has the same parameters (pcalib has no ``svd_method``, ``iterated_power``,
    ``copy`` or ``random_state``: EM draws no random number) and reaches the
    same likelihood, by another algorithm (an alternation of the exact ``W``
    for fixed ``Ψ`` and the update of ``Ψ``). Differences on purpose: the
    default start is ``Ψ`` equal to the variances of the features, and the
    floor of each ``ψ_j`` is 0.005 times its feature's variance (R's
    ``factanal``; scikit-learn's is ``1e-12`` in the units of ``X``), so that
    the fit does not depend on the units of any feature.

    Parameters
    ----------
    n_components : int or None, default=None
        Number of factors ``k``, between 1 and ``n_features``; ``None`` means
        ``n_features``.
    tol : float, default=1e-2
        EM stops when the log-likelihood (a sum over samples) changes by less
        than ``tol`` in one iteration; ``tol=0`` runs exactly ``max_iter``
        iterations.
    max_iter : int, default=1000
        Largest number of EM iterations.
    noise_variance_init : array-like of shape (n_features,) or None, default=None
        Starting ``ψ_j``, positive; ``None``: the variances of the features.
    rotation : {"varimax", "quartimax"} or None, default=None
        Orthogonal rotation of the loadings after the fit. Without it the
        factors are the canonical loadings, ordered by the diagonal of
        ``Wᵀ Ψ⁻¹ W``, which does not depend on the units of the features. The
        orthomax criterion can have several maxima of equal value (features
        that play symmetric roles); rounding then chooses among them.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        ``Wᵀ``, the loadings (rotated if ``rotation`` is set).
    noise_variance_ : ndarray of shape (n_features,)
        ``ψ_j``, the noise variance of each feature.
    mean_ : ndarray of shape (n_features,)
    explained_variance_ : ndarray of shape (n_components_,)
        ``‖w_j‖²``, the variance of the data carried by each factor (the "sum
        of squared loadings").
    loglike_ : list of float
        The log-likelihood after each iteration (scikit-learn's attribute).
    log_likelihood_history_ : ndarray of shape (n_iter_ + 1,)
        The log-likelihood at the start and after each iteration, never
        decreasing (eq. ``eq-fa-loglik``).
    n_iter_ : int
    converged_ : bool
    n_components_, n_samples_, n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import FactorAnalysis
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 1)) @ [[1.0, 2.0, 3.0, 1.0]]
    >>> X += rng.standard_normal((200, 4)) * [0.5, 1.0, 0.6, 1.0]
    >>> fa = FactorAnalysis(n_components=1, tol=1e-8).fit(X)
    >>> fa.noise_variance_.round(1)
    array([0.2, 0.9, 0.3, 1. ])
    """

    _parameter_checks: ClassVar[dict] = {
        "tol": check_non_negative_float,
        "max_iter": check_positive_int,
        "rotation": optional(one_of(*ROTATIONS)),
    }

    def __init__(
        self,
        n_components=None,
        *,
        tol=1e-2,
        max_iter=1000,
        noise_variance_init=None,
        rotation=None,
    ):
        self.n_components = n_components
        self.tol = tol
        self.max_iter = max_iter
        self.noise_variance_init = noise_variance_init
        self.rotation = rotation

    def fit(self, X, y=None):
        """Fit ``μ``, ``W`` and ``Ψ`` by maximum likelihood (EM).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, at least 2 samples and 2 features, no constant
            feature.
        y : None
            Ignored.

        Returns
        -------
        self : FactorAnalysis
        """
        self._check_parameters()
        X_checked = as_float_matrix(X, min_samples=2, min_features=2)
        n_samples, n_features = X_checked.shape
        k = check_n_components(self.n_components, n_features, upper_name="n_features")
        psi_init = self._check_noise_variance_init(n_features)

        # Each feature is divided by a power of four (exact), fitted, scaled back.
        scale = power_of_four_scale(X_checked, axis=0)[0]
        X_scaled = X_checked / scale
        mean = X_scaled.mean(axis=0)
        X_centered = X_scaled - mean
        variances = np.einsum("ij,ij->j", X_centered, X_centered) / n_samples
        # after the scaling every column has its largest |x| in [1/4, 1)
        constant = np.flatnonzero(variances <= (1e3 * EPS) ** 2)
        if constant.size:
            raise ValueError(
                f"X has {constant.size} constant feature(s), the first is column "
                f"{int(constant[0])}: factor analysis needs every feature to vary. Drop it."
            )
        if psi_init is None:
            psi = variances.copy()
        else:
            psi = times_scale_power(psi_init, scale, -2)
            if not np.all(np.isfinite(psi)):
                raise ValueError(
                    "noise_variance_init is too large for X of this magnitude: divided by "
                    "the square of the magnitude of each feature (as small as "
                    f"{scale.min():.3g}), it overflows float64. Give noise variances in "
                    "the units of X squared, or leave noise_variance_init=None."
                )
        W, psi, n_iter, converged, history = self._fit_em(X_centered, k, psi, variances)

        # rotations and signs are chosen in the units of X (divided by one
        # power of four): the orthomax criterion depends on the units
        largest = scale.max()
        W = canonical_factor_loadings(W, psi) * (scale / largest)[:, np.newaxis]
        if self.rotation is not None:
            W = W @ orthomax_rotation(W, gamma=1.0 if self.rotation == "varimax" else 0.0)
        W = flip_signs(W.T)[0].T * largest
        noise_variance = psi * scale**2
        if np.any(noise_variance < np.finfo(np.float64).tiny):
            raise ValueError(
                "X varies by amounts too small for float64 arithmetic: its noise variances "
                "underflow. Rescale X, e.g. divide it by its largest absolute entry."
            )
        log_likelihood_history = history - n_samples * np.sum(np.log(scale))
        self._commit(
            X,
            {
                "mean_": mean * scale,
                "noise_variance_": noise_variance,
                "components_": W.T,
                "explained_variance_": np.sum(W**2, axis=0),
                "log_likelihood_history_": log_likelihood_history,
                "loglike_": list(log_likelihood_history[1:]),
                "n_iter_": n_iter,
                "converged_": converged,
                "n_components_": k,
                "n_samples_": n_samples,
            },
        )
        return self

    def _check_noise_variance_init(self, n_features):
        """``noise_variance_init`` as a positive finite array of shape (n_features,), or None."""
        if self.noise_variance_init is None:
            return None
        psi = as_float_vector(
            self.noise_variance_init,
            name="noise_variance_init",
            length=n_features,
            meaning="one variance per feature",
        )
        if not np.all(psi > 0):
            raise ValueError(
                f"noise_variance_init must be None or {n_features} positive finite numbers "
                f"(one per feature); got {self.noise_variance_init!r}."
            )
        return psi

    def _fit_em(self, X_centered, k, psi, variances):
        """EM from ``Ψ`` and its best ``W``; returns ``W, Ψ, n_iter, converged, history``."""
        n_samples = X_centered.shape[0]
        floor = NOISE_FLOOR * variances
        psi = np.maximum(psi, floor)
        W = principal_component_loadings(X_centered.T @ X_centered / n_samples, psi, k)
        history = [float(fa_log_likelihood(X_centered, W, psi).sum())]
        for n_iter in range(1, self.max_iter + 1):
            W, psi = fa_em_step(X_centered, W, psi, floor)
            history.append(float(fa_log_likelihood(X_centered, W, psi).sum()))
            if abs(history[-1] - history[-2]) < self.tol:
                return W, psi, n_iter, True, np.asarray(history)
        convergence_warning(
            "FactorAnalysis's EM",
            self.max_iter,
            f"the log-likelihood changed by less than tol={self.tol:g} "
            f"(last change {history[-1] - history[-2]:.3g})",
            stacklevel=4,
        )
        return W, psi, self.max_iter, False, np.asarray(history)

    def _W(self):
        check_fitted(self, "components_")
        return self.components_.T

    def get_covariance(self):
        """Model covariance ``C = W Wᵀ + Ψ`` (eq. ``eq-fa-model``).

        Returns
        -------
        C : ndarray of shape (n_features_in_, n_features_in_)
        """
        W = self._W()
        return W @ W.T + np.diag(self.noise_variance_)

    def get_precision(self):
        """Model precision ``C⁻¹ = Ψ⁻¹ - Ψ⁻¹ W G Wᵀ Ψ⁻¹`` (Woodbury).

        Returns
        -------
        precision : ndarray of shape (n_features_in_, n_features_in_)
        """
        W = self._W()
        W_psi = W / self.noise_variance_[:, np.newaxis]
        G = np.linalg.inv(np.eye(W.shape[1]) + W.T @ W_psi)
        return np.diag(1.0 / self.noise_variance_) - W_psi @ G @ W_psi.T

    def transform(self, X):
        """Posterior means ``E[z | x] = G Wᵀ Ψ⁻¹ (x - μ)`` (eq. ``eq-fa-estep``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
        """
        X_checked = check_new_data(self, X, fitted_attribute="components_")
        W = self._W()
        W_psi = W / self.noise_variance_[:, np.newaxis]
        G = np.linalg.inv(np.eye(W.shape[1]) + W.T @ W_psi)
        return (X_checked - self.mean_) @ W_psi @ G

    def score_samples(self, X):
        """Log-likelihood ``log N(x | μ, W Wᵀ + Ψ)`` of each row (eq. ``eq-fa-loglik``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
        """
        X_checked = check_new_data(self, X, fitted_attribute="components_")
        return fa_log_likelihood(X_checked - self.mean_, self._W(), self.noise_variance_)
