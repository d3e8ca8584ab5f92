"""Input validation shared by every pcalib estimator and function.

Each check raises a ``ValueError`` or ``TypeError`` whose message names the
offending argument and says what was expected, so that a student who passes
the wrong thing learns what to fix instead of meeting an ``IndexError`` deep
inside a linear-algebra routine or, worse, a silent NaN.
"""

import os
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils.validation import validate_data


def as_float_matrix(X, *, name="X", min_samples=1, min_features=1, allow_nan=False, finite=True):
    """Return ``X`` as a finite 2-D float64 array, or raise a clear error.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric data. Lists, NumPy arrays and pandas DataFrames are accepted;
        no copy is made when ``X`` already is a float64 array.
    name : str, default="X"
        Name of the argument, used in error messages.
    min_samples, min_features : int, default=1
        Smallest number of rows and of columns that the caller can work with.
    allow_nan : bool, default=False
        Accept NaN as a marker of missing entries (PPCA with missing data);
        infinite values are still refused.
    finite : bool, default=True
        Check the values with :func:`check_finite`. A caller that forms the
        sum of the squares of ``X`` anyway (the trace of ``XᵀX``) passes False
        and calls :func:`check_finite` itself when that sum is not finite or
        exceeds :data:`MAX_SUM_OF_SQUARES`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64

    Raises
    ------
    TypeError
        ``X`` is None, sparse, or holds values that are not numbers.
    ValueError
        ``X`` is complex, not 2-D, too small, contains NaN or infinity, or is
        so large that the sum of its squares overflows.
    """
    X = as_float_array(X, name=name, ndim=2)
    check_min_shape(X.shape, name=name, min_samples=min_samples, min_features=min_features)
    if finite:
        check_finite(np.where(np.isnan(X), 0.0, X) if allow_nan else X, name=name)
    return X


def as_real_array(X, *, name="X", ndim=2):
    """Return ``X`` as a NumPy array of real numbers in its own dtype, or raise.

    The conversion that every check of an array argument starts from: it
    refuses what cannot stand for an array of real numbers, with a message
    naming ``name``, and leaves the dtype (and the values) as they are.

    Parameters
    ----------
    X : array-like
        Lists, NumPy arrays and pandas objects are accepted; no copy is made
        when ``X`` already is an array.
    name : str, default="X"
        Name of the argument, used in error messages.
    ndim : int or None, default=2
        The number of dimensions expected, for the messages only; None: any.

    Returns
    -------
    X : ndarray

    Raises
    ------
    TypeError
        ``X`` is None, sparse, or holds strings or bytes (numeric strings too).
    ValueError
        ``X`` is ragged or complex.
    """
    shape = "" if ndim is None else f"{ndim}-D "
    if X is None:
        raise TypeError(f"{name} must be a {shape}array-like of numbers, got None.")
    if scipy.sparse.issparse(X):
        raise TypeError(
            f"{name} is a sparse matrix; pcalib works with dense arrays only. "
            f"Convert it with {name}.toarray() if it fits in memory."
        )
    try:
        X_raw = np.asarray(X)
    except ValueError as exc:
        raise ValueError(
            f"{name} must be a rectangular {shape}array-like of numbers, with every row of "
            f"the same length; converting it to an array failed: {exc}"
        ) from exc
    if X_raw.dtype.kind in "USV" or (
        X_raw.dtype.kind == "O" and any(isinstance(v, (str, bytes)) for v in X_raw.flat)
    ):
        raise TypeError(
            f"{name} must contain only numbers, got an array of dtype {X_raw.dtype} "
            "(strings or bytes); convert the columns to numbers first."
        )
    if np.iscomplexobj(X_raw) or (
        X_raw.dtype.kind == "O" and any(isinstance(v, complex) for v in X_raw.flat)
    ):
        raise ValueError(
            f"{name} has complex values: Complex data not supported. Pass a real-valued array."
        )
    return X_raw


def as_float_array(X, *, name="X", ndim=2):
    """Return ``X`` as a float64 array with ``ndim`` dimensions, or raise; values unchecked.

    Parameters
    ----------
    X : array-like
        Converted by :func:`as_real_array`; no copy is made when ``X``
        already is a float64 array.
    name : str, default="X"
        Name of the argument, used in error messages.
    ndim : int or None, default=2
        The number of dimensions required; None accepts any (a scalar too).

    Returns
    -------
    X : ndarray of dtype float64
        NaN and infinite entries are left for the caller to check
        (:func:`check_finite`).

    Raises
    ------
    TypeError
        As :func:`as_real_array`, or an entry is not a number.
    ValueError
        As :func:`as_real_array`, or ``X`` has another number of dimensions.
    """
    X_raw = as_real_array(X, name=name, ndim=ndim)
    try:
        X = np.asarray(X_raw, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must contain only numbers; converting it to float failed: {exc}"
        ) from exc
    except OverflowError as exc:  # a Python int beyond float64
        raise ValueError(f"{name} has values too large for float64: {exc}") from exc
    if ndim == 2 and X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got a "
            f"{X.ndim}-D array of shape {X.shape}. Reshape your data: "
            f"{name}.reshape(-1, 1) for a single feature, {name}.reshape(1, -1) "
            "for a single sample."
        )
    if ndim is not None and X.ndim != ndim:
        raise ValueError(
            f"{name} must be a {ndim}-D array; got a {X.ndim}-D array of shape {X.shape}."
        )
    return X


def as_float_vector(value, *, name, length, meaning=None):
    """Return ``value`` as a finite float64 vector of ``length`` entries, or raise.

    The check of a vector parameter (a warm start, one variance per
    feature): the same conversion as the data (:func:`as_float_array`), so
    strings, even numeric ones, raise ``TypeError`` and complex numbers
    ``ValueError``.

    Parameters
    ----------
    value : array-like of shape (length,)
    name : str
        Name of the argument, used in error messages.
    length : int
        The number of entries required.
    meaning : str, optional
        What the entries are (``"one per feature"``), for the messages.

    Returns
    -------
    vector : ndarray of shape (length,), dtype float64
        A new array, never ``value`` itself: the caller may update it in place.

    Raises
    ------
    TypeError
        ``value`` is None, or holds strings or other objects that are not numbers.
    ValueError
        ``value`` is complex, has another shape, or contains NaN or infinity.
    """
    vector = as_float_array(value, name=name, ndim=None)
    if vector.shape != (length,):
        what = "" if meaning is None else f" ({meaning})"
        raise ValueError(
            f"{name} must be a vector of shape ({length},){what}; got shape {vector.shape}."
        )
    check_finite(vector, name=name)
    return vector.copy()


def as_per_component(value, *, name, kind, n_components):
    """Return ``value`` (one number, or one per component) as ``n_components`` numbers.

    For parameters such as ``l1_penalty`` or ``n_nonzero`` that take either
    one value for every component or a sequence of one value per component.

    Parameters
    ----------
    value : number or sequence of numbers
    name : str
        Name of the argument, used in error messages.
    kind : {numbers.Integral, numbers.Real}
        The type every entry must have; booleans are refused.
    n_components : int

    Returns
    -------
    values : ndarray of shape (n_components,), dtype object
        The entries as given (Python or NumPy numbers), broadcast; a new array.

    Raises
    ------
    ValueError
        ``value`` has neither 1 nor ``n_components`` entries.
    TypeError
        An entry is not of ``kind``.
    """
    values = np.atleast_1d(np.asarray(value, dtype=object))
    noun = "int" if kind is Integral else "number"
    if values.ndim != 1 or values.shape[0] not in (1, n_components):
        raise ValueError(
            f"{name} must be one {noun} or {n_components} {noun}s (one per component); "
            f"got {value!r}."
        )
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, kind) for v in values):
        raise TypeError(f"{name} must hold {noun}s; got {value!r}.")
    return np.broadcast_to(values, (n_components,)).copy()


def raise_zero_variance(consequence="the principal directions are undefined"):
    """Raise the ``ValueError`` for data whose every feature is constant."""
    raise ValueError(
        f"X has zero variance in every feature: all samples are equal, so {consequence}."
    )


def check_min_shape(shape, *, name, min_samples=1, min_features=1):
    """Raise ``ValueError`` unless the matrix ``shape`` has enough rows and columns."""
    n_samples, n_features = shape
    if n_samples < min_samples:
        raise ValueError(
            f"{name} has {n_samples} sample(s) (shape={shape}) while a minimum "
            f"of {min_samples} is required."
        )
    if n_features < min_features:
        raise ValueError(
            f"{name} has {n_features} feature(s) (shape={shape}) while a minimum "
            f"of {min_features} is required."
        )


def as_sparse_float_matrix(X, *, name="X", min_samples=1):
    """Return the scipy.sparse ``X`` in CSR or CSC format with float entries, or raise.

    Other sparse formats are converted to CSR, integer and boolean entries to
    float64 (float32 stays float32), and duplicate entries are summed (on a
    copy), so that every stored entry is one entry of the matrix. The matrix
    is never densified.

    Parameters
    ----------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
    name : str, default="X"
        Name of the argument, used in error messages.
    min_samples : int, default=1
        Smallest number of rows accepted.

    Returns
    -------
    X : scipy.sparse matrix or array of shape (n_samples, n_features)
        CSR or CSC, dtype float32 or float64, without duplicate entries.

    Raises
    ------
    TypeError
        ``X`` is not sparse, or its entries are not numbers.
    ValueError
        ``X`` is complex, too small, or holds NaN, infinity or values whose
        squares overflow.
    """
    if not scipy.sparse.issparse(X):
        raise TypeError(f"{name} must be a scipy.sparse matrix or array, got {type(X).__name__}.")
    if X.dtype.kind == "c":
        raise ValueError(f"{name} has complex values: Complex data not supported.")
    if X.dtype.kind not in "biuf":
        raise TypeError(f"{name} must contain only numbers, got the dtype {X.dtype}.")
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got the shape {X.shape}.")
    check_min_shape(X.shape, name=name, min_samples=min_samples)
    if X.format not in ("csr", "csc"):
        X = X.tocsr()
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    n_not_finite = np.count_nonzero(~np.isfinite(X.data))
    if n_not_finite:
        raise ValueError(
            f"{name} contains NaN or infinite values in {n_not_finite} of its stored "
            "entries. Remove or impute them before fitting."
        )
    if np.einsum("i,i->", X.data, X.data, dtype=np.float64) > MAX_SUM_OF_SQUARES:
        raise_too_large(name, float(np.abs(X.data).max()))
    return X


# Largest sum of squared entries accepted. pcalib squares the data (variances,
# covariance matrix, the objective ‖X - Z Wᵀ‖²_F), so larger values would
# overflow float64 to inf and then NaN; the factor 2**-20 leaves room for the
# intermediate products (e.g. a random start of the factorisations).
MAX_SUM_OF_SQUARES = np.finfo(np.float64).max * 2.0**-20


def raise_too_large(name, largest):
    """Raise the ``ValueError`` for data whose sum of squares would overflow."""
    raise ValueError(
        f"{name} is too large for float64 arithmetic: the sum of its squared "
        f"entries exceeds {MAX_SUM_OF_SQUARES:.3g} (largest absolute entry "
        f"{largest:.3g}). Rescale {name}, e.g. divide it by that entry."
    )


def check_finite(X, *, name="X"):
    """Raise ``ValueError`` if ``X`` holds NaN, infinity or values whose squares overflow.

    ``X`` is a float array, usually 2-D (any number of dimensions works).
    The fast path sums the squares of ``X`` once; only when that sum is not
    finite (or too large) are the offending entries located, so that the
    message can say where they are.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        sum_of_squares = np.einsum("ij,ij->", X, X) if X.ndim == 2 else np.vdot(X, X)
    if sum_of_squares <= MAX_SUM_OF_SQUARES:
        return
    nan_mask = np.isnan(X)
    inf_mask = np.isinf(X)
    for mask, what in ((nan_mask, "NaN"), (inf_mask, "infinite values (inf)")):
        if mask.any():
            first = tuple(int(i) for i in np.argwhere(mask)[0])
            raise ValueError(
                f"{name} contains {what}: {int(mask.sum())} entries, the first at "
                f"index {first}. Remove or impute them before fitting."
            )
    raise_too_large(name, np.abs(X).max())


def check_squares_representable(X, *, name="X"):
    """Raise ``ValueError`` if ``X`` is not zero but the sum of its squares underflows.

    An objective such as ``‖X - Z Wᵀ‖²_F`` is then below the smallest normal
    float64 (about ``2.2e-308``): it rounds to 0 or to a few bits, and a
    solver that stops on its relative decrease would stop at any point. ``X``
    is a 2-D float array that passed :func:`check_finite`.
    """
    sum_of_squares = np.einsum("ij,ij->", X, X)
    if sum_of_squares < np.finfo(np.float64).tiny and np.any(X != 0.0):
        raise ValueError(
            f"{name} is too small for float64 arithmetic: the sum of its squared "
            f"entries underflows (it is {sum_of_squares:.3g}; largest absolute entry "
            f"{np.abs(X).max():.3g}). Rescale {name}, e.g. divide it by that entry."
        )


def check_n_components(
    n_components, upper, *, upper_name="min(n_samples, n_features)", allow_fraction=False
):
    """Validate ``n_components`` and return it as an int or a fraction.

    Every pcalib estimator and function checks its number of components here,
    so that the same mistake gets the same message everywhere.

    Parameters
    ----------
    n_components : int, float or None
        ``None`` keeps ``upper`` components; an int ``k`` keeps ``k``,
        ``1 ≤ k ≤ upper``; a float strictly between 0 and 1 (if
        ``allow_fraction``) is the fraction of variance to keep, resolved
        later by the caller.
    upper : int
        Largest number of components the caller can compute.
    upper_name : str, default="min(n_samples, n_features)"
        What ``upper`` is, for the error message.
    allow_fraction : bool, default=False
        Whether a fraction of variance is meaningful for the caller.

    Returns
    -------
    int or float
        The number of components, or the validated fraction.
    """
    if n_components is None:
        return int(upper)
    if isinstance(n_components, (bool, np.bool_)):
        raise TypeError(f"n_components must be an int or None, got the bool {n_components}.")
    if isinstance(n_components, Integral):
        if not 1 <= n_components <= upper:
            raise ValueError(
                f"n_components must be between 1 and {upper_name} = {upper}; "
                f"got {_describe(n_components)}."
            )
        return int(n_components)
    if isinstance(n_components, Real) and allow_fraction:
        if not 0.0 < n_components < 1.0:
            raise ValueError(
                "n_components given as a float is the fraction of variance to "
                f"keep and must be strictly between 0 and 1; got {n_components}. "
                "Pass an int to ask for a number of components."
            )
        return float(n_components)
    expected = "an int, a float in (0, 1) or None" if allow_fraction else "an int or None"
    raise TypeError(
        f"n_components must be {expected}; got {n_components!r} "
        f"of type {type(n_components).__name__}."
    )


def convergence_warning(name, max_iter, criterion, *, stacklevel=3):
    """Warn that ``name`` stopped at ``max_iter`` before meeting ``criterion``.

    Parameters
    ----------
    name : str
        The estimator or function, e.g. ``"NMF"``.
    max_iter : int
        The limit that was reached.
    criterion : str
        What had not happened yet, e.g. ``"the relative decrease of the
        objective fell below tol=1e-06"``.
    stacklevel : int, default=3
        Passed to :func:`warnings.warn`; 3 points at the caller of the
        function that calls this one.
    """
    # The first sentence is scikit-learn's, which its tests match.
    warnings.warn(
        f"Maximum number of iterations {max_iter} reached. Increase it to improve "
        f"convergence: {name} stopped after max_iter={max_iter} iterations before "
        f"{criterion}; increase max_iter or tol.",
        ConvergenceWarning,
        stacklevel=stacklevel,
    )


def fallback_warning(name, error, fallback, *, stacklevel=3):
    """Warn that ``name`` failed with ``error`` and that ``fallback`` was done instead.

    Parameters
    ----------
    name : str
        The solver that failed, e.g. ``"ARPACK (eigen_solver='arpack')"``.
    error : Exception
        What it raised.
    fallback : str
        What was done instead, e.g. ``"the dense solver computed the eigenpairs"``.
    stacklevel : int, default=3
        Passed to :func:`warnings.warn`.
    """
    warnings.warn(
        f"{name} failed ({type(error).__name__}: {error}); {fallback} instead.",
        ConvergenceWarning,
        stacklevel=stacklevel,
    )


def check_option(value, *, name, allowed):
    """Raise ``ValueError`` unless ``value`` is one of the strings ``allowed``."""
    if not isinstance(value, str) or value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name} must be one of {choices}; got {value!r}.")
    return value


# Largest integer parameter accepted: NumPy's integers (and array sizes) are
# 64-bit, so a larger count would overflow wherever it reaches NumPy.
MAX_INT = int(np.iinfo(np.int64).max)


def _describe(value):
    """``str(value)``, shortened for the enormous ints that a typo can produce."""
    text = str(value)
    return text if len(text) <= 30 else f"an int of {len(str(abs(value)))} digits"


def is_int(value):
    """Whether ``value`` is an integer (Python or NumPy), and not a bool."""
    return isinstance(value, Integral) and not isinstance(value, (bool, np.bool_))


def _check_int(value, *, name, minimum):
    """Raise unless ``value`` is an int in ``[minimum, MAX_INT]``.

    Bools and floats (even 1.0) are refused with a ``TypeError``.
    """
    if not is_int(value):
        raise TypeError(f"{name} must be an int, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {_describe(value)}.")
    if value > MAX_INT:
        raise ValueError(f"{name} must be at most 2**63 - 1 = {MAX_INT}, got {_describe(value)}.")
    return int(value)


def check_positive_int(value, *, name):
    """Raise unless ``value`` is an int >= 1 (and at most ``MAX_INT``)."""
    return _check_int(value, name=name, minimum=1)


def check_non_negative_int(value, *, name):
    """Raise unless ``value`` is an int >= 0 (and at most ``MAX_INT``)."""
    return _check_int(value, name=name, minimum=0)


def check_array_size(shape, *, name):
    """Raise ``ValueError`` if a float64 array of ``shape`` cannot be allocated.

    ``shape`` is sized by the argument ``name`` (a number of samples, of random
    features, of components, ...). An array of more than ``2**63 - 1`` bytes is
    refused by NumPy, and one larger than the machine's memory fails after
    the work that precedes it, both with messages that do not say which
    argument asked for it; this check refuses both before any work is done.
    """
    n_entries = int(np.prod([int(size) for size in shape], dtype=object))
    memory = physical_memory()
    if n_entries * 8 > MAX_INT:
        beyond = "more than NumPy can address"
    elif memory is not None and n_entries * 8 > memory:
        beyond = (
            f"{n_entries * 8 / 2**30:.3g} GiB, more than this machine's {memory / 2**30:.3g} GiB"
        )
    else:
        return
    raise ValueError(
        f"{name} is too large: it asks for a float64 array of shape {shape}, "
        f"{n_entries:.3g} entries, {beyond}. Choose a smaller {name}."
    )


def physical_memory():
    """The machine's physical memory in bytes, or None where the system does not tell."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _check_real(value, *, name, strict):
    """Raise unless ``value`` is a finite real number > 0 (``strict``) or >= 0.

    Any real is converted with ``float``: a Python int too large for float64
    (``10**400``) counts as infinite, and one that fits (``2**70``) is used as
    that float.
    """
    bound = "> 0" if strict else ">= 0"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        kind = "a positive number" if strict else "a number >= 0"
        raise TypeError(f"{name} must be {kind}, got {value!r}.")
    number = _as_float(value)
    if not (np.isfinite(number) and (number > 0 if strict else number >= 0)):
        raise ValueError(f"{name} must be a finite number {bound}, got {_describe(value)}.")
    return number


def _as_float(value):
    """``float(value)``, with ``±inf`` for an int beyond the range of float64."""
    try:
        return float(value)
    except OverflowError:
        return np.inf if value > 0 else -np.inf


def check_positive_float(value, *, name):
    """Raise unless ``value`` is a finite real number > 0."""
    return _check_real(value, name=name, strict=True)


def check_non_negative_float(value, *, name):
    """Raise unless ``value`` is a finite real number >= 0 (penalties, thresholds)."""
    return _check_real(value, name=name, strict=False)


def check_finite_float(value, *, name):
    """Raise unless ``value`` is a finite real number, of either sign."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {value!r}.")
    number = _as_float(value)
    if not np.isfinite(number):
        raise ValueError(f"{name} must be finite, got {_describe(value)}.")
    return number


def check_fraction(value, *, name, open_interval=False):
    """Raise unless ``value`` is a real number in ``[0, 1]`` (``(0, 1)`` if ``open_interval``)."""
    number = check_finite_float(value, name=name)
    inside = 0.0 < number < 1.0 if open_interval else 0.0 <= number <= 1.0
    if not inside:
        interval = "strictly between 0 and 1" if open_interval else "between 0 and 1"
        raise ValueError(f"{name} must be {interval}, got {_describe(value)}.")
    return number


def check_bool(value, *, name):
    """Raise ``TypeError`` unless ``value`` is True or False."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}.")
    return bool(value)


# Declarative parameter checks. An estimator lists its constructor arguments in
# a table {name: check}, each check called as ``check(value, name=name)``; the
# helpers below build the checks that the plain ``check_*`` functions do not
# cover by themselves.


def optional(check):
    """``check``, with ``None`` also accepted (a default resolved from the data)."""

    def check_or_none(value, *, name):
        if value is not None:
            check(value, name=name)

    return check_or_none


def one_of(*allowed):
    """A check that ``value`` is one of the strings ``allowed``."""

    def check_one_of(value, *, name):
        check_option(value, name=name, allowed=allowed)

    return check_one_of


def option_or(check, *options, otherwise):
    """A check that ``value`` is one of the strings ``options``, or passes ``check``.

    ``otherwise`` describes what ``check`` accepts (``"an int >= 0"``), for the
    message that a string outside ``options`` gets.
    """

    def check_option_or(value, *, name):
        if not isinstance(value, str):
            check(value, name=name)
        elif value not in options:
            choices = " or ".join(repr(option) for option in options)
            raise ValueError(f"{name} must be {choices} or {otherwise}; got {value!r}.")

    return check_option_or


def check_random_state(value, *, name="random_state"):
    """Raise unless ``value`` is a ``random_state`` that :func:`as_generator` accepts."""
    as_generator(value)


def check_parameters(estimator, table):
    """Check each constructor argument of ``estimator`` against its rule in ``table``.

    Parameters
    ----------
    estimator : pcalib estimator
    table : dict
        ``{parameter name: check}``, each check called as
        ``check(getattr(estimator, name), name=name)`` and raising a
        ``TypeError`` or ``ValueError`` that names the parameter.
    """
    for name, check in table.items():
        check(getattr(estimator, name), name=name)


def check_fitted(estimator, attribute):
    """Raise scikit-learn's ``NotFittedError`` if ``estimator`` lacks ``attribute``."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(
            f"This {type(estimator).__name__} instance is not fitted yet. Call "
            "'fit' with appropriate arguments before using this estimator."
        )


def check_new_data(estimator, X, *, fitted_attribute, allow_nan=False):
    """Validate data given to a fitted estimator (``transform``, ``score``, ...).

    Parameters
    ----------
    estimator : fitted pcalib estimator
    X : array-like of shape (n_samples, n_features_in_)
    fitted_attribute : str
        An attribute that ``fit`` sets; its absence raises ``NotFittedError``.
    allow_nan : bool, default=False
        Accept NaN as a missing entry (see :func:`as_float_matrix`).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features_in_), dtype float64
        Checked as by :func:`as_float_matrix`, with as many columns (and the
        same column names, for a DataFrame) as the training data.
    """
    check_fitted(estimator, fitted_attribute)
    X_checked = as_float_matrix(X, name="X", allow_nan=allow_nan)
    validate_data(estimator, X, reset=False, skip_check_array=True)
    return X_checked


def as_generator(random_state):
    """Return a ``numpy.random.Generator`` from ``random_state``.

    ``None`` gives fresh entropy, an int seeds ``np.random.default_rng``, a
    ``Generator`` is used as it is, and a legacy ``numpy.random.RandomState``
    (what scikit-learn's tests pass) seeds a new ``Generator`` with one draw
    from it, so that the same state gives the same result. Anything else is
    refused, so that every random draw in pcalib goes through one route.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    if random_state is None or (
        isinstance(random_state, Integral) and not isinstance(random_state, bool)
    ):
        if random_state is not None and random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state}.")
        return np.random.default_rng(random_state)
    raise TypeError(
        "random_state must be None, a non-negative int, a numpy.random.Generator "
        f"or a numpy.random.RandomState; got {random_state!r}."
    )


def result_dtype(X):
    """The dtype of an estimator's results for data ``X``, as scikit-learn's.

    float32 data (an array, a sparse matrix, or a DataFrame whose columns are
    all float32) give float32 results; anything else gives float64. The
    estimators compute in float64 and round their results once.

    Parameters
    ----------
    X : array-like, scipy.sparse matrix or DataFrame

    Returns
    -------
    numpy.dtype
    """
    dtype = getattr(X, "dtype", None)
    if dtype is None and hasattr(X, "dtypes"):  # a DataFrame: float32 if every column is
        dtypes = list(X.dtypes)
        dtype = np.float32 if dtypes and all(t == np.float32 for t in dtypes) else None
    return np.dtype(np.float32 if dtype == np.float32 else np.float64)
