"""Reliability of every public estimator and function, parametrised from the API.

Five properties, each over everything in :mod:`public_api`:

* the results do not depend on the units of the data (scale equivariance);
* finite input never gives NaN or infinity silently, at scales from 1e-300
  to 1e300;
* a refit that fails leaves the earlier fit intact and usable;
* a bad value of any argument, arrays and vector parameters included, raises
  ``ValueError`` or ``TypeError`` naming it;
* no input is modified, sparse input included.
"""

import copy
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from public_api import (
    configuration_id,
    data_for,
    entry_point_functions,
    estimator_configurations,
    function_id,
    positive_data,
    scale_power,
    scaled_parameters,
    transform_power,
    valid_call,
)
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from pcalib import ElasticNetSPCA

ESTIMATORS = estimator_configurations()
FUNCTIONS = entry_point_functions()
SCALES = [1e-8, 1e-3, 255.0, 1e8]
RTOL = 1e-6


def fitted_attributes(estimator):
    """The attributes that ``fit`` sets: public names ending in ``_``."""
    return {
        name: value
        for name, value in vars(estimator).items()
        if name.endswith("_") and not name.startswith("_")
    }


def relative_difference(actual, expected):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    if actual.shape != expected.shape:
        return np.inf
    scale = np.max(np.abs(expected), initial=0.0)
    if scale == 0.0:
        return np.max(np.abs(actual), initial=0.0)
    return np.max(np.abs(actual - expected)) / scale


def quiet_fit(estimator, X):
    """Fit, ignoring the warnings some configurations give on small data."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)
        return estimator.fit(X)


# ----------------------------------------------------------------------------
# Scale equivariance


def assert_attribute_scales(estimator, name, base, scaled, c, n_entries):
    power = scale_power(estimator, name)
    if isinstance(base, (str, bool, np.bool_, type(None))) or (
        isinstance(base, (int, np.integer)) and power is None
    ):
        assert scaled == base, f"{name}: {scaled!r} on c·X, {base!r} on X"
        return
    assert power is not None, f"no scale law for {name}: add it to public_api.scale_power"
    if power == "log n·d":
        expected = np.asarray(base) - n_entries * np.log(c)
    else:
        expected = np.asarray(base, float) * c**power
    difference = relative_difference(scaled, expected)
    assert difference <= RTOL, f"{name}: relative difference {difference:.2e} at c = {c:g}"


@pytest.mark.parametrize("c", SCALES, ids=lambda c: f"c={c:g}")
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=configuration_id)
def test_fit_is_equivariant_to_the_scale_of_X(estimator, c):
    X = data_for(estimator, positive_data())
    base = quiet_fit(clone(estimator), X)
    scaled = clone(estimator).set_params(**scaled_parameters(base, c))
    quiet_fit(scaled, c * X)
    base_attributes, scaled_attributes = fitted_attributes(base), fitted_attributes(scaled)
    assert base_attributes.keys() == scaled_attributes.keys()
    n_entries = np.count_nonzero(~np.isnan(X))
    for name, value in base_attributes.items():
        if name.startswith("n_") or name.endswith("solver_"):
            assert np.all(scaled_attributes[name] == value), name
            continue
        assert_attribute_scales(estimator, name, value, scaled_attributes[name], c, n_entries)
    X_new = positive_data(n_samples=5, seed=1)
    expected = base.transform(X_new) * c ** transform_power(estimator)
    difference = relative_difference(scaled.transform(c * X_new), expected)
    assert difference <= RTOL, f"transform: relative difference {difference:.2e}"


# ----------------------------------------------------------------------------
# No NaN from finite input


def extreme_data(kind):
    X = positive_data(n_samples=20, n_features=5)
    if kind == "huge":
        return X * 1e150
    if kind == "tiny":
        return X * 1e-150
    if kind == "subnormal":
        return X * 1e-310
    X[:, 0] *= 1e150  # columns in very different units
    X[:, 1] *= 1e-150
    return X


def assert_all_finite(name, value):
    if (isinstance(value, np.ndarray) and value.dtype.kind == "f") or isinstance(value, float):
        assert np.all(np.isfinite(value)), f"{name} is not finite"


@pytest.mark.parametrize("kind", ["huge", "tiny", "subnormal", "mixed units"])
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=configuration_id)
def test_finite_input_never_gives_nan(estimator, kind):
    X = data_for(estimator, extreme_data(kind))
    try:
        fitted = quiet_fit(clone(estimator), X)
    except (ValueError, TypeError) as error:
        assert "X" in str(error), f"the error does not name X: {error}"
        return
    for name, value in fitted_attributes(fitted).items():
        assert_all_finite(name, value)
    assert_all_finite("transform(X)", fitted.transform(X))


# ----------------------------------------------------------------------------
# A failed refit keeps the earlier fit


def snapshot(estimator):
    return copy.deepcopy(fitted_attributes(estimator))


def assert_same_attributes(before, after):
    assert before.keys() == after.keys()
    for name, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[name], value, err_msg=name)
        else:
            assert after[name] == value, name


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=configuration_id)
def test_a_failed_refit_keeps_the_earlier_fit(estimator):
    X = data_for(estimator, positive_data())
    fitted = quiet_fit(clone(estimator), X)
    before, scores = snapshot(fitted), fitted.transform(X)
    bad_inputs = [
        np.full((3, X.shape[1] + 2), np.inf),  # another width, and not finite
        np.full((4, X.shape[1] + 1), np.nan),  # another width, nothing observed
        [["a", "b"], ["c", "d"]],  # not numbers
    ]
    for X_bad in bad_inputs:
        with pytest.raises((ValueError, TypeError)):
            fitted.fit(X_bad)
        assert_same_attributes(before, fitted_attributes(fitted))
        np.testing.assert_array_equal(fitted.transform(X), scores)


def previous_configuration(estimator):
    """The configuration listed before ``estimator``'s for its class (cyclically)."""
    same_class = [e for e in ESTIMATORS if type(e) is type(estimator)]
    return same_class[same_class.index(estimator) - 1]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=configuration_id)
def test_a_refit_in_another_configuration_leaves_nothing_of_the_earlier_fit(estimator):
    # the earlier fit has other options and column names, which the refit drops
    earlier = previous_configuration(estimator)
    X = data_for(estimator, positive_data())
    X_earlier = pd.DataFrame(data_for(earlier, positive_data(seed=1)))
    X_earlier.columns = [f"x{j}" for j in range(X.shape[1])]
    refitted = quiet_fit(clone(earlier), X_earlier)
    assert hasattr(refitted, "feature_names_in_")
    quiet_fit(refitted.set_params(**estimator.get_params()), X)
    assert_same_attributes(snapshot(quiet_fit(clone(estimator), X)), fitted_attributes(refitted))


def test_fit_gram_after_fit_leaves_no_mean_scale_or_feature_names():
    X = pd.DataFrame(positive_data(), columns=[f"x{j}" for j in range(6)])
    gram = np.cov(X.to_numpy(), rowvar=False)
    refitted = ElasticNetSPCA(n_components=2, l1_penalty=0.01).fit(X).fit_gram(gram)
    fresh = ElasticNetSPCA(n_components=2, l1_penalty=0.01).fit_gram(gram)
    assert_same_attributes(snapshot(fresh), fitted_attributes(refitted))
    assert refitted.mean_ is None and not hasattr(refitted, "feature_names_in_")


# ----------------------------------------------------------------------------
# Bad parameter values


# Never a valid value of any parameter.
ALWAYS_BAD = ["bogus", float("nan"), {"a": 1}]
# Valid for some parameters; elsewhere they must raise an error naming it.
SOMETIMES_BAD = [None, 2**70, -1, 0, float("inf"), True, 1.5]


def assert_names(error, name):
    assert name in str(error), f"the message does not name {name!r}: {error}"


def check_fit_with(estimator, name, value, X, *, must_fail):
    """Fit with ``name=value``: an error naming ``name``, or finite results."""
    try:
        fitted = quiet_fit(clone(estimator).set_params(**{name: value}), X)
    except (ValueError, TypeError) as error:
        assert_names(error, name)
        return
    except Exception as error:
        pytest.fail(f"{name}={value!r} raised {type(error).__name__}: {error}")
    assert not must_fail, f"{name}={value!r} was accepted"
    for attribute, result in fitted_attributes(fitted).items():
        assert_all_finite(attribute, result)


def parameter_cases(configurations):
    return [
        pytest.param(estimator, name, id=f"{configuration_id(estimator)}-{name}")
        for estimator in configurations
        for name in estimator.get_params()
    ]


@pytest.mark.parametrize(("estimator", "name"), parameter_cases(ESTIMATORS))
def test_bad_parameter_values_are_refused_by_name(estimator, name):
    X = data_for(estimator, positive_data(n_samples=20, n_features=5))
    for value in ALWAYS_BAD:
        check_fit_with(estimator, name, value, X, must_fail=True)
    for value in SOMETIMES_BAD:
        check_fit_with(estimator, name, value, X, must_fail=False)


def scalar_parameters(function):
    """The parameters of ``function`` whose valid value (or default) is a scalar."""
    args, kwargs = valid_call(function)
    bound = inspect.signature(function).bind(*args, **kwargs)
    bound.apply_defaults()
    return [
        name
        for name, value in bound.arguments.items()
        if value is None or isinstance(value, (str, bool, int, float, np.integer, np.floating))
    ]


def call_with(function, name, value):
    args, kwargs = valid_call(function)
    bound = inspect.signature(function).bind(*args, **kwargs)
    bound.arguments[name] = value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return function(*bound.args, **bound.kwargs)


def check_call_with(function, name, value, *, must_fail):
    try:
        result = call_with(function, name, value)
    except (ValueError, TypeError) as error:
        assert_names(error, name)
        return
    except ImportError:
        raise
    except Exception as error:
        pytest.fail(f"{name}={value!r} raised {type(error).__name__}: {error}")
    assert not must_fail, f"{name}={value!r} was accepted"
    values = result if isinstance(result, tuple) else [result]
    for value_out in values:
        for field in vars(value_out).values() if hasattr(value_out, "__dict__") else [value_out]:
            assert_all_finite(f"result of {name}={value!r}", field)


FUNCTION_PARAMETERS = [
    pytest.param(function, name, id=f"{function_id(function)}-{name}")
    for function in FUNCTIONS
    for name in scalar_parameters(function)
]


@pytest.mark.parametrize(("function", "name"), FUNCTION_PARAMETERS)
def test_bad_argument_values_are_refused_by_name(function, name):
    for value in ALWAYS_BAD:
        check_call_with(function, name, value, must_fail=True)
    for value in SOMETIMES_BAD:
        check_call_with(function, name, value, must_fail=False)


# ----------------------------------------------------------------------------
# Bad arrays, for estimators' vector parameters and functions' array arguments


def bad_arrays(valid):
    """Arrays shaped like ``valid`` that no argument accepts: (id, value) pairs."""
    valid = np.asarray(valid, dtype=float)
    with_nan, with_inf = valid.copy(), valid.copy()
    with_nan.flat[0], with_inf.flat[-1] = np.nan, np.inf
    return [
        ("nan", with_nan),
        ("inf", with_inf),
        ("numeric-strings", valid.astype(str)),
        ("object-strings", valid.astype(str).astype(object)),
        ("complex", valid + 1j),
        ("complex-zero-imaginary", valid.astype(complex)),
    ]


def vector_parameter_cases(configurations):
    """Bad vectors of one entry per feature, for every parameter of every estimator."""
    n_features = positive_data(n_samples=20, n_features=5).shape[1]
    return [
        pytest.param(estimator, name, value, id=f"{configuration_id(estimator)}-{name}-{case}")
        for estimator in configurations
        for name in estimator.get_params()
        for case, value in bad_arrays(np.ones(n_features))
    ]


@pytest.mark.parametrize(("estimator", "name", "value"), vector_parameter_cases(ESTIMATORS))
def test_bad_vector_parameters_are_refused_by_name(estimator, name, value):
    X = data_for(estimator, positive_data(n_samples=20, n_features=5))
    check_fit_with(estimator, name, value, X, must_fail=True)


def array_parameters(function):
    """The parameters of ``function`` whose valid value is an array or a list of numbers."""
    args, kwargs = valid_call(function)
    bound = inspect.signature(function).bind(*args, **kwargs)
    return [
        name
        for name, value in bound.arguments.items()
        if isinstance(value, np.ndarray) or (isinstance(value, list) and value)
    ]


def valid_argument(function, name):
    args, kwargs = valid_call(function)
    return inspect.signature(function).bind(*args, **kwargs).arguments[name]


ARRAY_CASES = [
    pytest.param(function, name, value, id=f"{function_id(function)}-{name}-{case}")
    for function in FUNCTIONS
    for name in array_parameters(function)
    for case, value in [
        *bad_arrays(valid_argument(function, name)),
        ("None", None),
        ("dict", {"a": 1}),
    ]
]


@pytest.mark.parametrize(("function", "name", "value"), ARRAY_CASES)
def test_bad_array_arguments_are_refused_by_name(function, name, value):
    with warnings.catch_warnings():
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        check_call_with(function, name, value, must_fail=True)


@pytest.mark.parametrize(
    ("function", "name"),
    [
        pytest.param(function, name, id=f"{function_id(function)}-{name}")
        for function in FUNCTIONS
        for name in array_parameters(function)
    ],
)
def test_arrays_of_another_dimension_are_refused_by_name_or_used(function, name):
    valid = np.asarray(valid_argument(function, name), dtype=float)
    for value in (valid[np.newaxis], valid.ravel()[0]):
        if value.shape != valid.shape:
            check_call_with(function, name, value, must_fail=False)


# ----------------------------------------------------------------------------
# No NaN from finite input, for the functions, at every scale


FUNCTION_SCALES = [1e-300, 1e-150, 1e-8, 1e8, 1e150, 1e300]


FUNCTIONS_OF_ARRAYS = [function for function in FUNCTIONS if array_parameters(function)]


@pytest.mark.parametrize("c", FUNCTION_SCALES, ids=lambda c: f"c={c:g}")
@pytest.mark.parametrize("function", FUNCTIONS_OF_ARRAYS, ids=function_id)
def test_functions_on_finite_data_of_any_scale_never_give_nan(function, c):
    names = array_parameters(function)
    args, kwargs = valid_call(function)
    bound = inspect.signature(function).bind(*args, **kwargs)
    for name in names:
        bound.arguments[name] = c * np.asarray(bound.arguments[name], dtype=float)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            result = function(*bound.args, **bound.kwargs)
    except (ValueError, TypeError) as error:
        assert any(name in str(error) for name in names), f"no argument named: {error}"
        return
    for value in result if isinstance(result, tuple) else [result]:
        for field in vars(value).values() if hasattr(value, "__dict__") else [value]:
            assert_all_finite(f"{function_id(function)} at c = {c:g}", field)


# ----------------------------------------------------------------------------
# No input modified


def stored_arrays(value):
    """Copies of the arrays that hold ``value`` (for a sparse matrix, its stored arrays)."""
    if scipy.sparse.issparse(value):
        names = ("data", "row", "col") if value.format == "coo" else ("data", "indices", "indptr")
        return [(value.format, value.nnz)] + [np.array(getattr(value, n)) for n in names]
    if isinstance(value, (np.ndarray, list)):
        return [np.array(value, dtype=object)]
    return []


def assert_unchanged(before, after, what):
    assert len(before) == len(after), what
    for old, new in zip(before, after, strict=True):
        if isinstance(old, tuple):
            assert old == new, f"{what}: {old} became {new}"
        else:
            assert old.shape == new.shape and all(
                a == b or (a != a and b != b) for a, b in zip(old.ravel(), new.ravel(), strict=True)
            ), f"{what} was modified"


def sparse_with_duplicates(X):
    """``X`` as a COO matrix in which one entry is stored twice, in two halves."""
    coo = scipy.sparse.coo_array(X)
    data = np.concatenate([coo.data, [coo.data[0] / 2]])
    data[0] /= 2
    return scipy.sparse.coo_array(
        (data, (np.append(coo.row, coo.row[0]), np.append(coo.col, coo.col[0]))), shape=X.shape
    )


@pytest.mark.parametrize("function", FUNCTIONS, ids=function_id)
def test_functions_never_modify_their_input(function):
    args, kwargs = valid_call(function)
    before = [stored_arrays(value) for value in [*args, *kwargs.values()]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        function(*args, **kwargs)
    after = [stored_arrays(value) for value in [*args, *kwargs.values()]]
    for i, (old, new) in enumerate(zip(before, after, strict=True)):
        assert_unchanged(old, new, f"argument {i} of {function_id(function)}")


@pytest.mark.parametrize("function", FUNCTIONS_OF_ARRAYS, ids=function_id)
def test_functions_given_sparse_input_never_modify_it(function):
    names = [n for n in array_parameters(function) if np.ndim(valid_argument(function, n)) == 2]
    args, kwargs = valid_call(function)
    bound = inspect.signature(function).bind(*args, **kwargs)
    for name in names:
        bound.arguments[name] = sparse_with_duplicates(np.asarray(bound.arguments[name]))
    before = {name: stored_arrays(bound.arguments[name]) for name in names}
    assert all(b[0][1] > 0 for b in before.values())  # the premise: entries are stored
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            function(*bound.args, **bound.kwargs)
    except (ValueError, TypeError):
        pass  # refusing sparse input is allowed; modifying it is not
    for name in names:
        assert_unchanged(before[name], stored_arrays(bound.arguments[name]), name)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=configuration_id)
def test_fit_never_modifies_X(estimator):
    X = data_for(estimator, positive_data())
    inputs = [X, X.tolist()]
    if estimator.__sklearn_tags__().input_tags.sparse:
        inputs += [sparse_with_duplicates(X), scipy.sparse.csr_array(X)]
    for X_in in inputs:
        before = stored_arrays(X_in)
        try:
            quiet_fit(clone(estimator), X_in)
        except (ValueError, TypeError):
            pass  # a configuration may refuse sparse input; modifying it is not allowed
        assert_unchanged(before, stored_arrays(X_in), f"X ({type(X_in).__name__})")
