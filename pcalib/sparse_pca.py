"""Sparse PCA by the elastic net (chapter 5 of the book, ``book/sparse_pca.md``).

Zou, Hastie and Tibshirani (2006) write PCA as a regression problem and add
an elastic-net penalty to the regression coefficients (eq. ``eq-spca-criterion``):

    minimise over A, B   Σ_i ‖x_i - A Bᵀ x_i‖² + λ₂ Σ_j ‖β_j‖² + Σ_j λ₁,j ‖β_j‖₁
    subject to           Aᵀ A = I_k .

For fixed ``A`` each column ``β_j`` is an elastic-net regression of the scores
``X α_j`` on ``X``; for fixed ``B`` the best ``A`` is an orthogonal Procrustes
rotation, ``A = U Vᵀ`` from the SVD ``(Xᵀ X) B = U D Vᵀ``. Both steps need only
the Gram matrix ``Xᵀ X``, so the method runs from a covariance or correlation
matrix as well as from data. The sparse loadings are the normalised
``β_j / ‖β_j‖``.

This is **not** scikit-learn's ``SparsePCA``, which solves a dictionary
learning problem (an L1 penalty on the components of a factorisation
``X ≈ U V``) and reports no explained variance.
"""

import warnings
from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import scipy.linalg

from ._base import ComponentEstimator
from ._linalg import EPS, binary_exponent, flip_signs, top_eigh
from ._validation import (
    as_float_matrix,
    as_per_component,
    check_bool,
    check_fitted,
    check_n_components,
    check_new_data,
    check_non_negative_float,
    check_positive_int,
    convergence_warning,
)
from .elastic_net import active_set_descent, check_symmetric_psd, path_to_n_nonzero
from .pca import center_and_scale

# The entry points: the other public names are building blocks that trust their caller.
__all__ = ["ElasticNetSPCA", "truncated_power_method"]


def adjusted_variance(gram, loadings):
    """Variance explained by correlated components, not counted twice (eq. ``eq-spca-adjusted``).

    With scores ``Z = X V`` (V: unit loadings as columns), the QR decomposition
    ``Z = Q R`` attributes to component ``j`` only the variance of what its
    scores add to those of components ``1..j-1``: ``R_jj²``. ``R`` depends on
    ``Z`` only through ``Zᵀ Z = Vᵀ G V`` (k × k), so it is computed from the
    Gram matrix alone: any ``Y`` with ``Yᵀ Y = Vᵀ G V`` (here
    ``Λ^{1/2} Qᵀ`` from its eigendecomposition) has the same ``|R_jj|``.

    Parameters
    ----------
    gram : ndarray of shape (d, d)
        The (scaled) Gram matrix ``G``, e.g. the covariance matrix.
    loadings : ndarray of shape (d, k)

    Returns
    -------
    ndarray of shape (k,)
        ``R_jj²``, on the scale of ``G`` (variances when ``G`` is a covariance).
    """
    scores_gram = loadings.T @ gram @ loadings
    eigenvalues, eigenvectors = scipy.linalg.eigh(scores_gram, check_finite=False)
    Y = np.sqrt(np.clip(eigenvalues, 0.0, None))[:, np.newaxis] * eigenvectors.T
    R = scipy.linalg.qr(Y, mode="r", check_finite=False)[0]
    return np.diag(R) ** 2


def procrustes_rotation(gram, B):
    """``A = U Vᵀ`` from the thin SVD ``G B = U D Vᵀ`` (eq. ``eq-spca-procrustes``).

    Maximises ``tr(Aᵀ G B)`` over ``Aᵀ A = I``, which is the ``A``-step of the
    criterion for fixed ``B``.
    """
    U, _, Vt = scipy.linalg.svd(gram @ B, full_matrices=False, check_finite=False)
    return U @ Vt


def zht_criterion(gram, A, B, l1_penalty, l2_penalty):
    """The criterion of eq. ``eq-spca-criterion`` with ``Xᵀ X`` replaced by ``G``.

    Expanding the squares with ``Aᵀ A = I``,
    ``Σ_i ‖x_i - A Bᵀ x_i‖² = tr(G) - 2 tr(Aᵀ G B) + tr(Bᵀ G B)``, so the
    criterion needs the Gram matrix only. With ``G`` the covariance matrix it
    is the criterion of the data divided by ``n - 1``, with the penalties on
    the scale of ``G`` (as the estimator uses them).

    Parameters
    ----------
    gram : ndarray of shape (d, d)
    A : ndarray of shape (d, k)
        Orthonormal columns ``α_j``.
    B : ndarray of shape (d, k)
        Regression coefficients ``β_j`` as columns.
    l1_penalty : ndarray of shape (k,)
        ``λ₁,j``.
    l2_penalty : float
        ``λ₂``.

    Returns
    -------
    float
    """
    GB = gram @ B
    fit = np.trace(gram) - 2.0 * np.sum(A * GB) + np.sum(B * GB)
    return float(fit + l2_penalty * np.sum(B**2) + l1_penalty @ np.abs(B).sum(axis=0))


def normalise_columns(B):
    """``β_j / ‖β_j‖``; an all-zero column stays zero."""
    norms = np.linalg.norm(B, axis=0)
    return B / np.where(norms > 0.0, norms, 1.0)


def _on_working_scale(penalty, name, gram_exponent):
    """``penalty / 2**gram_exponent``, the penalty on the scale of the working Gram matrix."""
    with np.errstate(over="ignore"):
        working = np.ldexp(penalty, -gram_exponent)
    if not np.all(np.isfinite(working)):
        raise ValueError(
            f"{name} is out of scale with X: the penalties act on the covariance matrix of X, "
            f"whose largest variance is about 2**{gram_exponent}, below the range of float64. "
            "Use standardize=True, or rescale X."
        )
    return working


def _warn_about_counts(loadings, counts):
    """Warn about components left empty, and about counts that ties made impossible."""
    empty = np.flatnonzero(~loadings.any(axis=0))
    if empty.size:
        warnings.warn(
            f"component(s) {empty.tolist()} have no non-zero loading: the L1 penalty is "
            "too large for them (their scores are 0). Lower l1_penalty or use n_nonzero.",
            UserWarning,
            stacklevel=4,
        )
    if counts is not None and np.any(np.count_nonzero(loadings, axis=0) != counts):
        warnings.warn(
            f"n_nonzero={counts.tolist()} asked, but the components have "
            f"{np.count_nonzero(loadings, axis=0).tolist()} non-zero loadings: tied "
            "variables enter the elastic-net path together, so no penalty gives the "
            "requested count.",
            UserWarning,
            stacklevel=4,
        )


class ElasticNetSPCA(ComponentEstimator):
    """Sparse PCA of Zou, Hastie and Tibshirani: alternating elastic net and Procrustes.

    **Not scikit-learn's** ``SparsePCA``: that estimator is L1-penalised
    dictionary learning and reports no explained variance. This one sparsifies
    the principal directions themselves and reports ZHT's adjusted variance.

    Parameters
    ----------
    n_components : int or None, default=None
        Number ``k`` of sparse components, ``1 ≤ k ≤ n_features``; None keeps
        all ``n_features`` (as scikit-learn's ``SparsePCA``).
    l1_penalty : float or array-like of shape (k,), default=1.0
        ``λ₁,j`` per component (one number for all). The penalties act on the
        scale of the Gram matrix, which is the covariance matrix of the data
        (``1/(n - 1)``), or its correlation matrix when ``standardize=True``,
        or the matrix given to :meth:`fit_gram`. Both penalties therefore have
        the units of a variance unless ``standardize=True``: ``fit(c * X)``
        with ``l1_penalty`` and ``l2_penalty`` multiplied by ``c**2`` is
        ``fit(X)`` with ``mean_`` and ``scale_`` multiplied by ``c`` and
        ``explained_variance_``, ``l1_penalty_`` and ``objective_history_``
        by ``c**2`` (the loadings, ratios and iterations unchanged). With
        ``standardize=True`` they have no units, and ``fit(c * X)`` needs no
        change of penalty.
    n_nonzero : int or array-like of shape (k,), default=None
        Instead of ``l1_penalty``: the number of non-zero loadings of each
        component; ``λ₁,j`` is then the knot of each elastic net's path (see
        :func:`pcalib.elastic_net.elastic_net_n_nonzero`). The supports are
        discrete, and the alternation can cycle between two of them; it then
        stops at ``max_iter`` with a ``ConvergenceWarning``. The knots follow
        the scale of the data; ``l2_penalty`` keeps its units.
    l2_penalty : float, default=1e-6
        The ridge ``λ₂ ≥ 0`` of every elastic net, in the units of
        ``l1_penalty``. ``0`` (lasso regressions) needs a non-singular Gram
        matrix (``n > d`` and no collinear features) and is refused otherwise;
        a small positive value keeps each regression well posed.
    standardize : bool, default=False
        Divide each feature by its standard deviation (PCA of the correlation
        matrix).
    max_iter : int, default=200
        Largest number of alternations.
    tol : float, default=1e-3
        Stop when the largest change of a normalised loading in one
        alternation is below ``tol``; ``tol=0`` runs exactly ``max_iter``
        alternations. The defaults are those of ZHT's R package
        ``elasticnet`` (``eps.conv=1e-3``, ``max.iter=200``), with which ZHT
        computed their published pitprops table; a smaller ``tol`` converges
        further.

    Attributes
    ----------
    components_ : ndarray of shape (k, n_features)
        Sparse loadings ``β_j / ‖β_j‖`` as rows (pcalib's sign convention: the
        entry of largest absolute value is positive).
    explained_variance_ : ndarray of shape (k,)
        Adjusted variances ``R_jj²`` (eq. ``eq-spca-adjusted``).
    explained_variance_ratio_ : ndarray of shape (k,)
        ``explained_variance_ / trace(G)``.
    pca_explained_variance_ratio_ : ndarray of shape (k,)
        Ordinary PCA's proportions, for comparison.
    l1_penalty_ : ndarray of shape (k,)
        The ``λ₁,j`` used (the knot of the path when ``n_nonzero`` is given).
    n_nonzero_ : ndarray of shape (k,)
        Non-zero loadings per component.
    n_components_ : int
        ``k``, resolved from ``n_components``.
    n_iter_ : int
        Number of alternations made.
    converged_ : bool
        Whether the loadings met ``tol`` before ``max_iter``.
    objective_history_ : ndarray of shape (n_iter_ + 1,)
        The criterion of eq. ``eq-spca-criterion`` on the Gram matrix
        (:func:`zht_criterion`): at the start (``B = 0``, where it is
        ``trace(G)``), then after each alternation. With ``l1_penalty`` it
        never increases; with ``n_nonzero`` each alternation uses the
        ``λ₁,j`` of its own path knots, so it may.
    mean_, scale_ : ndarray of shape (n_features,) or None
        Training statistics (None after :meth:`fit_gram`).
    n_samples_ : int or None
        Number of training samples (None after :meth:`fit_gram`).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import ElasticNetSPCA
    >>> rng = np.random.default_rng(0)
    >>> factor = rng.standard_normal((200, 1))
    >>> X = np.hstack([factor + 0.1 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> spca = ElasticNetSPCA(n_components=1, n_nonzero=3).fit(X)
    >>> (spca.components_ != 0).astype(int)
    array([[1, 1, 1, 0, 0, 0]])
    """

    _parameter_checks: ClassVar[dict] = {
        "standardize": check_bool,
        "max_iter": check_positive_int,
        "tol": check_non_negative_float,
        "l2_penalty": check_non_negative_float,
    }

    def __init__(
        self,
        n_components=None,
        *,
        l1_penalty=1.0,
        n_nonzero=None,
        l2_penalty=1e-6,
        standardize=False,
        max_iter=200,
        tol=1e-3,
    ):
        self.n_components = n_components
        self.l1_penalty = l1_penalty
        self.n_nonzero = n_nonzero
        self.l2_penalty = l2_penalty
        self.standardize = standardize
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y=None):
        """Fit the sparse loadings to data (``alg-spca`` on its covariance or correlation matrix).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, ``n_samples ≥ 2``.
        y : ignored

        Returns
        -------
        self : ElasticNetSPCA
        """
        self._check_parameters()
        X_checked = as_float_matrix(X, name="X", min_samples=2)
        n_samples = X_checked.shape[0]
        # Unstandardised, X - mean = 2**exponent X_centered: the covariance is 4**exponent gram.
        X_centered, mean, scale, exponent, _ = center_and_scale(
            X_checked, standardize=self.standardize, order="C"
        )
        gram = X_centered.T @ X_centered / (n_samples - 1)
        fitted = self._fit_gram(gram, gram_exponent=2 * exponent, n_samples=n_samples)
        self._commit(X, fitted | {"mean_": mean, "scale_": scale, "n_samples_": n_samples})
        return self

    def fit_gram(self, gram):
        """Fit from a covariance or correlation matrix (algorithm ``alg-spca``).

        Use it when only such a table is published. ``transform`` then has no
        training mean and refuses to run; project centred (and scaled) data
        yourself with ``X @ components_.T``.

        Parameters
        ----------
        gram : array-like of shape (n_features, n_features)
            Symmetric positive semi-definite matrix ``G``.

        Returns
        -------
        self : ElasticNetSPCA
        """
        self._check_parameters()
        gram = as_float_matrix(gram, name="gram")
        check_symmetric_psd(gram, name="gram", meaning="a covariance or correlation matrix")
        if np.trace(gram) == 0.0:
            raise ValueError("gram is zero: every feature has zero variance.")
        fitted = self._fit_gram(gram)
        unknown = {"mean_": None, "scale_": None, "n_samples_": None}
        self._commit(None, fitted | unknown | {"n_features_in_": gram.shape[0]})
        return self

    def _penalties(self, k, d):
        """Per-component ``λ₁`` (or None) and target counts (or None).

        ``l1_penalty`` is checked even when ``n_nonzero`` replaces it.
        """
        l1_penalty = as_per_component(self.l1_penalty, name="l1_penalty", kind=Real, n_components=k)
        try:
            l1_penalty = l1_penalty.astype(float)
        except OverflowError:  # a Python int beyond float64
            l1_penalty = np.full(k, np.inf)
        if not np.all(np.isfinite(l1_penalty)) or l1_penalty.min() < 0:
            raise ValueError(f"l1_penalty must be finite and >= 0; got {self.l1_penalty!r}.")
        if self.n_nonzero is None:
            return l1_penalty, None
        return None, np.array(counts_per_component(self.n_nonzero, k, d, "n_features"))

    def _fit_gram(self, gram, *, gram_exponent=0, n_samples=None):
        """The alternating algorithm (``alg-spca``) on ``G = 2**gram_exponent · gram`` (d × d).

        ``gram`` is ``G`` brought to unit size by a power of two (see
        :func:`pcalib.pca.center_and_scale`): the penalties are divided by
        that power to act on ``gram``, and the fitted variances, penalties and
        criterion multiplied by it, all exactly.
        """
        d = gram.shape[0]
        k = check_n_components(self.n_components, d, upper_name="n_features")
        l1_penalty, counts = self._penalties(k, d)
        if counts is None:
            l1_penalty = _on_working_scale(l1_penalty, "l1_penalty", gram_exponent)
        else:
            l1_penalty = np.zeros(k)  # the knots of the paths, found at each alternation
        l2_penalty = _on_working_scale(self.l2_penalty, "l2_penalty", gram_exponent)
        self._check_ridge(gram, l2_penalty, n_samples)
        total = float(np.trace(gram))
        eigenvalues, eigenvectors = top_eigh(gram, k)
        A = flip_signs(eigenvectors.T)[0].T
        B = np.zeros((d, k))
        loadings = normalise_columns(B)
        history = [zht_criterion(gram, A, B, l1_penalty, l2_penalty)]
        n_iter, converged = 0, False
        while n_iter < self.max_iter and not converged:
            n_iter += 1
            for j in range(k):
                c = gram @ A[:, j]
                if counts is None:
                    B[:, j] = active_set_descent(gram, c, B[:, j], l1_penalty[j], l2_penalty)[0]
                else:
                    with warnings.catch_warnings():  # ties are reported once, at the end
                        warnings.filterwarnings("ignore", message="elastic net: no penalty gives")
                        B[:, j], l1_penalty[j] = path_to_n_nonzero(gram, c, counts[j], l2_penalty)
            A = procrustes_rotation(gram, B)
            history.append(zht_criterion(gram, A, B, l1_penalty, l2_penalty))
            new_loadings = normalise_columns(B)
            change = np.abs(new_loadings - loadings).max()
            loadings = new_loadings
            converged = bool(change < self.tol)
        if not converged:
            convergence_warning(
                "ElasticNetSPCA",
                self.max_iter,
                f"the largest change of a normalised loading ({change:.3g}) fell below "
                f"tol={self.tol}",
                stacklevel=4,
            )
        _warn_about_counts(loadings, counts)
        components, _ = flip_signs(loadings.T)
        explained = adjusted_variance(gram, components.T)
        return dict(
            components_=components,
            explained_variance_=np.ldexp(explained, gram_exponent),
            explained_variance_ratio_=explained / total,
            pca_explained_variance_ratio_=eigenvalues / total,
            l1_penalty_=np.ldexp(l1_penalty, gram_exponent),
            n_nonzero_=np.count_nonzero(components, axis=1),
            n_components_=k,
            n_iter_=n_iter,
            converged_=converged,
            objective_history_=np.ldexp(history, gram_exponent),
        )

    def _check_ridge(self, gram, l2_penalty, n_samples):
        """Refuse ``λ₂ = 0`` when ``G`` is singular.

        The lasso regressions of the alternation are then not unique, and
        their coordinate descent may creep for ever between equally good
        solutions.
        """
        if l2_penalty > 0.0:
            return
        d = gram.shape[0]
        if n_samples is not None and n_samples <= d:
            reason = (
                f"X has {n_samples} samples for {d} features, so its covariance matrix has "
                f"rank at most {n_samples - 1}"
            )
        else:
            eigenvalues = np.linalg.eigvalsh(gram)
            if eigenvalues[0] > d * EPS * eigenvalues[-1]:
                return
            reason = "the Gram matrix is singular (some features are collinear)"
        raise ValueError(
            f"l2_penalty={self.l2_penalty!r} (the lasso) needs a non-singular Gram matrix, but "
            f"{reason}. Use a small positive l2_penalty, such as the default 1e-6."
        )

    def transform(self, X):
        """Project ``X`` on the sparse loadings: ``(X - mean_) / scale_ @ components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
            The scores. The sparse loadings are not orthogonal in general, so
            these are projections, not the least-squares coordinates.
        """
        check_fitted(self, "components_")
        if self.mean_ is None:
            raise ValueError(
                "This ElasticNetSPCA was fitted from a Gram matrix (fit_gram), so it has no "
                "training mean: centre (and scale) X yourself and use X @ components_.T."
            )
        X_checked = check_new_data(self, X, fitted_attribute="components_")
        X_centered = X_checked - self.mean_
        if self.scale_ is not None:
            X_centered /= self.scale_
        return X_centered @ self.components_.T


def truncate(x, n_nonzero):
    """Keep the ``n_nonzero`` entries of ``x`` of largest absolute value, rescaled to unit norm.

    Ties are broken towards the lower index (a stable sort), so the result is
    reproducible.

    Parameters
    ----------
    x : ndarray of shape (d,)
        A vector with at least one non-zero entry.
    n_nonzero : int
        ``1 ≤ n_nonzero ≤ d``.

    Returns
    -------
    ndarray of shape (d,)
        The unit vector with the ``n_nonzero`` largest entries of ``x``.
    """
    keep = np.argsort(-np.abs(x), kind="stable")[:n_nonzero]
    truncated = np.zeros_like(x)
    truncated[keep] = x[keep]
    return truncated / np.linalg.norm(truncated)


def truncated_power_iteration(S, x, n_nonzero, max_iter, tol):
    """Yuan and Zhang's truncated power iteration (eq. ``eq-spca-tpower``) from ``x``.

    Each step multiplies by ``S`` and keeps the ``n_nonzero`` largest entries:
    ``x ← truncate(S x / ‖S x‖)``. For a positive semi-definite ``S`` the
    variance ``xᵀ S x`` never decreases.

    Parameters
    ----------
    S : ndarray of shape (d, d)
        Symmetric positive semi-definite.
    x : ndarray of shape (d,)
        Unit starting vector with ``n_nonzero`` non-zero entries.
    n_nonzero : int
    max_iter : int
    tol : float
        Stop when ``‖x_new - x‖ < tol``; ``tol=0`` runs ``max_iter`` iterations.

    Returns
    -------
    x : ndarray of shape (d,)
        Unit vector with ``n_nonzero`` non-zero entries.
    n_iter : int
    converged : bool
    """
    for n_iter in range(1, max_iter + 1):
        Sx = S @ x
        if not Sx.any():  # x carries no variance, and neither does any vector S maps to 0
            return x, n_iter, True
        x_new = truncate(Sx, n_nonzero)
        change = np.linalg.norm(x_new - x)
        x = x_new
        if change < tol:
            return x, n_iter, True
    return x, max_iter, False


def projection_deflation(S, v):
    """``(I - v vᵀ) S (I - v vᵀ)`` for a unit vector ``v`` (eq. ``eq-spca-projection-deflation``).

    Unlike Hotelling's ``S - (vᵀ S v) v vᵀ``, it stays positive semi-definite
    for any unit ``v``, and ``v`` is in its null space.

    Parameters
    ----------
    S : ndarray of shape (d, d)
    v : ndarray of shape (d,)
        Unit vector.

    Returns
    -------
    ndarray of shape (d, d)
    """
    Sv = S @ v
    vSv = v @ Sv
    return S - np.outer(Sv, v) - np.outer(v, Sv) + vSv * np.outer(v, v)


def truncated_power_method(S, n_nonzero, *, n_components=1, max_iter=200, tol=1e-10):
    """Sparse principal directions by the truncated power method (Yuan and Zhang, 2013).

    Approximately solves the L0 problem (eq. ``eq-spca-l0``),
    ``max vᵀ S v`` over unit ``v`` with at most ``n_nonzero`` non-zero
    entries, by the iteration ``v ← truncate(S v / ‖S v‖)``
    (:func:`truncated_power_iteration`), started from the leading eigenvector
    of ``S`` cut to its ``n_nonzero`` largest entries. Further components
    repeat this on the projection-deflated matrix
    ``(I - v vᵀ) S (I - v vᵀ)`` (:func:`projection_deflation`).

    Parameters
    ----------
    S : array-like of shape (d, d)
        Symmetric positive semi-definite matrix: a covariance or correlation
        matrix.
    n_nonzero : int or array-like of int of shape (n_components,)
        Non-zero entries of each direction, ``1 ≤ n_nonzero ≤ d``; one number
        for all components.
    n_components : int, default=1
        Number of directions, ``1 ≤ n_components ≤ d``; None gives ``d``.
    max_iter : int, default=200
        Largest number of iterations per component.
    tol : float, default=1e-10
        Stop a component when its unit vector moves by less than ``tol``
        (Euclidean norm) in one iteration; ``tol=0`` runs exactly
        ``max_iter`` iterations.

    Returns
    -------
    components : ndarray of shape (n_components, d)
        Unit sparse directions as rows, in pcalib's sign convention (the entry
        of largest absolute value is positive).
    n_iter : ndarray of int of shape (n_components,)
        Iterations made for each component.

    Warns
    -----
    ConvergenceWarning
        When a component has not met ``tol`` after ``max_iter`` iterations.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib.sparse_pca import truncated_power_method
    >>> S = np.eye(4) + np.outer([1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0])
    >>> components, _ = truncated_power_method(S, 2)
    >>> np.round(components, 3) + 0.0
    array([[0.707, 0.707, 0.   , 0.   ]])
    """
    S = as_float_matrix(S, name="S")
    check_symmetric_psd(S, name="S", meaning="a covariance or correlation matrix")
    d = S.shape[0]
    k = check_n_components(n_components, d, upper_name="d = S.shape[0]")
    counts = counts_per_component(n_nonzero, k, d, "d = S.shape[0]")
    max_iter = check_positive_int(max_iter, name="max_iter")
    tol = check_non_negative_float(tol, name="tol")
    # The directions do not depend on the scale of S: work on S / 2**e, exactly.
    S = np.ldexp(S, -binary_exponent(S))
    components = np.zeros((k, d))
    n_iter = np.zeros(k, dtype=int)
    for j in range(k):
        _, leading = top_eigh(S, 1)
        x = truncate(leading[:, 0], counts[j])
        components[j], n_iter[j], converged = truncated_power_iteration(
            S, x, counts[j], max_iter, tol
        )
        if not converged:
            convergence_warning(
                "truncated_power_method",
                max_iter,
                f"component {j} moved by less than tol={tol} in one iteration",
            )
        S = projection_deflation(S, components[j])
    return flip_signs(components)[0], n_iter


def counts_per_component(n_nonzero, k, d, upper_name):
    """``n_nonzero`` as ``k`` Python ints in ``[1, d]``, or an error naming it."""
    counts = as_per_component(n_nonzero, name="n_nonzero", kind=Integral, n_components=k)
    if not all(1 <= count <= d for count in counts):
        raise ValueError(f"n_nonzero must be between 1 and {upper_name} = {d}; got {n_nonzero!r}.")
    return [int(count) for count in counts]
