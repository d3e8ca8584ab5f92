"""Linear-algebra helpers shared by every pcalib module.

* :func:`flip_signs`, pcalib's sign convention (chapter 1);
* :func:`top_eigh`, the top ``k`` eigenpairs of a symmetric matrix;
* the truncated SVDs: :func:`exact_top_svd` (LAPACK's SVD, cut to ``k``
  triplets), :func:`randomized_svd` (the randomized range finder, chapter 2),
  :func:`warm_randomized_svd` (the range finder started from known
  directions), :func:`top_svd` (whichever of them is cheaper for ``k``) and
  :func:`thresholded_svd` (the triplets above a threshold, chapter 7);
* :func:`numerical_rank`, the count of eigenvalues above rounding;
* :func:`soft_threshold`, the proximal operator of the L1 norm (chapter 5,
  eq. ``eq-spca-soft``; chapters 6 and 7);
* :func:`power_of_four_scale`, the unit in which an estimator can work on data
  of any magnitude, and :func:`times_scale_power`, which converts results back.

An eigenvector or singular vector is defined only up to its sign. pcalib fixes
it: in every component the entry of largest absolute value is positive (on a
tie, the first such entry decides), so that printed results do not depend on
the solver, the machine or the run.
"""

import math

import numpy as np
import scipy.linalg

from ._validation import (
    as_float_array,
    as_float_matrix,
    as_generator,
    check_finite,
    check_finite_float,
    check_non_negative_float,
    check_positive_int,
)

# The unit roundoff of float64 (machine epsilon, 2^-52) and log 2π, for every module.
EPS = np.finfo(np.float64).eps
LOG_2PI = np.log(2.0 * np.pi)

# Below this order, or when at least half of the spectrum is wanted, the full
# divide-and-conquer eigendecomposition beats LAPACK's partial one (MRRR),
# whose set-up dominates on small matrices.
FULL_EIGH_MAX = 512
# top_svd and thresholded_svd use the randomized SVD for fewer triplets than this
# share of min(n₁, n₂), LAPACK's full SVD from it on (benchmarks/README.md, chapter
# 7, measures where it pays).
TRUNCATED_SVD_SHARE = 0.25
# Power iterations of their randomized SVDs: the matrices that robust PCA
# thresholds are low rank plus a tail that the thresholding removes, so two
# suffice for the triplets above the threshold.
RANDOMIZED_SVD_POWER_ITERATIONS = 2
# Columns of the randomized SVDs beyond the wanted triplets (randomized_svd's default).
RANDOMIZED_SVD_OVERSAMPLES = 10


def flip_signs(components):
    """Apply pcalib's sign convention to the rows of ``components``.

    Parameters
    ----------
    components : array-like of shape (k, n_features)
        Principal axes as rows: finite real numbers, never modified.

    Returns
    -------
    components : ndarray of shape (k, n_features)
        The same axes, each multiplied by +1 or -1 so that its entry of largest
        absolute value is positive.
    signs : ndarray of shape (k,)
        The factors applied, to flip the matching scores the same way.
    """
    components = as_float_matrix(components, name="components", min_samples=0)
    largest = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), largest])
    signs[signs == 0] = 1.0
    return components * signs[:, np.newaxis], signs


def top_eigh(A, k, *, clip=True):
    """The ``k`` largest eigenvalues of the symmetric ``A`` and their eigenvectors.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric matrix (only its lower triangle is read).
    k : int
        Number of eigenpairs, ``1 ≤ k ≤ n``.
    clip : bool, default=True
        Set negative eigenvalues to 0: for a covariance or Gram matrix they
        are rounding errors of a zero eigenvalue.

    Returns
    -------
    eigenvalues : ndarray of shape (k,), in decreasing order
    eigenvectors : ndarray of shape (n, k), orthonormal columns
        Signs as LAPACK returns them (apply :func:`flip_signs` to fix them).
    """
    n = A.shape[0]
    if n <= FULL_EIGH_MAX or 2 * k >= n:
        eigenvalues, eigenvectors = np.linalg.eigh(A)
    else:
        eigenvalues, eigenvectors = scipy.linalg.eigh(
            A, subset_by_index=[n - k, n - 1], check_finite=False
        )
    eigenvalues = eigenvalues[::-1][:k]
    eigenvectors = eigenvectors[:, ::-1][:, :k]
    if clip:
        eigenvalues = np.clip(eigenvalues, 0.0, None)
    return np.ascontiguousarray(eigenvalues), np.ascontiguousarray(eigenvectors)


def resolve_iterated_power(iterated_power, n_components, shape):
    """The number ``q`` of power iterations that ``iterated_power`` stands for.

    ``"auto"`` takes 7 when ``k < 0.1 min(n, d)`` and 4 otherwise, the rule of
    scikit-learn's ``randomized_svd``, so that the two can be compared like
    for like; an int is returned as it is.
    """
    if iterated_power == "auto":
        return 7 if n_components < 0.1 * min(shape) else 4
    return iterated_power


def randomized_svd(M, k, *, n_oversamples=10, iterated_power="auto", random_state=None):
    """Top-``k`` singular triplets of ``M`` by a randomized range finder (eq. ``eq-hd-randomized``).

    1. Draw a Gaussian test matrix ``Ω`` (d × l) with ``l = k + n_oversamples``
       and form ``Y = M Ω``: its columns are random mixtures of the columns
       of ``M``, dominated by the top singular directions.
    2. Sharpen with ``q`` power iterations, ``Y ← M (Mᵀ Y)``,
       re-orthonormalising after each product (without it, the small singular
       values drown in rounding); each iteration raises the decay of the
       spectrum seen by the range finder to a higher power.
    3. ``Q = qr(Y)`` spans (approximately) the top of the range of ``M``, and
       the SVD of the small ``B = Qᵀ M`` (l × d) gives the triplets
       (the Rayleigh–Ritz step).

    Parameters
    ----------
    M : ndarray of shape (n, d)
    k : int
        Number of triplets, ``1 ≤ k ≤ min(n, d)``.
    n_oversamples : int, default=10
        Extra random directions ``p``; the error bound improves quickly with ``p``.
    iterated_power : int or "auto", default="auto"
        Number ``q`` of power iterations (:func:`resolve_iterated_power`).
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of ``Ω``.

    Returns
    -------
    U : ndarray of shape (n, k)
    s : ndarray of shape (k,), in decreasing order
    Vt : ndarray of shape (k, d)
        Signs as the SVD returns them.
    """
    n, d = M.shape
    iterated_power = resolve_iterated_power(iterated_power, k, M.shape)
    n_columns = min(k + n_oversamples, n, d)
    Omega = as_generator(random_state).standard_normal((d, n_columns))
    Q, _ = np.linalg.qr(M @ Omega)
    for _ in range(iterated_power):
        Q, _ = np.linalg.qr(M.T @ Q)
        Q, _ = np.linalg.qr(M @ Q)
    # NumPy's SVD, like the products and QRs above: a switch to SciPy's BLAS threads
    # would leave NumPy's spinning against them on a small machine
    U_small, s, Vt = np.linalg.svd(Q.T @ M, full_matrices=False)
    return Q @ U_small[:, :k], s[:k], Vt[:k]


def warm_randomized_svd(M, k, start, *, random_state=None):
    """Top-``k`` singular triplets of ``M`` by a range finder started from given vectors.

    ``start`` holds rows close to the top right singular vectors of ``M``, so
    ``M`` times them spans closely the top left ones (``Q_start``) without a
    power iteration: the triplets are then off by about ``‖tail‖₂ sin θ``,
    with ``θ`` the largest angle between ``start`` and the right singular
    vectors, and ``tail`` the rest of ``M``. Random columns, up to
    ``k + RANDOMIZED_SVD_OVERSAMPLES`` in all, look for the directions that
    ``start`` lacks: like those of :func:`randomized_svd`, they are
    sharpened by ``RANDOMIZED_SVD_POWER_ITERATIONS`` power iterations, of
    ``M`` with ``Q_start`` projected out, which costs products with a few
    columns instead of ``k``. The SVD of ``Qᵀ M`` then gives the triplets,
    as in :func:`randomized_svd`.

    Parameters
    ----------
    M : ndarray of shape (n1, n2)
    k : int
        Number of triplets, ``1 ≤ k ≤ min(n1, n2)``.
    start : ndarray of shape (m, n2)
        Orthonormal rows; the first ``min(m, k)`` are used.
    random_state : None, int, numpy.random.Generator or RandomState
        Seed of the random columns.

    Returns
    -------
    U : ndarray of shape (n1, k)
    s : ndarray of shape (k,), in decreasing order
    Vt : ndarray of shape (k, n2)
    """
    n_columns = min(k + RANDOMIZED_SVD_OVERSAMPLES, *M.shape)
    Q_start, _ = np.linalg.qr(M @ start[:k].T)
    n_random = n_columns - Q_start.shape[1]
    Y = M @ as_generator(random_state).standard_normal((M.shape[1], n_random))
    for _ in range(RANDOMIZED_SVD_POWER_ITERATIONS):
        Y, _ = np.linalg.qr(Y - Q_start @ (Q_start.T @ Y))
        Y, _ = np.linalg.qr(M.T @ Y)
        Y = M @ Y
    Q, _ = np.linalg.qr(np.hstack([Q_start, Y - Q_start @ (Q_start.T @ Y)]))
    # NumPy's SVD, like the products and QRs above: a switch to SciPy's BLAS threads
    # would leave NumPy's spinning against them on a small machine
    U_small, s, Vt = np.linalg.svd(Q.T @ M, full_matrices=False)
    return Q @ U_small[:, :k], s[:k], Vt[:k]


def exact_top_svd(M, k):
    """Top-``k`` singular triplets of the dense ``M`` from LAPACK's full SVD.

    NumPy's LAPACK, as in the randomized SVDs, so that every SVD of pcalib runs
    on NumPy's BLAS threads.

    Parameters
    ----------
    M : ndarray of shape (n1, n2)
    k : int
        Number of triplets, ``1 ≤ k ≤ min(n1, n2)``.

    Returns
    -------
    U : ndarray of shape (n1, k)
    s : ndarray of shape (k,), in decreasing order
    Vt : ndarray of shape (k, n2)
    """
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    return U[:, :k], s[:k], Vt[:k]


def top_svd(M, k, *, start=None, random_state=None):
    """Top-``k`` singular triplets of ``M``, by the randomized SVD while ``k`` is small.

    Past ``TRUNCATED_SVD_SHARE · min(n1, n2)`` triplets LAPACK's full SVD
    (:func:`exact_top_svd`) is cheaper. Below, :func:`randomized_svd` with
    ``RANDOMIZED_SVD_POWER_ITERATIONS`` power iterations, or
    :func:`warm_randomized_svd` from ``start``.

    Parameters
    ----------
    M : ndarray of shape (n1, n2)
    k : int
        Number of triplets, ``1 ≤ k ≤ min(n1, n2)``.
    start : ndarray of shape (m, n2), optional
        Orthonormal rows close to the top right singular vectors of ``M``
        (those of a nearby matrix); None starts from random vectors.
    random_state : None, int, numpy.random.Generator or RandomState
        Seeds the randomized SVD.

    Returns
    -------
    U : ndarray of shape (n1, k)
    s : ndarray of shape (k,), in decreasing order
    Vt : ndarray of shape (k, n2)
    """
    if k >= TRUNCATED_SVD_SHARE * min(M.shape):
        return exact_top_svd(M, k)
    if start is None:
        return randomized_svd(
            M, k, iterated_power=RANDOMIZED_SVD_POWER_ITERATIONS, random_state=random_state
        )
    return warm_randomized_svd(M, k, start, random_state=random_state)


def thresholded_svd(M, tau, *, rank_guess=None, start=None, random_state=None):
    """The factors ``U``, ``Σ - τ``, ``Vᵀ`` of ``D_τ(M)``, for the singular values above ``τ``.

    ``D_τ(M) = U max(Σ - τ, 0) Vᵀ`` is singular-value thresholding (chapter 7,
    eq. ``eq-rpca-svt``).

    Parameters
    ----------
    M : ndarray of shape (n1, n2)
    tau : float
        Threshold ``τ ≥ 0``.
    rank_guess : int, optional
        Compute only this many singular triplets (randomized SVD), doubling
        the number until the smallest one computed is at or below ``τ``, so
        that no singular value above ``τ`` is missed; past
        ``TRUNCATED_SVD_SHARE · min(n1, n2)`` the full SVD is used. None
        computes the full SVD.
    start : ndarray of shape (m, n2), optional
        Orthonormal rows close to the top right singular vectors of ``M``
        (those of the previous iteration): the first randomized SVD starts
        from them (:func:`warm_randomized_svd`); once it finds more values
        above ``τ`` than it computed, the wider ones start from random
        vectors. None starts every randomized SVD from random vectors.
    random_state : None, int, numpy.random.Generator or RandomState
        Seeds the randomized SVD.

    Returns
    -------
    U : ndarray of shape (n1, rank)
    shrunk : ndarray of shape (rank,)
        The singular values above ``τ``, minus ``τ``.
    Vt : ndarray of shape (rank, n2)
    svds : list of str
        The SVDs computed, in order: ``"randomized"`` or ``"full"``.
    """
    tau = check_non_negative_float(tau, name="tau")
    if rank_guess is not None:
        check_positive_int(rank_guess, name="rank_guess")
    svds = []
    limit = TRUNCATED_SVD_SHARE * min(M.shape)
    k = rank_guess if rank_guess is not None and rank_guess < limit else None
    rng = as_generator(random_state)
    while k is not None:
        svds.append("randomized")
        U, s, Vt = top_svd(M, k, start=start, random_state=rng)
        if s[-1] <= tau:
            break
        # values above τ outside the start: look for them from random vectors
        k, start = (2 * k if 2 * k < limit else None), None
    else:
        svds.append("full")
        U, s, Vt = exact_top_svd(M, min(M.shape))
    keep = s > tau
    return U[:, keep], s[keep] - tau, Vt[keep], svds


def numerical_rank(eigenvalues, shape):
    """Number of eigenvalues above the rounding level ``max(shape) · eps · λ_1``.

    ``eigenvalues`` are those of a Gram or covariance matrix, in decreasing
    order: their rounding error is ``eps · λ_1``, so a null eigenvalue comes
    out as about ``1e-16 λ_1`` and its square root as about ``1e-8 √λ_1``.
    """
    if eigenvalues.size == 0 or eigenvalues[0] == 0.0:
        return 0
    threshold = max(shape) * EPS * eigenvalues[0]
    return int(np.count_nonzero(eigenvalues > threshold))


def soft_threshold(value, threshold):
    """``sign(v) · max(|v| - t, 0)``, the proximal operator of ``t‖·‖₁``, entrywise.

    Parameters
    ----------
    value : float or array-like of any shape
        Finite real numbers, never modified.
    threshold : float
        ``t ≥ 0``; a float may be ``inf``, which shrinks every entry to 0.

    Returns
    -------
    float or ndarray, shaped like ``value``
    """
    # the inner loops of coordinate descent pass floats: one comparison checks them
    if not isinstance(threshold, float) or not threshold >= 0.0:
        threshold = check_non_negative_float(threshold, name="threshold")
    if isinstance(value, float):
        if not math.isfinite(value):
            check_finite_float(value, name="value")
    else:
        value = as_float_array(value, name="value", ndim=None)
        check_finite(value, name="value")
    return np.sign(value) * np.maximum(np.abs(value) - threshold, 0.0)


def power_of_four_scale(X, axis=None):
    """A power of four ``s`` with ``max |X| / s`` in ``[0.25, 1)``; 1 where ``X`` is 0.

    Dividing by a power of two changes only the exponents of the entries, so
    it is exact (subnormal entries become normal ones), and so is every later
    sum, product and quotient: they give the digits they would give on ``X``,
    scaled. With a power of four, square roots of squares (norms) are exact
    too. An algorithm run on ``X / s`` and scaled back therefore works at any
    magnitude of ``X``, without the squares of tiny data underflowing or those
    of huge data overflowing, and gives the same digits for ``X`` and
    ``4^j X``. NaN entries (missing values) are ignored.

    Parameters
    ----------
    X : ndarray
    axis : int, optional
        One scale per slice along ``axis`` (e.g. ``axis=1``: one per row),
        returned with that axis kept, to broadcast against ``X``; None gives
        one scale for the whole array.

    Returns
    -------
    s : float or ndarray
    """
    exponent = binary_exponent(X, axis=axis)
    even_exponent = np.minimum(exponent + exponent % 2, 1022)  # 2^1024 overflows
    return np.ldexp(1.0, even_exponent)


def times_scale_power(x, scale, power):
    """``x · scale**power`` for powers of two ``scale`` (:func:`power_of_four_scale`), exactly.

    ``scale**power`` alone can underflow to 0 or overflow to inf where the
    product is a float64 number (a variance of data about 1e-160 is about
    1e-320 and its inverse 1e320); shifting the exponents of ``x``
    (``np.ldexp``) gives the product, rounded once, and inf where it overflows.

    Parameters
    ----------
    x : float or ndarray
    scale : float or ndarray
        Powers of two, broadcasting against ``x``.
    power : int

    Returns
    -------
    float or ndarray
    """
    exponent = np.frexp(scale)[1] - 1  # scale = 2^exponent
    with np.errstate(over="ignore"):
        return np.ldexp(x, power * exponent)


def binary_exponent(X, axis=None):
    """The ``e`` with ``max |X| = m 2^e``, ``0.5 ≤ m < 1``; 0 where ``X`` is 0.

    NaN entries (missing values) are ignored.

    Parameters
    ----------
    X : ndarray
    axis : int, optional
        One exponent per slice along ``axis``, returned with that axis kept;
        None gives one int for the whole array.

    Returns
    -------
    e : int or ndarray of int
    """
    # fmax and fmin skip NaN; two reductions cost less than forming |X|
    keepdims = axis is not None
    top = np.fmax.reduce(X, axis=axis, keepdims=keepdims, initial=-np.inf)
    bottom = np.fmin.reduce(X, axis=axis, keepdims=keepdims, initial=np.inf)
    largest = np.maximum(np.fmax(top, -bottom), 0.0)
    exponent = np.frexp(largest)[1]
    return exponent if keepdims else int(exponent)
