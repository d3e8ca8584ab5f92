"""Choosing k for PPCA: Minka's Laplace evidence and BIC (:func:`pcalib.ppca_evidence`).

References: scikit-learn's ``PCA(n_components="mle")`` and its private
``_assess_dimension`` (an independent implementation of Minka's formula),
pcalib's ``PPCA.score`` (the log-likelihood by another route than the
spectrum) and an explicit count of the free parameters of ``W``.
"""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_wine
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.decomposition._pca import _assess_dimension

import pcalib
from pcalib.ppca import ppca_parameter_count


def planted(rank, seed, n_samples=200, n_features=10, signal=2.0):
    """Rank-``rank`` signal of the given strength plus unit white noise."""
    rng = np.random.default_rng(seed)
    loadings = rng.standard_normal((rank, n_features)) * signal
    return rng.standard_normal((n_samples, rank)) @ loadings + rng.standard_normal(
        (n_samples, n_features)
    )


def standardized(X):
    return (X - X.mean(axis=0)) / X.std(axis=0)


DATA = {
    **{f"rank{r}-seed{s}": (r, s) for r in range(1, 6) for s in range(3)},
    "diabetes": load_diabetes().data,
    "wine": load_wine().data,
    "wine-standardized": standardized(load_wine().data),
}


def data(name):
    value = DATA[name]
    return planted(*value) if isinstance(value, tuple) else value


@pytest.mark.parametrize("name", sorted(DATA))
def test_laplace_choice_equals_sklearn_mle(name):
    X = data(name)
    expected = SklearnPCA(n_components="mle").fit(X).n_components_
    assert pcalib.ppca_evidence(X).n_components == expected


@pytest.mark.parametrize("name", sorted(DATA))
def test_log_evidence_matches_sklearn_assess_dimension(name):
    X = data(name)
    n_samples, n_features = X.shape
    # _assess_dimension takes the spectrum and the n of the formula; with the
    # 1/n covariance (maximum likelihood) it evaluates the same expression
    X_c = X - X.mean(axis=0)
    spectrum = np.linalg.eigvalsh(X_c.T @ X_c / n_samples)[::-1]
    expected = [_assess_dimension(spectrum, k, n_samples) for k in range(1, n_features)]
    result = pcalib.ppca_evidence(X)
    assert result.log_evidence.shape == (n_features - 1,)
    np.testing.assert_allclose(result.log_evidence, expected, rtol=1e-10)
    np.testing.assert_allclose(result.eigenvalues, spectrum, rtol=1e-10)


def test_sklearn_spectrum_convention_shifts_every_k_equally():
    # scikit-learn passes the 1/(n - 1) eigenvalues: a constant shift in k
    X = planted(3, 0)
    n_samples = X.shape[0]
    ours = pcalib.ppca_evidence(X).log_evidence
    spectrum = SklearnPCA().fit(X).explained_variance_
    theirs = np.array([_assess_dimension(spectrum, k, n_samples) for k in range(1, 10)])
    shift = theirs - ours
    np.testing.assert_allclose(shift, shift[0], rtol=1e-10)
    expected_shift = -n_samples * 10 / 2 * np.log(n_samples / (n_samples - 1))
    np.testing.assert_allclose(shift[0], expected_shift, rtol=1e-8)


def free_parameters_of_W(n_features, n_components, seed=0):
    """Rank of the Jacobian of W -> W Wᵀ at a random W: d k minus the rotations."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n_features, n_components))
    columns = []
    for index in range(W.size):
        E = np.zeros(W.size)
        E[index] = 1.0
        E = E.reshape(W.shape)
        columns.append((E @ W.T + W @ E.T).ravel())
    return np.linalg.matrix_rank(np.array(columns).T)


@pytest.mark.parametrize(("d", "k"), [(2, 1), (5, 1), (5, 2), (6, 3), (8, 5), (7, 6)])
def test_parameter_count(d, k):
    # W up to rotation (the tangent dimension of W Wᵀ), sigma2, the mean
    assert ppca_parameter_count(d, k) == free_parameters_of_W(d, k) + 1 + d
    rotations = k * (k - 1) // 2  # the dimension of O(k)
    assert ppca_parameter_count(d, k) == d * k - rotations + 1 + d


@pytest.mark.parametrize("name", ["rank2-seed0", "rank4-seed1", "wine-standardized"])
def test_bic_equals_the_ppca_log_likelihood_plus_penalty(name):
    X = data(name)
    n_samples, n_features = X.shape
    result = pcalib.ppca_evidence(X, criterion="bic")
    for k in range(1, n_features):
        log_likelihood = n_samples * pcalib.PPCA(n_components=k).fit(X).score(X)
        m = n_features * k - k * (k - 1) / 2 + 1 + n_features
        expected = -2 * log_likelihood + m * np.log(n_samples)
        np.testing.assert_allclose(result.bic[k - 1], expected, rtol=1e-10)
    assert result.n_components == 1 + int(np.argmin(result.bic))


@pytest.mark.parametrize("rank", range(1, 6))
@pytest.mark.parametrize("seed", range(3))
def test_bic_recovers_a_strong_planted_rank(rank, seed):
    X = planted(rank, seed, n_samples=500, n_features=12, signal=3.0)
    assert pcalib.ppca_evidence(X, criterion="bic").n_components == rank
    assert pcalib.ppca_evidence(X, criterion="laplace").n_components == rank


@pytest.mark.parametrize("c", [1e-150, 1e-8, 3.7, 1e100])
@pytest.mark.parametrize("criterion", ["laplace", "bic"])
def test_choice_does_not_depend_on_units(c, criterion):
    X = planted(3, 2)
    n_samples, n_features = X.shape
    base = pcalib.ppca_evidence(X, criterion=criterion)
    scaled = pcalib.ppca_evidence(c * X, criterion=criterion)
    assert scaled.n_components == base.n_components
    shift = n_samples * n_features * np.log(c)
    np.testing.assert_allclose(scaled.log_evidence, base.log_evidence - shift, rtol=1e-9)
    np.testing.assert_allclose(scaled.bic, base.bic + 2 * shift, rtol=1e-9)
    np.testing.assert_allclose(scaled.eigenvalues, c**2 * base.eigenvalues, rtol=1e-9)


def test_wide_data_stop_below_the_rank():
    # n = 6 samples: centred rank 5, so k = 1..4 leave sigma2 > 0 in d = 10
    X = np.random.default_rng(3).standard_normal((6, 10))
    result = pcalib.ppca_evidence(X)
    assert result.log_evidence.shape == result.bic.shape == (4,)
    assert np.all(np.isfinite(result.log_evidence)) and np.all(np.isfinite(result.bic))
    np.testing.assert_allclose(result.eigenvalues[5:], 0.0, atol=1e-12)


@pytest.mark.parametrize(
    ("X", "error", "message"),
    [
        (None, TypeError, "X"),
        (np.ones(5), ValueError, "X"),
        (np.ones((5, 1)), ValueError, "X"),
        (np.ones((5, 3)), ValueError, "X"),
        (np.outer(np.arange(5.0), [1.0, 2.0, 3.0]), ValueError, "rank"),
        (np.array([[1.0, np.nan], [2.0, 3.0], [0.0, 1.0]]), ValueError, "X"),
    ],
)
def test_bad_data_is_refused(X, error, message):
    with pytest.raises(error, match=message):
        pcalib.ppca_evidence(X)


@pytest.mark.parametrize("criterion", ["aic", None, 1, "Laplace"])
def test_bad_criterion_is_refused(criterion):
    with pytest.raises(ValueError, match="criterion"):
        pcalib.ppca_evidence(planted(2, 0), criterion=criterion)


@pytest.mark.parametrize("rank", range(1, 6))
@pytest.mark.parametrize("seed", range(3))
def test_ard_keeps_the_planted_rank_like_sklearn_mle(rank, seed):
    X = planted(rank, seed)
    assert SklearnPCA(n_components="mle").fit(X).n_components_ == rank
    assert pcalib.bayesian_pca(X).W.shape[1] == rank
