"""Tests of :func:`pcalib.out_of_core.pca_dask` (chapter 2, data beyond memory).

The reference is the in-memory :class:`pcalib.PCA` on the same data, itself
tested against scikit-learn and NumPy in ``test_pca.py``. The data has a
well-separated spectrum (five spiked variances, then a decaying floor), so the
top components are well defined and any two correct solvers agree to rounding.
"""

import subprocess
import sys
import warnings
from functools import partial

# Dask is a pinned test dependency (requirements.txt): a missing Dask must
# fail here, not skip the file. The "Dask missing" path is tested below.
import dask.array as da
import numpy as np
import pytest

from pcalib import PCA
from pcalib.datasets import make_spectrum
from pcalib.out_of_core import (
    DASK_MISSING,
    DaskPCAResult,
    import_dask_array,
    pca_dask,
)

N_SAMPLES, N_FEATURES, K, CHUNK = 20_000, 50, 5, 2_000
VARIANCES = np.r_[[40.0, 20.0, 10.0, 5.0, 2.5], np.geomspace(0.5, 0.05, N_FEATURES - 5)]


@pytest.fixture(scope="module")
def data():
    """Training data (NumPy), the same as a Dask array of 10 row chunks, new data."""
    X, _ = make_spectrum(N_SAMPLES, N_FEATURES, VARIANCES, random_state=0)
    X += np.linspace(-3.0, 3.0, N_FEATURES)  # a non-zero mean to remove
    X_new, _ = make_spectrum(300, N_FEATURES, VARIANCES, random_state=1)
    X_dask = da.from_array(X, chunks=(CHUNK, N_FEATURES))
    assert X_dask.numblocks == (N_SAMPLES // CHUNK, 1)  # bigger than one chunk
    return X, X_dask, X_new


@pytest.fixture(scope="module")
def reference(data):
    return PCA(n_components=K).fit(data[0])


@pytest.fixture(scope="module")
def tsqr_result(data):
    return pca_dask(data[1], K, solver="tsqr")


def assert_same_pca(result, reference, *, atol_components, rtol_variance):
    """Every fitted quantity of ``result`` equals that of the in-memory ``reference``."""
    assert_allclose = np.testing.assert_allclose
    assert_allclose(result.components_, reference.components_, rtol=0, atol=atol_components)
    for name in ("explained_variance_", "explained_variance_ratio_", "singular_values_"):
        assert_allclose(getattr(result, name), getattr(reference, name), rtol=rtol_variance)
    assert_allclose(result.mean_, reference.mean_, rtol=0, atol=1e-12)
    assert result.n_samples_ == reference.n_samples_


# --- the exact solver equals the in-memory PCA -------------------------------


def test_tsqr_equals_in_memory_pca(tsqr_result, reference):
    assert isinstance(tsqr_result, DaskPCAResult)
    for name in (
        "components_",
        "explained_variance_",
        "explained_variance_ratio_",
        "singular_values_",
        "mean_",
    ):
        assert type(getattr(tsqr_result, name)) is np.ndarray, name
    assert tsqr_result.components_.shape == (K, N_FEATURES)
    assert_same_pca(tsqr_result, reference, atol_components=1e-8, rtol_variance=1e-10)


def test_total_variance_is_the_sum_of_column_variances(tsqr_result, data):
    expected = np.var(data[0], axis=0, ddof=1).sum()
    assert tsqr_result.total_variance_ == pytest.approx(expected, rel=1e-12)


def test_transform_numpy_and_dask_match_in_memory(tsqr_result, reference, data):
    X_new = data[2]
    expected = reference.transform(X_new)
    Z = tsqr_result.transform(X_new)
    assert type(Z) is np.ndarray
    np.testing.assert_allclose(Z, expected, rtol=0, atol=1e-8)

    Z_dask = tsqr_result.transform(da.from_array(X_new, chunks=(100, N_FEATURES)))
    assert isinstance(Z_dask, da.Array)  # stays lazy
    np.testing.assert_allclose(Z_dask.compute(), expected, rtol=0, atol=1e-8)


def test_numpy_input_is_wrapped(data, reference):
    result = pca_dask(data[0], K)
    assert_same_pca(result, reference, atol_components=1e-8, rtol_variance=1e-10)


def test_column_chunks_are_accepted(data, reference):
    """Several column chunks: tsqr rechunks them, compressed keeps them."""
    X_blocks = da.from_array(data[0], chunks=(CHUNK, 20))
    result = pca_dask(X_blocks, K, solver="tsqr")
    assert_same_pca(result, reference, atol_components=1e-8, rtol_variance=1e-10)
    result = pca_dask(X_blocks, K, solver="compressed", iterated_power=4, random_state=0)
    assert_same_pca(result, reference, atol_components=1e-4, rtol_variance=1e-6)


def test_lazy_result_computes_to_the_same(data, tsqr_result):
    lazy = pca_dask(data[1], K, compute=False)
    assert not lazy.is_computed
    assert isinstance(lazy.components_, da.Array)
    with pytest.raises(ValueError, match="lazy"):
        lazy.transform(data[2])
    computed = lazy.compute(scheduler="synchronous")  # any scheduler gives the same
    assert computed.is_computed
    np.testing.assert_allclose(computed.components_, tsqr_result.components_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        computed.explained_variance_ratio_, tsqr_result.explained_variance_ratio_, rtol=1e-12
    )


# --- the randomized solver ---------------------------------------------------


def test_compressed_agrees_to_a_looser_tolerance(data, reference):
    """Randomized: the error of component j shrinks like (s_16 / s_j)**(2q + 1).

    With q power iterations that is about 1e-6 for q = 4, not rounding level.
    """
    result = pca_dask(data[1], K, solver="compressed", iterated_power=4, random_state=0)
    assert_same_pca(result, reference, atol_components=1e-4, rtol_variance=1e-6)


def test_compressed_is_reproducible_with_a_seed(data):
    def randomized(seed):
        return pca_dask(data[1], K, solver="compressed", iterated_power=1, random_state=seed)

    first, second, other = randomized(7), randomized(7), randomized(8)
    np.testing.assert_array_equal(first.components_, second.components_)
    np.testing.assert_array_equal(first.singular_values_, second.singular_values_)
    assert not np.array_equal(first.components_, other.components_)  # the seed is used


# --- bad input ---------------------------------------------------------------


def small_dask(X, rows=4):
    return da.from_array(np.asarray(X), chunks=(rows, -1))


def good_small():
    return np.random.default_rng(0).standard_normal((12, 3))


@pytest.mark.parametrize(
    ("n_components", "error", "match"),
    [
        (0, ValueError, "n_components must be between 1 and"),
        (4, ValueError, "n_components must be between 1 and"),
        (0.5, TypeError, "n_components must be an int"),
        (True, TypeError, "n_components must be an int"),
    ],
)
def test_bad_n_components(n_components, error, match):
    with pytest.raises(error, match=match):
        pca_dask(small_dask(good_small()), n_components)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"solver": "qr"}, ValueError, "solver must be one of 'tsqr', 'compressed'"),
        ({"iterated_power": -1}, ValueError, "iterated_power must be at least 0"),
        ({"iterated_power": 1.5}, TypeError, "iterated_power must be an int"),
        ({"random_state": np.random.default_rng(0)}, TypeError, "random_state must be None"),
        ({"random_state": -1}, ValueError, "random_state must be >= 0"),
        ({"compute": "yes"}, TypeError, "compute must be True or False"),
    ],
)
def test_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        pca_dask(small_dask(good_small()), 2, **kwargs)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("solver", ["tsqr", "compressed"])
def test_non_finite_dask_data(bad, solver):
    X = good_small()
    X[9, 1] = bad  # in the third chunk
    with pytest.raises(ValueError, match="X contains NaN or infinite values"):
        pca_dask(small_dask(X), 2, solver=solver)


def test_opposite_infinities_raise_no_warning_first():
    X = good_small()
    X[0, 0], X[5, 0] = np.inf, -np.inf  # inf - inf would be NaN with a RuntimeWarning
    with pytest.raises(ValueError, match="X contains NaN or infinite values"):
        pca_dask(small_dask(X), 2)


def test_non_finite_numpy_data():
    X = good_small()
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="X contains NaN"):
        pca_dask(X, 2)


@pytest.mark.parametrize("as_dask", [True, False])
def test_too_few_samples(as_dask):
    X = np.ones((1, 3))
    with pytest.raises(ValueError, match=r"X has 1 sample\(s\).*minimum of 2"):
        pca_dask(small_dask(X) if as_dask else X, 1)


def test_non_numeric_dtype():
    X = da.from_array(np.array([["a", "b"], ["c", "d"], ["e", "f"]]), chunks=(2, 2))
    with pytest.raises(TypeError, match="X must contain only numbers"):
        pca_dask(X, 1)
    with pytest.raises(TypeError, match="X must contain only numbers"):
        pca_dask(np.array([["a", "b"], ["c", "d"]]), 1)


def test_complex_dtype():
    with pytest.raises(ValueError, match="X has complex values"):
        pca_dask(small_dask(good_small() + 1j), 1)


def test_not_two_dimensional():
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        pca_dask(da.ones(10, chunks=5), 1)


def test_unknown_chunk_sizes():
    X = small_dask(good_small())
    X_unknown = X[X[:, 0] > -10.0]  # boolean mask: row count unknown until computed
    match = r"X has unknown chunk sizes.*compute_chunk_sizes"
    with pytest.raises(ValueError, match=match):
        pca_dask(X_unknown, 1)


def test_all_samples_equal():
    with pytest.raises(ValueError, match="zero variance in every feature"):
        pca_dask(small_dask(np.full((12, 3), 0.1)), 1)


def test_squares_that_overflow():
    # the first pass checks the sum of squares (RuntimeWarnings are errors here)
    with pytest.raises(ValueError, match="X is too large for float64 arithmetic"):
        pca_dask(small_dask(good_small() * 1e300), 1)


@pytest.mark.parametrize("solver", ["tsqr", "compressed"])
@pytest.mark.parametrize(
    "make_X",
    [
        lambda: np.full((12, 3), 1e308),
        lambda: np.vstack([[1e308, 0.0, 0.0], np.eye(3), np.ones((8, 3))]),
        lambda: good_small() * 1e151,
    ],
    ids=["all-1e308", "one-1e308", "1e151"],
)
def test_data_beyond_float64_squares_is_refused_first_without_warnings(make_X, solver):
    # the reproductions: one entry of 1e308 (column sums finite, squares not) gave
    # LinAlgError "SVD did not converge", after overflow warnings
    X = make_X()
    too_large = "X is too large for float64 arithmetic"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=too_large) as dask_error:
            pca_dask(small_dask(X), 1, solver=solver, random_state=0)
        with pytest.raises(ValueError, match=too_large) as numpy_error:
            pca_dask(X, 1, solver=solver, random_state=0)
    # the same message as the in-memory route
    assert str(dask_error.value) == str(numpy_error.value)


UNIT_FACTORS = [1e-8, 1e-3, 255.0, 1e8]


@pytest.mark.parametrize("c", UNIT_FACTORS)
@pytest.mark.parametrize("solver", ["tsqr", "compressed"])
def test_result_does_not_depend_on_the_units_of_X(solver, c):
    X, _ = make_spectrum(400, 8, [8.0, 4.0, 2.0, 1.0, 0.5, 0.25, 0.1, 0.05], random_state=3)
    X += 2.0
    a = pca_dask(small_dask(X, rows=100), 3, solver=solver, random_state=0)
    b = pca_dask(small_dask(c * X, rows=100), 3, solver=solver, random_state=0)
    close = partial(np.testing.assert_allclose, rtol=1e-6)
    close(b.components_, a.components_, atol=1e-6)
    close(b.singular_values_, c * a.singular_values_)
    close(b.mean_, c * a.mean_)
    close(b.explained_variance_, c**2 * a.explained_variance_)
    close(b.explained_variance_ratio_, a.explained_variance_ratio_)
    close(b.transform(c * X[:5]), c * a.transform(X[:5]), atol=1e-6 * c * np.abs(X).max())


def test_squares_that_underflow():
    with pytest.raises(ValueError, match="X varies by amounts too small"):
        pca_dask(small_dask(good_small() * 1e-170), 1)


def test_transform_checks_its_input(tsqr_result):
    with pytest.raises(ValueError, match=r"X_new has 3 features but .* fitted on 50"):
        tsqr_result.transform(np.ones((2, 3)))
    with pytest.raises(ValueError, match="X_new has 3 features"):
        tsqr_result.transform(da.ones((2, 3), chunks=1))
    X_nan = np.ones((4, N_FEATURES))
    X_nan[2, 0] = np.nan
    with pytest.raises(ValueError, match="X_new contains NaN"):
        tsqr_result.transform(X_nan)
    Z = tsqr_result.transform(da.from_array(X_nan, chunks=2))  # lazy: raises on compute
    with pytest.raises(ValueError, match="X_new contains NaN or infinite values"):
        Z.compute()


# --- without Dask --------------------------------------------------------------


def test_missing_dask_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)  # `import dask` now fails
    monkeypatch.setitem(sys.modules, "dask.array", None)
    match = r"pip install 'dask\[array\]'.*pcalib\[dask\]"
    with pytest.raises(ImportError, match=match):
        import_dask_array()
    with pytest.raises(ImportError) as info:
        pca_dask(np.ones((4, 2)), 1)
    assert str(info.value) == DASK_MISSING


def test_pcalib_imports_without_dask():
    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['dask.array'] = None\n"
        "import numpy as np, pcalib, pcalib.out_of_core\n"
        "try:\n"
        "    pcalib.out_of_core.pca_dask(np.ones((4, 2)), 1)\n"
        "except ImportError as exc:\n"
        "    print('ok:', exc)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "ok: " + DASK_MISSING
