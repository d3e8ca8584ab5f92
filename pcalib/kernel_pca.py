"""Kernel PCA, exact and approximate (chapter 3 of the book, ``book/kernel_pca.md``).

Kernel PCA is ordinary PCA of the mapped points ``φ(x_i)``, computed from the
kernel matrix ``K[i, j] = k(x_i, x_j)`` alone:

1. centre the points in feature space by centring ``K`` (eq. ``eq-kpca-center``):
   ``K̃ = K - 1ₙK - K1ₙ + 1ₙK1ₙ`` with ``1ₙ`` the n × n matrix of ``1/n``;
2. solve ``K̃ a = μ a`` (``μ = nλ``, eq. ``eq-kpca-dual``) for the top ``k``
   eigenpairs only (all of them when ``n_components=None``, which keeps
   those with ``μ > 0``, as scikit-learn does);
3. scale each eigenvector so that the feature-space direction
   ``v = Σ_i a_i φ̃(x_i)`` has unit norm: ``a = e / √μ`` (eq. ``eq-kpca-normalise``);
4. project any point ``x`` by ``⟨v, φ̃(x)⟩ = k̃(x)ᵀ a``, where ``k̃(x)`` is its
   kernel row against the training points centred with the *training*
   statistics (eq. ``eq-kpca-center-test``).

Two approximations replace the ``n × n`` kernel by explicit features
``Φ`` (n × m), after which kernel PCA is linear PCA of ``Φ``:

* Nyström: ``Φ = K_nL U_r S_r^{-1/2}`` from ``m`` landmark points, with
  ``K_LL = U S Uᵀ`` truncated to its ``r`` numerically positive eigenvalues,
  so that ``Φ Φᵀ = K_nL (K_LL)_r⁺ K_Ln`` (eq. ``eq-kpca-nystrom``);
* random Fourier features for the RBF kernel ``exp(-‖x - y‖² / (2σ²))``:
  ``Φ = √(2/m) cos(X Ω + b)`` with frequencies ``Ω`` ~ N(0, σ⁻² I) and
  phases ``b`` ~ U[0, 2π) (eq. ``eq-kpca-rff``).

**Sign convention**: in every component, the training sample of largest
absolute score has a positive score (on a tie the first such sample decides).
The rule depends only on the scores, so the exact and approximate modes, and
every eigensolver, follow the same one.
"""

import warnings

import numpy as np
import scipy.sparse.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import validate_data

from ._linalg import flip_signs, numerical_rank, top_eigh
from ._validation import (
    as_float_matrix,
    as_generator,
    check_array_size,
    check_finite_float,
    check_n_components,
    check_new_data,
    check_option,
    check_positive_float,
    check_positive_int,
)
from .kernels import KERNELS, kernel_matrix, resolve_gamma

__all__ = ["KernelPCA", "KernelRankWarning"]

APPROXIMATIONS = ("exact", "nystrom", "rff")
EIGEN_SOLVERS = ("auto", "dense", "arpack")


class KernelRankWarning(UserWarning):
    """Some of the requested components have zero (or negative) variance."""


def center_kernel(K):
    """Centre a training kernel matrix in feature space (eq. ``eq-kpca-center``).

    ``K̃ = K - 1ₙK - K1ₙ + 1ₙK1ₙ``: subtract the column means, the row means
    and add back the overall mean. ``K̃`` is the kernel matrix of the centred
    points ``φ(x_i) - (1/n) Σ_j φ(x_j)``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Symmetric kernel matrix of the training points.

    Returns
    -------
    K_centered : ndarray of shape (n, n)
    column_means : ndarray of shape (n,)
        ``(1/n) Σ_i K[i, j]``, needed to centre test kernels.
    mean : float
        ``(1/n²) Σ_ij K[i, j]``.
    """
    column_means = K.mean(axis=0)
    mean = column_means.mean()
    K_centered = K - column_means[np.newaxis, :]
    K_centered -= column_means[:, np.newaxis]  # row means equal column means: K = Kᵀ
    K_centered += mean
    return K_centered, column_means, mean


def center_test_kernel(K_test, column_means, mean):
    """Centre a test kernel with the training statistics (eq. ``eq-kpca-center-test``).

    ``K̃_t = K_t - 1'K - K_t 1ₙ + 1'K1ₙ`` with ``1'`` the ``n_t × n`` matrix of
    ``1/n``: entry ``(i, j)`` is ``⟨φ(t_i) - φ̄, φ(x_j) - φ̄⟩`` where ``φ̄`` is
    the mean of the *training* points.

    Parameters
    ----------
    K_test : ndarray of shape (n_test, n)
        ``k(t_i, x_j)`` for test points ``t_i`` and training points ``x_j``.
    column_means : ndarray of shape (n,)
    mean : float
        The training statistics returned by :func:`center_kernel`.

    Returns
    -------
    K_test_centered : ndarray of shape (n_test, n)
    """
    K_test_centered = K_test - column_means[np.newaxis, :]
    K_test_centered -= K_test.mean(axis=1)[:, np.newaxis]
    K_test_centered += mean
    return K_test_centered


def choose_eigen_solver(n_samples, n_components):
    """What ``eigen_solver="auto"`` stands for.

    Lanczos (ARPACK) needs a few dozen products ``K̃ v`` (``O(n²)`` each) when
    ``k`` is small, against ``O(n³)`` for the reduction to tridiagonal form of
    any dense method; it pays for ``n > 200`` and ``k < n / 10``.
    """
    return "arpack" if n_samples > 200 and n_components < n_samples / 10 else "dense"


def top_eigenpairs(K_centered, n_components, *, eigen_solver="dense", random_state=None):
    """The ``k`` largest eigenvalues of a symmetric matrix and their eigenvectors.

    Parameters
    ----------
    K_centered : ndarray of shape (n, n)
        Symmetric matrix, e.g. a centred kernel matrix.
    n_components : int
        Number ``k ≤ n`` of eigenpairs.
    eigen_solver : {"dense", "arpack"}
        ``"dense"``: LAPACK, with a solver restricted to the top ``k`` for a
        large matrix and the full eigendecomposition (faster there) for a
        small one or a large ``k``. ``"arpack"``: Lanczos iteration to machine
        precision (``k < n``), started from a random vector drawn from
        ``random_state``; the result does not depend on it beyond rounding.
        Should Lanczos fail (no convergence, which can happen for indefinite
        kernels, or a null matrix), the dense solver is used instead.
    random_state : None, int, numpy.random.Generator or RandomState

    Returns
    -------
    eigenvalues : ndarray of shape (k,), in decreasing order
        As computed, negative ones included: they reveal an indefinite kernel.
    eigenvectors : ndarray of shape (n, k), orthonormal columns
    """
    n = K_centered.shape[0]
    if eigen_solver == "arpack" and n_components < n:
        v0 = as_generator(random_state).standard_normal(n)
        try:
            eigenvalues, eigenvectors = scipy.sparse.linalg.eigsh(
                K_centered, k=n_components, which="LA", v0=v0, tol=0.0
            )
            order = np.argsort(eigenvalues)[::-1]
            return eigenvalues[order], eigenvectors[:, order]
        except scipy.sparse.linalg.ArpackError:  # e.g. K̃ = 0, or no convergence
            pass
    return top_eigh(K_centered, n_components, clip=False)


def positive_part(eigenvalues, shape, *, scale, what, warn=True):
    """Number of eigenvalues that are numerically positive; warn about the rest.

    Rounding in forming and centring a matrix of norm at most ``scale``
    perturbs its eigenvalues by about ``eps · scale`` per row, so eigenvalues
    below ``max(shape) · eps · scale`` are zero variance (``k`` above the rank
    of the centred kernel), and those below minus that level mean that the
    kernel is not positive semi-definite. The caller gives those components
    zero scores instead of dividing by ``√μ ≈ 0``.

    Parameters
    ----------
    eigenvalues : ndarray of shape (k,), in decreasing order
    shape : tuple
        Shape of the matrix they come from.
    scale : float
        A bound on the norm of that matrix *before* centring: the rounding
        error of the centred matrix is relative to it, not to its own
        (possibly tiny) largest eigenvalue.
    what : str
        Name of that matrix, for the messages.
    warn : bool, default=True
        Warn (``KernelRankWarning``) when some of the eigenvalues are not
        positive; False when the caller keeps only the positive ones.

    Returns
    -------
    rank : int

    Raises
    ------
    ValueError
        No eigenvalue is above the rounding level. The message assumes that
        the samples differ (the caller refuses identical samples first).
    """
    threshold = max(shape) * np.finfo(np.float64).eps * scale
    rank = int(np.count_nonzero(eigenvalues > threshold))
    k = eigenvalues.shape[0]
    indefinite = eigenvalues[-1] < -threshold
    if rank == 0 and indefinite:
        raise ValueError(
            f"the {what} has no positive eigenvalue (the largest is {eigenvalues[0]:.3g}): "
            "the kernel is not positive semi-definite, so there is no direction of "
            "variance. Check X and the kernel and its parameters."
        )
    if rank == 0:
        raise ValueError(
            f"the {what} is numerically zero although the samples of X differ: the kernel "
            "does not tell them apart in float64 arithmetic, so there is no direction of "
            "variance. X varies by amounts too small for this kernel (for the linear "
            "kernel, X Xᵀ underflows), or its parameters flatten it (a tiny gamma, that "
            "is a huge bandwidth, or a coef0 that dwarfs gamma <x, y>). Rescale X, or "
            "change the kernel or its gamma, bandwidth or coef0."
        )
    if rank == k or not warn:
        return rank
    reason = (
        f"the kernel is not positive semi-definite (eigenvalue {eigenvalues[-1]:.3g})"
        if indefinite
        else f"the {what} has numerical rank {rank}"
    )
    warnings.warn(
        f"n_components={k} but {reason}: component(s) {rank + 1} to {k} have no "
        "positive variance and get scores equal to 0. Lower n_components to "
        f"{rank} or change the kernel.",
        KernelRankWarning,
        stacklevel=3,
    )
    return rank


def normalized_dual_coefficients(eigenvalues, eigenvectors, rank):
    """Expansion coefficients ``a = e / √μ`` of unit feature-space directions.

    ``v = Σ_i a_i φ̃(x_i)`` has ``‖v‖² = aᵀ K̃ a = μ ‖a‖²`` (eq.
    ``eq-kpca-normalise``), so ``‖v‖ = 1`` needs ``‖a‖ = 1 / √μ``. Columns
    beyond ``rank`` (zero variance) are set to 0.

    Parameters
    ----------
    eigenvalues : ndarray of shape (k,)
    eigenvectors : ndarray of shape (n, k), unit columns
    rank : int

    Returns
    -------
    dual_coef : ndarray of shape (n, k)
    """
    dual_coef = np.zeros_like(eigenvectors)
    dual_coef[:, :rank] = eigenvectors[:, :rank] / np.sqrt(eigenvalues[:rank])
    return dual_coef


def nystrom_feature_map(K_landmarks):
    """The matrix ``M = U_r S_r^{-1/2}`` of the Nyström map ``Φ = K_nL M``.

    With ``K_LL = U S Uᵀ`` restricted to its numerically positive eigenvalues,
    ``M = U S^{-1/2}`` and the features ``Φ = K_nL M`` satisfy
    ``Φ Φᵀ = K_nL K_LL⁺ K_Ln`` (eq. ``eq-kpca-nystrom``).

    Parameters
    ----------
    K_landmarks : ndarray of shape (m, m)
        Kernel matrix of the landmark points.

    Returns
    -------
    M : ndarray of shape (m, r), r = numerical rank of ``K_landmarks``
    """
    s, U = top_eigh(K_landmarks, K_landmarks.shape[0])
    r = numerical_rank(s, K_landmarks.shape)
    return U[:, :r] / np.sqrt(s[:r])


def random_fourier_parameters(n_features, n_random_features, gamma, random_state):
    """Random frequencies and phases for the RBF kernel ``exp(-γ ‖x - y‖²)``.

    By Bochner's theorem this kernel is ``E[cos(ωᵀ(x - y))]`` for
    ``ω ~ N(0, 2γ I) = N(0, σ⁻² I)``; adding a phase ``b ~ U[0, 2π)`` turns
    it into ``E[2 cos(ωᵀx + b) cos(ωᵀy + b)]`` (eq. ``eq-kpca-rff``).

    Parameters
    ----------
    n_features : int
        Dimension ``d`` of the data.
    n_random_features : int
        Number ``m`` of frequencies.
    gamma : float
        ``γ = 1 / (2σ²)`` of the kernel.
    random_state : None, int, numpy.random.Generator or RandomState

    Returns
    -------
    Omega : ndarray of shape (n_features, n_random_features)
        The frequencies ``ω_j`` as columns.
    b : ndarray of shape (n_random_features,)
        The phases.
    """
    rng = as_generator(random_state)
    Omega = rng.normal(scale=np.sqrt(2.0 * gamma), size=(n_features, n_random_features))
    b = rng.uniform(0.0, 2.0 * np.pi, size=n_random_features)
    return Omega, b


def random_fourier_features(X, Omega, b):
    """Features ``z(x) = √(2/m) cos(Ωᵀx + b)``, whose inner products approximate the kernel.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Omega : ndarray of shape (d, m)
        Frequencies ``ω_j`` as columns.
    b : ndarray of shape (m,)
        Phases.

    Returns
    -------
    Z : ndarray of shape (n, m)
    """
    Z = X @ Omega
    Z += b
    np.cos(Z, out=Z)
    Z *= np.sqrt(2.0 / Omega.shape[1])
    return Z


def principal_axes_of_features(Phi, n_components, *, warn=True):
    """Linear PCA of explicit features, via their ``m × m`` scatter matrix.

    Parameters
    ----------
    Phi : ndarray of shape (n, m)
        Feature vectors as rows (e.g. Nyström or random Fourier features).
        It is centred in place (it becomes ``Φ_c``), to save a copy of the
        largest array of the approximate modes.
    n_components : int
    warn : bool, default=True
        Warn when some of the ``n_components`` have zero variance (see
        :func:`positive_part`).

    Returns
    -------
    mean : ndarray of shape (m,)
    components : ndarray of shape (k, m)
        Orthonormal rows, with pcalib's sign convention on the scores; those
        of zero variance are set to 0.
    eigenvalues : ndarray of shape (k,)
        Eigenvalues of ``Φ_c Φ_cᵀ`` (the centred approximate kernel), in
        decreasing order; those of zero variance are set to 0.
    total : float
        ``‖Φ_c‖²_F``, the trace of the centred approximate kernel.
    scores : ndarray of shape (n, k)
        ``Φ_c @ components.T``.
    """
    scale = np.einsum("ij,ij->", Phi, Phi)  # ‖Φ‖²_F ≥ ‖ΦᵀΦ‖₂, before centring
    mean = Phi.mean(axis=0)
    Phi -= mean
    scatter = Phi.T @ Phi
    eigenvalues, V = top_eigh(scatter, n_components)
    rank = positive_part(
        eigenvalues, Phi.shape, scale=scale, what="centred approximate kernel", warn=warn
    )
    eigenvalues[rank:] = 0.0
    V[:, rank:] = 0.0
    scores = Phi @ V
    _, signs = flip_signs(scores.T)
    return mean, V.T * signs[:, np.newaxis], eigenvalues, float(np.trace(scatter)), scores * signs


class KernelPCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Kernel principal component analysis, exact or approximate.

    PCA in the feature space of a kernel (chapter 3): the scores of ``x`` are
    ``⟨v_j, φ(x) - φ̄⟩`` for the unit principal directions ``v_j`` of the
    centred training points ``φ(x_i) - φ̄``. For the linear kernel they are
    the scores of ordinary PCA.

    Parameters
    ----------
    n_components : int or None, default=None
        Number ``k`` of components, at most the number of training samples
        (and of Nyström landmarks or random features). None keeps as many as
        the method gives: every component with a numerically positive
        eigenvalue (as scikit-learn does), so none has zero variance. That
        is at most ``n_samples - 1`` in the exact mode, and in the
        approximate modes at most one per explicit feature: the numerical
        rank ``r`` of the landmarks' kernel matrix (Nyström) or
        ``n_random_features`` (random Fourier features).
    kernel : {"linear", "poly", "rbf"} or callable, default="linear"
        See :func:`pcalib.kernels.kernel_matrix`; a callable ``kernel(X, Y)``
        returns the ``len(X) × len(Y)`` matrix of kernel values.
    gamma : float, default=None
        ``γ`` of the RBF kernel ``exp(-γ ‖x - y‖²)`` and of the polynomial
        kernel ``(γ ⟨x, y⟩ + coef0)^degree``; None means ``1 / n_features``
        (scikit-learn's default). ``γ`` is in units of ``1 / X²``: that
        default does not follow the units of ``X`` (``c X`` with the default
        is a different kernel from ``X``), whereas ``gamma / c²`` (or
        ``c · bandwidth``) on ``c X`` gives the same kernel and the same
        scores. Standardise ``X``, or choose ``gamma`` for its units.
    bandwidth : float, default=None
        ``σ`` of the RBF kernel ``exp(-‖x - y‖² / (2σ²))``, instead of
        ``gamma``; in the units of ``X``.
    degree : int, default=3
        Degree of the polynomial kernel.
    coef0 : float, default=1.0
        Constant of the polynomial kernel.
    approximation : {"exact", "nystrom", "rff"}, default="exact"
        ``"exact"``: the ``n × n`` kernel matrix. ``"nystrom"``: features from
        ``n_landmarks`` training points drawn at random (any kernel).
        ``"rff"``: ``n_random_features`` random Fourier features (RBF kernel
        only).
    n_landmarks : int, default=300
        Number ``m`` of Nyström landmarks; more than ``n_samples`` uses all
        samples (with a warning), which reproduces the exact kernel.
    n_random_features : int, default=300
        Number ``m`` of random Fourier features.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        Eigensolver of the exact mode (see :func:`top_eigenpairs`); ``"auto"``
        uses :func:`choose_eigen_solver`. The approximate modes always
        decompose their small ``m × m`` scatter matrix with the dense solver.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the landmarks, the random features and the Lanczos start.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components_,)
        Eigenvalues ``μ_j = n λ_j`` of the centred (approximate) kernel matrix,
        in decreasing order; ``λ_j`` is the variance of the scores with the
        ``1/n`` of the feature-space covariance (eq. ``eq-kpca-dual``).
    explained_variance_ : ndarray of shape (n_components_,)
        ``μ_j / (n - 1)``, with the ``1/(n - 1)`` of :class:`pcalib.PCA`, so
        that the linear kernel reproduces PCA's ``explained_variance_``.
    explained_variance_ratio_ : ndarray of shape (n_components_,)
        ``μ_j / trace(K̃)``: the share of the total feature-space variance.
    eigenvectors_ : ndarray of shape (n_samples, n_components_)
        Unit eigenvectors ``e_j`` of ``K̃`` (exact mode only).
    dual_coef_ : ndarray of shape (n_samples, n_components_)
        ``a_j = e_j / √μ_j``: scores are ``K̃_test @ dual_coef_`` (exact mode).
    X_fit_ : ndarray of shape (n_samples, n_features)
        A copy of the training data (exact mode).
    kernel_column_means_ : ndarray of shape (n_samples,)
    kernel_mean_ : float
        Training statistics used to centre test kernels (exact mode).
    landmarks_ : ndarray of shape (n_landmarks_, n_features)
        Nyström landmarks (Nyström mode).
    feature_map_ : ndarray of shape (n_landmarks_, r)
        ``U_r S_r^{-1/2}`` from ``K_LL = U S Uᵀ`` (Nyström mode); it equals
        the pseudo-inverse square root of ``K_LL`` up to a rotation, which
        leaves ``Φ Φᵀ`` unchanged.
    random_weights_ : ndarray of shape (n_features, n_random_features)
    random_offsets_ : ndarray of shape (n_random_features,)
        Frequencies ``Ω`` and phases ``b`` (RFF mode).
    feature_mean_ : ndarray of shape (m,)
        Mean training feature vector (approximate modes).
    components_ : ndarray of shape (n_components_, m)
        Principal axes in the explicit feature space (approximate modes).
    gamma_ : float or None
        The ``γ`` used (None for the linear kernel and callables).
    eigen_solver_ : {"dense", "arpack"}
        The eigensolver chosen (what ``"auto"`` stands for); ``"dense"`` in
        the approximate modes.
    n_components_, n_samples_, n_features_in_ : int
    n_landmarks_ : int
        Landmarks used (Nyström mode).
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Column names, when ``X`` was a DataFrame with string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from pcalib import KernelPCA
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> kpca = KernelPCA().fit(X)
    >>> kpca.eigenvalues_.round(3)
    array([1., 1.])
    """

    def __init__(
        self,
        n_components=None,
        *,
        kernel="linear",
        gamma=None,
        bandwidth=None,
        degree=3,
        coef0=1.0,
        approximation="exact",
        n_landmarks=300,
        n_random_features=300,
        eigen_solver="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.bandwidth = bandwidth
        self.degree = degree
        self.coef0 = coef0
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.n_random_features = n_random_features
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit kernel PCA (eqs. ``eq-kpca-center`` to ``eq-kpca-normalise``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, ``n_samples ≥ 2``.
        y : None
            Ignored.

        Returns
        -------
        self : KernelPCA
        """
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit on ``X`` and return the training scores.

        The scores come from the fit itself (``√μ_j e_j`` in the exact mode),
        without recomputing the kernel as ``fit(X).transform(X)`` would.
        Attributes are set only once everything has succeeded.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, ``n_samples ≥ 2``.
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
        """
        self._check_parameters()
        X_checked = as_float_matrix(X, name="X", min_samples=2)
        if np.all(X_checked == X_checked[0]):
            raise ValueError(
                "X has zero variance in every feature: all samples are equal, so they "
                "coincide in the feature space of any kernel and kernel PCA has no "
                "direction of variance."
            )
        n_samples, n_features = X_checked.shape
        gamma = self._resolve_gamma(n_features)
        rng = as_generator(self.random_state)
        if self.approximation == "exact":
            fitted, scores = self._fit_exact(X_checked, gamma, rng)
        elif self.approximation == "nystrom":
            fitted, scores = self._fit_nystrom(X_checked, gamma, rng)
        else:
            fitted, scores = self._fit_rff(X_checked, gamma, rng)
        validate_data(self, X, reset=True, skip_check_array=True)
        for name, value in fitted.items():
            setattr(self, name, value)
        self.gamma_ = gamma
        self.n_samples_ = n_samples
        self.n_components_ = scores.shape[1]
        self.explained_variance_ = self.eigenvalues_ / (n_samples - 1)
        return scores

    def _check_parameters(self):
        """Validate the constructor arguments (scikit-learn defers this to fit).

        ``n_components`` is checked by each mode against its own upper bound.
        """
        if not callable(self.kernel):
            check_option(self.kernel, name="kernel", allowed=KERNELS)
        check_option(self.approximation, name="approximation", allowed=APPROXIMATIONS)
        check_option(self.eigen_solver, name="eigen_solver", allowed=EIGEN_SOLVERS)
        check_positive_int(self.n_landmarks, name="n_landmarks")
        check_positive_int(self.n_random_features, name="n_random_features")
        check_positive_int(self.degree, name="degree")
        # checked whatever the kernel, as scikit-learn does, even where it ignores them
        if self.gamma is not None:
            check_positive_float(self.gamma, name="gamma")
        if self.bandwidth is not None:
            check_positive_float(self.bandwidth, name="bandwidth")
        check_finite_float(self.coef0, name="coef0")
        if self.approximation == "rff" and self.kernel != "rbf":
            raise ValueError(
                f"approximation='rff' needs kernel='rbf', got kernel={self.kernel!r}: "
                "pcalib's random Fourier features sample the Gaussian kernel's "
                "spectral density. Use approximation='nystrom' for other kernels."
            )
        as_generator(self.random_state)

    def _resolve_gamma(self, n_features):
        """``γ`` for the RBF and polynomial kernels, None for the others."""
        if self.kernel == "rbf":
            return resolve_gamma(self.gamma, self.bandwidth, n_features)
        if self.bandwidth is not None:
            raise ValueError(f"bandwidth applies to kernel='rbf' only; got kernel={self.kernel!r}.")
        if self.kernel == "poly":
            return resolve_gamma(self.gamma, None, n_features)
        return None

    def _kernel(self, X, Y, gamma):
        """Kernel matrix with this estimator's kernel and the resolved ``γ``."""
        return kernel_matrix(
            X, Y, kernel=self.kernel, gamma=gamma, degree=self.degree, coef0=self.coef0
        )

    def _fit_exact(self, X, gamma, rng):
        """Exact kernel PCA: eigenpairs of the centred ``n × n`` kernel."""
        n = X.shape[0]
        k = check_n_components(self.n_components, n, upper_name="the number of training samples")
        K = self._kernel(X, X, gamma)
        scale = n * np.abs(K).max()  # bounds ‖K‖₂: rounding in K̃ is relative to it
        if self.kernel == "rbf":
            # exp(-γ D) inherits the cancellation error of D, eps (‖x‖² + ‖y‖²)
            # with the norms of the shifted data (squared_distances), times γ
            X_shifted = X - X.mean(axis=0)
            scale *= 1.0 + 4.0 * gamma * np.einsum("ij,ij->i", X_shifted, X_shifted).max()
        K_centered, column_means, mean = center_kernel(K)
        del K
        solver = self.eigen_solver
        if solver == "auto":
            solver = choose_eigen_solver(n, k)
        elif k == n:
            solver = "dense"  # Lanczos needs k < n (see top_eigenpairs)
        eigenvalues, eigenvectors = top_eigenpairs(
            K_centered, k, eigen_solver=solver, random_state=rng
        )
        keep_positive = self.n_components is None
        rank = positive_part(
            eigenvalues,
            K_centered.shape,
            scale=scale,
            what="centred kernel matrix",
            warn=not keep_positive,
        )
        if keep_positive:
            eigenvalues, eigenvectors = eigenvalues[:rank], eigenvectors[:, :rank]
        eigenvalues[rank:] = 0.0
        eigenvectors, _ = flip_signs(eigenvectors.T)
        eigenvectors = eigenvectors.T
        fitted = {
            "X_fit_": X.copy(),
            "kernel_column_means_": column_means,
            "kernel_mean_": mean,
            "eigenvalues_": eigenvalues,
            "eigenvectors_": eigenvectors,
            "dual_coef_": normalized_dual_coefficients(eigenvalues, eigenvectors, rank),
            "explained_variance_ratio_": eigenvalues / np.trace(K_centered),
            "eigen_solver_": solver,
        }
        scores = eigenvectors * np.sqrt(eigenvalues)
        scores[:, rank:] = 0.0
        return fitted, scores

    def _fit_nystrom(self, X, gamma, rng):
        """Nyström kernel PCA: linear PCA of ``Φ = K_nL U_r S_r^{-1/2}``."""
        n = X.shape[0]
        m = self.n_landmarks
        if m > n:
            warnings.warn(
                f"n_landmarks={m} exceeds the {n} training samples; using all "
                "of them as landmarks (the exact kernel).",
                UserWarning,
                stacklevel=3,
            )
            m = n
        check_n_components(self.n_components, m, upper_name="the number of landmarks")
        landmarks = X[np.sort(rng.choice(n, size=m, replace=False))]
        feature_map = nystrom_feature_map(self._kernel(landmarks, landmarks, gamma))
        k = check_n_components(
            self.n_components,
            feature_map.shape[1],
            upper_name="the numerical rank of the landmarks' kernel matrix",
        )
        Phi = self._kernel(X, landmarks, gamma) @ feature_map
        fitted = {"landmarks_": landmarks, "feature_map_": feature_map, "n_landmarks_": m}
        return self._fit_features(Phi, k, fitted)

    def _fit_rff(self, X, gamma, rng):
        """Random-Fourier-feature kernel PCA (RBF kernel): linear PCA of ``z(X)``."""
        k = check_n_components(
            self.n_components,
            min(X.shape[0], self.n_random_features),
            upper_name="min(n_samples, n_random_features)",
        )
        check_array_size((max(X.shape), self.n_random_features), name="n_random_features")
        Omega, b = random_fourier_parameters(X.shape[1], self.n_random_features, gamma, rng)
        fitted = {"random_weights_": Omega, "random_offsets_": b}
        return self._fit_features(random_fourier_features(X, Omega, b), k, fitted)

    def _fit_features(self, Phi, n_components, fitted):
        """PCA of explicit features ``Phi`` (overwritten); adds its attributes to ``fitted``."""
        keep_positive = self.n_components is None
        mean, components, eigenvalues, total, scores = principal_axes_of_features(
            Phi, n_components, warn=not keep_positive
        )
        if keep_positive:
            rank = np.count_nonzero(eigenvalues)  # zero-variance components are exact zeros
            components, eigenvalues = components[:rank], eigenvalues[:rank]
            scores = scores[:, :rank]
        fitted.update(
            feature_mean_=mean,
            components_=components,
            eigenvalues_=eigenvalues,
            explained_variance_ratio_=eigenvalues / total,
            eigen_solver_="dense",
        )
        return fitted, scores

    def _features(self, X):
        """Explicit approximate features of new points (approximate modes)."""
        if self.approximation == "nystrom":
            return self._kernel(X, self.landmarks_, self.gamma_) @ self.feature_map_
        return random_fourier_features(X, self.random_weights_, self.random_offsets_)

    def transform(self, X):
        """Scores of new points (eq. ``eq-kpca-project``).

        Exact mode: ``K̃_test @ dual_coef_``, with the test kernel centred by
        the training statistics. Approximate modes: the centred explicit
        features times ``components_.T``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
        """
        X_checked = check_new_data(self, X, fitted_attribute="eigenvalues_")
        if self.approximation == "exact":
            K_test = self._kernel(X_checked, self.X_fit_, self.gamma_)
            K_test_centered = center_test_kernel(
                K_test, self.kernel_column_means_, self.kernel_mean_
            )
            return K_test_centered @ self.dual_coef_
        return (self._features(X_checked) - self.feature_mean_) @ self.components_.T

    @property
    def _n_features_out(self):
        """Number of output features, used by ``get_feature_names_out``."""
        return self.eigenvalues_.shape[0]
