"""Probabilistic PCA (chapter 4 of the book, ``book/ppca.md``).

The model (eq. ``eq-ppca-model``) draws a latent ``z ~ N(0, I_k)`` and
observes ``x | z ~ N(W z + μ, σ² I_d)``, so that ``x ~ N(μ, C)`` with
``C = W Wᵀ + σ² I`` (eq. ``eq-ppca-marginal``). It is fitted here

* in closed form (Tipping and Bishop): ``μ`` the sample mean,
  ``W = U_k (Λ_k - σ² I)^{1/2}`` and ``σ²`` the mean of the ``d - k``
  discarded eigenvalues of the sample covariance ``S`` (eqs.
  ``eq-ppca-ml-W`` and ``eq-ppca-ml-sigma2``);
* by EM on complete data (eqs. ``eq-ppca-estep`` to ``eq-ppca-em-sigma2``);
* by EM over the observed entries when some are missing (NaN), with ``μ``
  estimated jointly with ``W`` (eq. ``eq-ppca-missing-mstep``).

Conventions:

* ``S = X_cᵀ X_c / (n - ddof)``. ``ddof=0`` (the default) is the
  maximum-likelihood estimate; ``ddof=1`` is the ``1/(n - 1)`` of
  :class:`pcalib.PCA` and scikit-learn, with which ``PPCA(ddof=1).score``
  equals ``sklearn.decomposition.PCA.score``. The choice changes ``σ²`` and
  ``W`` by the factor ``n / (n - 1)`` on the variances.
* ``W`` is identified only up to a rotation ``W R`` (``W R Rᵀ Wᵀ = W Wᵀ``).
  pcalib reports the rotation ``R = I``: the columns of ``W_`` are
  orthogonal, in decreasing norm, and each has its entry of largest absolute
  value positive (pcalib's sign convention). EM results are rotated to this
  form after the last iteration.
* Units: the fit of ``c X`` is that of ``X`` with ``μ`` and ``W`` times
  ``c``, ``σ²`` times ``c²`` and the log-likelihood lower by ``log c`` per
  observed entry; ``fit`` works on ``X`` divided by a power of four (exact)
  and scales back, so that tiny or huge data are fitted as data of order 1.

For choosing ``k``, :func:`ppca_evidence` scores every ``k`` by Minka's
Laplace approximation of the evidence and by BIC (eqs. ``eq-ppca-laplace``
and ``eq-ppca-bic``).
"""

from typing import ClassVar, NamedTuple

import numpy as np
import scipy.linalg
import scipy.special

from ._base import ComponentEstimator, LikelihoodScoreMixin
from ._linalg import EPS, LOG_2PI, flip_signs, power_of_four_scale, top_eigh
from ._validation import (
    as_float_matrix,
    as_generator,
    check_array_size,
    check_bool,
    check_fitted,
    check_n_components,
    check_new_data,
    check_non_negative_float,
    check_option,
    check_positive_int,
    check_random_state,
    convergence_warning,
    is_int,
    one_of,
    raise_zero_variance,
)
from .high_dim import principal_axes_gram

__all__ = ["PPCA", "PPCAEvidenceResult", "ppca_evidence"]

SOLVERS = ("auto", "closed_form", "em")


def top_eigenpairs_of_covariance(X_centered, n_components, ddof):
    """Top ``k`` eigenpairs of ``S = X_cᵀ X_c / (n - ddof)`` and its trace.

    Tall data (``n ≥ d``) go through the ``d × d`` matrix ``S`` (a partial
    eigendecomposition when ``d`` is large); wide data through the ``n × n``
    Gram matrix (chapter 2). Only the top ``k`` eigenpairs are needed: ``σ²``
    needs the discarded eigenvalues only through their sum,
    ``trace(S) - Σ_{i≤k} λ_i``.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    n_components : int
        ``k < n_features``.
    ddof : int
        0 or 1: the denominator of ``S`` is ``n - ddof``.

    Returns
    -------
    U : ndarray of shape (n_features, k)
        Orthonormal eigenvectors, pcalib's sign convention on each column.
    eigenvalues : ndarray of shape (k,), decreasing
    trace : float
        ``trace(S)``, the total variance.
    """
    n_samples, n_features = X_centered.shape
    denominator = n_samples - ddof
    if n_samples >= n_features:
        S = X_centered.T @ X_centered / denominator
        trace = float(np.trace(S))
        eigenvalues, U = top_eigh(S, n_components)
        components, _ = flip_signs(U.T)
    else:
        components, singular_values = principal_axes_gram(X_centered, n_components)
        eigenvalues = singular_values**2 / denominator
        trace = float(np.einsum("ij,ij->", X_centered, X_centered)) / denominator
    return components.T, eigenvalues, trace


def ml_noise_variance(eigenvalues, trace, n_features):
    """``σ² = (trace(S) - Σ_{i≤k} λ_i) / (d - k)``: the mean discarded eigenvalue.

    This is eq. ``eq-ppca-ml-sigma2``. Rounding can make the difference
    slightly negative when the discarded eigenvalues are all zero; it is
    clipped at 0, and the caller refuses ``σ² = 0``.
    """
    n_components = eigenvalues.shape[0]
    return max(trace - float(eigenvalues.sum()), 0.0) / (n_features - n_components)


def ml_loadings(U, eigenvalues, noise_variance):
    """``W = U_k (Λ_k - σ² I)^{1/2}`` (eq. ``eq-ppca-ml-W``, with ``R = I``).

    Parameters
    ----------
    U : ndarray of shape (n_features, k)
    eigenvalues : ndarray of shape (k,)
    noise_variance : float

    Returns
    -------
    W : ndarray of shape (n_features, k)
    """
    return U * np.sqrt(np.clip(eigenvalues - noise_variance, 0.0, None))


def ml_log_likelihood(eigenvalues, noise_variance, n_samples, n_features):
    """Maximised log-likelihood (eq. ``eq-ppca-ml-loglik``), in ``O(k)``.

    ``-n/2 (d log 2π + Σ_{i≤k} log λ_i + (d - k) log σ² + d)``: at the closed
    form ``tr(C⁻¹ S) = d``, so no pass over the data is needed.

    Parameters
    ----------
    eigenvalues : ndarray of shape (k,)
        The kept eigenvalues ``λ_i ≥ σ²``.
    noise_variance : float
    n_samples, n_features : int

    Returns
    -------
    float
    """
    n_components = eigenvalues.shape[0]
    per_sample = (
        n_features * LOG_2PI
        + float(np.sum(np.log(eigenvalues)))
        + (n_features - n_components) * np.log(noise_variance)
        + n_features
    )
    return -0.5 * n_samples * per_sample


def canonical_loadings(W):
    """Rotate ``W`` to orthogonal columns of decreasing norm, signs fixed.

    With the thin SVD ``W = U S Vᵀ``, ``W V = U S`` has the same ``W Wᵀ``
    (so the same model) and is the closed form's ``R = I`` representative.

    Parameters
    ----------
    W : ndarray of shape (n_features, k)

    Returns
    -------
    U : ndarray of shape (n_features, k)
        Orthonormal columns.
    W : ndarray of shape (n_features, k)
        ``U S``.
    """
    U, s, _ = scipy.linalg.svd(W, full_matrices=False, check_finite=False)
    components, _ = flip_signs(U.T)
    return components.T, components.T * s


def posterior_matrix(W, noise_variance):
    """``M = Wᵀ W + σ² I`` (k × k), whose inverse appears in the posterior."""
    return W.T @ W + noise_variance * np.eye(W.shape[1])


def e_step(X_centered, W, noise_variance, denominator, squared_norm):
    """E-step statistics for complete data, and the log-likelihood at ``(W, σ²)``.

    With ``E[z_n] = M⁻¹ Wᵀ x_n`` (eq. ``eq-ppca-estep``) it returns
    ``Σ_n x_n E[z_n]ᵀ`` and ``Σ_n E[z_n z_nᵀ] = N σ² M⁻¹ + Σ_n E[z_n] E[z_n]ᵀ``,
    which are all an M-step needs, in ``O(n d k)``: no ``d × d`` matrix is
    formed, only ``k × k`` ones are inverted.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_features, k)
    noise_variance : float
    denominator : int
        ``N = n - ddof``.
    squared_norm : float
        ``‖X_c‖²_F``.

    Returns
    -------
    XtEz : ndarray of shape (n_features, k)
    sum_Ezz : ndarray of shape (k, k)
    log_likelihood : float
        The objective at ``(W, σ²)``, from eq. ``eq-ppca-loglik``.
    """
    n_samples, n_features = X_centered.shape
    k = W.shape[1]
    M = posterior_matrix(W, noise_variance)
    M_inv = np.linalg.inv(M)
    XW = X_centered @ W
    Ez = XW @ M_inv
    sum_Ezz = denominator * noise_variance * M_inv + Ez.T @ Ez
    XtEz = X_centered.T @ Ez

    # -n/2 [d log 2π + log det C + tr(C⁻¹ S)], with
    # log det C = (d - k) log σ² + log det M and
    # tr(C⁻¹ S) = (tr S - tr(M⁻¹ Wᵀ S W)) / σ²  (eq. eq-ppca-woodbury).
    log_det_C = (n_features - k) * np.log(noise_variance) + np.linalg.slogdet(M)[1]
    trace_C_inv_S = (squared_norm - float(np.sum(XW * Ez))) / (denominator * noise_variance)
    log_likelihood = -0.5 * n_samples * (n_features * LOG_2PI + log_det_C + trace_C_inv_S)
    return XtEz, sum_Ezz, log_likelihood


def em_step(X_centered, W, noise_variance, denominator, squared_norm=None):
    """One EM iteration for complete data (eqs. ``eq-ppca-estep`` to ``eq-ppca-em-sigma2``).

    E-step: :func:`e_step`.
    M-step: ``W_new = (Σ_n x_n E[z_n]ᵀ) (Σ_n E[z_n z_nᵀ])⁻¹`` and
    ``σ²_new = (‖X_c‖²_F - Σ_n E[z_n]ᵀ W_newᵀ x_n) / (N d)``. With
    ``N = n`` this is Tipping and Bishop's EM; with ``N = n - 1`` it
    maximises the same likelihood with ``S`` scaled by ``n / (n - 1)``.
    Each step costs ``O(n d k)``.

    Parameters
    ----------
    X_centered : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_features, k)
    noise_variance : float
    denominator : int
        ``N = n - ddof``.
    squared_norm : float, optional
        ``‖X_c‖²_F``, computed when not given (pass it when iterating).

    Returns
    -------
    W_new : ndarray of shape (n_features, k)
    noise_variance_new : float
    log_likelihood : float
        The objective at the *input* ``(W, σ²)``, from eq. ``eq-ppca-loglik``.
    """
    n_features = X_centered.shape[1]
    if squared_norm is None:
        squared_norm = float(np.einsum("ij,ij->", X_centered, X_centered))
    XtEz, sum_Ezz, log_likelihood = e_step(X_centered, W, noise_variance, denominator, squared_norm)
    W_new = np.linalg.solve(sum_Ezz, XtEz.T).T
    noise_variance_new = (squared_norm - float(np.sum(XtEz * W_new))) / (denominator * n_features)
    return W_new, noise_variance_new, log_likelihood


def missing_e_step(X, observed, mean, W, noise_variance):
    """E-step over the observed entries of each row (eq. ``eq-ppca-missing-estep``).

    For row ``n`` with observed coordinates ``O``:
    ``M_n = W_Oᵀ W_O + σ² I``, ``E[z_n] = M_n⁻¹ W_Oᵀ (x_O - μ_O)`` and
    ``Cov[z_n] = σ² M_n⁻¹``. All rows are handled at once: ``M_n`` is the
    mask times the ``d`` outer products ``w_j w_jᵀ``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data with NaN at the missing entries.
    observed : ndarray of bool, shape (n_samples, n_features)
    mean : ndarray of shape (n_features,)
    W : ndarray of shape (n_features, k)
    noise_variance : float

    Returns
    -------
    Ez : ndarray of shape (n_samples, k)
    cov_z : ndarray of shape (n_samples, k, k)
    log_likelihood : ndarray of shape (n_samples,)
        ``log N(x_O | μ_O, W_O W_Oᵀ + σ² I)`` of each row.
    """
    n_features, k = W.shape
    X_tilde = np.where(observed, X - mean, 0.0)
    outer = (W[:, :, np.newaxis] * W[:, np.newaxis, :]).reshape(n_features, k * k)
    M = (observed.astype(np.float64) @ outer).reshape(-1, k, k) + noise_variance * np.eye(k)
    b = X_tilde @ W
    L = np.linalg.cholesky(M)
    M_inv = np.linalg.inv(M)
    Ez = np.einsum("nij,nj->ni", M_inv, b)
    n_observed = observed.sum(axis=1)
    log_det_M = 2.0 * np.sum(np.log(np.diagonal(L, axis1=1, axis2=2)), axis=1)
    quadratic = (
        np.einsum("ij,ij->i", X_tilde, X_tilde) - np.einsum("ni,ni->n", b, Ez)
    ) / noise_variance
    log_likelihood = -0.5 * (
        n_observed * LOG_2PI + (n_observed - k) * np.log(noise_variance) + log_det_M + quadratic
    )
    return Ez, noise_variance * M_inv, log_likelihood


def missing_m_step(X, observed, Ez, cov_z):
    """M-step over observed entries, ``μ`` and ``W`` jointly (eq. ``eq-ppca-missing-mstep``).

    Each feature ``j`` is a regression of its observed entries ``x_nj`` on
    ``z̃_n = (z_n, 1)``: ``(w_j, μ_j) = A_j⁻¹ c_j`` with
    ``A_j = Σ_{n: j observed} E[z̃_n z̃_nᵀ]`` and
    ``c_j = Σ_{n: j observed} x_nj E[z̃_n]``; then
    ``σ² = (Σ_obs x_nj² - Σ_j (w_j, μ_j)ᵀ c_j) / N_obs``.
    ``A_j`` is positive definite as soon as feature ``j`` has one observed
    entry, because ``Cov[z_n]`` is.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features), NaN where missing
    observed : ndarray of bool, shape (n_samples, n_features)
    Ez : ndarray of shape (n_samples, k)
    cov_z : ndarray of shape (n_samples, k, k)

    Returns
    -------
    mean : ndarray of shape (n_features,)
    W : ndarray of shape (n_features, k)
    noise_variance : float
    """
    n_samples, k = Ez.shape
    Ez_tilde = np.hstack([Ez, np.ones((n_samples, 1))])
    second_moment = Ez_tilde[:, :, np.newaxis] * Ez_tilde[:, np.newaxis, :]
    second_moment[:, :k, :k] += cov_z
    mask = observed.astype(np.float64)
    A = (mask.T @ second_moment.reshape(n_samples, -1)).reshape(-1, k + 1, k + 1)
    X_observed = np.where(observed, X, 0.0)
    c = X_observed.T @ Ez_tilde
    W_tilde = np.linalg.solve(A, c[:, :, np.newaxis])[:, :, 0]
    noise_variance = (
        np.einsum("ij,ij->", X_observed, X_observed) - np.sum(W_tilde * c)
    ) / mask.sum()
    return W_tilde[:, k], W_tilde[:, :k], float(noise_variance)


def check_ddof(value, *, name="ddof"):
    """Raise unless ``value`` is the int 0 or 1, the divisor ``n - ddof`` of the covariance."""
    if not is_int(value) or value not in (0, 1):
        raise ValueError(f"{name} must be 0 or 1, got {value!r}.")


class PPCA(LikelihoodScoreMixin, ComponentEstimator):
    """Probabilistic PCA: ``x = W z + μ + ε`` with ``z ~ N(0, I)``, ``ε ~ N(0, σ² I)``.

    Fitted by maximum likelihood, in closed form or by EM; EM also fits data
    with missing entries (``allow_missing=True``). See the module docstring
    for the covariance denominator and the rotation pcalib reports.

    Parameters
    ----------
    n_components : int or None, default=None
        Latent dimension ``k``, between 1 and ``n_features - 1`` (``σ²`` is the
        mean of the ``d - k`` discarded eigenvalues, so at least one must be
        discarded). ``None`` means ``n_features - 1``. ``k`` must also be
        below the rank of the centred data, else ``σ² = 0`` and ``fit``
        raises.
    solver : {"auto", "closed_form", "em"}, default="auto"
        ``"closed_form"``: eigendecomposition of ``S``. ``"em"``: the EM
        algorithm from a random start. ``"auto"``: the closed form, or EM when
        ``X`` has missing entries.
    ddof : {0, 1}, default=0
        The denominator of ``S`` is ``n - ddof``; 0 is maximum likelihood.
        Missing-data EM requires 0.
    allow_missing : bool, default=False
        Accept NaN in ``X`` as missing entries (in ``fit``, ``transform``,
        ``posterior``, ``score_samples``, ``impute``). When False, NaN is an
        error, as everywhere in pcalib.
    max_iter : int, default=1000
        Largest number of EM iterations.
    tol : float, default=1e-6
        EM stops when the log-likelihood changes by less than ``tol`` per
        observed entry in one iteration; ``tol=0`` runs exactly ``max_iter``
        iterations.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the random start of EM (``W`` with standard normal entries
        scaled to the data's variance).

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        ``μ``: the sample mean, or its EM estimate with missing data.
    W_ : ndarray of shape (n_features, n_components_)
        Loadings ``W`` (orthogonal columns, rotation ``R = I``).
    noise_variance_ : float
        Noise variance ``σ²``.
    components_ : ndarray of shape (n_components_, n_features)
        Unit principal directions: the columns of ``W_`` normalised, as rows.
    explained_variance_ : ndarray of shape (n_components_,)
        ``λ_i = ‖w_i‖² + σ²``: the top eigenvalues of ``S`` (with the
        ``ddof`` denominator) for the closed form, their model estimate for EM.
    n_components_ : int
    solver_ : {"closed_form", "em"}
        The solver used (what ``"auto"`` chose).
    n_iter_ : int
        EM iterations (M-steps) made; 0 for the closed form.
    converged_ : bool
        Whether EM met ``tol`` before ``max_iter``; True for the closed form.
    log_likelihood_history_ : ndarray of shape (n_iter_ + 1,)
        Training log-likelihood (a sum over samples, eq. ``eq-ppca-loglik``)
        at the start and after each EM iteration, never decreasing; the one
        value of the maximum for the closed form (eq. ``eq-ppca-ml-loglik``).
        With ``ddof=1`` it is the same expression with the ``1/(n - 1)``
        ``S``.
    n_samples_, n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import PPCA
    >>> X = np.array([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-2.0, 0.0, 0.5],
    ...               [0.0, -1.0, -0.5]])
    >>> ppca = PPCA(n_components=1).fit(X)
    >>> ppca.explained_variance_.round(3), round(ppca.noise_variance_, 4)
    (array([2.033]), 0.296)
    """

    _parameter_checks: ClassVar[dict] = {
        "solver": one_of(*SOLVERS),
        "ddof": check_ddof,
        "allow_missing": check_bool,
        "max_iter": check_positive_int,
        "tol": check_non_negative_float,
        "random_state": check_random_state,
    }

    def __init__(
        self,
        n_components=None,
        *,
        solver="auto",
        ddof=0,
        allow_missing=False,
        max_iter=1000,
        tol=1e-6,
        random_state=None,
    ):
        self.n_components = n_components
        self.solver = solver
        self.ddof = ddof
        self.allow_missing = allow_missing
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def __sklearn_tags__(self):
        """scikit-learn's tags: NaN is accepted when ``allow_missing``."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = bool(self.allow_missing)
        return tags

    # ----------------------------------------------------------------- fitting
    def fit(self, X, y=None):
        """Fit ``μ``, ``W`` and ``σ²`` by maximum likelihood.

        Attributes are set only once everything has succeeded, so a failed
        refit leaves a fitted estimator as it was.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, at least 2 samples and 2 features; NaN marks a
            missing entry when ``allow_missing``.
        y : None
            Ignored.

        Returns
        -------
        self : PPCA
        """
        self._check_parameters()
        X_checked = self._check_data(X, min_samples=2, min_features=2)
        n_samples, n_features = X_checked.shape
        # One direction must be left over to estimate the noise variance.
        k = check_n_components(
            self.n_components,
            n_features - 1,
            upper_name="n_features - 1 (one direction is left for the noise)",
        )
        observed = ~np.isnan(X_checked) if self.allow_missing else None
        has_missing = observed is not None and not observed.all()
        solver = self._resolve_solver(has_missing)
        if has_missing:
            self._check_missing_pattern(observed)
        else:
            observed = None
        fitted = self._fit_scaled(X_checked, observed, solver, k)
        U, W = canonical_loadings(fitted.pop("W"))
        noise_variance = fitted["noise_variance"]
        self._commit(
            X,
            {
                "mean_": fitted["mean"],
                "noise_variance_": noise_variance,
                "W_": W,
                "components_": U.T,
                "explained_variance_": np.sum(W * W, axis=0) + noise_variance,
                "n_iter_": fitted["n_iter"],
                "converged_": fitted["converged"],
                "log_likelihood_history_": np.asarray(fitted["history"]),
                "solver_": solver,
                "n_components_": k,
                "n_samples_": n_samples,
            },
        )
        return self

    def _check_data(self, X, *, name="X", min_samples=1, min_features=1):
        """A float matrix; NaN allowed (as missing) only when ``allow_missing``."""
        return as_float_matrix(
            X,
            name=name,
            min_samples=min_samples,
            min_features=min_features,
            allow_nan=self.allow_missing,
        )

    def _resolve_solver(self, has_missing):
        """The solver to use: what ``"auto"`` stands for, checked against the data."""
        if not has_missing:
            return "closed_form" if self.solver == "auto" else self.solver
        if self.solver == "closed_form":
            raise ValueError(
                "X has missing entries (NaN) but solver='closed_form': the closed form "
                "needs the full sample covariance. Use solver='em' or 'auto'."
            )
        if self.ddof != 0:
            raise ValueError(
                "ddof=1 is defined for complete data only; with missing entries EM "
                "estimates the mean jointly and maximises the likelihood (ddof=0)."
            )
        return "em"

    def _fit_scaled(self, X, observed, solver, k):
        """Fit ``X / s``, ``s`` a power of four, and scale the estimates back.

        The model is equivariant: ``X`` times ``s`` gives ``μ`` and ``W`` times
        ``s``, ``σ²`` times ``s²`` and a log-likelihood lower by
        ``(observed entries) · log s``. Dividing by a power of four is exact,
        so the squares of tiny (or huge) data neither underflow nor overflow.
        Data whose entries lie within ``2^±200`` cannot do either, and are
        fitted as they are, which saves a copy of ``X``. ``observed`` is None
        for complete data.
        """
        scale = power_of_four_scale(X)
        if 2.0**-200 <= scale <= 2.0**200:
            scale = 1.0
        else:
            X = X / scale
        if observed is not None:
            fitted = self._fit_missing(X, observed, k)
            n_observed = int(observed.sum())
        else:
            n_observed = X.size
            fit = self._fit_closed_form if solver == "closed_form" else self._fit_em
            fitted = fit(X, k)
        noise_variance = float(fitted["noise_variance"] * scale**2)
        if noise_variance < np.finfo(np.float64).tiny:
            raise ValueError(
                "X varies by amounts too small for float64 arithmetic: its noise "
                f"variance, {fitted['noise_variance']:.3g} x {scale:.3g}**2, underflows. "
                "Rescale X, e.g. divide it by its largest absolute entry."
            )
        fitted.update(
            mean=fitted["mean"] * scale,
            W=fitted["W"] * scale,
            noise_variance=noise_variance,
            history=np.asarray(fitted["history"]) - n_observed * np.log(scale),
        )
        return fitted

    @staticmethod
    def _check_missing_pattern(observed):
        """Refuse rows or columns with no observed entry."""
        for axis, what in ((1, "row"), (0, "column")):
            empty = np.flatnonzero(~observed.any(axis=axis))
            if empty.size:
                raise ValueError(
                    f"X has {empty.size} {what}(s) with every entry missing (NaN), the "
                    f"first is {what} {int(empty[0])}: nothing can be estimated from it. "
                    f"Drop it before fitting."
                )

    def _fit_closed_form(self, X, k):
        """Closed-form maximum likelihood (eqs. ``eq-ppca-ml-W``, ``eq-ppca-ml-sigma2``)."""
        n_samples, n_features = X.shape
        mean = X.mean(axis=0)
        X_centered = X - mean
        self._check_rank_bound(X_centered, k)
        U, eigenvalues, trace = top_eigenpairs_of_covariance(X_centered, k, self.ddof)
        noise_variance = ml_noise_variance(eigenvalues, trace, n_features)
        self._check_noise_variance(noise_variance, trace / n_features, k)
        W = ml_loadings(U, eigenvalues, noise_variance)
        log_likelihood = ml_log_likelihood(eigenvalues, noise_variance, n_samples, n_features)
        return dict(
            mean=mean,
            W=W,
            noise_variance=noise_variance,
            n_iter=0,
            converged=True,
            history=[log_likelihood],
        )

    def _check_rank_bound(self, X_centered, k):
        """Refuse ``k ≥ n - 1``: then ``rank(X_c) ≤ n - 1 ≤ k`` and ``σ² = 0``.

        Caught before any eigensolver or EM iteration runs (the Gram matrix
        has only ``n`` eigenpairs, and EM would creep towards ``σ² = 0``).
        """
        n_samples, n_features = X_centered.shape
        if k >= n_samples - 1:
            total = float(np.einsum("ij,ij->", X_centered, X_centered))
            self._check_noise_variance(0.0, total / ((n_samples - self.ddof) * n_features), k)

    @staticmethod
    def _check_noise_variance(noise_variance, average_variance, k):
        """Refuse ``σ² = 0`` (numerically): the likelihood is then unbounded."""
        if average_variance == 0.0:
            raise_zero_variance("PPCA is undefined")
        if noise_variance <= 1e3 * EPS * average_variance:
            raise ValueError(
                f"With n_components={k} the noise variance is 0 (to rounding): the "
                "centred data lie in a subspace of dimension <= n_components, where the "
                "likelihood is unbounded. Choose fewer components than the rank of the "
                "centred data. (If the features of X are in very different units, the "
                "smaller ones vanish to rounding next to the largest: standardise X.)"
            )

    def _random_start(self, n_features, k, average_variance):
        """EM's start: ``W`` with N(0, v) entries and ``σ² = v``, ``v`` the mean variance."""
        rng = as_generator(self.random_state)
        W = rng.standard_normal((n_features, k)) * np.sqrt(average_variance)
        return W, average_variance

    def _fit_em(self, X, k):
        """EM on complete data (eqs. ``eq-ppca-estep`` to ``eq-ppca-em-sigma2``)."""
        n_samples, n_features = X.shape
        mean = X.mean(axis=0)
        X_centered = X - mean
        denominator = n_samples - self.ddof
        self._check_rank_bound(X_centered, k)
        squared_norm = float(np.einsum("ij,ij->", X_centered, X_centered))
        average_variance = squared_norm / (denominator * n_features)
        self._check_noise_variance(average_variance, average_variance, k)
        W, noise_variance = self._random_start(n_features, k, average_variance)
        n_observed = X.size

        def iterate(state):
            W, noise_variance = state
            W_new, noise_variance_new, log_likelihood = em_step(
                X_centered, W, noise_variance, denominator, squared_norm
            )
            self._check_noise_variance(noise_variance_new, average_variance, k)
            return (W_new, noise_variance_new), log_likelihood

        (W, noise_variance), n_iter, converged, history = self._run_em(
            iterate, (W, noise_variance), n_observed
        )
        return dict(
            mean=mean,
            W=W,
            noise_variance=noise_variance,
            n_iter=n_iter,
            converged=converged,
            history=history,
        )

    def _fit_missing(self, X, observed, k):
        """EM over the observed entries only.

        Eqs. ``eq-ppca-missing-estep`` and ``eq-ppca-missing-mstep``.
        """
        n_features = X.shape[1]
        mean = np.nanmean(X, axis=0)
        average_variance = float(np.nanmean((X - mean) ** 2))
        self._check_noise_variance(average_variance, average_variance, k)
        W, noise_variance = self._random_start(n_features, k, average_variance)

        def iterate(state):
            mean, W, noise_variance = state
            Ez, cov_z, log_likelihood = missing_e_step(X, observed, mean, W, noise_variance)
            mean_new, W_new, noise_variance_new = missing_m_step(X, observed, Ez, cov_z)
            self._check_noise_variance(noise_variance_new, average_variance, k)
            return (mean_new, W_new, noise_variance_new), float(log_likelihood.sum())

        (mean, W, noise_variance), n_iter, converged, history = self._run_em(
            iterate, (mean, W, noise_variance), int(observed.sum())
        )
        return dict(
            mean=mean,
            W=W,
            noise_variance=noise_variance,
            n_iter=n_iter,
            converged=converged,
            history=history,
        )

    def _run_em(self, iterate, state, n_observed):
        """Iterate ``state -> (next state, objective at state)`` until converged.

        Stops when the objective changes by less than ``tol`` per observed
        entry in one iteration (never for ``tol=0``), or after ``max_iter``
        iterations with a ``ConvergenceWarning``. The returned state is the
        last one whose objective is in the history, which therefore has
        ``n_iter + 1`` entries. A fall of the objective beyond rounding
        (impossible for exact EM; it happens as ``σ² → 0``) raises
        ``ValueError``.

        Returns
        -------
        state, n_iter, converged, history
        """
        history = []
        for n_iter in range(self.max_iter + 1):
            next_state, log_likelihood = iterate(state)
            history.append(log_likelihood)
            if n_iter > 0:
                change = history[-1] - history[-2]
                if -change > max(self.tol * n_observed, 1e3 * EPS * abs(history[0])):
                    raise ValueError(
                        f"PPCA's EM log-likelihood fell by {-change:.3g} at iteration "
                        f"{n_iter}, which EM cannot do in exact arithmetic: rounding has taken "
                        "over because the noise variance is nearly 0 next to the variance "
                        "of X, typically since n_components is at or above the rank of X "
                        "(the likelihood is then unbounded), or because the features of X "
                        "are in very different units. Choose fewer components, standardise "
                        "X, or use solver='closed_form' for complete data."
                    )
                if abs(change) < self.tol * n_observed:
                    return state, n_iter, True, history
            if n_iter == self.max_iter:
                break
            state = next_state
        convergence_warning(
            "PPCA's EM",
            self.max_iter,
            f"the log-likelihood converged (last change {history[-1] - history[-2]:.3g}, "
            f"tol x observed entries = {self.tol * n_observed:.3g})",
            stacklevel=5,
        )
        return state, self.max_iter, False, history

    # ------------------------------------------------------------- the model
    def get_covariance(self):
        """Model covariance ``C = W Wᵀ + σ² I`` (eq. ``eq-ppca-marginal``).

        Returns
        -------
        C : ndarray of shape (n_features_in_, n_features_in_)
        """
        check_fitted(self, "W_")
        return self.W_ @ self.W_.T + self.noise_variance_ * np.eye(self.W_.shape[0])

    def get_precision(self):
        """Model precision ``C⁻¹ = (I - W M⁻¹ Wᵀ) / σ²``, by the Woodbury identity.

        Returns
        -------
        precision : ndarray of shape (n_features_in_, n_features_in_)
        """
        check_fitted(self, "W_")
        M = posterior_matrix(self.W_, self.noise_variance_)
        W_Minv = scipy.linalg.solve(M, self.W_.T, assume_a="pos").T
        return (np.eye(self.W_.shape[0]) - W_Minv @ self.W_.T) / self.noise_variance_

    def _check_new_data(self, X):
        """Validate new data against the fit; return it and its mask of observed entries."""
        X_checked = check_new_data(self, X, fitted_attribute="W_", allow_nan=self.allow_missing)
        observed = ~np.isnan(X_checked)
        empty = np.flatnonzero(~observed.any(axis=1))
        if empty.size:
            raise ValueError(
                f"X has {empty.size} row(s) with every entry missing (NaN), the first "
                f"is row {int(empty[0])}: there is nothing to condition on."
            )
        return X_checked, observed

    def posterior(self, X):
        """Posterior of the latent ``z`` given each row (eq. ``eq-ppca-posterior``).

        ``z | x ~ N(M⁻¹ Wᵀ (x - μ), σ² M⁻¹)`` with ``M = Wᵀ W + σ² I``; a row
        with missing entries uses its observed coordinates only (``W_O``,
        ``μ_O``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        mean : ndarray of shape (n_samples, n_components_)
        covariance : ndarray of shape (n_samples, n_components_, n_components_)
            For complete rows every slice is the same ``σ² M⁻¹`` (a read-only
            broadcast view, no copies).
        """
        X_checked, observed = self._check_new_data(X)
        if observed.all():
            M = posterior_matrix(self.W_, self.noise_variance_)
            mean = scipy.linalg.solve(M, ((X_checked - self.mean_) @ self.W_).T, assume_a="pos").T
            covariance = self.noise_variance_ * scipy.linalg.inv(M)
            k = self.n_components_
            return mean, np.broadcast_to(covariance, (X_checked.shape[0], k, k))
        mean, covariance, _ = missing_e_step(
            X_checked, observed, self.mean_, self.W_, self.noise_variance_
        )
        return mean, covariance

    def transform(self, X):
        """Posterior means ``E[z | x] = M⁻¹ Wᵀ (x - μ)`` (eq. ``eq-ppca-posterior``).

        They are shrunk towards 0 compared with PCA's scores; as ``σ² → 0``
        ``W M⁻¹ Wᵀ`` tends to the PCA projection (chapter 4).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)
            NaN marks a missing entry when ``allow_missing``.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
        """
        return self.posterior(X)[0]

    def inverse_transform(self, Z):
        """Mean of ``x`` given ``z``: ``Z Wᵀ + μ``.

        ``inverse_transform(transform(X))`` is ``μ + W M⁻¹ Wᵀ (x - μ)``, which
        is not an orthogonal projection while ``σ² > 0``.

        Parameters
        ----------
        Z : array-like of shape (n_samples, n_components_)

        Returns
        -------
        X : ndarray of shape (n_samples, n_features_in_)
        """
        check_fitted(self, "W_")
        Z = as_float_matrix(Z, name="Z")
        if Z.shape[1] != self.n_components_:
            raise ValueError(
                f"Z has {Z.shape[1]} columns but this PPCA has {self.n_components_} "
                "components; pass the output of transform()."
            )
        return Z @ self.W_.T + self.mean_

    def score_samples(self, X):
        """Log-likelihood ``log N(x | μ, C)`` of each row (eq. ``eq-ppca-loglik``).

        Rows with missing entries get the marginal likelihood of their observed
        coordinates, ``log N(x_O | μ_O, C_OO)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)
            NaN marks a missing entry when ``allow_missing``.

        Returns
        -------
        log_likelihood : ndarray of shape (n_samples,)
        """
        X_checked, observed = self._check_new_data(X)
        return missing_e_step(X_checked, observed, self.mean_, self.W_, self.noise_variance_)[2]

    def impute(self, X):
        """Replace missing entries by ``E[x_M | x_O] = μ_M + W_M E[z | x_O]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_), NaN where missing

        Returns
        -------
        X_imputed : ndarray of shape (n_samples, n_features_in_)
            A copy of ``X`` with the observed entries unchanged.
        """
        X_checked, observed = self._check_new_data(X)
        # the E-step directly: posterior(X_checked) would re-validate the array
        # and warn that a DataFrame's feature names are missing
        Ez = missing_e_step(X_checked, observed, self.mean_, self.W_, self.noise_variance_)[0]
        return np.where(observed, X_checked, Ez @ self.W_.T + self.mean_)

    def sample(self, n_samples=1, random_state=None):
        """Draw ``n_samples`` rows from the fitted model (eq. ``eq-ppca-model``).

        Parameters
        ----------
        n_samples : int, default=1
        random_state : None, int, numpy.random.Generator or RandomState, default=None

        Returns
        -------
        X : ndarray of shape (n_samples, n_features_in_)
        """
        check_fitted(self, "W_")
        check_positive_int(n_samples, name="n_samples")
        check_array_size((n_samples, self.W_.shape[0]), name="n_samples")
        rng = as_generator(random_state)
        z = rng.standard_normal((n_samples, self.n_components_))
        noise = rng.standard_normal((n_samples, self.W_.shape[0])) * np.sqrt(self.noise_variance_)
        return z @ self.W_.T + self.mean_ + noise


# ----------------------------------------------------------------------------
# Choosing k: Minka's Laplace evidence and BIC

CRITERIA = ("laplace", "bic")


class PPCAEvidenceResult(NamedTuple):
    """What :func:`ppca_evidence` returns.

    Entry ``k - 1`` of ``log_evidence`` and ``bic`` is for ``k`` components,
    ``k = 1, ..., K``, where ``K ≤ d - 1`` is the largest ``k`` whose noise
    variance ``σ²`` (the mean of the ``d - k`` smallest eigenvalues) is
    positive.

    Attributes
    ----------
    n_components : int
        The chosen ``k``: the maximiser of ``log_evidence`` or the minimiser
        of ``bic``, the smallest ``k`` on a tie.
    log_evidence : ndarray of shape (K,)
        Minka's Laplace approximation of ``log p(X | k)`` (eq.
        ``eq-ppca-laplace``); ``-inf`` where two eigenvalues it compares are
        equal. In data units: for ``c X`` every entry is lower by
        ``n d log c``.
    bic : ndarray of shape (K,)
        ``-2 log L̂(k) + m(k) log n`` (eq. ``eq-ppca-bic``); for ``c X`` every
        entry is higher by ``2 n d log c``.
    eigenvalues : ndarray of shape (n_features,)
        Eigenvalues of ``S = X_cᵀ X_c / n`` in decreasing order (zeros beyond
        the rank of ``X_c``), in the units of ``X`` squared.
    """

    n_components: int
    log_evidence: np.ndarray
    bic: np.ndarray
    eigenvalues: np.ndarray


def ppca_parameter_count(n_features, n_components):
    """Free parameters of PPCA: ``m = d k - k (k - 1) / 2 + 1 + d``.

    ``d k`` entries of ``W`` less the ``k (k - 1) / 2`` angles of the rotation
    ``W R`` that leaves the model unchanged (eq. ``eq-ppca-rotation``), one
    for ``σ²`` and ``d`` for the mean ``μ``.

    Parameters
    ----------
    n_features, n_components : int
        ``d`` and ``k``.

    Returns
    -------
    int
    """
    d, k = n_features, n_components
    return d * k - k * (k - 1) // 2 + 1 + d


def bic_score(eigenvalues, n_components, n_samples):
    """BIC of PPCA with ``k`` components (eq. ``eq-ppca-bic``), from the spectrum.

    ``BIC(k) = -2 log L̂(k) + m(k) log n``, with the maximised log-likelihood
    of eq. ``eq-ppca-ml-loglik`` and the count of :func:`ppca_parameter_count`.

    Parameters
    ----------
    eigenvalues : ndarray of shape (n_features,)
        All eigenvalues of ``S``, decreasing, with a positive mean of the last
        ``d - k``.
    n_components : int
        ``k``, between 1 and ``d - 1``.
    n_samples : int

    Returns
    -------
    float
    """
    d, k, n = eigenvalues.shape[0], n_components, n_samples
    noise_variance = ml_noise_variance(eigenvalues[:k], float(eigenvalues.sum()), d)
    log_likelihood = ml_log_likelihood(eigenvalues[:k], noise_variance, n, d)
    return -2.0 * log_likelihood + ppca_parameter_count(d, k) * np.log(n)


def laplace_log_evidence(eigenvalues, n_components, n_samples):
    """Minka's Laplace approximation of ``log p(X | k)`` (eq. ``eq-ppca-laplace``).

    The sum of: the log of the uniform prior on the orthonormal ``U`` (the
    inverse area of the Stiefel manifold, ``2⁻ᵏ Π_i Γ((d-i+1)/2) π^(-(d-i+1)/2)``);
    the likelihood terms ``-n/2 Σ_{i≤k} log λ_i - n (d - k)/2 log σ²``;
    ``(m + k)/2 log 2π`` with ``m = d k - k (k + 1)/2``; minus half the log
    determinant of the Hessian of ``U``,
    ``log |A_U| = Σ_{i≤k} Σ_{j>i} log(n (λ_i - λ_j)(1/λ̂_j - 1/λ̂_i))``
    (``λ̂_j = λ_j`` for ``j ≤ k``, ``σ²`` beyond), and ``-k/2 log n`` for the
    ``k`` eigenvalues.

    Parameters
    ----------
    eigenvalues : ndarray of shape (n_features,)
        All eigenvalues of ``S``, decreasing, with a positive mean of the last
        ``d - k``.
    n_components : int
        ``k``, between 1 and ``d - 1``.
    n_samples : int

    Returns
    -------
    float
        ``-inf`` when two of the compared eigenvalues are equal.
    """
    d, k, n = eigenvalues.shape[0], n_components, n_samples
    kept = eigenvalues[:k]
    noise_variance = ml_noise_variance(kept, float(eigenvalues.sum()), d)
    free = d - np.arange(1, k + 1) + 1  # d - i + 1 for i = 1, ..., k
    log_prior_U = -k * np.log(2.0) + np.sum(
        scipy.special.gammaln(free / 2) - free / 2 * np.log(np.pi)
    )
    log_likelihood = -n / 2 * np.sum(np.log(kept)) - n * (d - k) / 2 * np.log(noise_variance)
    m = d * k - k * (k + 1) / 2
    hat = np.concatenate([kept, np.full(d - k, noise_variance)])
    i, j = np.triu_indices(d, 1)
    pairs = i < k
    i, j = i[pairs], j[pairs]
    with np.errstate(divide="ignore"):
        log_det_A = np.sum(
            np.log(n * (eigenvalues[i] - eigenvalues[j]) * (1 / hat[j] - 1 / hat[i]))
        )
    return float(
        log_prior_U + log_likelihood + (m + k) / 2 * LOG_2PI - log_det_A / 2 - k / 2 * np.log(n)
    )


def ppca_evidence(X, *, criterion="laplace"):
    """Choose ``k`` for PPCA by Minka's Laplace evidence or by BIC (chapter 4).

    Both score every ``k = 1, ..., K`` from the eigenvalues of
    ``S = X_cᵀ X_c / n``. ``"laplace"`` maximises Minka's approximation of
    the evidence ``p(X | k)`` (eq. ``eq-ppca-laplace``), the rule of
    scikit-learn's ``PCA(n_components="mle")``; ``"bic"`` minimises
    ``-2 log L̂(k) + m(k) log n`` (eq. ``eq-ppca-bic``), with
    ``m(k) = d k - k (k - 1)/2 + 1 + d`` free parameters: ``W`` up to
    rotation, ``σ²`` and the mean. Neither depends on the units of ``X``:
    the scores of ``c X`` are those of ``X`` shifted by the same amount at
    every ``k``. The spectrum is computed on ``X`` divided by a power of four
    (exact) and scaled back.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The data, at least two features, and centred rank at least 2 (else
        no ``k ≥ 1`` leaves a positive ``σ²``).
    criterion : {"laplace", "bic"}, default="laplace"
        Which score chooses ``n_components``; both are returned.

    Returns
    -------
    PPCAEvidenceResult
        ``(n_components, log_evidence, bic, eigenvalues)``; the two scores
        have shape ``(K,)``, ``eigenvalues`` shape ``(n_features,)``.
    """
    X = as_float_matrix(X, name="X", min_samples=2, min_features=2)
    criterion = check_option(criterion, name="criterion", allowed=CRITERIA)
    n_samples, n_features = X.shape
    X_centered = X - X.mean(axis=0)
    scale = power_of_four_scale(X_centered)
    singular_values = scipy.linalg.svdvals(X_centered / scale, check_finite=False)
    eigenvalues = np.zeros(n_features)
    eigenvalues[: singular_values.size] = singular_values**2 / n_samples
    ks = _evidence_candidates(eigenvalues)
    # scores on the working scale, shifted to the units of X
    log_shift = n_samples * n_features * np.log(scale)
    log_evidence = np.array([laplace_log_evidence(eigenvalues, k, n_samples) for k in ks])
    bic = np.array([bic_score(eigenvalues, k, n_samples) for k in ks])
    chosen = np.argmax(log_evidence) if criterion == "laplace" else np.argmin(bic)
    return PPCAEvidenceResult(
        int(ks[chosen]),
        log_evidence - log_shift,
        bic + 2.0 * log_shift,
        eigenvalues * scale**2,
    )


def _evidence_candidates(eigenvalues):
    """``k = 1, ..., K``: those with ``σ²`` above rounding (it falls as ``k`` grows)."""
    d = eigenvalues.shape[0]
    tail_means = np.cumsum(eigenvalues[::-1])[::-1][1:] / np.arange(d - 1, 0, -1)
    valid = tail_means > 1e3 * EPS * eigenvalues.mean()
    if not valid[0]:
        raise ValueError(
            "X has centred rank below 2 (all samples on a line, or all equal): no "
            "number of components k >= 1 leaves a positive noise variance, so the "
            "evidence of PPCA is undefined."
        )
    return np.arange(1, int(np.sum(valid)) + 1)
