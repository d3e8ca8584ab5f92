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

Step 2 has three solvers: a dense eigendecomposition, Lanczos (ARPACK) and a
randomized range finder; ``kernel="precomputed"`` takes ``K`` itself instead
of ``X``. With ``fit_inverse_transform=True``, a kernel ridge regression from
the training scores back to ``X`` learns a pre-image map (Bakır, Weston and
Schölkopf, 2004; eq. ``eq-kpca-preimage``): a point of the feature space
generally has no exact pre-image, so ``inverse_transform`` returns the
regression's prediction.

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

import functools
import inspect
import warnings
from typing import ClassVar

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import validate_data

from ._base import ComponentEstimator
from ._linalg import (
    EPS,
    flip_signs,
    numerical_rank,
    randomized_svd,
    resolve_iterated_power,
    top_eigh,
)
from ._validation import (
    MAX_INT,
    as_float_matrix,
    as_generator,
    check_array_size,
    check_bool,
    check_finite_float,
    check_fitted,
    check_n_components,
    check_non_negative_float,
    check_non_negative_int,
    check_option,
    check_positive_float,
    check_positive_int,
    check_random_state,
    convergence_warning,
    fallback_warning,
    is_int,
    one_of,
    option_or,
    optional,
    result_dtype,
)
from .kernels import (
    KERNELS,
    KernelOverflowError,
    as_kernel_input,
    distance_frame,
    kernel_matrix,
    resolve_gamma,
    squared_row_norms,
)

__all__ = ["KernelPCA", "KernelRankWarning"]

APPROXIMATIONS = ("exact", "nystrom", "rff")
EIGEN_SOLVERS = ("auto", "dense", "arpack", "randomized")

# scikit-learn's levels for float64 eigenvalues (its ``_check_psd_eigenvalues``):
# a negative eigenvalue beyond 1e-5 of the largest is not rounding error, and a
# positive one below 1e-12 of the largest counts as zero.
NEGATIVE_RATIO = 1e-5
ZERO_RATIO = 1e-12


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


def symmetric_part(K):
    """``(K + Kᵀ) / 2``, with a warning when ``K`` is not symmetric beyond rounding.

    A precomputed kernel matrix should be symmetric; the eigenvectors that
    kernel PCA needs are those of the quadratic form ``aᵀ K a``, which sees
    only the symmetric part.

    Parameters
    ----------
    K : ndarray of shape (n, n)

    Returns
    -------
    ndarray of shape (n, n)
        ``K`` itself when it is exactly symmetric, else a new array.
    """
    asymmetry = np.abs(K - K.T).max()
    if asymmetry == 0.0:
        return K
    if asymmetry > K.shape[0] * EPS * np.abs(K).max():
        warnings.warn(
            f"the precomputed kernel matrix is not symmetric (largest |K - Kᵀ| = "
            f"{asymmetry:.3g}); kernel PCA uses its symmetric part (K + Kᵀ) / 2.",
            UserWarning,
            stacklevel=4,
        )
    return (K + K.T) / 2.0


def choose_eigen_solver(n_samples, n_components):
    """What ``eigen_solver="auto"`` stands for (scikit-learn's rule).

    Lanczos (ARPACK) needs a few dozen products ``K̃ v`` (``O(n²)`` each) when
    ``k`` is small, against ``O(n³)`` for the reduction to tridiagonal form of
    any dense method; it is chosen for ``n > 200`` and ``k < 10``.
    """
    return "arpack" if n_samples > 200 and n_components < 10 else "dense"


def randomized_eigenpairs(K_centered, n_components, *, iterated_power, random_state):
    """The ``k`` eigenpairs of largest absolute eigenvalue, by a randomized range finder.

    The randomized SVD (eq. ``eq-hd-randomized``) of the symmetric ``K̃``
    gives ``K̃ ≈ U S Vᵀ`` with ``v_j = ±u_j``; the eigenvalue is ``s_j``
    with the sign of ``v_jᵀ u_j``. A range finder captures the directions of
    largest ``|μ|``, so on an indefinite kernel a negative eigenvalue can
    displace a smaller positive one (as in scikit-learn).

    Parameters
    ----------
    K_centered : ndarray of shape (n, n)
    n_components : int
    iterated_power : int
        Number of power iterations.
    random_state : None, int, numpy.random.Generator or RandomState

    Returns
    -------
    eigenvalues : ndarray of shape (k,), in decreasing order
    eigenvectors : ndarray of shape (n, k), orthonormal columns
    """
    U, s, Vt = randomized_svd(
        K_centered, n_components, iterated_power=iterated_power, random_state=random_state
    )
    eigenvalues = s * np.sign(np.einsum("ij,ji->i", Vt, U))
    order = np.argsort(eigenvalues)[::-1]
    return eigenvalues[order], U[:, order]


def top_eigenpairs(
    K_centered,
    n_components,
    *,
    eigen_solver="dense",
    tol=0.0,
    max_iter=None,
    iterated_power=0,
    random_state=None,
):
    """The ``k`` largest eigenvalues of a symmetric matrix and their eigenvectors.

    Parameters
    ----------
    K_centered : ndarray of shape (n, n)
        Symmetric matrix, e.g. a centred kernel matrix.
    n_components : int
        Number ``k ≤ n`` of eigenpairs.
    eigen_solver : {"dense", "arpack", "randomized"}
        ``"dense"``: LAPACK, with a solver restricted to the top ``k`` for a
        large matrix and the full eigendecomposition (faster there) for a
        small one or a large ``k``. ``"arpack"``: Lanczos iteration (``k < n``),
        started from a random vector drawn from ``random_state``; with the
        default ``tol=0`` it runs to machine precision and the result does
        not depend on the start beyond rounding. Should Lanczos fail (no
        convergence, which can happen for indefinite kernels, or an error
        such as a null matrix), the dense solver is used instead, with a
        ``ConvergenceWarning`` that says so.
        ``"randomized"``: :func:`randomized_eigenpairs`, an approximation
        whose accuracy depends on the decay of the spectrum.
    tol : float, default=0.0
        ARPACK's tolerance: each Ritz pair stops at a residual below
        ``tol · |μ|``; 0 means machine precision.
    max_iter : int, default=None
        ARPACK's limit on its Lanczos restarts (its ``maxiter``); None means
        ARPACK's default, ``10 n``.
    iterated_power : int, default=0
        Power iterations of the randomized solver.
    random_state : None, int, numpy.random.Generator or RandomState

    Returns
    -------
    eigenvalues : ndarray of shape (k,), in decreasing order
        As computed, negative ones included: they reveal an indefinite kernel.
    eigenvectors : ndarray of shape (n, k), orthonormal columns
    """
    n = K_centered.shape[0]
    if eigen_solver == "randomized":
        return randomized_eigenpairs(
            K_centered, n_components, iterated_power=iterated_power, random_state=random_state
        )
    if eigen_solver == "arpack" and n_components < n:
        v0 = as_generator(random_state).standard_normal(n)
        try:
            eigenvalues, eigenvectors = scipy.sparse.linalg.eigsh(
                K_centered, k=n_components, which="LA", v0=v0, tol=tol, maxiter=max_iter
            )
            order = np.argsort(eigenvalues)[::-1]
            return eigenvalues[order], eigenvectors[:, order]
        except scipy.sparse.linalg.ArpackNoConvergence:
            convergence_warning(
                "ARPACK (eigen_solver='arpack')",
                10 * n if max_iter is None else max_iter,  # ARPACK's default limit: 10 n
                f"its eigenpairs converged to tol={tol!r} (0: machine precision), so "
                "the dense solver computed them instead",
            )
        except scipy.sparse.linalg.ArpackError as error:  # e.g. K̃ = 0
            fallback_warning(
                "ARPACK (eigen_solver='arpack')", error, "the dense solver computed the eigenpairs"
            )
    return top_eigh(K_centered, n_components, clip=False)


def numerically_positive_count(eigenvalues, shape, *, scale, what, warn=True):
    """Number of eigenvalues that are numerically positive; warn about the rest.

    Rounding in forming and centring a matrix of norm at most ``scale``
    perturbs its eigenvalues by about ``eps · scale`` per row, so eigenvalues
    below ``max(shape) · eps · scale`` are zero variance (``k`` above the rank
    of the centred kernel), as are those below ``1e-12`` of the largest
    (scikit-learn's level). A negative eigenvalue beyond both that rounding
    level and ``1e-5`` of the largest means that the kernel is not positive
    semi-definite: a component of negative variance, which is an error. The
    caller gives the zero-variance components zero scores instead of
    dividing by ``√μ ≈ 0``.

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
        positive; False when the caller keeps only the positive ones. A
        matrix without any positive eigenvalue is warned about in any case.

    Returns
    -------
    rank : int

    Raises
    ------
    ValueError
        An eigenvalue is significantly negative.
    """
    rounding = max(shape) * EPS * scale
    largest = max(float(eigenvalues[0]), 0.0)
    smallest = float(eigenvalues[-1])
    if smallest < -max(rounding, NEGATIVE_RATIO * largest):
        raise ValueError(
            f"There are significant negative eigenvalues in the {what} ({smallest:.3g}, "
            f"the largest being {eigenvalues[0]:.3g}): the kernel is not positive "
            "semi-definite, and these components would have negative variance. Check "
            "the kernel and its parameters (a negative coef0 makes the polynomial kernel "
            "indefinite). With eigen_solver='dense' or 'arpack', a "
            "smaller n_components keeps only the largest eigenvalues; 'randomized' "
            "picks those of largest absolute value."
        )
    rank = int(np.count_nonzero(eigenvalues > max(rounding, ZERO_RATIO * largest)))
    k = eigenvalues.shape[0]
    if rank == 0:
        warnings.warn(
            f"the {what} is numerically zero: the samples coincide in the feature space "
            "(identical rows of X, or differences too small for this kernel: for the "
            "linear kernel X Xᵀ underflows, a tiny gamma, a huge bandwidth or a coef0 "
            "that dwarfs gamma <x, y> flatten the others). There is no direction of "
            "variance and every score is 0; rescale X, or change the kernel or its "
            "parameters.",
            KernelRankWarning,
            stacklevel=3,
        )
        return rank
    if rank == k or not warn:
        return rank
    reason = (
        f"the kernel is not positive semi-definite (eigenvalue {smallest:.3g})"
        if smallest < -rounding
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


def variance_ratio(eigenvalues, total):
    """``eigenvalues / total``, the share of the total variance; zeros when it is 0.

    Parameters
    ----------
    eigenvalues : ndarray of shape (k,)
    total : float
        Trace of the centred (approximate) kernel matrix.

    Returns
    -------
    ndarray of shape (k,)
    """
    if total <= 0.0:
        return np.zeros_like(eigenvalues)
    return eigenvalues / total


def normalised_dual_coefficients(eigenvalues, eigenvectors):
    """Expansion coefficients ``a = e / √μ`` of unit feature-space directions.

    ``v = Σ_i a_i φ̃(x_i)`` has ``‖v‖² = aᵀ K̃ a = μ ‖a‖²`` (eq.
    ``eq-kpca-normalise``), so ``‖v‖ = 1`` needs ``‖a‖ = 1 / √μ``. Columns
    whose eigenvalue is 0 (zero variance) are set to 0.

    Parameters
    ----------
    eigenvalues : ndarray of shape (k,), non-negative
    eigenvectors : ndarray of shape (n, k), unit columns

    Returns
    -------
    dual_coef : ndarray of shape (n, k)
    """
    positive = eigenvalues > 0
    dual_coef = np.zeros_like(eigenvectors)
    dual_coef[:, positive] = eigenvectors[:, positive] / np.sqrt(eigenvalues[positive])
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
    X : ndarray or scipy.sparse matrix of shape (n, d)
    Omega : ndarray of shape (d, m)
        Frequencies ``ω_j`` as columns.
    b : ndarray of shape (m,)
        Phases.

    Returns
    -------
    Z : ndarray of shape (n, m)
    """
    Z = np.asarray(X @ Omega)
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
        :func:`numerically_positive_count`).

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
    rank = numerically_positive_count(
        eigenvalues, Phi.shape, scale=scale, what="centred approximate kernel", warn=warn
    )
    eigenvalues[rank:] = 0.0
    V[:, rank:] = 0.0
    scores = Phi @ V
    _, signs = flip_signs(scores.T)
    return mean, V.T * signs[:, np.newaxis], eigenvalues, float(np.trace(scatter)), scores * signs


def learned_pre_image_coefficients(Z, X, kernel, alpha):
    """Kernel ridge regression from the scores back to the data (eq. ``eq-kpca-preimage``).

    The learned pre-image map of Bakır, Weston and Schölkopf (2004) is
    ``x̂(z) = Σ_i A_i k(z, z_i)`` over the training scores ``z_i``, with the
    coefficients ``A`` of kernel ridge regression: ``(K_z + α I) A = X``,
    where ``K_z[i, j] = k(z_i, z_j)``.

    Parameters
    ----------
    Z : ndarray of shape (n, k)
        Training scores.
    X : ndarray of shape (n, d)
        Training data.
    kernel : callable
        A kernel-matrix function: ``kernel(Z, Z)`` returns ``K_z`` (n × n).
    alpha : float
        Ridge penalty ``α ≥ 0``.

    Returns
    -------
    A : ndarray of shape (n, d)
    """
    K_z = kernel(Z, Z)
    K_z[np.diag_indices_from(K_z)] += alpha
    return scipy.linalg.solve(K_z, X, assume_a="pos")


def check_kernel_params(kernel_params, kernel):
    """Validate ``kernel_params``, the keyword arguments of a callable kernel.

    Parameters
    ----------
    kernel_params : dict or None
    kernel : str or callable

    Returns
    -------
    dict
        The keyword arguments to pass to ``kernel`` (empty for None).
    """
    if kernel_params is None:
        return {}
    if not (isinstance(kernel_params, dict) and all(isinstance(key, str) for key in kernel_params)):
        raise TypeError(
            "kernel_params must be None or a dict of keyword arguments (str keys) for "
            f"a callable kernel; got {kernel_params!r}."
        )
    if not callable(kernel):
        if kernel_params:
            raise ValueError(
                f"kernel_params={kernel_params!r} applies to a callable kernel only; "
                f"kernel={kernel!r} would ignore it (as scikit-learn does, silently). "
                "Set gamma, degree and coef0 as parameters of KernelPCA instead."
            )
        return {}
    try:
        signature = inspect.signature(kernel)
    except (TypeError, ValueError):  # a callable whose signature Python cannot read
        return kernel_params
    try:
        signature.bind(None, None, **kernel_params)
    except TypeError as error:
        raise TypeError(
            f"kernel_params={kernel_params!r} does not fit the kernel, which is called "
            f"as kernel(x, y, **kernel_params) with signature {signature}: {error}."
        ) from error
    return kernel_params


def check_n_jobs(n_jobs, *, name="n_jobs"):
    """Validate ``n_jobs``: None or a nonzero int (negative counts from the CPUs, as in joblib).

    Parameters
    ----------
    n_jobs : int or None
    name : str, default="n_jobs"
        The parameter's name, for the error message.

    Returns
    -------
    int or None
    """
    if n_jobs is None:
        return None
    if not is_int(n_jobs):
        raise TypeError(f"{name} must be None or an int, got {n_jobs!r}.")
    if n_jobs == 0 or abs(n_jobs) > MAX_INT:
        raise ValueError(
            f"{name} must be None or a nonzero int of magnitude at most 2**63 - 1 "
            f"(-1 means all processors), got {n_jobs}."
        )
    return int(n_jobs)


# ARPACK counts its restarts in a 32-bit integer.
ARPACK_MAX_ITER = 2**31 - 1


class KernelPCA(ComponentEstimator):
    """Kernel principal component analysis, exact or approximate.

    PCA in the feature space of a kernel (chapter 3): the scores of ``x`` are
    ``⟨v_j, φ(x) - φ̄⟩`` for the unit principal directions ``v_j`` of the
    centred training points ``φ(x_i) - φ̄``. For the linear kernel they are
    the scores of ordinary PCA. Parameters, defaults and fitted attributes
    are scikit-learn's (``sklearn.decomposition.KernelPCA``); ``bandwidth``,
    ``approximation``, ``n_landmarks`` and ``n_random_features`` are pcalib's
    additions. pcalib computes in float64 whatever the input; float32 input
    gives float32 output, as in scikit-learn. It differs from scikit-learn on
    purpose in three places: a non-empty ``kernel_params`` with a named kernel
    is refused rather than ignored; a failed ARPACK run (stopped by
    ``max_iter``, or an ``ArpackError``) gives a ``ConvergenceWarning`` and the
    dense solver's result rather than the error; ``n_jobs`` starts no processes.

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
    kernel : {"linear", "poly", "rbf", "precomputed"} or callable, default="linear"
        See :func:`pcalib.kernels.kernel_matrix`. ``"precomputed"``: ``fit``
        takes the ``n × n`` kernel matrix of the training points instead of
        ``X`` (its symmetric part is used, with a warning if it is not
        symmetric), and ``transform`` the ``m × n`` kernel between new and
        training points. A callable is called as
        ``kernel(x, y, **kernel_params)`` on two rows, returning a float, as
        in scikit-learn: once per pair of rows (for the training kernel, the
        pairs ``i ≤ j`` only; see :func:`pcalib.kernels.kernel_matrix`).
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
    kernel_params : dict, default=None
        Keyword arguments of a callable ``kernel``, passed on every call
        (in ``fit``, ``transform`` and the pre-image regression), as in
        scikit-learn; their names are checked against the callable's
        signature. The named and precomputed kernels take their parameters
        from ``gamma``, ``degree`` and ``coef0``: scikit-learn ignores
        ``kernel_params`` there, pcalib refuses a non-empty one with a
        ``ValueError`` rather than silently ignore it.
    alpha : float, default=1.0
        Ridge penalty ``α ≥ 0`` of the learned pre-image (used when
        ``fit_inverse_transform=True``, eq. ``eq-kpca-preimage``). It is
        added to the kernel matrix of the *scores*, so it is in the units of
        that matrix (for the linear kernel, of ``X²``).
    fit_inverse_transform : bool, default=False
        Learn the pre-image map of Bakır, Weston and Schölkopf (2004), so
        that :meth:`inverse_transform` is available: kernel ridge regression
        from the training scores to ``X`` (:func:`learned_pre_image_coefficients`),
        with the estimator's kernel, ``gamma_``, ``degree`` and ``coef0``
        applied to the scores, as scikit-learn does. Not available with a
        precomputed kernel (the data are not known).
    eigen_solver : {"auto", "dense", "arpack", "randomized"}, default="auto"
        Eigensolver of the exact mode (see :func:`top_eigenpairs`); ``"auto"``
        uses :func:`choose_eigen_solver` (``"arpack"`` for more than 200
        samples and fewer than 10 components, else ``"dense"``). The
        approximate modes always decompose their small ``m × m`` scatter
        matrix with the dense solver.
    tol : float, default=0
        Tolerance of ARPACK (``eigen_solver="arpack"``, also when chosen by
        ``"auto"``), scikit-learn's parameter: a Ritz pair is accepted when its
        residual is below ``tol · |μ|``, relative and so independent of the
        units of ``X``; 0 means machine precision. Ignored by the other
        solvers.
    max_iter : int, default=None
        ARPACK's limit on its Lanczos restarts (scipy's ``maxiter``), at most
        ``2**31 - 1``; None means ARPACK's default, ``10 n``. ARPACK reports
        no iteration count, so KernelPCA has no ``n_iter_`` (nor has
        scikit-learn's). If ARPACK stops at ``max_iter`` unconverged, pcalib
        warns (``ConvergenceWarning``) and computes the eigenpairs with the
        dense solver, where scikit-learn raises ``ArpackNoConvergence``;
        so it does for the rare failures of ARPACK without ``max_iter`` (see
        :func:`top_eigenpairs`).
    iterated_power : int or "auto", default="auto"
        Power iterations of the randomized solver; ``"auto"`` takes 7 when
        ``k < 0.1 n`` and 4 otherwise (see
        :func:`pcalib._linalg.resolve_iterated_power`), with 10 extra random
        directions, as scikit-learn.
    remove_zero_eig : bool, default=False
        Drop the components of zero eigenvalue, so that ``n_components_`` may
        be below ``n_components``; always done when ``n_components`` is None.
        Otherwise they are kept with scores equal to 0 (and a
        ``KernelRankWarning``).
    approximation : {"exact", "nystrom", "rff"}, default="exact"
        ``"exact"``: the ``n × n`` kernel matrix. ``"nystrom"``: features from
        ``n_landmarks`` training points drawn at random (any kernel but
        ``"precomputed"``). ``"rff"``: ``n_random_features`` random Fourier
        features (RBF kernel only).
    n_landmarks : int, default=300
        Number ``m`` of Nyström landmarks; more than ``n_samples`` uses all
        samples (with a warning), which reproduces the exact kernel.
    n_random_features : int, default=300
        Number ``m`` of random Fourier features.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the landmarks, the random features, the Lanczos start and the
        randomized solver.
    copy_X : bool, default=True
        Store a copy of the training data in ``X_fit_`` (exact mode). False
        stores a reference instead, as in scikit-learn, which saves memory
        but lets later changes to ``X`` change ``transform``; it applies when
        ``X`` needs no conversion (a C-ordered float64 array or a float64 CSR
        matrix; a precomputed kernel matrix that is exactly symmetric).
        pcalib never modifies ``X`` either way.
    n_jobs : int, default=None
        Accepted for compatibility with scikit-learn, which passes it to
        ``pairwise_kernels``, and validated (None or a nonzero int); pcalib
        starts no processes: the named kernels are NumPy matrix products,
        which use the threads of NumPy's BLAS, and a callable kernel is
        called in the current process.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components_,)
        Eigenvalues ``μ_j = n λ_j`` of the centred (approximate) kernel matrix,
        in decreasing order; ``λ_j`` is the variance of the scores with the
        ``1/n`` of the feature-space covariance (eq. ``eq-kpca-dual``).
        Those of zero variance are exactly 0.
    explained_variance_ : ndarray of shape (n_components_,)
        ``μ_j / (n - 1)``, with the ``1/(n - 1)`` of :class:`pcalib.PCA`, so
        that the linear kernel reproduces PCA's ``explained_variance_``.
    explained_variance_ratio_ : ndarray of shape (n_components_,)
        ``μ_j / trace(K̃)``: the share of the total feature-space variance
        (0 when the centred kernel is zero).
    eigenvectors_ : ndarray of shape (n_samples, n_components_)
        Unit eigenvectors ``e_j`` of ``K̃`` (exact mode only); scores are
        ``K̃_test @ a`` with ``a_j = e_j / √μ_j``
        (:func:`normalised_dual_coefficients`).
    X_fit_ : ndarray or sparse matrix of shape (n_samples, n_features)
        The training data as float64 (exact mode); the training kernel matrix
        (its symmetric part) when ``kernel="precomputed"``. A copy unless
        ``copy_X=False``.
    kernel_column_means_ : ndarray of shape (n_samples,)
    kernel_mean_ : float
        Training statistics used to centre test kernels (exact mode).
    dual_coef_ : ndarray of shape (n_samples, n_features)
        Coefficients ``A`` of the learned pre-image, ``(K_z + α I) A = X``
        (when ``fit_inverse_transform=True``).
    X_transformed_fit_ : ndarray of shape (n_samples, n_components_)
        Training scores ``z_i``, the inputs of the pre-image regression (when
        ``fit_inverse_transform=True``).
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
        The ``γ`` used (None for the linear kernel, callables and precomputed
        kernels).
    eigen_solver_ : {"dense", "arpack", "randomized"}
        The eigensolver chosen (what ``"auto"`` stands for); ``"dense"`` in
        the approximate modes.
    iterated_power_ : int
        Power iterations of the randomized solver (what ``"auto"`` stands
        for); 0 when ``eigen_solver_`` is not ``"randomized"``.
    n_components_, n_samples_, n_features_in_ : int
        ``n_features_in_`` is ``n_samples`` for a precomputed kernel.
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

    # gamma, degree and coef0 are checked whatever the kernel, as scikit-learn
    # does, even where the kernel ignores them
    _parameter_checks: ClassVar[dict] = {
        "approximation": one_of(*APPROXIMATIONS),
        "eigen_solver": one_of(*EIGEN_SOLVERS),
        "n_landmarks": check_positive_int,
        "n_random_features": check_positive_int,
        "degree": check_positive_int,
        "gamma": optional(check_positive_float),
        "bandwidth": optional(check_positive_float),
        "coef0": check_finite_float,
        "alpha": check_non_negative_float,
        "fit_inverse_transform": check_bool,
        "remove_zero_eig": check_bool,
        "copy_X": check_bool,
        "tol": check_non_negative_float,
        "max_iter": optional(check_positive_int),
        "n_jobs": check_n_jobs,
        "iterated_power": option_or(check_non_negative_int, "auto", otherwise="an int >= 0"),
        "random_state": check_random_state,
    }

    def __init__(
        self,
        n_components=None,
        *,
        kernel="linear",
        gamma=None,
        bandwidth=None,
        degree=3,
        coef0=1.0,
        kernel_params=None,
        alpha=1.0,
        fit_inverse_transform=False,
        eigen_solver="auto",
        tol=0,
        max_iter=None,
        iterated_power="auto",
        remove_zero_eig=False,
        approximation="exact",
        n_landmarks=300,
        n_random_features=300,
        random_state=None,
        copy_X=True,
        n_jobs=None,
    ):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.bandwidth = bandwidth
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.alpha = alpha
        self.fit_inverse_transform = fit_inverse_transform
        self.eigen_solver = eigen_solver
        self.tol = tol
        self.max_iter = max_iter
        self.iterated_power = iterated_power
        self.remove_zero_eig = remove_zero_eig
        self.approximation = approximation
        self.n_landmarks = n_landmarks
        self.n_random_features = n_random_features
        self.random_state = random_state
        self.copy_X = copy_X
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Fit kernel PCA (eqs. ``eq-kpca-center`` to ``eq-kpca-normalise``).

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Training data, ``n_samples ≥ 2``; with ``kernel="precomputed"``,
            the kernel matrix of shape (n_samples, n_samples).
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
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
            Training data, ``n_samples ≥ 2``; with ``kernel="precomputed"``,
            the kernel matrix of shape (n_samples, n_samples).
        y : None
            Ignored.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
            float32 for float32 input, float64 otherwise.
        """
        self._check_parameters()
        X_checked = self._check_training_data(X)
        n_samples, n_features = X_checked.shape
        gamma = self._resolve_gamma(n_features)
        rng = as_generator(self.random_state)
        if self.approximation == "exact":
            fitted, scores = self._fit_exact(X_checked, gamma, rng)
        elif self.approximation == "nystrom":
            fitted, scores = self._fit_nystrom(X_checked, gamma, rng)
        else:
            fitted, scores = self._fit_rff(X_checked, gamma, rng)
        if self.fit_inverse_transform:
            fitted["dual_coef_"] = self._fit_pre_image(scores, X_checked, gamma)
            fitted["X_transformed_fit_"] = scores.copy()
        fitted["gamma_"] = gamma
        fitted["n_samples_"] = n_samples
        fitted["n_components_"] = scores.shape[1]
        fitted["explained_variance_"] = fitted["eigenvalues_"] / (n_samples - 1)
        self._commit(X, fitted)
        return scores.astype(result_dtype(X), copy=False)

    def _check_parameter_rules(self):
        """The kernel argument (a name or a callable), and the rules that tie two arguments."""
        if not callable(self.kernel):
            check_option(self.kernel, name="kernel", allowed=(*KERNELS, "precomputed"))
        check_kernel_params(self.kernel_params, self.kernel)
        if self.max_iter is not None and self.max_iter > ARPACK_MAX_ITER:
            raise ValueError(
                f"max_iter must be None or at most 2**31 - 1 = {ARPACK_MAX_ITER}, "
                f"ARPACK's largest count of restarts; got {self.max_iter}."
            )
        if self.approximation == "rff" and self.kernel != "rbf":
            raise ValueError(
                f"approximation='rff' needs kernel='rbf', got kernel={self.kernel!r}: "
                "pcalib's random Fourier features sample the Gaussian kernel's "
                "spectral density. Use approximation='nystrom' for other kernels."
            )
        if self.kernel == "precomputed" and self.approximation != "exact":
            raise ValueError(
                f"approximation={self.approximation!r} needs the data X to build its "
                "features, not a precomputed kernel matrix; use approximation='exact' "
                "with kernel='precomputed'."
            )
        if self.kernel == "precomputed" and self.fit_inverse_transform:
            raise ValueError(
                "Cannot fit_inverse_transform with a precomputed kernel: the pre-image "
                "regression maps the scores back to the data X, which a kernel matrix "
                "does not contain."
            )

    def _check_training_data(self, X):
        """``X`` (or the precomputed kernel matrix) as float64, validated."""
        if self.kernel != "precomputed":
            return as_kernel_input(X, name="X", min_samples=2)
        K = as_float_matrix(dense(X), name="X", min_samples=2)
        if K.shape[0] != K.shape[1]:
            raise ValueError(
                "with kernel='precomputed', X is the kernel matrix of the training points "
                f"and must be square, of shape (n_samples, n_samples); got shape {K.shape}."
            )
        return symmetric_part(K)

    def _check_new_data(self, X):
        """``X`` given to ``transform``, validated against the training data."""
        check_fitted(self, "eigenvalues_")
        if self.kernel != "precomputed":
            X_checked = as_kernel_input(X, name="X")
            validate_data(self, X, reset=False, skip_check_array=True)
            return X_checked
        K_test = as_float_matrix(dense(X), name="X")
        if K_test.shape[1] != self.n_samples_:
            raise ValueError(
                f"X has {K_test.shape[1]} features, but KernelPCA is expecting "
                f"{self.n_samples_} features as input: with kernel='precomputed', transform "
                f"takes the kernel between the new points and the {self.n_samples_} "
                f"training points, of shape (n_new, {self.n_samples_})."
            )
        validate_data(self, X, reset=False, skip_check_array=True)
        return K_test

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
        """Kernel matrix with this estimator's kernel, the resolved ``γ`` and ``kernel_params``."""
        kernel = self.kernel
        params = check_kernel_params(self.kernel_params, kernel)
        if params:
            kernel = functools.partial(kernel, **params)
        try:
            return kernel_matrix(
                X, Y, kernel=kernel, gamma=gamma, degree=self.degree, coef0=self.coef0
            )
        except KernelOverflowError as error:
            # the second set is X of fit, or its landmarks: the user passed X only
            raise ValueError(
                f"the polynomial kernel of degree {self.degree} overflows float64 on X; "
                "rescale X (e.g. standardise it; transform needs X on the scale of fit's) "
                "or lower gamma, |coef0| or degree."
            ) from error

    def _flat_kernel_hint(self, gamma, n_points):
        """What a kernel matrix of low rank on ``n_points`` says about the parameters."""
        if self.kernel == "rbf":
            where = (
                f"gamma_={gamma:.3g} (from gamma or bandwidth): a tiny gamma or a huge bandwidth"
            )
        elif self.kernel == "poly":
            where = (
                f"gamma_={gamma:.3g} and coef0={self.coef0:.3g}: a tiny gamma or a coef0 "
                "that dwarfs gamma <x, y>"
            )
        else:
            return "Lower n_components."
        return (
            f"The kernel {self.kernel!r} is that flat on these {n_points} points with "
            f"{where} flattens it. Lower n_components, or choose the kernel's parameters "
            "for the scale of X."
        )

    def _kernel_scale(self, K, X, gamma):
        """A bound on ``‖K‖₂`` to which the rounding error of ``K̃`` is relative."""
        scale = K.shape[0] * np.abs(K).max()
        if self.kernel == "rbf":
            # exp(-γ D) inherits the cancellation error of D, eps (‖x‖² + ‖y‖²)
            # with the norms of the points as squared_distances shifts them, times γ
            shift = distance_frame(X)
            X_shifted = X - shift if shift.any() else X
            scale *= 1.0 + 4.0 * gamma * squared_row_norms(X_shifted).max()
        return scale

    def _fit_exact(self, X, gamma, rng):
        """Exact kernel PCA: eigenpairs of the centred ``n × n`` kernel."""
        n = X.shape[0]
        k = check_n_components(self.n_components, n, upper_name="the number of training samples")
        precomputed = self.kernel == "precomputed"
        K = X if precomputed else self._kernel(X, X, gamma)
        scale = self._kernel_scale(K, X, gamma)
        K_centered, column_means, mean = center_kernel(K)
        del K
        solver = self.eigen_solver
        if solver == "auto":
            solver = choose_eigen_solver(n, k)
        elif solver == "arpack" and k == n:
            solver = "dense"  # Lanczos needs k < n (see top_eigenpairs)
        iterated_power = 0
        if solver == "randomized":
            iterated_power = resolve_iterated_power(self.iterated_power, k, K_centered.shape)
        eigenvalues, eigenvectors = top_eigenpairs(
            K_centered,
            k,
            eigen_solver=solver,
            tol=float(self.tol),
            max_iter=None if self.max_iter is None else int(self.max_iter),
            iterated_power=iterated_power,
            random_state=rng,
        )
        keep_positive = self.remove_zero_eig or self.n_components is None
        rank = numerically_positive_count(
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
            "X_fit_": X.copy() if self.copy_X else X,
            "kernel_column_means_": column_means,
            "kernel_mean_": mean,
            "eigenvalues_": eigenvalues,
            "eigenvectors_": eigenvectors,
            "explained_variance_ratio_": variance_ratio(eigenvalues, np.trace(K_centered)),
            "eigen_solver_": solver,
            "iterated_power_": iterated_power,
        }
        return fitted, eigenvectors * np.sqrt(eigenvalues)

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
        rank = feature_map.shape[1]
        if self.n_components is not None and self.n_components > rank:
            raise ValueError(
                "n_components must be between 1 and the numerical rank of the landmarks' "
                f"kernel matrix = {rank}; got {self.n_components}. "
                + self._flat_kernel_hint(gamma, m)
            )
        k = check_n_components(
            self.n_components,
            rank,
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
        keep_positive = self.remove_zero_eig or self.n_components is None
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
            explained_variance_ratio_=variance_ratio(eigenvalues, total),
            eigen_solver_="dense",
            iterated_power_=0,
        )
        return fitted, scores

    def _fit_pre_image(self, Z, X, gamma):
        """Coefficients of the learned pre-image (:func:`learned_pre_image_coefficients`)."""
        try:
            return learned_pre_image_coefficients(
                Z, dense(X), lambda A, B: self._kernel(A, B, gamma), self.alpha
            )
        except np.linalg.LinAlgError as error:
            raise ValueError(
                f"the pre-image regression failed: K_z + alpha I, with K_z the kernel "
                f"matrix of the scores, is not positive definite (alpha={self.alpha}; "
                f"{error}). Increase alpha."
            ) from error

    def _features(self, X):
        """Explicit approximate features of new points (approximate modes)."""
        if self.approximation == "nystrom":
            return self._kernel(X, self.landmarks_, self.gamma_) @ self.feature_map_
        return random_fourier_features(X, self.random_weights_, self.random_offsets_)

    def transform(self, X):
        """Scores of new points (eq. ``eq-kpca-project``).

        Exact mode: ``K̃_test @ a``, with the test kernel centred by the
        training statistics and ``a = e / √μ``
        (:func:`normalised_dual_coefficients`). Approximate modes: the centred
        explicit features times ``components_.T``.

        Parameters
        ----------
        X : array-like or scipy.sparse matrix of shape (n_samples, n_features_in_)
            New points; with ``kernel="precomputed"``, their kernel against
            the training points, of shape (n_samples, n_samples_ of the fit).

        Returns
        -------
        Z : ndarray of shape (n_samples, n_components_)
            float32 for float32 input, float64 otherwise.
        """
        X_checked = self._check_new_data(X)
        if self.approximation == "exact":
            if self.kernel == "precomputed":
                K_test = X_checked
            else:
                K_test = self._kernel(X_checked, self.X_fit_, self.gamma_)
            K_test_centered = center_test_kernel(
                K_test, self.kernel_column_means_, self.kernel_mean_
            )
            Z = K_test_centered @ normalised_dual_coefficients(
                self.eigenvalues_, self.eigenvectors_
            )
        else:
            Z = (self._features(X_checked) - self.feature_mean_) @ self.components_.T
        return Z.astype(result_dtype(X), copy=False)

    def inverse_transform(self, X):
        """Learned pre-images of scores (eq. ``eq-kpca-preimage``).

        ``x̂(z) = Σ_i dual_coef_[i] k(z, z_i)``, the kernel ridge regression
        learned by ``fit`` from the training scores ``z_i`` to the training
        points. Like scikit-learn's, it reconstructs from the *centred*
        kernel: with the linear kernel and ``alpha → 0`` it returns PCA's
        reconstruction without the mean of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components_)
            Scores, e.g. from :meth:`transform`.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features_in_)
            float32 for float32 input, float64 otherwise.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            The estimator was not fitted with ``fit_inverse_transform=True``.
        """
        if not hasattr(self, "dual_coef_"):
            raise NotFittedError(
                "The fit_inverse_transform parameter was not set to True when "
                "instantiating and hence the inverse transform is not available."
            )
        Z = as_float_matrix(X, name="X")
        if Z.shape[1] != self.n_components_:
            raise ValueError(
                f"X has {Z.shape[1]} columns but inverse_transform expects scores on "
                f"the n_components_ = {self.n_components_} components."
            )
        K = self._kernel(Z, self.X_transformed_fit_, self.gamma_)
        return (K @ self.dual_coef_).astype(result_dtype(X), copy=False)

    @property
    def _n_features_out(self):
        """Number of columns of ``transform`` (``components_`` exists in approximate modes only)."""
        return self.n_components_

    def __sklearn_tags__(self):
        """Sparse input, float32 kept, and pairwise input for a precomputed kernel."""
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


def dense(X):
    """``X`` itself, or as a dense array when it is a sparse matrix (a kernel matrix).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix

    Returns
    -------
    array-like
    """
    return X.toarray() if scipy.sparse.issparse(X) else X
