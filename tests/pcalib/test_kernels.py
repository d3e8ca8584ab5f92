"""Tests of the kernel functions of chapter 3 (:mod:`pcalib.kernels`).

Expected values come from independent sources only: scikit-learn's
``sklearn.metrics.pairwise`` kernels and formulas evaluated here pair by pair
in plain Python loops. None of them is produced by pcalib itself.
"""

import math
import warnings
from functools import partial

import helpers
import numpy as np
import pytest
import scipy.sparse
from helpers import laplacian
from sklearn.base import clone
from sklearn.metrics import pairwise

from pcalib import KernelPCA
from pcalib.kernels import kernel_matrix, linear_kernel, polynomial_kernel, rbf_kernel

# Columns of standard deviations 0.5 to 2, the mean in [-1, 1].
make_data = partial(helpers.make_data, scales=lambda d: np.linspace(0.5, 2.0, d))

# Squared distances are formed as ‖x‖² + ‖y‖² - 2⟨x, y⟩ by pcalib and by
# scikit-learn; on the data below (‖x‖² ≤ ~100, γ ≤ 1) rounding moves the
# exponent of the RBF kernel by at most ~100 eps ≈ 2e-14, hence this tolerance
# on kernel values (which are ≤ 1).
RBF_ATOL = 1e-12


def brute_force(X, Y, pair_kernel):
    """The matrix ``K[i, j] = pair_kernel(x_i, y_j)`` by a double loop."""
    return np.array([[pair_kernel(x, y) for y in Y] for x in X])


# ---------------------------------------------------------------------------
# Agreement with scikit-learn and with the formulas
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("with_Y", [False, True], ids=["X-vs-X", "X-vs-Y"])
def test_linear_kernel_equals_sklearn(with_Y):
    X = make_data(30, 4, seed=1)
    Y = make_data(11, 4, seed=2) if with_Y else None
    K = linear_kernel(X, Y)
    K_ref = pairwise.linear_kernel(X, Y)
    assert K.shape == K_ref.shape
    np.testing.assert_allclose(K, K_ref, rtol=1e-13, atol=1e-13 * np.abs(K_ref).max())
    # the formula, pair by pair
    K_loop = brute_force(X, X if Y is None else Y, lambda x, y: sum(x * y))
    np.testing.assert_allclose(K, K_loop, rtol=1e-12, atol=1e-12 * np.abs(K_ref).max())


@pytest.mark.parametrize("with_Y", [False, True], ids=["X-vs-X", "X-vs-Y"])
@pytest.mark.parametrize(
    "params",
    [
        {},  # scikit-learn's and pcalib's defaults: degree 3, gamma 1/d, coef0 1
        {"degree": 2, "gamma": 0.7, "coef0": 1.5},
        {"degree": 1, "gamma": 2.0, "coef0": 0.0},
        {"degree": 4, "gamma": 0.1, "coef0": -0.5},
        {"degree": 5, "coef0": 0.0},
    ],
    ids=repr,
)
def test_polynomial_kernel_equals_sklearn(params, with_Y):
    X = make_data(25, 3, seed=3)
    Y = make_data(9, 3, seed=4) if with_Y else None
    K = polynomial_kernel(X, Y, **params)
    K_ref = pairwise.polynomial_kernel(X, Y, **params)
    assert K.shape == K_ref.shape
    # same operations in the same order up to the power: a few eps relative
    np.testing.assert_allclose(K, K_ref, rtol=1e-12, atol=1e-14 * np.abs(K_ref).max())
    # the formula, pair by pair, with the default gamma = 1 / n_features
    degree = params.get("degree", 3)
    gamma = params.get("gamma", 1.0 / X.shape[1])
    coef0 = params.get("coef0", 1.0)
    K_loop = brute_force(
        X, X if Y is None else Y, lambda x, y: (gamma * sum(x * y) + coef0) ** degree
    )
    np.testing.assert_allclose(K, K_loop, rtol=1e-11, atol=1e-13 * np.abs(K_ref).max())


@pytest.mark.parametrize("with_Y", [False, True], ids=["X-vs-X", "X-vs-Y"])
@pytest.mark.parametrize("gamma", [None, 0.05, 0.5, 1.0])
def test_rbf_kernel_equals_sklearn(gamma, with_Y):
    X = make_data(30, 5, seed=5)
    Y = make_data(12, 5, seed=6) if with_Y else None
    K = rbf_kernel(X, Y, gamma=gamma)
    K_ref = pairwise.rbf_kernel(X, Y, gamma=gamma)
    assert K.shape == K_ref.shape
    np.testing.assert_allclose(K, K_ref, rtol=0, atol=RBF_ATOL)
    # default gamma = 1 / n_features, the formula pair by pair
    g = 1.0 / X.shape[1] if gamma is None else gamma
    K_loop = brute_force(X, X if Y is None else Y, lambda x, y: math.exp(-g * sum((x - y) ** 2)))
    np.testing.assert_allclose(K, K_loop, rtol=0, atol=RBF_ATOL)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5])
def test_rbf_bandwidth_is_gaussian_with_sigma(sigma):
    X = make_data(14, 3, seed=7)
    Y = make_data(9, 3, seed=8)

    def gaussian(x, y):
        squared = sum((xi - yi) ** 2 for xi, yi in zip(x, y, strict=True))
        return math.exp(-squared / (2.0 * sigma**2))

    for A, B in ((X, Y), (X, X)):
        K_loop = brute_force(A, B, gaussian)
        np.testing.assert_allclose(rbf_kernel(A, B, bandwidth=sigma), K_loop, rtol=0, atol=RBF_ATOL)
    np.testing.assert_allclose(
        rbf_kernel(X, bandwidth=sigma), brute_force(X, X, gaussian), rtol=0, atol=RBF_ATOL
    )
    # and scikit-learn with gamma = 1 / (2 σ²)
    K_ref = pairwise.rbf_kernel(X, Y, gamma=1.0 / (2.0 * sigma**2))
    np.testing.assert_allclose(rbf_kernel(X, Y, bandwidth=sigma), K_ref, rtol=0, atol=RBF_ATOL)


def test_rbf_gamma_and_bandwidth_together_is_an_error():
    X = make_data(5, 2)
    with pytest.raises(ValueError, match=r"gamma.*bandwidth"):
        rbf_kernel(X, gamma=0.5, bandwidth=1.0)
    with pytest.raises(ValueError, match=r"gamma.*bandwidth"):
        kernel_matrix(X, kernel="rbf", gamma=0.5, bandwidth=1.0)


@pytest.mark.parametrize("params", [{}, {"gamma": 3.0}, {"bandwidth": 0.5}], ids=repr)
def test_rbf_properties(params):
    X = make_data(40, 3, seed=9)
    Y = make_data(15, 3, seed=10)
    if "bandwidth" in params:
        gamma = 1 / (2 * params["bandwidth"] ** 2)
    else:
        gamma = params.get("gamma", 1 / X.shape[1])
    # premise: exp(-γ‖x - y‖²) does not underflow to 0 on this data
    largest = max(
        pairwise.euclidean_distances(A, B, squared=True).max() for A, B in ((X, X), (X, Y))
    )
    assert gamma * largest < 700
    K = rbf_kernel(X, **params)
    # k(x, x) = exp(0) = 1 exactly: the diagonal of the distances is set to 0
    np.testing.assert_array_equal(np.diag(K), 1.0)
    # symmetric up to rounding: the matrix product X Xᵀ is not computed
    # symmetrically bit for bit; an error of a few eps·‖x‖² in the exponent,
    # times γ ≤ 3, is a relative error below 1e-12 in the kernel value
    np.testing.assert_allclose(K, K.T, rtol=1e-12, atol=0)
    assert np.all(K > 0) and np.all(K <= 1)
    K_XY = rbf_kernel(X, Y, **params)
    assert np.all(K_XY > 0) and np.all(K_XY <= 1)
    assert np.all(K_XY < 1)  # no point of Y coincides with a point of X
    # positive semi-definite (Gaussian kernel): eigenvalues >= -rounding
    eigenvalues = np.linalg.eigvalsh(K)
    assert eigenvalues.min() >= -1e-12 * eigenvalues.max()
    # Y against X is the transpose of X against Y (same relative rounding as above)
    np.testing.assert_allclose(rbf_kernel(Y, X, **params), K_XY.T, rtol=1e-12, atol=0)


def test_rbf_kernel_of_distinct_points_is_below_one():
    # distinct points, not too close: every off-diagonal entry is strictly < 1
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    K = rbf_kernel(X, gamma=1.0)
    expected = np.exp(-np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 5.0], [4.0, 5.0, 0.0]]))
    np.testing.assert_allclose(K, expected, rtol=1e-15)
    assert K[0, 1] < 1.0


def test_kernels_accept_lists_and_ints():
    X = [[1, 2], [3, 4], [0, -1]]
    Y = [[1, 0]]
    np.testing.assert_array_equal(linear_kernel(X, Y), [[1.0], [3.0], [0.0]])
    np.testing.assert_allclose(
        polynomial_kernel(X, Y, degree=2, gamma=1.0, coef0=1.0), [[4.0], [16.0], [1.0]]
    )
    expected = np.exp(-np.array([[4.0], [20.0], [2.0]]))
    # the shifted distances round (eps·‖x - mean‖² each), and exp(-D) turns an
    # absolute error δ in D into a relative one: at most a few eps·D, D ≤ 20
    np.testing.assert_allclose(rbf_kernel(X, Y, gamma=1.0), expected, rtol=1e-13)


# ---------------------------------------------------------------------------
# kernel_matrix: names and callables
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, params, reference",
    [
        ("linear", {}, lambda X, Y: pairwise.linear_kernel(X, Y)),
        (
            "poly",
            {"degree": 2, "gamma": 0.4, "coef0": 2.0},
            lambda X, Y: pairwise.polynomial_kernel(X, Y, degree=2, gamma=0.4, coef0=2.0),
        ),
        ("rbf", {"gamma": 0.3}, lambda X, Y: pairwise.rbf_kernel(X, Y, gamma=0.3)),
        ("rbf", {"bandwidth": 1.3}, lambda X, Y: pairwise.rbf_kernel(X, Y, gamma=1 / (2 * 1.3**2))),
        ("rbf", {}, lambda X, Y: pairwise.rbf_kernel(X, Y)),
    ],
    ids=["linear", "poly", "rbf-gamma", "rbf-bandwidth", "rbf-default"],
)
def test_kernel_matrix_dispatches_to_the_named_kernel(name, params, reference):
    X = make_data(20, 3, seed=11)
    Y = make_data(7, 3, seed=12)
    for B in (None, Y):
        K_ref = reference(X, X if B is None else B)
        K = kernel_matrix(X, B, kernel=name, **params)
        np.testing.assert_allclose(K, K_ref, rtol=1e-12, atol=RBF_ATOL * np.abs(K_ref).max())


def test_kernel_matrix_default_is_rbf():
    X = make_data(10, 4, seed=13)
    np.testing.assert_allclose(kernel_matrix(X), pairwise.rbf_kernel(X), rtol=0, atol=RBF_ATOL)


def test_kernel_matrix_calls_a_callable_once_per_pair_of_rows():
    X = make_data(12, 3, seed=14)
    Y = make_data(5, 3, seed=15)
    calls = []

    def recorded_laplacian(x, y):
        calls.append((x.shape, y.shape))
        return laplacian(x, y)

    expected = brute_force(X, Y, laplacian)
    np.testing.assert_array_equal(kernel_matrix(X, Y, kernel=recorded_laplacian), expected)
    assert len(calls) == 12 * 5
    # Y=None compares X with itself: the upper triangle with the diagonal
    # (12 · 13 / 2 calls), plus the 11 pairs (x_{i+1}, x_i) of the symmetry check
    calls.clear()
    expected_XX = brute_force(X, X, laplacian)
    np.testing.assert_array_equal(kernel_matrix(X, kernel=recorded_laplacian), expected_XX)
    assert len(calls) == 12 * 13 // 2 + 11
    assert set(calls) == {((3,), (3,))}
    # the callable gets float rows, even for lists of ints, and may return an int
    seen = []

    def record(x, y):
        seen.append((type(x), x.dtype, x.shape, type(y), y.dtype, y.shape))
        return np.int64(x[0] + y[1])

    K = kernel_matrix([[1, 2], [3, 4]], [[5, 6]], kernel=record)
    assert seen == [(np.ndarray, np.float64, (2,), np.ndarray, np.float64, (2,))] * 2
    assert K.dtype == np.float64
    np.testing.assert_array_equal(K, [[7.0], [9.0]])


def histogram(x, y):
    """The histogram-intersection kernel of scikit-learn's KernelPCA tests."""
    return np.minimum(x, y).sum()


@pytest.mark.parametrize("with_Y", [False, True], ids=["X-vs-X", "X-vs-Y"])
@pytest.mark.parametrize("kernel", [histogram, laplacian], ids=["histogram", "laplacian"])
def test_callable_kernel_matrix_equals_sklearn_pairwise_kernels(kernel, with_Y):
    X = np.abs(make_data(15, 4, seed=18))
    Y = np.abs(make_data(6, 4, seed=19)) if with_Y else None
    K_ref = pairwise.pairwise_kernels(X, Y, metric=kernel)
    np.testing.assert_allclose(kernel_matrix(X, Y, kernel=kernel), K_ref, rtol=1e-15, atol=0)


def test_callable_kernel_gets_sparse_rows_as_in_sklearn():
    X = scipy.sparse.random(8, 5, density=0.4, format="csr", random_state=20)
    Y = scipy.sparse.random(3, 5, density=0.4, format="csr", random_state=21)

    def sparse_dot(x, y):
        assert scipy.sparse.issparse(x) and x.shape == (1, 5)
        assert scipy.sparse.issparse(y) and y.shape == (1, 5)
        return x.multiply(y).sum()

    for B in (None, Y):
        K_ref = pairwise.pairwise_kernels(X, B, metric=sparse_dot)
        K = kernel_matrix(X, B, kernel=sparse_dot)
        np.testing.assert_allclose(K, K_ref, rtol=1e-15, atol=0)
        np.testing.assert_allclose(K, (X @ (X if B is None else B).T).toarray(), rtol=1e-14)


def whole_matrix(x, y):
    return np.outer(x, y)  # the matrix convention, called on two rows


def one_element_array(x, y):
    return np.array([x @ y])


def not_a_number(x, y):
    return None


def not_finite(x, y):
    return math.nan if x[0] > y[0] else 1.0  # NaN for some pairs only


def infinite(x, y):
    return -np.inf


def huge_int(x, y):
    return 10**400


def complex_valued(x, y):
    return 1 + 1j


def strings(x, y):
    return "a"


@pytest.mark.parametrize("with_Y", [False, True], ids=["X-vs-X", "X-vs-Y"])
@pytest.mark.parametrize(
    "kernel, message",
    [
        (whole_matrix, r"kernel whole_matrix must return a float for one pair of rows.*\(2, 2\)"),
        (one_element_array, r"kernel one_element_array must return a float.*shape \(1,\)"),
        (not_a_number, r"kernel not_a_number must return a float.*NoneType"),
        (complex_valued, r"kernel complex_valued must return a float.*complex"),
        (strings, r"kernel strings must return a float.*str"),
        (not_finite, r"kernel not_finite returned nan.*must be finite"),
        (infinite, r"kernel infinite returned -inf.*must be finite"),
        (huge_int, r"kernel huge_int returned inf.*must be finite"),
    ],
    ids=lambda value: getattr(value, "__name__", ""),
)
def test_bad_callable_kernel_is_named(kernel, message, with_Y):
    X = make_data(4, 2, seed=16)
    Y = make_data(3, 2, seed=17) if with_Y else None
    with pytest.raises(ValueError, match=message):
        kernel_matrix(X, Y, kernel=kernel)


@pytest.mark.parametrize("kernel", ["polynomial", "gaussian", "RBF", "", None, 3])
def test_unknown_kernel_name_lists_the_options(kernel):
    X = make_data(4, 2)
    with pytest.raises(ValueError, match=r"kernel must be one of 'linear', 'poly', 'rbf'"):
        kernel_matrix(X, kernel=kernel)


# ---------------------------------------------------------------------------
# Bad inputs
# ---------------------------------------------------------------------------

KERNEL_FUNCTIONS = {
    "linear": linear_kernel,
    "polynomial": polynomial_kernel,
    "rbf": rbf_kernel,
    "kernel_matrix": kernel_matrix,
    "callable": lambda X, Y=None: kernel_matrix(X, Y, kernel=lambda x, y: x @ y),
}


@pytest.mark.parametrize("function", KERNEL_FUNCTIONS.values(), ids=KERNEL_FUNCTIONS.keys())
def test_mismatched_feature_counts_name_X_and_Y(function):
    X = make_data(5, 3)
    Y = make_data(4, 2)
    with pytest.raises(ValueError, match=r"X has 3 features but Y has 2"):
        function(X, Y)
    with pytest.raises(ValueError, match=r"X has 2 features but Y has 3"):
        function(Y, X)


def with_entry(value, seed=0):
    X = make_data(5, 3, seed=seed)
    X[2, 1] = value
    return X


BAD_DATA = [
    (lambda: with_entry(np.nan), ValueError, "contains NaN"),
    (lambda: with_entry(np.inf), ValueError, r"contains infinite values"),
    (lambda: with_entry(-np.inf), ValueError, r"contains infinite values"),
    (lambda: [["a", "b"], ["c", "d"]], TypeError, "must contain only numbers"),
    (
        lambda: np.array([[1.0, "x"], [2.0, 3.0]], dtype=object),
        TypeError,
        "must contain only numbers",
    ),
    (lambda: np.arange(5.0), ValueError, "must be a 2-D array"),
    (lambda: np.ones((2, 2, 2)), ValueError, "must be a 2-D array"),
    (lambda: None, TypeError, "got None"),
    (lambda: np.ones((3, 2)) * (1 + 2j), ValueError, "complex"),
    (lambda: np.ones((0, 3)), ValueError, "0 sample"),
]
BAD_DATA_IDS = [
    "nan",
    "inf",
    "-inf",
    "strings",
    "object-str",
    "1-D",
    "3-D",
    "None",
    "complex",
    "empty",
]


@pytest.mark.parametrize("make_bad, error, message", BAD_DATA, ids=BAD_DATA_IDS)
@pytest.mark.parametrize("function", KERNEL_FUNCTIONS.values(), ids=KERNEL_FUNCTIONS.keys())
def test_bad_data_is_named(function, make_bad, error, message):
    good = make_data(4, 3, seed=1)
    bad = make_bad()
    # the message starts with the name of the bad argument
    with pytest.raises(error, match=rf"^X .*{message}"):
        function(bad, good)
    if bad is None:
        return  # Y=None means Y = X: no error to expect about Y
    with pytest.raises(error, match=rf"^Y .*{message}"):
        function(good, bad)


@pytest.mark.parametrize(
    "name, value, error",
    [
        ("gamma", 0, ValueError),
        ("gamma", 0.0, ValueError),
        ("gamma", -1.0, ValueError),
        ("gamma", np.nan, ValueError),
        ("gamma", np.inf, ValueError),
        ("gamma", True, TypeError),
        ("gamma", "scale", TypeError),
        ("bandwidth", 0, ValueError),
        ("bandwidth", -0.5, ValueError),
        ("bandwidth", np.nan, ValueError),
        ("bandwidth", np.inf, ValueError),
        ("bandwidth", False, TypeError),
        ("bandwidth", "wide", TypeError),
        ("bandwidth", None, None),
        # ints beyond float64, whose conversion used to fail inside np.isfinite
        ("gamma", 10**400, ValueError),
        ("gamma", -(2**70), ValueError),
        ("bandwidth", 10**400, ValueError),
    ],
    ids=lambda value: repr(value) if not isinstance(value, type) else value.__name__,
)
def test_bad_rbf_parameters_are_named(name, value, error):
    X = make_data(5, 2)
    if error is None:  # None is the documented default of both
        np.testing.assert_array_equal(rbf_kernel(X, **{name: value}), rbf_kernel(X))
        return
    with pytest.raises(error, match=name):
        rbf_kernel(X, **{name: value})
    with pytest.raises(error, match=name):
        kernel_matrix(X, kernel="rbf", **{name: value})


@pytest.mark.parametrize(
    "name, value, error",
    [
        ("gamma", 0.0, ValueError),
        ("gamma", -2.0, ValueError),
        ("gamma", np.nan, ValueError),
        ("gamma", True, TypeError),
        ("gamma", "auto", TypeError),
        ("degree", 0, ValueError),
        ("degree", -1, ValueError),
        ("degree", 2.0, TypeError),
        ("degree", 2.5, TypeError),
        ("degree", np.nan, TypeError),
        ("degree", True, TypeError),
        ("degree", "3", TypeError),
        ("coef0", np.nan, ValueError),
        ("coef0", np.inf, ValueError),
        ("coef0", True, TypeError),
        ("coef0", "1", TypeError),
        ("coef0", None, TypeError),
        ("coef0", 10**400, ValueError),
        ("gamma", 10**400, ValueError),
        ("degree", 10**400, ValueError),
        ("degree", 2**63, ValueError),
    ],
    ids=lambda value: repr(value) if not isinstance(value, type) else value.__name__,
)
def test_bad_polynomial_parameters_are_named(name, value, error):
    X = make_data(5, 2)
    with pytest.raises(error, match=name):
        polynomial_kernel(X, **{name: value})
    with pytest.raises(error, match=name):
        kernel_matrix(X, kernel="poly", **{name: value})


@pytest.mark.parametrize("coef0", [0, 0.0, -1.0, np.float32(2.0), 3])
def test_coef0_zero_negative_and_numpy_numbers_are_valid(coef0):
    # unlike gamma, c = 0 (homogeneous kernel) and c < 0 are legitimate
    X = make_data(8, 2, seed=18)
    K_ref = pairwise.polynomial_kernel(X, degree=2, gamma=0.5, coef0=float(coef0))
    K = polynomial_kernel(X, degree=2, gamma=0.5, coef0=coef0)
    np.testing.assert_allclose(K, K_ref, rtol=1e-12, atol=1e-14 * np.abs(K_ref).max())


def test_numpy_integer_degree_and_gamma_are_valid():
    X = make_data(8, 2, seed=19)
    K_ref = pairwise.polynomial_kernel(X, degree=3, gamma=0.5, coef0=1.0)
    K = polynomial_kernel(X, degree=np.int64(3), gamma=np.float32(0.5))
    np.testing.assert_allclose(K, K_ref, rtol=1e-12)


def test_polynomial_overflow_is_a_value_error():
    X = make_data(6, 2, seed=20, scales=lambda d: 1e3 * np.linspace(0.5, 2.0, d))
    # (γ⟨x, y⟩ + 1)^200 with ⟨x, y⟩ ~ 1e6: far beyond float64
    with pytest.raises(ValueError, match=r"polynomial kernel of degree 200 overflows"):
        polynomial_kernel(X, degree=200, gamma=1.0)
    with pytest.raises(ValueError, match=r"overflows"):
        kernel_matrix(X, kernel="poly", degree=200, gamma=1.0)
    # the same data with a smaller degree is fine (so the error is about the degree)
    assert np.isfinite(polynomial_kernel(X, degree=2, gamma=1.0)).all()


@pytest.mark.parametrize("bandwidth, word", [(1e-200, "overflows"), (1e200, "underflows")])
def test_extreme_bandwidth_is_a_value_error_naming_it(bandwidth, word):
    X = np.random.default_rng(0).standard_normal((5, 2))
    with pytest.raises(ValueError, match=rf"bandwidth=.*{word}"):
        rbf_kernel(X, bandwidth=bandwidth)


def test_huge_gamma_gives_zeros_off_the_diagonal_without_warnings():
    X = np.random.default_rng(0).standard_normal((6, 3)) * 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        K = rbf_kernel(X, gamma=1e308)
    np.testing.assert_array_equal(K, np.eye(6))


def test_polynomial_overflow_in_the_scaling_is_a_value_error():
    X = np.random.default_rng(0).standard_normal((6, 3)) * 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="overflows"):
            polynomial_kernel(X, gamma=1e308, degree=1)


def test_non_symmetric_callable_kernel_is_refused_for_x_against_itself():
    X = np.random.default_rng(0).standard_normal((6, 2))

    def asymmetric(x, y):
        return x @ y + x[0]  # adds a term that depends on the first row only

    for Y in (None, X):
        with pytest.raises(ValueError, match=r"kernel asymmetric is not symmetric.*non-symmetric"):
            kernel_matrix(X, Y, kernel=asymmetric)
    # against another set of points a kernel matrix is rectangular: no check
    np.testing.assert_array_equal(
        kernel_matrix(X, X[:3].copy(), kernel=asymmetric), brute_force(X, X[:3], asymmetric)
    )


def test_kernel_pca_refuses_a_non_symmetric_callable():

    X = np.random.default_rng(1).standard_normal((10, 2))
    with pytest.raises(ValueError, match="non-symmetric"):
        KernelPCA(kernel=lambda x, y: x @ y + x[0]).fit(X)


def test_huge_int_parameters_that_fit_a_float_are_used():
    # 2**70 is an exact float64: as gamma it separates every pair of points
    X = np.random.default_rng(0).standard_normal((6, 3))
    np.testing.assert_array_equal(rbf_kernel(X, gamma=2**70), np.eye(6))
    np.testing.assert_array_equal(polynomial_kernel(X, degree=1, gamma=1.0, coef0=2**70), 2.0**70)


def test_polynomial_overflow_from_coef0_names_it():
    X = np.random.default_rng(0).standard_normal((6, 3))
    with pytest.raises(ValueError, match=r"overflows float64.*coef0"):
        polynomial_kernel(X, coef0=1e300)


@pytest.mark.parametrize("approximation", ["exact", "nystrom"])
def test_polynomial_overflow_in_kernel_pca_names_x_not_a_y_the_user_never_passed(approximation):
    X = np.random.default_rng(1).standard_normal((40, 4))
    options = {"n_landmarks": 10} if approximation == "nystrom" else {}
    model = KernelPCA(n_components=2, kernel="poly", approximation=approximation, **options)
    calls = (lambda: clone(model).fit(1e120 * X), lambda: model.fit(X).transform(1e120 * X))
    for fit_or_transform in calls:
        with pytest.raises(ValueError, match="overflows float64 on X; rescale X") as error:
            fit_or_transform()
        assert " Y" not in str(error.value)


def test_polynomial_overflow_between_two_sets_names_both():
    X = np.random.default_rng(2).standard_normal((6, 3))
    with pytest.raises(ValueError, match="rescale X and Y alike"):
        polynomial_kernel(X, 1e120 * X)
    big = 1e120 * X
    with pytest.raises(ValueError, match=r"rescale X \(e.g. standardise it\)"):
        polynomial_kernel(big, big)  # Y is X: one set of points
