"""Tests of :class:`pcalib.ElasticNetSPCA` (chapter 5): Zou–Hastie–Tibshirani sparse PCA.

Expected values come from independent sources only: NumPy eigendecompositions
of covariance and correlation matrices computed here, scikit-learn's ``PCA``
(``explained_variance_``, ``explained_variance_ratio_``), the covariance
matrix of Zou, Hastie and Tibshirani's synthetic example built exactly from
its three hidden factors, the figures they published for it (adjusted
variances 40.9% and 39.5%), adjusted variances computed here by NumPy's QR of
the score matrix, by Cholesky of ``Vᵀ S V`` and by regressing one score on
another, ZHT's criterion evaluated from its definition as a sum over the
samples and, without an L1 penalty, its minimum ``tr(S) - Σ λ_j² / (λ_j + λ₂)``
from NumPy's eigenvalues, and the data-generating model. None of them is
produced by pcalib itself.
"""

import itertools
import warnings
from functools import partial

import helpers
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.decomposition import SparsePCA
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from pcalib import ElasticNetSPCA
from pcalib.datasets import load_pitprops
from pcalib.sparse_pca import (
    projection_deflation,
    truncate,
    truncated_power_iteration,
    truncated_power_method,
    zht_criterion,
)

# Correlated features with well separated eigenvalues (standard deviations 3 to 0.5 along
# rotated axes), the mean in [-5, 5].
make_data = partial(
    helpers.make_data, scales=lambda d: np.linspace(3.0, 0.5, d), offset=5.0, rotate=True
)

# ---------------------------------------------------------------------------
# Independent references and helpers
# ---------------------------------------------------------------------------


def zht_covariance():
    """Exact 10 × 10 covariance of the ZHT synthetic example.

    Hidden factors ``V1 ~ N(0, 290)``, ``V2 ~ N(0, 300)`` independent,
    ``V3 = -0.3 V1 + 0.925 V2 + ε`` with ``ε ~ N(0, 1)``; observed
    ``X1..X4 = V1 + noise``, ``X5..X8 = V2 + noise``, ``X9, X10 = V3 + noise``,
    every noise ``N(0, 1)`` and independent.
    """
    factors = np.array(
        [
            [290.0, 0.0, -0.3 * 290.0],
            [0.0, 300.0, 0.925 * 300.0],
            [-0.3 * 290.0, 0.925 * 300.0, 0.3**2 * 290.0 + 0.925**2 * 300.0 + 1.0],
        ]
    )
    which = np.repeat([0, 1, 2], [4, 4, 2])
    return factors[np.ix_(which, which)] + np.eye(10)


def zht_sample(n_samples, seed):
    """Data drawn from the ZHT model."""
    rng = np.random.default_rng(seed)
    V1 = rng.normal(0.0, np.sqrt(290.0), n_samples)
    V2 = rng.normal(0.0, np.sqrt(300.0), n_samples)
    V3 = -0.3 * V1 + 0.925 * V2 + rng.standard_normal(n_samples)
    hidden = np.column_stack([V1] * 4 + [V2] * 4 + [V3] * 2)
    return hidden + rng.standard_normal((n_samples, 10))


# the true sparse loadings: the averages of X5..X8 and of X1..X4
ZHT_V1 = np.r_[np.zeros(4), 0.5 * np.ones(4), np.zeros(2)]
ZHT_V2 = np.r_[0.5 * np.ones(4), np.zeros(6)]


def principal_directions(S, k):
    """Top ``k`` eigenvectors of ``S`` (NumPy), as rows."""
    _, vectors = np.linalg.eigh(S)
    return vectors[:, ::-1][:, :k].T


def assert_rows_equal_up_to_sign(A, B, atol):
    signs = np.sign(np.sum(A * B, axis=1))
    np.testing.assert_allclose(A, signs[:, None] * B, rtol=0, atol=atol)


def adjusted_variance_cholesky(S, V):
    """``R_jj²`` with ``Vᵀ S V = Rᵀ R`` (Cholesky): Gram–Schmidt of the scores in ``S``."""
    return np.diag(np.linalg.cholesky(V.T @ S @ V)) ** 2


def wine_standardised():
    return StandardScaler().fit_transform(load_wine().data)


# ---------------------------------------------------------------------------
# 1. No L1 penalty: ordinary PCA, also with a large ridge
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("standardize", [False, True])
def test_no_l1_gives_the_principal_directions(standardize):
    X = make_data(80, 6, seed=1)
    model = ElasticNetSPCA(3, l1_penalty=0, standardize=standardize, tol=1e-12).fit(X)
    S = np.corrcoef(X, rowvar=False) if standardize else np.cov(X, rowvar=False)
    assert_rows_equal_up_to_sign(model.components_, principal_directions(S, 3), atol=1e-10)
    reference = SklearnPCA(3).fit(StandardScaler().fit_transform(X) if standardize else X)
    # the ratio does not depend on StandardScaler's 1/n against pcalib's 1/(n - 1)
    np.testing.assert_allclose(
        model.pca_explained_variance_ratio_, reference.explained_variance_ratio_, rtol=1e-12
    )
    # orthogonal, uncorrelated components: adjusted variance = PCA variance
    np.testing.assert_allclose(
        model.explained_variance_ratio_, reference.explained_variance_ratio_, rtol=1e-10
    )
    if not standardize:  # scikit-learn's variances use n - 1, like pcalib's covariance
        np.testing.assert_allclose(
            model.explained_variance_, reference.explained_variance_, rtol=1e-10
        )
    np.testing.assert_array_equal(model.n_nonzero_, [6, 6, 6])
    np.testing.assert_array_equal(model.l1_penalty_, [0.0, 0.0, 0.0])


def test_no_l1_gives_the_principal_directions_of_ill_conditioned_data():
    # breast-cancer data: radius, perimeter and area are nearly collinear, the
    # correlation matrix has condition number ~1e5
    X = load_breast_cancer().data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ElasticNetSPCA(4, l1_penalty=0.0, standardize=True, tol=1e-12).fit(X)
    expected = principal_directions(np.corrcoef(X, rowvar=False), 4)
    assert_rows_equal_up_to_sign(model.components_, expected, atol=1e-10)


@pytest.mark.parametrize("l2", [10.0, 100.0, 1e4])
def test_ridge_only_loadings_are_parallel_to_the_principal_directions(l2):
    X = make_data(60, 5, seed=2)
    S = np.cov(X, rowvar=False)
    expected = principal_directions(S, 3)
    # the chapter's proposition, directly: (S + λ₂ I)⁻¹ S v_j = λ_j / (λ_j + λ₂) v_j
    eigenvalues = np.linalg.eigvalsh(S)[::-1][:3]
    for v, lam in zip(expected, eigenvalues, strict=True):
        ridge = np.linalg.solve(S + l2 * np.eye(5), S @ v)
        np.testing.assert_allclose(ridge, lam / (lam + l2) * v, rtol=0, atol=1e-13)
    model = ElasticNetSPCA(3, l1_penalty=0.0, l2_penalty=l2, tol=1e-12).fit(X)
    assert_rows_equal_up_to_sign(model.components_, expected, atol=1e-10)


# ---------------------------------------------------------------------------
# 2. The synthetic example of Zou, Hastie and Tibshirani
# ---------------------------------------------------------------------------


def test_zht_example_covariance_is_built_right():
    # the sparse loadings' variances, by hand from the factor model
    S = zht_covariance()
    assert ZHT_V1 @ S @ ZHT_V1 == pytest.approx(0.25 * (4 * 301 + 12 * 300), rel=1e-12)
    assert ZHT_V2 @ S @ ZHT_V2 == pytest.approx(0.25 * (4 * 291 + 12 * 290), rel=1e-12)
    trace = 4 * 291 + 4 * 301 + 2 * (0.09 * 290 + 0.925**2 * 300 + 1 + 1)
    assert np.trace(S) == pytest.approx(trace, rel=1e-12)
    assert np.all(np.linalg.eigvalsh(S) > 0)


@pytest.mark.parametrize("l2", [0.0, 1e-6, 1.0, 100.0])
def test_zht_example_from_its_exact_covariance(l2):
    S = zht_covariance()
    # ordinary PCA mixes all ten variables
    pca = principal_directions(S, 2)
    assert np.all(np.abs(pca) > 1e-3)
    # X5..X8 are exchangeable and enter the path together (so do X9, X10); the
    # first alternation meets such a tie, the converged components do not: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ElasticNetSPCA(2, n_nonzero=4, l2_penalty=l2, tol=1e-10).fit_gram(S)
    # the true structure: exactly the averages of X5..X8 and of X1..X4
    np.testing.assert_allclose(model.components_, np.vstack([ZHT_V1, ZHT_V2]), rtol=0, atol=1e-10)
    np.testing.assert_array_equal(model.components_ == 0, np.vstack([ZHT_V1, ZHT_V2]) == 0)
    np.testing.assert_array_equal(model.n_nonzero_, [4, 4])
    # adjusted variance, by regression: var(v1ᵀx), then the residual variance of
    # v2ᵀx after regressing it on v1ᵀx
    var1, var2, cov12 = ZHT_V1 @ S @ ZHT_V1, ZHT_V2 @ S @ ZHT_V2, ZHT_V1 @ S @ ZHT_V2
    expected = np.array([var1, var2 - cov12**2 / var1])
    np.testing.assert_allclose(model.explained_variance_, expected, rtol=1e-10)
    np.testing.assert_allclose(model.explained_variance_ratio_, expected / np.trace(S), rtol=1e-10)
    # the published figures, 40.9% and 39.5% (rounded to 0.1%)
    np.testing.assert_allclose(100 * model.explained_variance_ratio_, [40.9, 39.5], atol=0.05)
    # ordinary PCA's proportions, for comparison
    eigenvalues = np.linalg.eigvalsh(S)[::-1]
    np.testing.assert_allclose(
        model.pca_explained_variance_ratio_, eigenvalues[:2] / eigenvalues.sum(), rtol=1e-12
    )
    assert np.sum(model.explained_variance_ratio_) < np.sum(model.pca_explained_variance_ratio_)


@pytest.mark.parametrize("n_nonzero", [3, [4, 2], 5])
def test_zht_example_with_an_impossible_count_warns(n_nonzero):
    # X1..X4 (and X5..X8) are exchangeable: they enter the path together, so no
    # penalty gives 3 (or 2, or 5) non-zeros within a block
    S = zht_covariance()
    with pytest.warns(UserWarning, match="asked, but the components have"):
        model = ElasticNetSPCA(2, n_nonzero=n_nonzero, tol=1e-10).fit_gram(S)
    asked = np.broadcast_to(n_nonzero, (2,))
    assert np.any(model.n_nonzero_ != asked)
    np.testing.assert_array_equal(model.n_nonzero_, np.count_nonzero(model.components_, axis=1))
    # by symmetry, exchangeable variables get equal loadings
    for component in model.components_:
        for block in (slice(0, 4), slice(4, 8), slice(8, 10)):
            np.testing.assert_allclose(component[block], component[block][0], rtol=0, atol=1e-12)
    for name in ("components_", "explained_variance_", "explained_variance_ratio_"):
        assert np.all(np.isfinite(getattr(model, name))), name


def test_zht_example_from_data():
    X = zht_sample(5000, seed=3)
    Xc = X - X.mean(axis=0)
    S = np.cov(X, rowvar=False)
    ideal = np.column_stack([ZHT_V1, ZHT_V2])
    # (ridge, largest relative shortfall of the adjusted variance against the truth)
    for l2, shortfall in ((1e-6, 0.02), (100.0, 1e-4)):
        model = ElasticNetSPCA(2, n_nonzero=4, l2_penalty=l2, tol=1e-8).fit(X)
        # the true support, exactly
        np.testing.assert_array_equal(model.components_ != 0, ideal.T != 0)
        # adjusted variance = R_jj² of the QR of the scores, over n - 1
        R = np.linalg.qr(Xc @ model.components_.T, mode="r")
        np.testing.assert_allclose(model.explained_variance_, np.diag(R) ** 2 / 4999, rtol=1e-10)
        # sampling error at n = 5000: about 1/√n relative on a variance
        np.testing.assert_allclose(100 * model.explained_variance_ratio_, [40.9, 39.5], atol=1.0)
        # Rayleigh and Ky Fan bounds on the supports X5..X8 and X1..X8: no unit
        # loading on them explains more than the top eigenvalue(s) of the sub-block
        assert model.explained_variance_[0] <= np.linalg.eigvalsh(S[4:8, 4:8])[-1] * (1 + 1e-12)
        top_two = np.sum(np.linalg.eigvalsh(S[:8, :8])[-2:])
        assert np.sum(model.explained_variance_) <= top_two * (1 + 1e-12)
        # ... and they come close to what the true loadings explain in this sample:
        # with a tiny ridge the lasso weights the nearly collinear X5..X8 unevenly
        # (about 1% of variance lost), a large ridge evens them out (grouping effect)
        truth = adjusted_variance_cholesky(S, ideal)
        assert np.sum(model.explained_variance_) >= np.sum(truth) * (1 - shortfall)
    # with a large ridge the nearly collinear X5..X8 (and X1..X4) get nearly equal
    # loadings (grouping effect); sampling noise (variance 1 against 300) remains
    np.testing.assert_allclose(model.components_, ideal.T, rtol=0, atol=0.02)


# ---------------------------------------------------------------------------
# 3. Choosing sparsity by the number of non-zeros
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "loader, n_components, n_nonzero",
    [
        (load_wine, 1, 1),
        (load_wine, 2, 3),
        (load_wine, 2, [5, 2]),
        (load_wine, 3, [13, 1, 4]),
        (load_breast_cancer, 2, 3),
        (load_breast_cancer, 2, np.array([5, 2])),
        (load_breast_cancer, 2, [30, 3]),
    ],
)
def test_n_nonzero_gives_exactly_that_many(loader, n_components, n_nonzero):
    X = loader().data
    model = ElasticNetSPCA(n_components, n_nonzero=n_nonzero, standardize=True).fit(X)
    expected = np.broadcast_to(n_nonzero, (n_components,))
    np.testing.assert_array_equal(model.n_nonzero_, expected)
    np.testing.assert_array_equal(np.count_nonzero(model.components_, axis=1), expected)
    # all variables kept needs no L1 penalty; fewer need a positive one
    np.testing.assert_array_equal(model.l1_penalty_ == 0, expected == X.shape[1])
    np.testing.assert_allclose(np.linalg.norm(model.components_, axis=1), 1.0, rtol=1e-12)


def test_n_nonzero_with_more_features_than_samples():
    X = make_data(12, 25, seed=4)
    model = ElasticNetSPCA(3, n_nonzero=[2, 4, 6], l2_penalty=1.0).fit(X)
    np.testing.assert_array_equal(model.n_nonzero_, [2, 4, 6])
    assert np.all(np.isfinite(model.explained_variance_))


# ---------------------------------------------------------------------------
# 4. Gram-matrix input against data input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("penalty", [dict(l1_penalty=[2.0, 1.0, 0.5]), dict(n_nonzero=[3, 4, 5])])
def test_fit_gram_of_the_covariance_agrees_with_fit(penalty):
    X = make_data(100, 7, seed=5)
    model = ElasticNetSPCA(3, tol=1e-6, max_iter=1000, **penalty).fit(X)
    gram_model = ElasticNetSPCA(3, tol=1e-6, max_iter=1000, **penalty).fit_gram(
        np.cov(X, rowvar=False)
    )
    # the two covariance matrices differ in rounding only
    np.testing.assert_allclose(gram_model.components_, model.components_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(gram_model.explained_variance_, model.explained_variance_, rtol=1e-9)
    np.testing.assert_array_equal(gram_model.n_nonzero_, model.n_nonzero_)
    assert np.all((model.n_nonzero_ > 0) & (model.n_nonzero_ < 7))  # sparse, not empty
    assert gram_model.mean_ is None and gram_model.n_features_in_ == 7


@pytest.mark.parametrize("penalty", [dict(l1_penalty=0.3), dict(n_nonzero=[4, 6, 3])])
def test_fit_gram_of_the_correlation_agrees_with_standardize(penalty):
    X = load_wine().data
    model = ElasticNetSPCA(3, standardize=True, tol=1e-6, max_iter=1000, **penalty).fit(X)
    gram_model = ElasticNetSPCA(3, tol=1e-6, max_iter=1000, **penalty).fit_gram(
        np.corrcoef(X, rowvar=False)
    )
    # the two correlation matrices differ in rounding only
    np.testing.assert_allclose(gram_model.components_, model.components_, rtol=0, atol=1e-9)
    np.testing.assert_allclose(gram_model.explained_variance_, model.explained_variance_, rtol=1e-9)
    np.testing.assert_allclose(
        model.explained_variance_ratio_, model.explained_variance_ / 13, rtol=1e-12
    )


# ---------------------------------------------------------------------------
# 5. Adjusted explained variance
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("standardize", [False, True])
def test_adjusted_variance_is_the_qr_of_the_scores(standardize):
    X = wine_standardised()[:, :8] * np.linspace(1, 3, 8) + 2.0
    model = ElasticNetSPCA(4, l1_penalty=0.5, standardize=standardize).fit(X)
    Xc = X - X.mean(axis=0)
    if standardize:
        Xc = Xc / X.std(axis=0, ddof=1)
    scores = Xc @ model.components_.T
    # the components are correlated: the plain variances of the scores overcount
    correlation = np.corrcoef(scores, rowvar=False)
    assert np.abs(correlation[np.triu_indices(4, 1)]).max() > 0.01
    R = np.linalg.qr(scores, mode="r")
    n = X.shape[0]
    np.testing.assert_allclose(model.explained_variance_, np.diag(R) ** 2 / (n - 1), rtol=1e-10)
    S = np.cov(Xc, rowvar=False)
    np.testing.assert_allclose(
        model.explained_variance_, adjusted_variance_cholesky(S, model.components_.T), rtol=1e-10
    )
    np.testing.assert_allclose(
        model.explained_variance_ratio_, model.explained_variance_ / np.trace(S), rtol=1e-12
    )
    # the span of the first m sparse components explains at most what the first m
    # principal components do (Ky Fan), hence also a total of at most 1
    pca_ratio = np.linalg.eigvalsh(S)[::-1] / np.trace(S)
    assert np.all(np.cumsum(model.explained_variance_ratio_) <= np.cumsum(pca_ratio[:4]) + 1e-12)
    assert np.sum(model.explained_variance_ratio_) <= 1.0
    np.testing.assert_allclose(model.pca_explained_variance_ratio_, pca_ratio[:4], rtol=1e-10)


def test_adjusted_variance_of_all_components_with_no_penalty_is_the_total():
    X = make_data(50, 4, seed=6)
    model = ElasticNetSPCA(4, l1_penalty=0.0, tol=1e-12).fit(X)
    assert np.sum(model.explained_variance_ratio_) == pytest.approx(1.0, rel=1e-12)


# ---------------------------------------------------------------------------
# 6. Transform, sign convention, pipeline, feature names
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("standardize", [False, True])
def test_transform_projects_the_centred_data(standardize):
    X = make_data(70, 6, seed=7)
    X_new = make_data(9, 6, seed=8)
    model = ElasticNetSPCA(2, n_nonzero=3, standardize=standardize).fit(X)
    mean = X.mean(axis=0)
    scale = X.std(axis=0, ddof=1) if standardize else np.ones(6)
    np.testing.assert_allclose(
        model.transform(X_new), (X_new - mean) / scale @ model.components_.T, rtol=1e-12
    )
    np.testing.assert_allclose(
        model.fit_transform(X), (X - mean) / scale @ model.components_.T, rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(model.mean_, mean, rtol=1e-13)


def test_sign_convention_largest_entry_positive():
    model = ElasticNetSPCA(3, l1_penalty=[3.0, 1.0, 0.3]).fit(make_data(60, 6, seed=9))
    assert np.all(model.n_nonzero_ > 0)
    largest = model.components_[np.arange(3), np.argmax(np.abs(model.components_), axis=1)]
    assert np.all(largest > 0)


def test_pipeline_and_feature_names():
    data = load_wine(as_frame=True)
    X, y = data.data, data.target
    pipe = make_pipeline(StandardScaler(), ElasticNetSPCA(2, n_nonzero=4), LogisticRegression())
    pipe.fit(X, y)
    # the pipeline is exactly the composition of its steps
    X_scaled = StandardScaler().fit_transform(X)
    spca = ElasticNetSPCA(2, n_nonzero=4).fit(X_scaled)
    clf = LogisticRegression().fit(spca.transform(X_scaled), y)
    np.testing.assert_array_equal(pipe.predict(X), clf.predict(spca.transform(X_scaled)))
    assert pipe.score(X, y) > 0.8  # two sparse components still separate the cultivars
    np.testing.assert_array_equal(
        pipe[:-1].get_feature_names_out(), ["elasticnetspca0", "elasticnetspca1"]
    )
    model = ElasticNetSPCA(3, l1_penalty=0.5).fit(X)
    np.testing.assert_array_equal(model.feature_names_in_, X.columns)
    out = model.set_output(transform="pandas").transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["elasticnetspca0", "elasticnetspca1", "elasticnetspca2"]
    # a later fit_gram forgets the names of the earlier fit
    model.fit_gram(np.cov(X.to_numpy(), rowvar=False))
    assert not hasattr(model, "feature_names_in_")
    assert model.mean_ is None and model.scale_ is None


def test_get_params_set_params_clone():
    model = ElasticNetSPCA(3, l1_penalty=[1.0, 2.0, 3.0], l2_penalty=0.1, tol=1e-7)
    params = model.get_params()
    assert params["n_components"] == 3 and params["l1_penalty"] == [1.0, 2.0, 3.0]
    assert params["l2_penalty"] == 0.1 and params["tol"] == 1e-7 and params["n_nonzero"] is None
    assert model.set_params(n_nonzero=2, tol=1e-4) is model
    X = make_data(40, 5, seed=10)
    model.fit(X)
    copy = clone(model)
    assert not hasattr(copy, "components_")
    np.testing.assert_array_equal(copy.fit(X).components_, model.components_)


# ---------------------------------------------------------------------------
# 7. Iterations: n_iter_, converged_, objective_history_, tol=0
# ---------------------------------------------------------------------------


def zht_criterion_from_data(Xc, A, B, l1, l2):
    """Eq. (spca-criterion) summed over the samples, divided by n - 1 like the covariance."""
    residuals = Xc - Xc @ B @ A.T  # rows x_i - A Bᵀ x_i
    fit = np.sum(residuals**2) / (Xc.shape[0] - 1)
    return fit + l2 * np.sum(B**2) + np.sum(l1 * np.abs(B).sum(axis=0))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_zht_criterion_is_the_criterion_of_the_data(seed):
    rng = np.random.default_rng(seed)
    X = make_data(40, 6, seed=seed)
    Xc = X - X.mean(axis=0)
    A = np.linalg.qr(rng.standard_normal((6, 3)))[0]
    B = rng.standard_normal((6, 3)) * (rng.random((6, 3)) < 0.6)
    l1, l2 = np.array([0.5, 1.0, 2.0]), 0.3
    expected = zht_criterion_from_data(Xc, A, B, l1, l2)
    value = zht_criterion(np.cov(X, rowvar=False), A, B, l1, l2)
    assert value == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
@pytest.mark.parametrize("l2", [1e-6, 0.5, 20.0])
def test_objective_history_never_increases_with_l1_penalty(seed, l2):
    rng = np.random.default_rng(seed)
    n_samples, n_features = rng.choice([(60, 8), (15, 25)], axis=0)
    X = make_data(int(n_samples), int(n_features), seed=seed)
    l1 = rng.uniform(0.05, 1.0, size=3)
    # tol=0: every alternation of max_iter is made and recorded
    with pytest.warns(ConvergenceWarning, match="max_iter=40"):
        model = ElasticNetSPCA(3, l1_penalty=l1, l2_penalty=l2, tol=0.0, max_iter=40).fit(X)
    history = model.objective_history_
    assert history.shape == (41,)
    # the start: A = principal directions, B = 0, so only tr(S) remains
    S = np.cov(X, rowvar=False)
    assert history[0] == pytest.approx(np.trace(S), rel=1e-12)
    # each half-step minimises the criterion exactly: it never increases
    # (up to the rounding of tr(S) - 2 tr(Aᵀ S B) + tr(Bᵀ S B))
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    assert 0.0 < history[-1] < history[0]


@pytest.mark.parametrize("l2", [1e-6, 1.0, 50.0])
def test_objective_history_without_l1_ends_at_the_ridge_minimum(l2):
    # With λ₁ = 0 the minimum over B for A = the top-k eigenvectors is
    # B = (S + λ₂ I)⁻¹ S A, where the criterion is tr(S) - Σ_j λ_j² / (λ_j + λ₂)
    X = make_data(80, 6, seed=19)
    S = np.cov(X, rowvar=False)
    eigenvalues = np.linalg.eigvalsh(S)[::-1][:3]
    expected = np.trace(S) - np.sum(eigenvalues**2 / (eigenvalues + l2))
    model = ElasticNetSPCA(3, l1_penalty=0.0, l2_penalty=l2, tol=1e-12, max_iter=1000).fit(X)
    assert model.converged_
    assert model.objective_history_[-1] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize(
    "penalty", [dict(l1_penalty=0.5), dict(n_nonzero=[3, 2]), dict(l1_penalty=[0.0, 2.0])]
)
def test_history_has_one_entry_more_than_the_iterations(penalty):
    X = make_data(50, 6, seed=20)
    model = ElasticNetSPCA(2, tol=1e-8, max_iter=500, **penalty).fit(X)
    assert model.converged_
    assert 1 <= model.n_iter_ < 500
    assert model.objective_history_.shape == (model.n_iter_ + 1,)
    assert model.objective_history_[0] == pytest.approx(
        np.trace(np.cov(X, rowvar=False)), rel=1e-12
    )
    assert np.all(np.isfinite(model.objective_history_))
    gram_model = ElasticNetSPCA(2, tol=1e-8, max_iter=500, **penalty).fit_gram(
        np.cov(X, rowvar=False)
    )
    assert gram_model.objective_history_.shape == (gram_model.n_iter_ + 1,)


@pytest.mark.parametrize("max_iter", [1, 3, 7])
def test_tol_zero_runs_exactly_max_iter(max_iter):
    X = make_data(40, 5, seed=21)
    # with tol=1e-3 this problem converges in fewer alternations than 7 ...
    quick = ElasticNetSPCA(2, l1_penalty=0.0, tol=1e-3, max_iter=100).fit(X)
    assert quick.converged_ and quick.n_iter_ < 7
    # ... with tol=0 the loadings' change is never below tol: max_iter alternations
    with pytest.warns(ConvergenceWarning, match=f"max_iter={max_iter} iterations"):
        model = ElasticNetSPCA(2, l1_penalty=0.0, tol=0.0, max_iter=max_iter).fit(X)
    assert model.n_iter_ == max_iter
    assert not model.converged_
    assert model.objective_history_.shape == (max_iter + 1,)


def test_converged_fit_does_not_warn_and_records_n_samples():
    X = make_data(45, 5, seed=22)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = ElasticNetSPCA(2, l1_penalty=0.2).fit(X)
    assert model.converged_ is True
    assert model.n_samples_ == 45 and model.n_features_in_ == 5
    model.fit_gram(np.cov(X, rowvar=False))
    assert model.n_samples_ is None  # a Gram matrix does not say how many samples it had


def test_default_n_components_is_all_features_as_in_sklearn():
    assert ElasticNetSPCA().n_components is None
    assert SparsePCA().n_components is None
    X = make_data(40, 5, seed=23)
    model = ElasticNetSPCA(l1_penalty=0.0, tol=1e-12).fit(X)
    assert model.n_components_ == 5
    assert model.components_.shape == (5, 5)
    assert model.transform(X).shape == (40, 5)
    # all components without penalty: the eigenvectors of the covariance matrix
    assert_rows_equal_up_to_sign(
        model.components_, principal_directions(np.cov(X, rowvar=False), 5), atol=1e-8
    )
    assert np.sum(model.explained_variance_ratio_) == pytest.approx(1.0, rel=1e-12)


# ---------------------------------------------------------------------------
# 8. Warnings and errors
# ---------------------------------------------------------------------------


def test_too_large_l1_gives_an_empty_component_and_no_nan():
    X = make_data(50, 5, seed=11)
    trace = np.trace(np.cov(X, rowvar=False))
    # λ₁ ≥ 2 max|S a| for every unit a makes every elastic net return 0
    with pytest.warns(UserWarning, match=r"component\(s\) \[1\] have no non-zero loading"):
        model = ElasticNetSPCA(2, l1_penalty=[1.0, 10 * trace]).fit(X)
    np.testing.assert_array_equal(model.components_[1], np.zeros(5))
    assert model.components_[0].any()
    assert model.n_nonzero_[1] == 0 and model.explained_variance_[1] == 0.0
    np.testing.assert_array_equal(model.transform(X)[:, 1], np.zeros(50))
    for name in (
        "components_",
        "explained_variance_",
        "explained_variance_ratio_",
        "pca_explained_variance_ratio_",
        "l1_penalty_",
    ):
        assert np.all(np.isfinite(getattr(model, name))), name
    with pytest.warns(UserWarning, match="no non-zero loading"):
        model = ElasticNetSPCA(2, l1_penalty=10 * trace).fit(X)
    np.testing.assert_array_equal(model.components_, np.zeros((2, 5)))
    assert np.all(np.isfinite(model.transform(X)))


def test_convergence_warning_with_max_iter_1():
    X = make_data(50, 5, seed=12)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = ElasticNetSPCA(2, l1_penalty=5.0, max_iter=1).fit(X)
    assert model.n_iter_ == 1 and not model.converged_
    assert model.objective_history_.shape == (2,)
    assert np.all(np.isfinite(model.components_))


def test_not_fitted_and_transform_after_fit_gram():
    with pytest.raises(NotFittedError):
        ElasticNetSPCA().transform(np.ones((3, 4)))
    model = ElasticNetSPCA(2, l1_penalty=0.1).fit_gram(
        np.cov(make_data(30, 4, seed=13), rowvar=False)
    )
    with pytest.raises(ValueError, match="fit_gram"):
        model.transform(np.ones((3, 4)))


@pytest.mark.parametrize(
    "params, error, name",
    [
        (dict(l1_penalty=-1.0), ValueError, "l1_penalty"),
        (dict(l1_penalty=np.nan), ValueError, "l1_penalty"),
        (dict(l1_penalty=[1.0, -1.0]), ValueError, "l1_penalty"),
        (dict(l1_penalty=[1.0, 2.0, 3.0]), ValueError, "l1_penalty"),
        (dict(l1_penalty="big"), TypeError, "l1_penalty"),
        (dict(l1_penalty=None), TypeError, "l1_penalty"),
        (dict(l2_penalty=-1.0), ValueError, "l2_penalty"),
        (dict(l2_penalty=np.nan), ValueError, "l2_penalty"),
        (dict(l2_penalty=np.inf), ValueError, "l2_penalty"),
        (dict(n_nonzero=0), ValueError, "n_nonzero"),
        (dict(n_nonzero=6), ValueError, "n_nonzero"),
        (dict(n_nonzero=[2, 6]), ValueError, "n_nonzero"),
        (dict(n_nonzero=[2, 2, 2]), ValueError, "n_nonzero"),
        (dict(n_nonzero=2.0), TypeError, "n_nonzero"),
        (dict(n_nonzero=True), TypeError, "n_nonzero"),
        (dict(n_components=6), ValueError, "n_components"),
        (dict(n_components=0), ValueError, "n_components"),
        (dict(n_components=2.0), TypeError, "n_components"),
        (dict(standardize="yes"), TypeError, "standardize"),
        (dict(max_iter=0), ValueError, "max_iter"),
        (dict(tol=-1.0), ValueError, "tol"),
        (dict(tol=np.nan), ValueError, "tol"),
        (dict(n_components=True), TypeError, "n_components"),
    ],
)
def test_bad_parameters_raise_naming_them(params, error, name):
    X = make_data(20, 5, seed=14)
    with pytest.raises(error, match=name):
        ElasticNetSPCA(**{"n_components": 2, **params}).fit(X)
    with pytest.raises(error, match=name):
        ElasticNetSPCA(**{"n_components": 2, **params}).fit_gram(np.cov(X, rowvar=False))


def test_bad_gram_raises():
    S = np.cov(make_data(20, 4, seed=15), rowvar=False)
    asymmetric = S.copy()
    asymmetric[0, 1] += 0.1 * np.abs(S).max()
    eigenvalues = np.linalg.eigvalsh(S)
    indefinite = S - (eigenvalues[0] + 0.1 * eigenvalues[-1]) * np.eye(4)
    assert np.linalg.eigvalsh(indefinite)[0] < 0
    with_nan = S.copy()
    with_nan[1, 1] = np.nan
    model = ElasticNetSPCA(2, l1_penalty=0.1)
    with pytest.raises(ValueError, match="square"):
        model.fit_gram(S[:3])
    with pytest.raises(ValueError, match="symmetric"):
        model.fit_gram(asymmetric)
    with pytest.raises(ValueError, match="positive semi-definite"):
        model.fit_gram(indefinite)
    with pytest.raises(ValueError, match="NaN"):
        model.fit_gram(with_nan)
    with pytest.raises(ValueError, match="gram"):
        model.fit_gram(np.ones(4))
    with pytest.raises(ValueError, match="variance"):
        model.fit_gram(np.zeros((4, 4)))


def test_bad_data_raises():
    X = make_data(20, 4, seed=16)
    X[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ElasticNetSPCA(2).fit(X)
    with pytest.raises(ValueError, match="sample"):
        ElasticNetSPCA(2).fit(np.ones((1, 4)))
    model = ElasticNetSPCA(2, l1_penalty=0.1).fit(make_data(20, 4, seed=17))
    with pytest.raises(ValueError, match="NaN"):
        model.transform(X)
    with pytest.raises(ValueError, match="features"):
        model.transform(np.ones((3, 5)))


def test_huge_or_out_of_range_counts_and_penalties_are_named():
    X = make_data(20, 5, seed=18)
    for params in (dict(n_nonzero=2**70), dict(n_nonzero=[1, 2**70]), dict(n_nonzero=-(2**70))):
        with pytest.raises(ValueError, match="n_nonzero"):
            ElasticNetSPCA(2, **params).fit(X)
    with pytest.raises(ValueError, match="l1_penalty"):
        ElasticNetSPCA(2, l1_penalty=10**400).fit(X)
    # 2**70 is a valid (huge) penalty: every loading is 0, which is reported
    with pytest.warns(UserWarning, match="no non-zero loading"):
        model = ElasticNetSPCA(2, l1_penalty=2**70).fit(X)
    assert not model.components_.any()


@pytest.mark.parametrize(
    "l1_penalty, error", [("bogus", TypeError), (-1.0, ValueError), (np.nan, ValueError)]
)
def test_l1_penalty_is_checked_even_when_n_nonzero_replaces_it(l1_penalty, error):
    with pytest.raises(error, match="l1_penalty"):
        ElasticNetSPCA(2, n_nonzero=2, l1_penalty=l1_penalty).fit(make_data(20, 5, seed=23))


@pytest.mark.parametrize("standardize", [False, True])
def test_lasso_with_a_singular_gram_matrix_is_refused_up_front(standardize):
    """l2_penalty=0 with n ≤ d (or collinear features) has no unique lasso regressions."""
    wide = np.random.default_rng(19).standard_normal((4, 9))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # refused before any iteration, so no warning
        with pytest.raises(ValueError, match=r"l2_penalty=0 .*4 samples for 9 features"):
            ElasticNetSPCA(standardize=standardize, l2_penalty=0).fit(wide)
    collinear = make_data(30, 4, seed=20)
    collinear = np.column_stack([collinear, collinear[:, 0] - 2 * collinear[:, 1]])
    with pytest.raises(ValueError, match=r"l2_penalty=0 .*collinear"):
        ElasticNetSPCA(2, standardize=standardize, l2_penalty=0).fit(collinear)
    S = np.cov(collinear, rowvar=False)
    with pytest.raises(ValueError, match=r"l2_penalty=0 .*collinear"):
        ElasticNetSPCA(2, n_nonzero=2, l2_penalty=0).fit_gram(S)
    # a small ridge makes the same problems well posed
    model = ElasticNetSPCA(2, n_nonzero=2, standardize=standardize).fit(collinear)
    assert model.n_nonzero_.tolist() == [2, 2]


# ---------------------------------------------------------------------------
# 8b. Units of the data and extreme scales
# ---------------------------------------------------------------------------


def assert_scaled(actual, reference, factor):
    """``actual == factor · reference`` to 1e-6 of its largest entry."""
    expected = factor * np.asarray(reference, dtype=float)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=1e-6 * np.abs(expected).max())


@pytest.mark.parametrize("c", [1e-8, 1e-3, 255.0, 1e8], ids=lambda c: f"{c:g}")
@pytest.mark.parametrize("standardize", [False, True])
@pytest.mark.parametrize("mode", ["l1_penalty", "n_nonzero"])
def test_fit_of_rescaled_data_is_the_fit_rescaled(mode, standardize, c):
    """With the covariance matrix, both penalties are variances: they scale with c²."""
    X = zht_sample(300, seed=21)
    unit = 1.0 if standardize else c**2  # the units of the Gram matrix and the penalties
    if mode == "l1_penalty":
        penalty = [0.3, 0.2] if standardize else [60.0, 30.0]
        params, params_scaled = (
            dict(l1_penalty=penalty),
            dict(l1_penalty=np.multiply(penalty, unit)),
        )
    else:
        params, params_scaled = dict(n_nonzero=[4, 4]), {"n_nonzero": [4, 4]}
    ridge = 0.5 if standardize else 20.0
    reference = ElasticNetSPCA(2, standardize=standardize, l2_penalty=ridge, **params).fit(X)
    scaled = ElasticNetSPCA(
        2, standardize=standardize, l2_penalty=ridge * unit, **params_scaled
    ).fit(c * X)
    assert reference.converged_ and reference.n_nonzero_.min() < 10  # sparse, and converged
    np.testing.assert_array_equal(scaled.components_ != 0, reference.components_ != 0)
    assert_scaled(scaled.components_, reference.components_, 1.0)
    for name in ("explained_variance_ratio_", "pca_explained_variance_ratio_"):
        assert_scaled(getattr(scaled, name), getattr(reference, name), 1.0)
    for name in ("explained_variance_", "l1_penalty_", "objective_history_"):
        assert_scaled(getattr(scaled, name), getattr(reference, name), unit)
    assert_scaled(scaled.mean_, reference.mean_, c)
    if standardize:
        assert_scaled(scaled.scale_, reference.scale_, c)
    for name in ("n_iter_", "converged_", "n_components_", "n_samples_"):
        assert getattr(scaled, name) == getattr(reference, name), name
    np.testing.assert_array_equal(scaled.n_nonzero_, reference.n_nonzero_)
    assert_scaled(scaled.transform(c * X), reference.transform(X), 1.0 if standardize else c)


def test_standardize_a_column_whose_variance_underflows():
    """A column times 1e-170 varies, although its variance underflows to 0.

    Standardised, the data are those of the column before the change: the
    reference is fit_gram on NumPy's correlation matrix of that data.
    """
    X = np.random.default_rng(0).uniform(0.1, 1.0, (12, 5))
    X_tiny = X.copy()
    X_tiny[:, 0] *= 1e-170
    reference = ElasticNetSPCA(2, n_nonzero=2).fit_gram(np.corrcoef(X, rowvar=False))
    model = ElasticNetSPCA(2, n_nonzero=2, standardize=True).fit(X_tiny)
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-10)
    np.testing.assert_allclose(model.explained_variance_, reference.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(
        model.scale_ / [1e-170, 1, 1, 1, 1], np.std(X, axis=0, ddof=1), rtol=1e-12
    )
    # the default penalty works as well (it used to end in an IndexError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # l1_penalty=1 empties some components
        default = ElasticNetSPCA(standardize=True).fit(X_tiny)
    assert np.all(np.isfinite(default.components_)) and default.components_.shape == (5, 5)


def test_data_of_tiny_scale_give_the_fit_or_a_true_message():
    """At 1e-170 every variance underflows; nothing there is constant."""
    X = np.random.default_rng(0).uniform(0.1, 1.0, (12, 5))
    tiny = 1e-170 * X
    # with n_nonzero and no ridge, no parameter carries units: the fit of X
    reference = ElasticNetSPCA(2, n_nonzero=2, l2_penalty=0).fit(X)
    model = ElasticNetSPCA(2, n_nonzero=2, l2_penalty=0).fit(tiny)
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-10)
    np.testing.assert_allclose(
        model.explained_variance_ratio_, reference.explained_variance_ratio_, rtol=1e-10
    )
    assert model.n_iter_ == reference.n_iter_
    # l1_penalty=1 is more than 1e300 times every variance: said so, in those words
    with pytest.raises(ValueError, match="l1_penalty is out of scale with X") as error:
        ElasticNetSPCA(2).fit(tiny)
    assert "constant" not in str(error.value)


def test_data_of_large_scale_are_not_reported_as_a_large_gram_matrix():
    """The covariance of 1e100 X squares to 1e400: X itself is fine."""
    X = make_data(30, 4, seed=22)
    reference = ElasticNetSPCA(2, l1_penalty=0.5).fit(X)
    model = ElasticNetSPCA(2, l1_penalty=0.5e200, l2_penalty=1e-6 * 1e200).fit(1e100 * X)
    np.testing.assert_allclose(model.components_, reference.components_, atol=1e-8)
    np.testing.assert_allclose(
        model.explained_variance_ratio_, reference.explained_variance_ratio_, rtol=1e-8
    )


# ---------------------------------------------------------------------------
# 9. scikit-learn's estimator checks
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Pitprops: the published example of Zou, Hastie and Tibshirani (2006)
# ---------------------------------------------------------------------------

# ZHT (2006), pitprops with lambda_1 = (0.06, 0.16, 0.1, 0.5, 0.5, 0.5) on the correlation
# matrix: the numbers of non-zero loadings and the adjusted variances (%) they publish.
PITPROPS_L1 = [0.06, 0.16, 0.1, 0.5, 0.5, 0.5]
PITPROPS_COUNTS = [7, 4, 4, 1, 1, 1]
PITPROPS_ADJUSTED = [28.0, 14.0, 13.3, 7.4, 6.8, 6.2]


def test_pitprops_with_zht_penalties_gives_the_published_table():
    R = load_pitprops().data
    spca = ElasticNetSPCA(n_components=6, l1_penalty=PITPROPS_L1).fit_gram(R)
    assert spca.converged_
    np.testing.assert_array_equal(spca.n_nonzero_, PITPROPS_COUNTS)
    # 0.05: ZHT print the percentages to one decimal
    np.testing.assert_allclose(
        100 * spca.explained_variance_ratio_, PITPROPS_ADJUSTED, rtol=0, atol=0.05
    )
    # the adjusted variances themselves, by Cholesky of V^T R V
    np.testing.assert_allclose(
        spca.explained_variance_ratio_,
        adjusted_variance_cholesky(R, spca.components_.T) / 13,
        rtol=1e-10,
    )
    # a tighter tolerance moves the loadings, not the published percentages
    tight = ElasticNetSPCA(n_components=6, l1_penalty=PITPROPS_L1, tol=1e-6).fit_gram(R)
    np.testing.assert_allclose(
        100 * tight.explained_variance_ratio_, PITPROPS_ADJUSTED, rtol=0, atol=0.05
    )


def test_pitprops_with_zht_counts_is_close_to_the_published_table():
    R = load_pitprops().data
    spca = ElasticNetSPCA(n_components=6, n_nonzero=PITPROPS_COUNTS).fit_gram(R)
    np.testing.assert_array_equal(spca.n_nonzero_, PITPROPS_COUNTS)
    # The count stops each path at the knot where one more variable would enter, a smaller
    # lambda_1 than ZHT's: each percentage moves by less than 0.3 points, the total by
    # less than the rounding of the published total (75.8 %).
    np.testing.assert_allclose(
        100 * spca.explained_variance_ratio_, PITPROPS_ADJUSTED, rtol=0, atol=0.3
    )
    assert abs(100 * spca.explained_variance_ratio_.sum() - 75.8) < 0.05
    assert np.all(spca.l1_penalty_ < PITPROPS_L1)


# ---------------------------------------------------------------------------
# The truncated power method (Yuan and Zhang, 2013) and projection deflation
# ---------------------------------------------------------------------------


def best_sparse_variance(S, m):
    """Exact L0 optimum: the largest top eigenvalue of an m × m principal submatrix."""
    d = S.shape[0]
    return max(
        np.linalg.eigvalsh(S[np.ix_(support, support)])[-1]
        for support in itertools.combinations(range(d), m)
    )


def spiked_covariance(n_samples, seed):
    """Sample covariance of two planted sparse spikes in 40 dimensions, supports 0..4, 5..9."""
    rng = np.random.default_rng(seed)
    u1 = np.r_[np.ones(5), np.zeros(35)] / np.sqrt(5)
    u2 = np.r_[np.zeros(5), [1.0, -1.0, 1.0, -1.0, 1.0], np.zeros(30)] / np.sqrt(5)
    scores = rng.standard_normal((n_samples, 2)) * np.sqrt([6.0, 3.0])
    X = scores @ np.vstack([u1, u2]) + rng.standard_normal((n_samples, 40))
    return np.cov(X, rowvar=False)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_truncated_power_method_recovers_planted_supports(seed):
    S = spiked_covariance(400, seed)
    components, _ = truncated_power_method(S, 5, n_components=2)
    assert set(np.flatnonzero(components[0])) == set(range(5))
    assert set(np.flatnonzero(components[1])) == set(range(5, 10))
    np.testing.assert_allclose(np.linalg.norm(components, axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize("m", range(1, 14))
def test_truncated_power_method_reaches_the_l0_optimum_on_wine(m):
    R = np.corrcoef(load_wine().data, rowvar=False)
    components, _ = truncated_power_method(R, m)
    v = components[0]
    assert np.count_nonzero(v) == m
    np.testing.assert_allclose(v @ R @ v, best_sparse_variance(R, m), rtol=1e-9)


def test_truncated_power_method_ends_on_the_top_eigenvector_of_its_support():
    R = load_pitprops().data
    for m in (3, 4, 7):
        components, _ = truncated_power_method(R, m)
        support = np.flatnonzero(components[0])
        vectors = np.linalg.eigh(R[np.ix_(support, support)])[1]
        top = vectors[:, -1] * np.sign(vectors[np.argmax(np.abs(vectors[:, -1])), -1])
        np.testing.assert_allclose(components[0][support], top, atol=1e-8)


def test_truncated_power_iteration_never_decreases_the_variance():
    R = load_pitprops().data
    start = np.zeros(13)
    start[[4, 10, 11, 12]] = 0.5  # a poor start: ovensg, clear, knots, diaknot
    x = start
    variances = [x @ R @ x]
    for _ in range(30):
        x = truncate(R @ x, 4)  # the iteration written out, one step at a time
        variances.append(x @ R @ x)
    assert np.all(np.diff(variances) >= -1e-12)
    assert variances[-1] > variances[0] + 0.5
    from_function, _, _ = truncated_power_iteration(R, start, 4, 30, 0.0)
    np.testing.assert_allclose(from_function, x, atol=1e-12)


def test_truncate_keeps_the_largest_entries_and_normalises():
    x = np.array([0.1, -3.0, 2.0, 0.0, -2.5])
    np.testing.assert_allclose(truncate(x, 2), np.array([0, -3.0, 0, 0, -2.5]) / np.hypot(3, 2.5))
    np.testing.assert_allclose(truncate(x, 5), x / np.linalg.norm(x))


def test_projection_deflation_stays_psd_where_hotelling_does_not():
    R = np.corrcoef(load_wine().data, rowvar=False)
    components, _ = truncated_power_method(R, 4)
    v = components[0]
    hotelling = R - (v @ R @ v) * np.outer(v, v)
    projected = projection_deflation(R, v)
    P = np.eye(13) - np.outer(v, v)
    np.testing.assert_allclose(projected, P @ R @ P, atol=1e-12)
    assert np.linalg.eigvalsh(hotelling)[0] < -0.05
    assert np.linalg.eigvalsh(projected)[0] > -1e-12
    np.testing.assert_allclose(projected @ v, 0.0, atol=1e-12)


def test_later_components_are_those_of_the_explicitly_deflated_matrix():
    R = load_pitprops().data
    components, n_iter = truncated_power_method(R, [7, 4, 4, 1, 1, 1], n_components=6)
    np.testing.assert_array_equal(np.count_nonzero(components, axis=1), [7, 4, 4, 1, 1, 1])
    assert n_iter.shape == (6,) and np.all(n_iter >= 1)
    assert np.all(np.abs(components).max(axis=1) == components.max(axis=1))  # sign convention
    deflated = R.copy()
    for j, count in enumerate([7, 4, 4, 1, 1, 1]):
        one, _ = truncated_power_method(deflated, count)
        np.testing.assert_allclose(one[0], components[j], atol=1e-8)
        P = np.eye(13) - np.outer(one[0], one[0])
        deflated = P @ deflated @ P


@pytest.mark.parametrize("c", [1e-150, 3.7, 1e150])
def test_truncated_power_method_does_not_depend_on_the_scale(c):
    R = load_pitprops().data
    reference, n_iter = truncated_power_method(R, 4, n_components=2)
    scaled, scaled_iter = truncated_power_method(c * R, 4, n_components=2)
    np.testing.assert_allclose(scaled, reference, atol=1e-10)
    np.testing.assert_array_equal(scaled_iter, n_iter)


def test_truncated_power_method_warns_when_it_stops_at_max_iter():
    S = spiked_covariance(100, 0)
    with pytest.warns(ConvergenceWarning, match="truncated_power_method"):
        truncated_power_method(S, 5, max_iter=1, tol=0.0)


@pytest.mark.parametrize(
    "kwargs, error, name",
    [
        ({"S": np.ones((3, 4))}, ValueError, "S"),
        ({"S": np.array([[1.0, 0.5], [0.0, 1.0]])}, ValueError, "S"),
        ({"S": np.array([[1.0, 2.0], [2.0, 1.0]])}, ValueError, "S"),
        ({"S": np.array([[1.0, np.nan], [np.nan, 1.0]])}, ValueError, "S"),
        ({"n_nonzero": 0}, ValueError, "n_nonzero"),
        ({"n_nonzero": 5}, ValueError, "n_nonzero"),
        ({"n_nonzero": 1.5}, TypeError, "n_nonzero"),
        ({"n_nonzero": True}, TypeError, "n_nonzero"),
        ({"n_nonzero": [1, 2, 3]}, ValueError, "n_nonzero"),
        ({"n_components": 5}, ValueError, "n_components"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1.0}, ValueError, "tol"),
    ],
)
def test_truncated_power_method_bad_input_raises_naming_it(kwargs, error, name):
    arguments = {"S": np.eye(4) + 0.5, "n_nonzero": 2, "n_components": 2} | kwargs
    with pytest.raises(error, match=name):
        truncated_power_method(**arguments)


@pytest.mark.parametrize("max_iter", [1, 3, 7])
def test_truncated_power_method_with_tol_zero_runs_exactly_max_iter(max_iter):
    S = spiked_covariance(100, 0)
    with pytest.warns(ConvergenceWarning, match=f"stopped after max_iter={max_iter}"):
        _, n_iter = truncated_power_method(S, 5, n_components=2, max_iter=max_iter, tol=0.0)
    np.testing.assert_array_equal(n_iter, [max_iter, max_iter])
