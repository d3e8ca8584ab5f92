"""Tests of parallel analysis (Horn 1965), chapter 1: ``pcalib.parallel_analysis``."""

import numpy as np
import pytest

from pcalib import ParallelAnalysisResult, parallel_analysis


def planted_rank_data(seed, n_samples=300, n_features=12, strengths=(4.0, 3.0, 2.0)):
    """Three independent factors, each loading on its own block of four features, plus noise."""
    rng = np.random.default_rng(seed)
    factors = rng.normal(size=(n_samples, len(strengths)))
    loadings = np.zeros((len(strengths), n_features))
    block = n_features // len(strengths)
    for j, strength in enumerate(strengths):
        loadings[j, j * block : (j + 1) * block] = strength * rng.uniform(0.5, 1.0, block)
    noise = rng.normal(size=(n_samples, n_features)) * rng.uniform(1.0, 3.0, n_features)
    return factors @ loadings + noise


def brute_force_null(X, n_draws, seed, standardize):
    """Eigenvalues of permuted copies, one ``rng.permutation`` per column, by NumPy."""
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n_draws):
        permuted = np.column_stack([rng.permutation(X[:, j]) for j in range(X.shape[1])])
        matrix = np.corrcoef(permuted, rowvar=False) if standardize else np.cov(permuted.T)
        draws.append(np.linalg.eigvalsh(matrix)[::-1])
    return np.array(draws)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_planted_rank_is_recovered(seed):
    X = planted_rank_data(seed)
    result = parallel_analysis(X, random_state=seed)
    assert result.n_components == 3
    # the planted structure is strong: the third eigenvalue clears its threshold,
    # the fourth is below it
    assert result.eigenvalues[2] > 1.5 * result.threshold[2]
    assert result.eigenvalues[3] < result.threshold[3]


def test_pure_noise_keeps_no_component():
    X = np.random.default_rng(3).normal(size=(300, 12)) * np.arange(1.0, 13.0)
    assert parallel_analysis(X, random_state=3).n_components == 0


def test_result_type_and_shapes():
    X = planted_rank_data(0, n_samples=50, n_features=6)
    result = parallel_analysis(X, n_draws=7, quantile=0.9, random_state=0)
    assert isinstance(result, ParallelAnalysisResult)
    assert isinstance(result.n_components, int)
    assert result.eigenvalues.shape == result.threshold.shape == (6,)
    assert result.null_eigenvalues.shape == (7, 6)
    assert result.quantile == 0.9


@pytest.mark.parametrize("standardize", [True, False])
def test_eigenvalues_match_a_brute_force_computation(standardize):
    X = planted_rank_data(1, n_samples=60, n_features=5)
    result = parallel_analysis(X, n_draws=20, standardize=standardize, random_state=11)
    observed = np.corrcoef(X, rowvar=False) if standardize else np.cov(X.T)
    np.testing.assert_allclose(result.eigenvalues, np.linalg.eigvalsh(observed)[::-1], rtol=1e-10)
    null = brute_force_null(X, 20, 11, standardize)
    np.testing.assert_allclose(result.null_eigenvalues, null, rtol=1e-10)
    # the threshold at each rank, and the leading run of eigenvalues above it
    threshold = np.array([np.quantile(null[:, j], 0.95) for j in range(5)])
    np.testing.assert_allclose(result.threshold, threshold, rtol=1e-10)
    k = 0
    while k < 5 and result.eigenvalues[k] > threshold[k]:
        k += 1
    assert result.n_components == k


def test_the_count_stops_at_the_first_eigenvalue_below_its_threshold():
    # covariance of a loud column independent of the rest, and of a correlated
    # pair of quiet ones: the first eigenvalue is the loud column's variance,
    # which the permutations keep, so it is not above its threshold; the
    # second (the pair) is far above its own, yet not counted
    rng = np.random.default_rng(5)
    loud = 30.0 * rng.normal(size=(200, 1))
    shared = rng.normal(size=(200, 1))
    X = np.hstack([loud, shared + 0.3 * rng.normal(size=(200, 2)), rng.normal(size=(200, 2))])
    result = parallel_analysis(X, standardize=False, random_state=5)
    above = result.eigenvalues > result.threshold
    assert not above[0] and above[1]
    assert result.eigenvalues[1] > 1.5 * result.threshold[1]
    assert result.n_components == 0
    # standardised, the loud column is one of five: the pair comes first and is counted
    assert parallel_analysis(X, random_state=5).n_components == 1


def test_invariant_to_row_order():
    X = planted_rank_data(2)
    order = np.random.default_rng(9).permutation(X.shape[0])
    result = parallel_analysis(X, random_state=4)
    shuffled = parallel_analysis(X[order], random_state=4)
    assert shuffled.n_components == result.n_components == 3
    np.testing.assert_allclose(shuffled.eigenvalues, result.eigenvalues, rtol=1e-10)


def test_the_seed_gives_determinism():
    X = planted_rank_data(0, n_samples=80, n_features=6)
    first = parallel_analysis(X, n_draws=30, random_state=123)
    second = parallel_analysis(X, n_draws=30, random_state=123)
    for a, b in zip(first, second, strict=True):
        np.testing.assert_array_equal(a, b)
    other = parallel_analysis(X, n_draws=30, random_state=124)
    np.testing.assert_array_equal(other.eigenvalues, first.eigenvalues)
    assert not np.allclose(other.null_eigenvalues, first.null_eigenvalues)
    generator = parallel_analysis(X, n_draws=30, random_state=np.random.default_rng(123))
    np.testing.assert_array_equal(generator.null_eigenvalues, first.null_eigenvalues)


@pytest.mark.parametrize("standardize", [True, False])
@pytest.mark.parametrize("c", [1e-150, 1e-8, 1e-3, 255.0, 1e8, 1e140])
def test_results_do_not_depend_on_the_units_of_X(c, standardize):
    X = planted_rank_data(0, n_samples=100, n_features=8)
    base = parallel_analysis(X, n_draws=25, standardize=standardize, random_state=0)
    scaled = parallel_analysis(c * X, n_draws=25, standardize=standardize, random_state=0)
    assert scaled.n_components == base.n_components
    power = 0 if standardize else 2
    for name in ("eigenvalues", "null_eigenvalues", "threshold"):
        np.testing.assert_allclose(
            getattr(scaled, name), getattr(base, name) * c**power, rtol=1e-9, err_msg=name
        )


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"X": None}, TypeError, "X"),
        ({"X": [1.0, 2.0, 3.0]}, ValueError, "X"),
        ({"X": [[1.0, 2.0]]}, ValueError, "X"),
        ({"X": [[1.0, np.nan], [2.0, 3.0], [0.0, 1.0]]}, ValueError, "X"),
        ({"X": [[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]]}, ValueError, "X"),
        ({"n_draws": 0}, ValueError, "n_draws"),
        ({"n_draws": 2.0}, TypeError, "n_draws"),
        ({"n_draws": True}, TypeError, "n_draws"),
        ({"n_draws": 2**62}, ValueError, "n_draws"),
        ({"quantile": 0.0}, ValueError, "quantile"),
        ({"quantile": 1.0}, ValueError, "quantile"),
        ({"quantile": -0.5}, ValueError, "quantile"),
        ({"quantile": 95}, ValueError, "quantile"),
        ({"quantile": np.nan}, ValueError, "quantile"),
        ({"quantile": "0.95"}, TypeError, "quantile"),
        ({"quantile": None}, TypeError, "quantile"),
        ({"standardize": "yes"}, TypeError, "standardize"),
        ({"standardize": None}, TypeError, "standardize"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
)
def test_bad_input_is_refused_by_name(kwargs, error, name):
    arguments = {"X": planted_rank_data(0, n_samples=20, n_features=4), "random_state": 0}
    arguments.update(kwargs)
    X = arguments.pop("X")
    with pytest.raises(error, match=name):
        parallel_analysis(X, **arguments)
