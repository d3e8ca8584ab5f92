"""The catalogue of bad inputs, over every public entry point.

Every case checks the exception type *and* that the message names the
offending argument (``pytest.raises(..., match=...)``), so that a student who
passes the wrong thing is told what to fix.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import pcalib._validation
from pcalib import NMF, PCA, KernelPCA, pca_als, pca_gradient_descent
from pcalib._linalg import power_of_four_scale
from pcalib._validation import (
    MAX_INT,
    check_array_size,
    check_finite_float,
    check_fraction,
    check_non_negative_float,
    check_non_negative_int,
    check_positive_float,
    check_positive_int,
    check_squares_representable,
)

N_SAMPLES, N_FEATURES = 6, 3


def good_X(n_samples=N_SAMPLES, n_features=N_FEATURES, seed=0):
    return np.random.default_rng(seed).standard_normal((n_samples, n_features))


def fitted_pca(**params):
    return PCA(**params).fit(good_X(20, N_FEATURES, seed=1))


# Every public function that takes data, called with default settings.
ENTRY_POINTS = {
    "PCA.fit": lambda X: PCA().fit(X),
    "PCA.transform": lambda X: fitted_pca().transform(X),
    "pca_als": lambda X: pca_als(X, 1, random_state=0),
    "pca_gradient_descent": lambda X: pca_gradient_descent(X, 1, random_state=0),
}
FITTING = ["PCA.fit", "pca_als", "pca_gradient_descent"]


def with_entry(i, j, value):
    X = good_X()
    X[i, j] = value
    return X


def object_array_with_dict():
    X = good_X().astype(object)
    X[1, 1] = {"a": 1}
    return X


def two_nans():
    X = good_X()
    X[4, 0] = np.nan
    X[1, 2] = np.nan
    return X


def both_infinities():
    X = good_X()
    X[3, 0] = np.inf
    X[1, 2] = -np.inf
    return X


# (id, factory of the bad X, exception type, regex the message must match)
BAD_X = [
    (
        "nan",
        lambda: with_entry(2, 1, np.nan),
        ValueError,
        r"X contains NaN: 1 entries, the first at index \(2, 1\)",
    ),
    ("two-nans", two_nans, ValueError, r"X contains NaN: 2 entries, the first at index \(1, 2\)"),
    (
        "+inf",
        lambda: with_entry(0, 2, np.inf),
        ValueError,
        r"X contains infinite values \(inf\): 1 entries, the first at index \(0, 2\)",
    ),
    (
        "-inf",
        lambda: with_entry(3, 0, -np.inf),
        ValueError,
        r"X contains infinite values \(inf\): 1 entries, the first at index \(3, 0\)",
    ),
    (
        "+inf-and--inf",
        both_infinities,
        ValueError,
        r"X contains infinite values \(inf\): 2 entries, the first at index \(1, 2\)",
    ),
    (
        "strings",
        lambda: np.array([["a", "b", "c"]] * N_SAMPLES),
        TypeError,
        r"X must contain only numbers",
    ),
    (
        "list-with-a-string",
        lambda: [[1.0, "x", 3.0]] * N_SAMPLES,
        TypeError,
        r"X must contain only numbers",
    ),
    (
        "dataframe-with-text-column",
        lambda: pd.DataFrame(
            {"a": [1.0] * N_SAMPLES, "b": ["x"] * N_SAMPLES, "c": [2.0] * N_SAMPLES}
        ),
        TypeError,
        r"X must contain only numbers",
    ),
    ("dict-in-object-array", object_array_with_dict, TypeError, r"X must contain only numbers"),
    ("None", lambda: None, TypeError, r"X must be a 2-D array-like of numbers, got None"),
    (
        "ragged-list",
        lambda: [[1.0, 2.0, 3.0]] * (N_SAMPLES - 1) + [[3.0]],
        ValueError,
        r"X must be a rectangular 2-D array-like of numbers, with every row of the same length",
    ),
    ("complex", lambda: good_X() + 1j, ValueError, r"X has complex values"),
    ("1-D", lambda: np.arange(3.0), ValueError, r"X must be a 2-D array .* got a 1-D array"),
    (
        "3-D",
        lambda: np.ones((2, N_SAMPLES, N_FEATURES)),
        ValueError,
        r"X must be a 2-D array .* got a 3-D array",
    ),
    ("0-D", lambda: np.float64(3.0), ValueError, r"X must be a 2-D array .* got a 0-D array"),
    ("0-rows", lambda: np.empty((0, N_FEATURES)), ValueError, r"X has 0 sample\(s\)"),
    ("0-columns", lambda: np.empty((N_SAMPLES, 0)), ValueError, r"X has 0 feature\(s\)"),
    (
        "sparse-csr-matrix",
        lambda: scipy.sparse.csr_matrix(good_X()),
        TypeError,
        r"X is a sparse matrix.*X\.toarray\(\)",
    ),
    (
        "sparse-coo-array",
        lambda: scipy.sparse.coo_array(good_X()),
        TypeError,
        r"X is a sparse matrix",
    ),
]


# PCA takes sparse input (implicit centring, chapter 2), tested in
# tests/pcalib/test_pca_sklearn_options.py; the factorisations refuse it.
BAD_X_CASES = [
    (entry, *case)
    for entry in ENTRY_POINTS
    for case in BAD_X
    if not (entry.startswith("PCA.") and case[0].startswith("sparse"))
]


@pytest.mark.parametrize(
    "entry, case_id, make_X, error, message",
    BAD_X_CASES,
    ids=[f"{case[1]}-{case[0]}" for case in BAD_X_CASES],
)
def test_bad_X(entry, case_id, make_X, error, message):
    with pytest.raises(error, match=message):
        ENTRY_POINTS[entry](make_X())


@pytest.mark.parametrize("entry", FITTING)
def test_single_sample_cannot_be_fitted(entry):
    with pytest.raises(ValueError, match=r"X has 1 sample\(s\) .* minimum of 2 is required"):
        ENTRY_POINTS[entry](good_X(1, N_FEATURES))


def test_single_sample_can_be_transformed():
    pca = fitted_pca()
    X = good_X(1, N_FEATURES, seed=5)
    np.testing.assert_allclose(pca.transform(X), (X - pca.mean_) @ pca.components_.T, atol=1e-14)


def outputs(result):
    """Every array an entry point returns or stores."""
    if isinstance(result, PCA):
        return [
            result.components_,
            result.explained_variance_,
            result.explained_variance_ratio_,
            result.singular_values_,
            result.mean_,
        ]
    if isinstance(result, np.ndarray):
        return [result]
    return [result.Z, result.W, result.objective_history]


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("magnitude", [1e154, 1e200, 1e300, 1e307, 1e-170, 1e-300])
def test_extreme_but_finite_values_never_give_nan_silently(entry, magnitude):
    """Finite input gives finite output, or an error that names X.

    Squaring 1e154 overflows float64 and squaring 1e-170 underflows to 0: the
    variances of such data cannot be computed naively. RuntimeWarnings are
    turned into errors here, so an overflow that only warns fails the test.
    """
    X = good_X() * magnitude
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            result = ENTRY_POINTS[entry](X)
        except ValueError as exc:
            assert re.search(r"\bX\b", str(exc)), str(exc)
            return
    for array in outputs(result):
        assert np.all(np.isfinite(array))


# ---------------------------------------------------------------------------
# n_components
# ---------------------------------------------------------------------------

K_MAX = min(N_SAMPLES, N_FEATURES)
OUT_OF_RANGE = [0, -1, K_MAX + 1, np.int64(0)]
RANGE_MESSAGE = rf"n_components must be between 1 and min\(n_samples, n_features\) = {K_MAX}"


# Every entry point that takes n_components, called as fit(X, k).
FIT_WITH_K = [
    lambda X, k: PCA(n_components=k).fit(X),
    lambda X, k: pca_als(X, k),
    lambda X, k: pca_gradient_descent(X, k),
]


@pytest.mark.parametrize("n_components", OUT_OF_RANGE, ids=repr)
@pytest.mark.parametrize(
    "fit",
    FIT_WITH_K[1:],
    ids=FITTING[1:],
)
def test_n_components_out_of_range(fit, n_components):
    with pytest.raises(ValueError, match=rf"{RANGE_MESSAGE}; got {n_components}\."):
        fit(good_X(), n_components)


@pytest.mark.parametrize("n_components", [-1, K_MAX + 1, np.int64(-1)], ids=repr)
def test_pca_n_components_out_of_range_in_sklearns_words(n_components):
    with pytest.raises(
        ValueError,
        match=(
            rf"n_components={n_components} must be between 0 and "
            rf"min\(n_samples, n_features\)={K_MAX} with svd_solver='full'"
        ),
    ):
        PCA(n_components=n_components).fit(good_X())


@pytest.mark.parametrize("n_components", [0, np.int64(0)], ids=repr)
def test_pca_keeps_no_component_as_sklearn(n_components):
    pca = PCA(n_components=n_components).fit(good_X())
    assert pca.n_components_ == 0
    assert pca.components_.shape == (0, N_FEATURES)
    assert pca.transform(good_X()).shape == (N_SAMPLES, 0)
    # the model is then isotropic noise with the mean variance of the features
    np.testing.assert_allclose(pca.noise_variance_, good_X().var(axis=0, ddof=1).mean())


@pytest.mark.parametrize(
    "fit",
    FIT_WITH_K,
    ids=FITTING,
)
@pytest.mark.parametrize(
    "n_components, message",
    [
        (True, r"n_components must be an int or None, got the bool True"),
        (False, r"n_components must be an int or None, got the bool False"),
        (np.bool_(True), r"n_components must be an int or None, got the bool True"),
        ("2", r"n_components must be .*got '2' of type str"),
        ([2], r"n_components must be .*got \[2\] of type list"),
    ],
    ids=["True", "False", "np.True_", "str", "list"],
)
def test_n_components_wrong_type(fit, n_components, message):
    with pytest.raises(TypeError, match=message):
        fit(good_X(), n_components)


@pytest.mark.parametrize("n_components", [1.0, 1.5, 0.0, -0.5, float("nan"), float("inf"), 2.0])
def test_pca_fraction_must_be_strictly_between_0_and_1(n_components):
    with pytest.raises(
        ValueError, match=r"n_components given as a float .* strictly between 0 and 1"
    ):
        PCA(n_components=n_components).fit(good_X())


@pytest.mark.parametrize("n_components", [0.5, 1.0, 2.0, np.float64(2.0)])
@pytest.mark.parametrize("function", [pca_als, pca_gradient_descent])
def test_factorizations_accept_only_int_n_components(function, n_components):
    with pytest.raises(TypeError, match=r"n_components must be an int or None; got .* of type"):
        function(good_X(), n_components)


# This test checks only the shapes that n_components=None gives. It stops
# after 50 sweeps to stay fast, which is too few for gradient descent to
# converge, so its ConvergenceWarning is expected here (convergence itself is
# tested in test_factorization.py).
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("function", [pca_als, pca_gradient_descent])
def test_factorizations_default_to_all_components_for_none(function):
    result = function(good_X(), None, random_state=0, max_iter=50)
    assert result.W.shape == (N_FEATURES, K_MAX)
    assert result.Z.shape == (N_SAMPLES, K_MAX)


# ---------------------------------------------------------------------------
# Options and iteration parameters
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["qr", "SVD", "svd", "covariance", "", None, 1])
def test_unknown_svd_solver(solver):
    with pytest.raises(
        ValueError,
        match=(
            r"svd_solver must be one of 'auto', 'full', 'covariance_eigh', 'gram', "
            rf"'arpack', 'subspace', 'randomized'; got {re.escape(repr(solver))}"
        ),
    ):
        PCA(svd_solver=solver).fit(good_X())


@pytest.mark.parametrize("standardize", ["yes", 1, 0, None, 1.0])
def test_standardize_must_be_bool(standardize):
    with pytest.raises(TypeError, match=r"standardize must be True or False"):
        PCA(standardize=standardize).fit(good_X())


def test_standardize_accepts_numpy_bool():
    assert PCA(standardize=np.bool_(True)).fit(good_X()).scale_ is not None


@pytest.mark.parametrize(
    "learning_rate, error, message",
    [
        ("fast", ValueError, r"learning_rate must be one of 'auto'; got 'fast'"),
        ("AUTO", ValueError, r"learning_rate must be one of 'auto'; got 'AUTO'"),
        (0, ValueError, r"learning_rate must be a finite number > 0, got 0"),
        (-0.1, ValueError, r"learning_rate must be a finite number > 0, got -0.1"),
        (float("inf"), ValueError, r"learning_rate must be a finite number > 0"),
        (float("nan"), ValueError, r"learning_rate must be a finite number > 0"),
        (None, TypeError, r"learning_rate must be a positive number, got None"),
        (True, TypeError, r"learning_rate must be a positive number, got True"),
        ([0.1], TypeError, r"learning_rate must be a positive number"),
    ],
)
def test_bad_learning_rate(learning_rate, error, message):
    with pytest.raises(error, match=message):
        pca_gradient_descent(good_X(), 1, learning_rate=learning_rate)


ITERATION_CASES = [
    ("max_iter", 0, ValueError, r"max_iter must be at least 1, got 0"),
    ("max_iter", -5, ValueError, r"max_iter must be at least 1, got -5"),
    ("max_iter", 1.5, TypeError, r"max_iter must be an int, got 1.5"),
    ("max_iter", 10.0, TypeError, r"max_iter must be an int, got 10.0"),
    ("max_iter", "10", TypeError, r"max_iter must be an int, got '10'"),
    ("max_iter", None, TypeError, r"max_iter must be an int, got None"),
    ("max_iter", True, TypeError, r"max_iter must be an int, got True"),
    ("tol", -1e-3, ValueError, r"tol must be a finite number >= 0, got -0.001"),
    ("tol", float("nan"), ValueError, r"tol must be a finite number >= 0, got nan"),
    ("tol", float("inf"), ValueError, r"tol must be a finite number >= 0, got inf"),
    ("tol", "small", TypeError, r"tol must be a number >= 0, got 'small'"),
    ("tol", None, TypeError, r"tol must be a number >= 0, got None"),
    ("tol", True, TypeError, r"tol must be a number >= 0, got True"),
    ("max_iter", 2**63, ValueError, r"max_iter must be at most 2\*\*63 - 1 = 9223372036854775807"),
    ("max_iter", 10**400, ValueError, r"max_iter must be at most .*, got an int of 401 digits"),
    ("tol", 10**400, ValueError, r"tol must be a finite number >= 0, got an int of 401 digits"),
    ("tol", -(2**70), ValueError, r"tol must be a finite number >= 0, got -1180591620717411303424"),
    ("random_state", -1, ValueError, r"random_state must be >= 0, got -1"),
    ("random_state", 1.5, TypeError, r"random_state must be None, a non-negative int"),
    ("random_state", "seed", TypeError, r"random_state must be None, a non-negative int"),
    ("random_state", True, TypeError, r"random_state must be None, a non-negative int"),
    (
        "random_state",
        np.random.default_rng,
        TypeError,
        r"random_state must be None, a non-negative int, a numpy.random.Generator "
        r"or a numpy.random.RandomState",
    ),
]


@pytest.mark.parametrize("function", [pca_als, pca_gradient_descent])
@pytest.mark.parametrize(
    "name, value, error, message",
    ITERATION_CASES,
    ids=[f"{c[0]}={getattr(c[1], '__name__', repr(c[1]))}" for c in ITERATION_CASES],
)
def test_bad_iteration_parameters(function, name, value, error, message):
    with pytest.raises(error, match=message):
        function(good_X(), 1, **{name: value})


@pytest.mark.parametrize("function", [pca_als, pca_gradient_descent])
def test_random_state_accepts_generator_and_numpy_int(function):
    with pytest.warns(ConvergenceWarning):  # tol=0: run the 5 sweeps
        a = function(good_X(), 1, random_state=np.random.default_rng(3), max_iter=5, tol=0)
    with pytest.warns(ConvergenceWarning):
        b = function(good_X(), 1, random_state=np.int64(3), max_iter=5, tol=0)
    # the same seed through two routes gives the same start
    np.testing.assert_array_equal(a.objective_history, b.objective_history)


# ---------------------------------------------------------------------------
# Fitted-state errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_new_features", [N_FEATURES - 1, N_FEATURES + 1])
def test_transform_wrong_number_of_features(n_new_features):
    pca = fitted_pca()
    with pytest.raises(
        ValueError,
        match=rf"X has {n_new_features} features, but PCA is expecting {N_FEATURES} features",
    ):
        pca.transform(good_X(4, n_new_features))


@pytest.mark.parametrize("n_columns", [1, 3])
def test_inverse_transform_wrong_number_of_columns(n_columns):
    pca = fitted_pca(n_components=2)
    with pytest.raises(
        ValueError, match=rf"Z has {n_columns} columns but this PCA has 2 components"
    ):
        pca.inverse_transform(np.ones((4, n_columns)))


@pytest.mark.parametrize(
    "Z, error, message",
    [
        (
            np.array([[1.0, np.nan]]),
            ValueError,
            r"Z contains NaN: 1 entries, the first at index \(0, 1\)",
        ),
        (np.array([[1.0, np.inf]]), ValueError, r"Z contains infinite values"),
        (np.array([1.0, 2.0]), ValueError, r"Z must be a 2-D array"),
        (None, TypeError, r"Z must be a 2-D array-like of numbers, got None"),
        ([["a", "b"]], TypeError, r"Z must contain only numbers"),
    ],
    ids=["nan", "inf", "1-D", "None", "strings"],
)
def test_inverse_transform_bad_Z(Z, error, message):
    with pytest.raises(error, match=message):
        fitted_pca(n_components=2).inverse_transform(Z)


@pytest.mark.parametrize(
    "call",
    [
        lambda pca: pca.transform(good_X()),
        lambda pca: pca.inverse_transform(np.ones((2, 2))),
        lambda pca: pca.get_feature_names_out(),
    ],
    ids=["transform", "inverse_transform", "get_feature_names_out"],
)
def test_use_before_fit_raises_not_fitted(call):
    with pytest.raises(NotFittedError, match=r"This PCA instance is not fitted yet"):
        call(PCA())


# ---------------------------------------------------------------------------
# Constant data
# ---------------------------------------------------------------------------

# Constants whose mean is exact in floating point (0, 5) and constants whose
# mean over n rows is not (0.1, 1/3, pi for most n): in the second group the
# centred column is rounding noise of size 1e-17, not zeros.
CONSTANTS = [0.0, 5.0, -2.0, 0.1, 1 / 3, np.pi, 0.7]
N_ROWS = [3, 7, 10, 11, 50]


@pytest.mark.parametrize("n", N_ROWS)
@pytest.mark.parametrize("constant", CONSTANTS, ids=lambda c: f"{c:.4g}")
@pytest.mark.parametrize("solver", ["full", "covariance_eigh"])
def test_standardize_with_a_constant_column(constant, n, solver):
    X = good_X(n, 4, seed=n)
    X[:, 1] = constant
    with pytest.raises(
        ValueError,
        match=r"standardize=True cannot scale feature\(s\) \[1\] of X: they are constant",
    ):
        PCA(standardize=True, svd_solver=solver).fit(X)
    X[:, 3] = constant
    with pytest.raises(
        ValueError, match=r"standardize=True cannot scale feature\(s\) \[1, 3\] of X"
    ):
        PCA(standardize=True, svd_solver=solver).fit(X)
    # without standardisation a constant column is fine: it gets no weight
    pca = PCA(svd_solver=solver).fit(X)
    np.testing.assert_allclose(pca.components_[: min(n - 1, 2), [1, 3]], 0.0, atol=1e-12)


@pytest.mark.parametrize("n", N_ROWS)
@pytest.mark.parametrize("constant", CONSTANTS, ids=lambda c: f"{c:.4g}")
@pytest.mark.parametrize("solver", ["full", "covariance_eigh"])
def test_all_constant_X(constant, n, solver):
    X = np.full((n, 3), constant)
    with pytest.raises(ValueError, match=r"X has zero variance in every feature"):
        PCA(svd_solver=solver).fit(X)
    # with standardize=True too: all samples equal is reported before the
    # constant columns, since no scaling could give PCA a direction
    with pytest.raises(ValueError, match=r"X has zero variance in every feature"):
        PCA(standardize=True, svd_solver=solver).fit(X)
    # constant columns that differ from one another are still all-constant
    X_cols = np.full((n, 3), constant) * np.array([1.0, 3.0, -0.5])
    with pytest.raises(ValueError, match=r"X has zero variance in every feature"):
        PCA(svd_solver=solver).fit(X_cols)


@pytest.mark.parametrize("function", [pca_als, pca_gradient_descent])
@pytest.mark.parametrize("constant", [0.0, 0.1, 5.0])
def test_factorizations_of_constant_X_are_exact(function, constant):
    """A constant matrix has rank <= 1, so a rank-1 factorisation is exact.

    In particular the all-zero matrix (a constant X once centred) must give
    Z Wᵀ = 0 and objective 0, not an error or NaN.
    """
    X = np.full((N_SAMPLES, N_FEATURES), constant)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        result = function(X, 1, random_state=0)
    for array in outputs(result):
        assert np.all(np.isfinite(array))
    assert result.objective_history[-1] <= 1e-20 * max(1.0, np.sum(X**2))
    np.testing.assert_allclose(result.Z @ result.W.T, X, rtol=0, atol=1e-10 * max(1.0, constant))


# ---------------------------------------------------------------------------
# Huge integers, array sizes and magnitudes
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("check", [check_positive_float, check_non_negative_float])
def test_float_checks_convert_huge_ints_safely(check):
    # the reproduction: 2**70 reached "ufunc 'isfinite' not supported" without a name
    assert check(2**70, name="tol") == 2.0**70
    with pytest.raises(ValueError, match=r"tol must be a finite number [>]=? 0, got an int of"):
        check(10**400, name="tol")
    with pytest.raises(ValueError, match=r"tol must be a finite number"):
        check(-(10**400), name="tol")


def test_finite_float_check_accepts_either_sign():
    assert check_finite_float(-(2**70), name="coef0") == -(2.0**70)
    assert check_finite_float(np.float32(-1.5), name="coef0") == -1.5
    with pytest.raises(ValueError, match=r"coef0 must be finite, got an int of 401 digits"):
        check_finite_float(10**400, name="coef0")
    with pytest.raises(TypeError, match=r"coef0 must be a real number, got None"):
        check_finite_float(None, name="coef0")


@pytest.mark.parametrize("check", [check_positive_int, check_non_negative_int])
def test_int_checks_refuse_values_beyond_64_bits(check):
    assert check(MAX_INT, name="max_iter") == MAX_INT
    assert check(np.uint64(2**63 - 1), name="max_iter") == MAX_INT
    with pytest.raises(ValueError, match=r"max_iter must be at most 2\*\*63 - 1"):
        check(MAX_INT + 1, name="max_iter")


def test_array_size_check_names_the_argument():
    shape = r"shape \(4611686018427387904, 2\)"
    with pytest.raises(ValueError, match=rf"n_samples is too large: .*{shape}"):
        check_array_size((2**62, 2), name="n_samples")
    with pytest.raises(ValueError, match=r"Choose a smaller n_features"):
        check_array_size((2**40, 2**40), name="n_features")


def test_array_size_check_refuses_an_array_beyond_the_memory(monkeypatch):
    monkeypatch.setattr(pcalib._validation, "physical_memory", lambda: 2**30)
    check_array_size((2**13, 2**14), name="n_components")  # 1 GiB: fits
    with pytest.raises(ValueError, match=r"n_components is too large: .* 2 GiB, more than"):
        check_array_size((2**14, 2**14), name="n_components")
    monkeypatch.setattr(pcalib._validation, "physical_memory", lambda: None)
    check_array_size((2**14, 2**14), name="n_components")  # memory unknown: not refused


@pytest.mark.parametrize("entry", FITTING)
def test_ragged_list_names_X(entry):
    # the reproduction: numpy's "setting an array element with a sequence"
    with pytest.raises(ValueError, match=r"X must be a rectangular 2-D array-like"):
        ENTRY_POINTS[entry]([[1.0, 2.0], [3.0]])


def test_sum_of_squares_that_underflows_is_named():
    X = good_X() * 1e-170
    with pytest.raises(ValueError, match=r"X is too small for float64 arithmetic"):
        check_squares_representable(X)
    check_squares_representable(np.zeros((3, 2)))  # exactly zero is representable
    check_squares_representable(good_X() * 1e-150)  # squares of 1e-300 are normal floats


@pytest.mark.parametrize("function", [pca_als, pca_gradient_descent])
def test_factorizations_of_data_whose_squares_underflow_say_so(function):
    # the objective ‖X - Z Wᵀ‖² would be 0 from the start: a fit of nothing
    with pytest.raises(ValueError, match=r"X is too small for float64 arithmetic"):
        function(good_X() * 1e-170, 1, random_state=0)


@pytest.mark.parametrize("value", [0.3, 0.25, 1.0, 3.9, 4.0, 1e-310, 5e-324, 1e151, 1.7e308])
def test_power_of_four_scale(value):
    X = np.array([[value, -value / 3], [0.0, value / 7]])
    s = power_of_four_scale(X)
    exponent = np.log2(s)
    assert exponent == round(exponent) and round(exponent) % 2 == 0
    if value < 1e308:  # 4^512 would overflow: the largest scale is 4^511
        assert 0.25 <= np.abs(X / s).max() < 1.0
    # dividing by s is exact: multiplying back restores every entry
    np.testing.assert_array_equal((X / s) * s, X)


def test_power_of_four_scale_per_row_ignores_nan_and_zeros():
    X = np.array([[np.nan, 3.0], [0.0, 0.0], [-0.1, np.nan]])
    np.testing.assert_array_equal(power_of_four_scale(X, axis=1), [[4.0], [1.0], [0.25]])
    assert power_of_four_scale(np.zeros((2, 2))) == 1.0


@pytest.mark.parametrize(
    ("value", "open_interval", "accepted"),
    [
        (0.0, False, True),
        (1.0, False, True),
        (0.0, True, False),
        (1.0, True, False),
        (0.5, True, True),
        (1.0 + 1e-12, False, False),
        (-1e-12, False, False),
    ],
)
def test_check_fraction_endpoints(value, open_interval, accepted):
    if accepted:
        assert check_fraction(value, name="q", open_interval=open_interval) == value
    else:
        with pytest.raises(ValueError, match=r"^q must be"):
            check_fraction(value, name="q", open_interval=open_interval)


# ---------------------------------------------------------------------------
# sparse input (PCA, KernelPCA and NMF share as_sparse_float_matrix)
# ---------------------------------------------------------------------------


def sparse_with_entry(value, dtype=np.float64):
    X = scipy.sparse.random(6, 4, density=0.5, format="csr", random_state=0, dtype=dtype)
    X.data[2] = value
    return X


@pytest.mark.parametrize(
    "fit",
    [
        lambda X: PCA(n_components=1, svd_solver="arpack").fit(X),
        lambda X: KernelPCA(n_components=1).fit(X),
        lambda X: NMF(n_components=1).fit(X),
    ],
    ids=["PCA", "KernelPCA", "NMF"],
)
@pytest.mark.parametrize(
    "make_X, error, message",
    [
        (lambda: sparse_with_entry(np.nan), ValueError, r"X contains NaN or infinite values in 1"),
        (lambda: sparse_with_entry(np.inf), ValueError, r"X contains NaN or infinite values in 1"),
        (lambda: sparse_with_entry(1e300), ValueError, r"X is too large for float64"),
        (
            lambda: sparse_with_entry(1 + 1j, dtype=np.complex128),
            ValueError,
            r"X has complex values",
        ),
        (lambda: scipy.sparse.csr_matrix((0, 4)), ValueError, r"X has 0 sample\(s\)"),
    ],
    ids=["nan", "inf", "huge", "complex", "empty"],
)
def test_bad_sparse_X_is_refused_in_the_same_words(fit, make_X, error, message):
    with pytest.raises(error, match=message):
        fit(make_X())


# ----------------------------------------------------------------------------
# The exported building blocks check their input like the estimators


def _helpers():
    from pcalib import flip_signs, soft_threshold
    from pcalib.robust_pca import row_soft_threshold, singular_value_threshold

    return {
        "flip_signs": (lambda A: flip_signs(A), "components"),
        "soft_threshold": (lambda A: soft_threshold(A, 0.5), "value"),
        "row_soft_threshold": (lambda A: row_soft_threshold(A, 0.5), "T"),
        "singular_value_threshold": (lambda A: singular_value_threshold(A, 0.5), "M"),
    }


HELPERS = _helpers()
BAD_HELPER_INPUTS = [
    ("nan", lambda: with_entry(1, 1, np.nan), ValueError, "contains NaN"),
    ("inf", lambda: with_entry(1, 1, np.inf), ValueError, r"contains infinite values"),
    ("strings", lambda: np.array([["a", "b"], ["c", "d"]]), TypeError, "must contain only numbers"),
    ("numeric-strings", lambda: [["1", "2"], ["3", "4"]], TypeError, "must contain only numbers"),
    ("complex", lambda: good_X() + 1j, ValueError, "complex values"),
    ("ragged", lambda: [[1.0, 2.0], [3.0]], ValueError, "rectangular"),
    ("None", lambda: None, TypeError, "got None"),
    ("sparse", lambda: scipy.sparse.csr_array(good_X()), TypeError, "sparse"),
]


@pytest.mark.parametrize("case", BAD_HELPER_INPUTS, ids=lambda case: case[0])
@pytest.mark.parametrize("helper", sorted(HELPERS))
def test_exported_helpers_refuse_bad_input_by_name(helper, case):
    call, name = HELPERS[helper]
    _, make, error, message = case
    with pytest.raises(error, match=rf"{name} .*{message}|{name} {message}"):
        call(make())


@pytest.mark.parametrize("helper", ["flip_signs", "row_soft_threshold", "singular_value_threshold"])
def test_matrix_helpers_refuse_other_dimensions_by_name(helper):
    call, name = HELPERS[helper]
    for array in (np.ones(3), np.ones((2, 2, 2))):
        with pytest.raises(ValueError, match=rf"{name} must be a 2-D array"):
            call(array)


@pytest.mark.parametrize("helper", sorted(HELPERS))
def test_exported_helpers_accept_lists_and_dataframes(helper):
    call, _ = HELPERS[helper]
    X = good_X()
    expected = call(X)
    for like in (X.tolist(), pd.DataFrame(X)):
        result = call(like)
        for got, want in zip(
            result if isinstance(result, tuple) else [result],
            expected if isinstance(expected, tuple) else [expected],
            strict=True,
        ):
            np.testing.assert_array_equal(got, want)


def test_soft_threshold_by_its_definition_on_any_shape():
    from pcalib import soft_threshold

    values = np.array([[-3.0, -0.2], [0.0, 0.7]])
    expected = np.array([[-2.5, 0.0], [0.0, 0.2]])  # sign(v) max(|v| - 0.5, 0) by hand
    np.testing.assert_allclose(soft_threshold(values, 0.5), expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(soft_threshold(values.ravel(), 0.5), expected.ravel(), atol=1e-15)
    assert soft_threshold(-3.0, 0.5) == -2.5
    np.testing.assert_array_equal(soft_threshold([True, False], 0.5), [0.5, 0.0])


def test_flip_signs_leaves_a_sparse_input_with_duplicates_untouched():
    from pcalib import flip_signs

    coo = scipy.sparse.coo_array(
        (np.array([1.0, 2.0, -3.0]), (np.array([0, 0, 1]), np.array([0, 0, 1]))), shape=(2, 3)
    )
    assert coo.nnz == 3  # the premise: a duplicate entry is stored
    stored = (coo.data.copy(), coo.row.copy(), coo.col.copy())
    with pytest.raises(TypeError, match="components is a sparse matrix"):
        flip_signs(coo)
    assert coo.nnz == 3
    for before, after in zip(stored, (coo.data, coo.row, coo.col), strict=True):
        np.testing.assert_array_equal(after, before)


# ----------------------------------------------------------------------------
# Vector parameters are checked like X


def _vector_parameter_calls():
    from pcalib import FactorAnalysis
    from pcalib.datasets import make_spectrum

    X = good_X(20, 3)
    return {
        "variances": lambda v: make_spectrum(20, 3, v),
        "noise_variance_init": lambda v: FactorAnalysis(1, noise_variance_init=v).fit(X),
    }


VECTOR_CALLS = _vector_parameter_calls()


@pytest.mark.parametrize("name", sorted(VECTOR_CALLS))
@pytest.mark.parametrize(
    ("value", "error", "message"),
    [
        (np.array(["3", "2", "1"]), TypeError, "must contain only numbers"),
        (np.array(["3", "2", "1"], dtype=object), TypeError, "must contain only numbers"),
        (np.array([3 + 1j, 2, 1]), ValueError, "has complex values"),
        (np.array([3, 2, 1], dtype=complex), ValueError, "has complex values"),
        ([[3.0, 2.0], [1.0]], ValueError, "rectangular"),
        ([3.0, 2.0], ValueError, r"must be a vector of shape \(3,\)"),
        ([3.0, np.nan, 1.0], ValueError, "contains NaN"),
    ],
    ids=[
        "strings",
        "object-strings",
        "complex",
        "complex-zero-imaginary",
        "ragged",
        "short",
        "nan",
    ],
)
def test_vector_parameters_are_checked_like_X(name, value, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        with pytest.raises(error, match=rf"{name} {message}|{name} .*{message}"):
            VECTOR_CALLS[name](value)


# ----------------------------------------------------------------------------
# Edge cases of the estimators: a finite fit, or an error naming the argument


def small_positive_data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.2, 1, (12, 3)) @ rng.uniform(0.1, 1, (3, 5))
    return X + 0.3 * rng.uniform(0, 1, (12, 5))


def test_pca_of_sparse_zeros_is_refused_as_dense_zeros():
    message = "X has zero variance in every feature"
    with pytest.raises(ValueError, match=message):
        PCA(n_components=2).fit(np.zeros((12, 5)))
    with pytest.raises(ValueError, match=message):
        PCA(n_components=2).fit(scipy.sparse.csr_matrix((12, 5)))


def test_bayesian_pca_is_scale_equivariant_or_names_X():
    from pcalib import bayesian_pca

    X = small_positive_data()
    base = bayesian_pca(X)
    for c in (2.0**-300, 1e-100, 1e100):
        scaled = bayesian_pca(c * X)
        np.testing.assert_allclose(scaled.alpha, base.alpha / c**2, rtol=1e-9)
        np.testing.assert_allclose(scaled.noise_variance, base.noise_variance * c**2, rtol=1e-9)
        np.testing.assert_allclose(scaled.W, base.W * c, rtol=1e-9)
    assert base.alpha.max() * 1e320 > np.finfo(np.float64).max  # α of X·1e-160 overflows
    with pytest.raises(ValueError, match=r"X is too small .*alpha"):
        bayesian_pca(X * 1e-160)


@pytest.mark.parametrize(
    "params",
    [
        {"l1_penalty": 0.2, "mu": 1e-300},
        {"l1_penalty": 0.2, "mu": 1e300},
        {"noise_level": 0.01, "rho": 1.0, "mu": 1e-300},
    ],
    ids=["tiny-mu", "huge-mu", "stable-tiny-mu"],
)
def test_robust_pca_refuses_an_extreme_mu_by_name(params):
    from pcalib import RobustPCA

    with pytest.raises(ValueError, match=r"mu=1e[+-]300 is out of range"):
        RobustPCA(random_state=0, **params).fit(small_positive_data())


def test_robust_pca_on_subnormal_data_names_mu():
    from pcalib import RobustPCA

    X = small_positive_data() * 1e-310
    assert np.abs(X).max() < np.finfo(np.float64).tiny  # the premise: subnormal entries
    with pytest.raises(ValueError, match=r"mu=1.0 is out of range for X"):
        RobustPCA(l1_penalty=0.2, mu=1.0, random_state=0).fit(X)


@pytest.mark.parametrize("params", [{}, {"solver": "mu", "beta_loss": "kullback-leibler"}])
def test_nmf_refuses_n_components_beyond_memory_at_once(params):
    import time

    X = np.random.default_rng(0).uniform(0.1, 1, (12, 5))
    start = time.perf_counter()
    with pytest.raises(ValueError, match=r"n_components is too large: .*\(1000000, 1000000\)"):
        NMF(n_components=10**6, **params).fit(X)
    assert time.perf_counter() - start < 1.0  # refused before the iterations (27 s for KL)


@pytest.mark.parametrize("solver", ["cd", "mu", "pg", "anls"])
def test_every_nmf_solver_fits_all_zero_X_exactly(solver):
    model = NMF(n_components=2, solver=solver, random_state=0).fit(np.zeros((12, 5)))
    assert model.reconstruction_err_ == 0.0
    assert np.all(model.components_ == 0.0)


def test_nmf_names_custom_factors_far_from_the_scale_of_X():
    rng = np.random.default_rng(1)
    X = small_positive_data()
    W, H = rng.uniform(size=(12, 2)), rng.uniform(size=(2, 5))
    with pytest.raises(ValueError, match=r"W and H \(init='custom'\) are too far from the scale"):
        NMF(2, init="custom").fit(X, W=W * 1e100, H=H * 1e100)
    NMF(2, init="custom").fit(X, W=W, H=H)  # the same factors near X's scale are accepted


@pytest.mark.parametrize("factor", ["W", "H"])
def test_nmf_names_a_ragged_custom_factor(factor):
    X = small_positive_data()
    factors = {"W": np.ones((12, 2)).tolist(), "H": np.ones((2, 5)).tolist()}
    factors[factor][1] = factors[factor][1][:-1]
    with pytest.raises(ValueError, match=rf"{factor} must be a rectangular 2-D array-like"):
        NMF(2, init="custom").fit(X, **factors)


def test_factor_analysis_names_noise_variance_init_on_tiny_data():
    from pcalib import FactorAnalysis

    X = small_positive_data() * 1e-160
    with pytest.raises(ValueError, match=r"noise_variance_init is too large for X"):
        FactorAnalysis(1, noise_variance_init=np.ones(5)).fit(X)


def test_polynomial_kernel_overflow_names_both_arguments():
    from pcalib.kernels import kernel_matrix

    X = small_positive_data()
    with pytest.raises(ValueError, match=r"rescale X and Y alike"):
        kernel_matrix(X, X * 1e150, kernel="poly")
    with pytest.raises(ValueError, match=r"rescale X \(e.g. standardise it\)"):
        kernel_matrix(X * 1e150, kernel="poly")


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"kernel": "rbf", "gamma": 1e-300}, "gamma_=1e-300"),
        ({"kernel": "rbf", "bandwidth": 1e100}, "bandwidth"),
        ({"kernel": "poly", "coef0": 1e50}, "coef0=1e[+]50"),
    ],
    ids=["tiny-gamma", "huge-bandwidth", "huge-coef0"],
)
def test_nystrom_with_a_flat_kernel_names_its_parameters(params, named):
    model = KernelPCA(2, approximation="nystrom", n_landmarks=10, random_state=0, **params)
    with pytest.raises(ValueError, match=rf"n_components must be between 1 and .*{named}"):
        model.fit(small_positive_data())
