"""PCA of data that does not fit in memory, with Dask.

Chapter 2, "PCA in high dimension", section on data beyond memory.

The data is a Dask array chunked by rows: each chunk is a block of samples
with all (or, for ``solver="compressed"``, some) features, and only a few
chunks are in memory at any time. Nothing here is a home-made distributed
loop: the factorisation is Dask's own linear algebra.

* ``solver="tsqr"`` calls :func:`dask.array.linalg.svd`, which for a
  tall-and-skinny array is the *tall-and-skinny QR* (TSQR) of Benson, Gleich
  and Demmel (2013): every row chunk ``X_i = Q_i R_i`` is reduced to a
  ``d × d`` triangle, the stacked triangles are reduced again (a tree of
  QRs), and the SVD of the final ``d × d`` triangle ``R = Ũ S Vᵀ`` gives the
  singular values and right singular vectors of the whole centred data,
  because ``Xᵀ X = Rᵀ R`` (the same reduction as the in-memory solver,
  chapter 1, eq. ``eq-pca-svd``). Exact, but a few ``d × d`` matrices must
  fit in memory.
* ``solver="compressed"`` calls :func:`dask.array.linalg.svd_compressed`, the
  randomized SVD of Halko, Martinsson and Tropp (2011): it only ever forms
  ``n × (k + p)`` and ``d × (k + p)`` matrices, so it scales to large ``d``,
  at the price of an approximation controlled by the number of power
  iterations.

Centring is lazy (``X - mean`` is a recipe, not an array), so each pass over
the data reads every chunk once and keeps only ``d``-sized and ``k``-sized
results. Dask is optional: this module imports without it and
:func:`pca_dask` says what to install.
"""

import sys
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from ._linalg import flip_signs
from ._validation import (
    MAX_SUM_OF_SQUARES,
    as_float_matrix,
    check_bool,
    check_n_components,
    check_non_negative_int,
    check_option,
    is_int,
    raise_too_large,
    raise_zero_variance,
)

__all__ = ["DaskPCAResult", "pca_dask"]

SOLVERS = ("tsqr", "compressed")
DASK_MISSING = "pca_dask needs Dask: pip install 'dask[array]' (or pip install 'pcalib[dask]')"


def import_dask_array():
    """Return the module :mod:`dask.array`, or raise an ``ImportError`` saying what to install."""
    try:
        import dask.array as da
    except ImportError as exc:
        raise ImportError(DASK_MISSING) from exc
    return da


def is_dask_array(X):
    """Whether ``X`` is a Dask array (without importing Dask if it is not loaded)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(X, da.Array)


@dataclass(frozen=True, eq=False, repr=False)
class DaskPCAResult:
    """Top-``k`` principal components computed by :func:`pca_dask`.

    The fields are NumPy arrays once computed (``pca_dask(..., compute=True)``,
    the default, or :meth:`compute`); with ``compute=False`` all but
    ``mean_`` and ``n_samples_`` are lazy Dask arrays.

    Attributes
    ----------
    components_ : ndarray of shape (k, n_features)
        Principal axes as orthonormal rows, by decreasing variance, with
        pcalib's sign convention (largest-magnitude entry positive).
    singular_values_ : ndarray of shape (k,)
        The ``k`` largest singular values of the centred training data.
    mean_ : ndarray of shape (n_features,)
        Per-feature training mean, subtracted from any data to project.
    n_samples_ : int
        Number of training samples ``n``.
    total_variance_ : float
        Sum of the column variances of the training data (``ddof=1``), i.e.
        the trace of the covariance ``C = Xcᵀ Xc / (n - 1)``.
    explained_variance_ : ndarray of shape (k,)
        ``singular_values_**2 / (n - 1)``, the variance along each component.
    explained_variance_ratio_ : ndarray of shape (k,)
        ``explained_variance_ / total_variance_``.
    """

    components_: object
    singular_values_: object
    mean_: np.ndarray
    n_samples_: int
    total_variance_: object

    @property
    def explained_variance_(self):
        """``singular_values_**2 / (n - 1)``, the variance along each component."""
        return self.singular_values_**2 / (self.n_samples_ - 1)

    @property
    def explained_variance_ratio_(self):
        """``explained_variance_ / total_variance_``."""
        return self.explained_variance_ / self.total_variance_

    @property
    def n_components_(self):
        """Number of components ``k``."""
        return self.components_.shape[0]

    @property
    def n_features_in_(self):
        """Number of features of the training data."""
        return self.mean_.shape[0]

    @property
    def is_computed(self):
        """Whether the fields are NumPy arrays (True) or lazy Dask arrays."""
        return isinstance(self.components_, np.ndarray)

    def __repr__(self):
        """Shapes and state, without the (possibly lazy) arrays."""
        return (
            f"DaskPCAResult(n_components_={self.n_components_}, "
            f"n_features_in_={self.n_features_in_}, n_samples_={self.n_samples_}, "
            f"computed={self.is_computed})"
        )

    def compute(self, **kwargs):
        """Evaluate the lazy fields in one :func:`dask.compute` call.

        BLAS runs one thread per task (see :func:`compute_with_one_blas_thread`).

        Parameters
        ----------
        **kwargs
            Passed to :func:`dask.compute`, e.g. ``scheduler="threads"``,
            ``"processes"`` or ``"synchronous"``.

        Returns
        -------
        DaskPCAResult
            A result holding NumPy arrays (``self`` if it already does).

        Raises
        ------
        ValueError
            The data has no variance, or too much for float64 arithmetic.
        """
        if self.is_computed:
            return self
        components, singular_values, total_variance = compute_with_one_blas_thread(
            self.components_, self.singular_values_, self.total_variance_, **kwargs
        )
        return replace(
            self,
            components_=components,
            singular_values_=singular_values,
            total_variance_=check_total_variance(float(total_variance)),
        )

    def transform(self, X_new):
        """Scores ``Z = (X_new - mean_) @ components_.T``, with the training mean.

        Parameters
        ----------
        X_new : ndarray or dask.array.Array of shape (m, n_features)
            A NumPy array (or array-like) is checked at once; a Dask array is
            checked lazily, when its result is computed.

        Returns
        -------
        Z : ndarray or dask.array.Array of shape (m, k)
            Scores, of the same kind as ``X_new`` (a Dask array stays lazy).
        """
        if not self.is_computed:
            raise ValueError(
                "This DaskPCAResult is lazy (pca_dask(..., compute=False)); call "
                "result = result.compute() before transform."
            )
        if is_dask_array(X_new):
            X_new = checked_dask_matrix(X_new, name="X_new", min_samples=1)
            check_block = partial(raise_if_not_finite, name="X_new")
            X_new = X_new.map_blocks(check_block, dtype=np.float64)
        else:
            X_new = as_float_matrix(X_new, name="X_new")
        if X_new.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X_new has {X_new.shape[1]} features but the PCA was fitted on "
                f"{self.n_features_in_}."
            )
        return (X_new - self.mean_) @ self.components_.T


def pca_dask(
    X,
    n_components,
    *,
    solver="tsqr",
    iterated_power=2,
    random_state=None,
    compute=True,
):
    """Top-``k`` PCA of a Dask array chunked by rows, with Dask's linear algebra.

    Two passes (``"tsqr"``) or ``3 + 2 * iterated_power`` passes
    (``"compressed"``) over the data, each holding a few row chunks and
    ``d``-sized or ``k``-sized results in memory: the first computes the
    column mean and checks that every entry is finite; the next ones factorise
    the lazily centred data ``Xc = X - mean`` and sum its squares for the
    total variance.

    The computation runs on Dask's current scheduler: the local threaded
    scheduler by default (no cluster needed), or whichever one is configured,
    e.g. ``with dask.config.set(scheduler="processes"):`` or an active
    ``distributed.Client``; any scheduler gives the same result. While pcalib
    computes, BLAS runs one thread per task, since Dask already uses every core
    (see :func:`compute_with_one_blas_thread`).

    Parameters
    ----------
    X : dask.array.Array or ndarray of shape (n_samples, n_features)
        Real numbers, chunked by rows (one chunk along the columns). For
        ``solver="tsqr"`` an array with several column chunks is rechunked
        to one, keeping its row chunks, so each chunk then holds whole rows
        (``rows_per_chunk × n_features`` numbers): choose row chunks that fit
        in memory. ``solver="compressed"`` keeps the chunks as they are (it
        supports chunks in both dimensions). A NumPy array (or array-like)
        is checked at once and wrapped with :func:`dask.array.from_array`;
        this is a convenience for data that already fits in memory.
    n_components : int
        Number of components ``k``, ``1 ≤ k ≤ min(n_samples, n_features)``.
    solver : {"tsqr", "compressed"}, default="tsqr"
        ``"tsqr"``: exact thin SVD by tall-and-skinny QR
        (:func:`dask.array.linalg.svd`); needs ``d × d`` matrices in memory
        (about ``8 d²`` bytes each, a few at a time), so ``d`` up to a few
        thousand. ``"compressed"``: randomized SVD
        (:func:`dask.array.linalg.svd_compressed`, with ``k + 10`` random
        directions, re-orthonormalised by TSQR at every power iteration),
        for large ``d``; approximate.
    iterated_power : int, default=2
        Power iterations of ``"compressed"`` (ignored by ``"tsqr"``). The
        error of component ``j`` shrinks like ``(s_{k+11} / s_j)**(2q + 1)``;
        raise it when the singular values decay slowly.
    random_state : int or None, default=None
        Seed of the random directions of ``"compressed"`` (Dask's ``seed``).
        An int gives the same result on every run with the same chunks.
    compute : bool, default=True
        ``True``: return NumPy results. ``False``: run only the first pass
        (mean and checks) and return a lazy :class:`DaskPCAResult`, to inspect
        the task graph or pick a scheduler in ``result.compute(scheduler=...)``.
        (Not Dask's ``svd_compressed(compute=...)``, which persists
        intermediates: pcalib never does, so memory stays bounded.)

    Returns
    -------
    DaskPCAResult
        ``components_`` (k, n_features), ``explained_variance_`` (k,) with
        the ``1/(n - 1)`` of eq. ``eq-pca-covariance``,
        ``explained_variance_ratio_`` (k,), ``singular_values_`` (k,),
        ``mean_`` (n_features,), ``n_samples_``, and ``transform``.

    Raises
    ------
    ImportError
        Dask is not installed.
    TypeError
        ``X`` is not numeric; ``n_components``, ``iterated_power``,
        ``random_state`` or ``compute`` has the wrong type.
    ValueError
        ``X`` is complex, not 2-D, has fewer than 2 samples, NaN or infinite
        values, squares too large for float64 (as for the in-memory route),
        unknown chunk sizes or no variance (or a variance that underflows); ``n_components`` is out
        of range; ``solver`` is unknown; ``iterated_power`` is negative.

    Examples
    --------
    >>> import dask.array as da
    >>> import numpy as np
    >>> from pcalib import PCA
    >>> from pcalib.datasets import make_spectrum
    >>> X, _ = make_spectrum(1_000, 4, [4.0, 2.0, 1.0, 0.5], random_state=0)
    >>> X_dask = da.from_array(X, chunks=(250, 4))  # 4 row chunks
    >>> result = pca_dask(X_dask, 2)
    >>> pca = PCA(n_components=2).fit(X)
    >>> bool(np.allclose(result.components_, pca.components_))
    True
    >>> result.explained_variance_ratio_.round(3)
    array([0.531, 0.257])
    >>> bool(np.allclose(result.explained_variance_ratio_, pca.explained_variance_ratio_))
    True
    """
    import_dask_array()
    solver = check_option(solver, name="solver", allowed=SOLVERS)
    iterated_power = check_non_negative_int(iterated_power, name="iterated_power")
    random_state = check_seed(random_state)
    compute = check_bool(compute, name="compute")
    X = as_dask_matrix(X, single_column_chunk=(solver == "tsqr"))
    n_samples, n_features = X.shape
    k = check_n_components(n_components, min(n_samples, n_features))

    mean = column_mean_of_finite(X)
    X_centered = X - mean
    if solver == "tsqr":
        singular_values, components = top_singular_pairs_tsqr(X_centered, k)
    else:
        singular_values, components = top_singular_pairs_randomized(
            X_centered, k, iterated_power=iterated_power, random_state=random_state
        )
    components = components.rechunk(-1).map_blocks(sign_convention, dtype=np.float64)
    result = DaskPCAResult(
        components_=components,
        singular_values_=singular_values,
        mean_=mean,
        n_samples_=n_samples,
        total_variance_=total_variance(X_centered),
    )
    return result.compute() if compute else result


def top_singular_pairs_tsqr(X_centered, k):
    """The ``k`` largest singular values and right singular vectors by TSQR.

    Parameters
    ----------
    X_centered : dask.array.Array of shape (n, d), one column chunk

    Returns
    -------
    singular_values : dask.array.Array of shape (k,)
    Vt : dask.array.Array of shape (k, d)
    """
    da = import_dask_array()
    _, s, Vt = da.linalg.svd(X_centered, coerce_signs=False)  # U is never computed
    return s[:k], Vt[:k]


def top_singular_pairs_randomized(X_centered, k, *, iterated_power, random_state):
    """The ``k`` largest singular values and right singular vectors, randomized.

    Parameters
    ----------
    X_centered : dask.array.Array of shape (n, d)
    k, iterated_power : int
    random_state : int or None
        Dask's ``seed``.

    Returns
    -------
    singular_values : dask.array.Array of shape (k,)
    Vt : dask.array.Array of shape (k, d)
    """
    da = import_dask_array()
    _, s, Vt = da.linalg.svd_compressed(
        X_centered,
        k,
        iterator="QR",  # orthonormalise between power steps: no loss of small s_j
        n_power_iter=iterated_power,
        seed=random_state,
        coerce_signs=False,
    )
    return s, Vt


def total_variance(X_centered):
    """Sum of the column variances, ``Σ_j Σ_i Xc_ij² / (n - 1)`` (a lazy scalar).

    It is the trace of the covariance, the denominator of the explained
    variance ratios; the ``k`` singular values alone cannot give it.
    """
    n_samples = X_centered.shape[0]
    return (X_centered**2).sum(axis=0).sum() / (n_samples - 1)


def column_mean_of_finite(X):
    """Column mean of ``X``, computed with the checks of the data in one pass.

    Every chunk is reduced to a few numbers per column
    (:func:`block_statistics`) without floating-point warnings; they are
    combined in NumPy, and the data is checked before anything else is
    computed: finite, a sum of squares that float64 can hold (the bound of
    the in-memory route, :func:`pcalib._validation.check_finite`), and not
    all rows equal.

    Parameters
    ----------
    X : dask.array.Array of shape (n, d)

    Returns
    -------
    mean : ndarray of shape (d,)

    Raises
    ------
    ValueError
        ``X`` holds NaN or infinity, its squares overflow, or all its rows are equal.
    """
    statistics = X.map_blocks(
        block_statistics,
        new_axis=1,
        chunks=((1,) * X.numblocks[0], (5,), X.chunks[1]),
        dtype=np.float64,
    )
    (statistics,) = compute_with_one_blas_thread(statistics)
    n_not_finite, sums, squares, minima, maxima = statistics.transpose(1, 0, 2)
    if n_not_finite.sum() > 0:
        raise ValueError(
            "X contains NaN or infinite values; remove or impute them before "
            "fitting (e.g. X[da.isfinite(X).all(axis=1)] keeps the complete rows)."
        )
    with np.errstate(over="ignore"):
        sum_of_squares = squares.sum()
    if not sum_of_squares <= MAX_SUM_OF_SQUARES:
        raise_too_large("X", max(-minima.min(), maxima.max()))
    if np.all(minima.min(axis=0) == maxima.max(axis=0)):
        raise_zero_variance()
    return sums.sum(axis=0) / X.shape[0]


def block_statistics(block):
    """Per column of one chunk: count of non-finite entries, sum, sum of squares, min, max.

    Non-finite entries count as 0 in the other four, and overflow gives
    ``inf`` without a ``RuntimeWarning``, so that the caller can raise its own
    clear error first.

    Parameters
    ----------
    block : ndarray of shape (rows, columns)

    Returns
    -------
    statistics : ndarray of shape (1, 5, columns)
    """
    with np.errstate(over="ignore", invalid="ignore"):
        finite = np.isfinite(block)
        values = np.where(finite, block, 0.0)
        statistics = [
            (~finite).sum(axis=0),
            values.sum(axis=0),
            np.einsum("ij,ij->j", values, values),
            values.min(axis=0),
            values.max(axis=0),
        ]
    return np.stack(statistics).astype(np.float64)[np.newaxis]


def check_total_variance(total):
    """Return ``total`` if it is a usable denominator, else raise ``ValueError``."""
    if not np.isfinite(total):
        raise ValueError(
            "X is too large for float64 arithmetic (the sum of its squared "
            "deviations overflows); rescale X."
        )
    if total == 0.0:
        raise ValueError(
            "X varies by amounts too small for float64 arithmetic (the squared "
            "deviations from the mean underflow to 0); rescale X."
        )
    return total


def compute_with_one_blas_thread(*arrays, **kwargs):
    """:func:`dask.compute` of ``arrays``, with BLAS limited to one thread.

    Dask's threaded scheduler already runs one task per core; a multithreaded
    BLAS inside every task would oversubscribe the cores (measured: 10 to 50
    times slower on a busy two-core machine). The limit is process-wide and
    lifted on return; schedulers in other processes are not affected.
    """
    import_dask_array()
    import dask
    from threadpoolctl import threadpool_limits  # a dependency of scikit-learn

    with threadpool_limits(limits=1, user_api="blas"):
        return dask.compute(*arrays, **kwargs)


def sign_convention(components):
    """Pcalib's sign convention on a block of rows (:func:`pcalib.flip_signs`)."""
    return flip_signs(components)[0]


def raise_if_not_finite(block, name="X"):
    """Return ``block`` unchanged, or raise ``ValueError`` if it holds NaN or inf."""
    if not np.all(np.isfinite(block)):
        raise ValueError(f"{name} contains NaN or infinite values; remove or impute them.")
    return block


def as_dask_matrix(X, *, single_column_chunk):
    """``X`` as a checked float64 Dask array of shape (n_samples, n_features).

    A NumPy array (or array-like) is validated by
    :func:`pcalib._validation.as_float_matrix` and wrapped in row chunks.
    """
    da = import_dask_array()
    if not is_dask_array(X):
        X = as_float_matrix(X, name="X", min_samples=2)
        return da.from_array(X, chunks=("auto", -1))
    X = checked_dask_matrix(X, name="X", min_samples=2)
    if single_column_chunk and X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return X


def checked_dask_matrix(X, *, name, min_samples):
    """Check the dtype, dimension and shape of the Dask array ``X`` (no data is read).

    Returns
    -------
    X : dask.array.Array of shape (n_samples, n_features), dtype float64
    """
    if X.dtype.kind == "c":
        raise ValueError(
            f"{name} has complex values: Complex data not supported. Pass a real-valued array."
        )
    if X.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must contain only numbers, got a Dask array of dtype {X.dtype}; "
            "convert it to numbers first."
        )
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got a "
            f"{X.ndim}-D array of shape {X.shape}."
        )
    if any(np.isnan(size) for size in X.shape):
        raise ValueError(
            f"{name} has unknown chunk sizes (shape {X.shape}); call "
            f"{name}.compute_chunk_sizes() first."
        )
    if X.shape[0] < min_samples:
        raise ValueError(
            f"{name} has {X.shape[0]} sample(s) (shape={X.shape}) while a minimum "
            f"of {min_samples} is required."
        )
    if X.shape[1] < 1:
        raise ValueError(f"{name} has 0 features (shape={X.shape}).")
    return X.astype(np.float64)


def check_seed(random_state):
    """Raise unless ``random_state`` is None or a non-negative int (Dask's ``seed``)."""
    if random_state is None:
        return None
    if not is_int(random_state):
        raise TypeError(
            "random_state must be None or a non-negative int (Dask draws its own "
            f"random numbers from it); got {random_state!r}."
        )
    if random_state < 0:
        raise ValueError(f"random_state must be >= 0, got {random_state}.")
    return int(random_state)
