"""Tests of :class:`pcalib.PPCA` (chapter 4): closed form, EM, missing data, sampling.

Expected values come from independent sources only: SciPy's
``multivariate_normal.logpdf`` under ``C = W Wᵀ + σ² I`` built here, NumPy
eigendecompositions of the sample covariance computed here (the closed form
``W = U (Λ - σ²)^½``, ``σ²`` the mean of the discarded eigenvalues), the
Gaussian conditioning formulas written out with NumPy, scikit-learn's ``PCA``
(``score``, ``score_samples``, ``noise_variance_``, ``get_covariance``) and
``FactorAnalysis``, the parameters that generated the data, and Monte Carlo
statistics. None of them is produced by pcalib itself.
"""

import warnings
from collections import namedtuple
from functools import partial

import helpers
import numpy as np
import pandas as pd
import pytest
import scipy.linalg
import scipy.stats
from helpers import assert_scaled
from sklearn.base import clone
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA as SklearnPCA
from sklearn.decomposition import FactorAnalysis
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from pcalib import PPCA
from pcalib.ppca import missing_e_step, missing_m_step

# Well separated columns (standard deviations 4 down to 0.5), the mean in [-3, 3].
make_data = partial(helpers.make_data, scales=lambda d: np.geomspace(4.0, 0.5, d), offset=3.0)

EPS = np.finfo(np.float64).eps

Truth = namedtuple("Truth", "W mean sigma2")


# ---------------------------------------------------------------------------
# Independent references and helpers
# ---------------------------------------------------------------------------


def make_ppca_data(n_samples, n_features=6, n_components=2, sigma2=0.25, seed=0, scales=None):
    """Draws from a PPCA model with known ``W``, ``μ`` and ``σ²`` (returned as the truth)."""
    rng = np.random.default_rng(seed)
    if scales is None:
        scales = np.linspace(2.0, 1.0, n_components)
    W = rng.standard_normal((n_features, n_components)) * scales
    mean = rng.uniform(-2.0, 2.0, n_features)
    Z = rng.standard_normal((n_samples, n_components))
    noise = np.sqrt(sigma2) * rng.standard_normal((n_samples, n_features))
    return Z @ W.T + mean + noise, Truth(W, mean, sigma2)


def hide_at_random(X, fraction, seed):
    """A copy of ``X`` with about ``fraction`` of its entries replaced by NaN.

    Rows or columns left with no observed entry are refused by PPCA, so the
    draw is checked not to produce one.
    """
    mask = np.random.default_rng(seed).random(X.shape) < fraction
    assert not mask.all(axis=1).any() and not mask.all(axis=0).any()
    return np.where(mask, np.nan, X), mask


def reference_eigh(X, ddof=0):
    """All eigenpairs (decreasing) of ``S = X_cᵀ X_c / (n - ddof)`` by NumPy."""
    X_centered = X - X.mean(axis=0)
    S = X_centered.T @ X_centered / (X.shape[0] - ddof)
    eigenvalues, U = np.linalg.eigh(S)
    return eigenvalues[::-1], U[:, ::-1]


def reference_closed_form(X, k, ddof=0, keep=None):
    """Tipping and Bishop's stationary point from eigenvectors ``keep`` (default: the top k).

    ``σ²`` is the mean of *all* the other ``d - len(keep)`` eigenvalues of the
    ``d × d`` covariance (zeros included when ``d > n``), and
    ``W = U_keep (Λ_keep - σ² I)^½``.
    """
    eigenvalues, U = reference_eigh(X, ddof)
    keep = np.arange(k) if keep is None else np.asarray(keep)
    discarded = np.setdiff1d(np.arange(X.shape[1]), keep)
    sigma2 = eigenvalues[discarded].mean()
    W = U[:, keep] * np.sqrt(eigenvalues[keep] - sigma2)
    return Truth(W, X.mean(axis=0), sigma2), eigenvalues, U


def model_covariance(W, sigma2):
    """``C = W Wᵀ + σ² I``, built here."""
    return W @ W.T + sigma2 * np.eye(W.shape[0])


def log_likelihood(X, mean, W, sigma2):
    """``Σ_n log N(x_n | μ, W Wᵀ + σ² I)`` by SciPy."""
    return float(
        np.sum(scipy.stats.multivariate_normal(mean, model_covariance(W, sigma2)).logpdf(X))
    )


def observed_log_likelihoods(X, mean, W, sigma2):
    """``log N(x_O | μ_O, C_OO)`` of each row by SciPy, ``O`` its observed coordinates."""
    C = model_covariance(W, sigma2)
    out = np.empty(X.shape[0])
    for i, row in enumerate(X):
        o = ~np.isnan(row)
        out[i] = scipy.stats.multivariate_normal(mean[o], C[np.ix_(o, o)]).logpdf(row[o])
    return out


def align_signs(A, B):
    """``A`` with each column's sign flipped to point the same way as ``B``'s."""
    signs = np.sign(np.sum(A * B, axis=0))
    assert np.all(signs != 0), "columns are orthogonal: not the same up to sign"
    return A * signs


def relative_error(A, B):
    """``max |A - B| / max |B|``."""
    return np.abs(A - B).max() / np.abs(B).max()


def fitted_state(model):
    """Copies of every fitted attribute, to compare before and after a failed refit."""
    return {
        name: np.copy(value) if isinstance(value, np.ndarray) else value
        for name, value in vars(model).items()
        if name.endswith("_")
    }


# ---------------------------------------------------------------------------
# 1. The closed form equals an independent eigendecomposition
# ---------------------------------------------------------------------------

# tall (n > d): the d × d covariance; wide (d > n): pcalib goes through the Gram matrix
CLOSED_FORM_SHAPES = [(200, 6, 2), (60, 8, 3), (15, 40, 3), (12, 30, 1), (9, 9, 4)]


@pytest.mark.parametrize("shape", CLOSED_FORM_SHAPES, ids=str)
@pytest.mark.parametrize("ddof", [0, 1])
def test_closed_form_equals_numpy_eigh(shape, ddof):
    n, d, k = shape
    X = make_data(n, d, seed=n + d)
    model = PPCA(n_components=k, ddof=ddof).fit(X)
    ref, eigenvalues, U = reference_closed_form(X, k, ddof=ddof)
    assert model.solver_ == "closed_form" and model.n_iter_ == 0 and model.converged_ is True
    np.testing.assert_allclose(model.mean_, ref.mean, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(model.noise_variance_, ref.sigma2, rtol=1e-10)
    np.testing.assert_allclose(model.explained_variance_, eigenvalues[:k], rtol=1e-10)
    np.testing.assert_allclose(
        align_signs(model.W_, ref.W), ref.W, rtol=0, atol=1e-10 * np.abs(ref.W).max()
    )
    np.testing.assert_allclose(
        model.W_ @ model.W_.T, ref.W @ ref.W.T, rtol=0, atol=1e-10 * eigenvalues[0]
    )
    np.testing.assert_allclose(
        align_signs(model.components_.T, U[:, :k]), U[:, :k], rtol=0, atol=1e-10
    )
    # the training log-likelihood at the fit (with this ddof's S in the trace term)
    X_centered = X - X.mean(axis=0)
    S = X_centered.T @ X_centered / (n - ddof)
    C = model_covariance(ref.W, ref.sigma2)
    _, log_det = np.linalg.slogdet(C)
    expected = -0.5 * n * (d * np.log(2 * np.pi) + log_det + np.trace(np.linalg.solve(C, S)))
    assert model.log_likelihood_history_.shape == (1,)
    np.testing.assert_allclose(model.log_likelihood_history_[0], expected, rtol=1e-10)
    if ddof == 0:
        np.testing.assert_allclose(
            model.log_likelihood_history_[0],
            log_likelihood(X, ref.mean, ref.W, ref.sigma2),
            rtol=1e-10,
        )


def test_wide_data_sigma2_averages_all_discarded_directions():
    # With d > n the centred data has rank n - 1 < d: the d - k discarded
    # eigenvalues include d - n + 1 zeros, and the ML σ² averages all of them.
    # scikit-learn's noise_variance_ averages only min(n, d) - k of them.
    n, d, k = 15, 40, 3
    X = make_data(n, d, seed=1)
    eigenvalues, _ = reference_eigh(X, ddof=1)
    discarded_sum = eigenvalues[k:].sum()
    model = PPCA(n_components=k, ddof=1).fit(X)
    np.testing.assert_allclose(model.noise_variance_, discarded_sum / (d - k), rtol=1e-10)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    np.testing.assert_allclose(sk.noise_variance_, discarded_sum / (n - k), rtol=1e-10)
    np.testing.assert_allclose(
        model.noise_variance_, sk.noise_variance_ * (n - k) / (d - k), rtol=1e-10
    )


def test_wide_path_matches_tall_path_on_zero_padded_data():
    # the same covariance spectrum reached through S (tall) and G (wide): X and
    # X padded with zero columns have the same non-zero eigenvalues
    X = make_data(12, 5, seed=2)
    X_wide = np.hstack([X, np.zeros((12, 15))])
    k = 2
    tall = PPCA(n_components=k).fit(X)
    wide = PPCA(n_components=k).fit(X_wide)
    eigenvalues, _ = reference_eigh(X)
    np.testing.assert_allclose(wide.explained_variance_, eigenvalues[:k], rtol=1e-10)
    np.testing.assert_allclose(tall.explained_variance_, eigenvalues[:k], rtol=1e-10)
    np.testing.assert_allclose(wide.noise_variance_, eigenvalues[k:].sum() / (20 - k), rtol=1e-10)
    np.testing.assert_allclose(tall.noise_variance_, eigenvalues[k:].sum() / (5 - k), rtol=1e-10)


# ---------------------------------------------------------------------------
# 2. Likelihoods: SciPy's Gaussian and scikit-learn's PCA
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [{}, {"ddof": 1}, {"solver": "em", "random_state": 0}, {"n_components": 4}],
    ids=repr,
)
def test_score_samples_equals_scipy_logpdf(params):
    X, _ = make_ppca_data(150, n_features=6, seed=3)
    X_test, _ = make_ppca_data(40, n_features=6, seed=4)
    model = PPCA(**{"n_components": 2, **params}).fit(X)
    C = model_covariance(model.W_, model.noise_variance_)
    gaussian = scipy.stats.multivariate_normal(model.mean_, C)
    for data in (X, X_test, X_test[:1]):
        expected = np.atleast_1d(gaussian.logpdf(data))
        np.testing.assert_allclose(model.score_samples(data), expected, rtol=1e-11)
        np.testing.assert_allclose(model.score(data), expected.mean(), rtol=1e-11)
    assert isinstance(model.score(X), float)


@pytest.mark.parametrize("k", [1, 2, 4])
def test_ddof1_equals_sklearn_pca(k):
    X, _ = make_ppca_data(120, n_features=6, seed=5)
    X_test, _ = make_ppca_data(30, n_features=6, seed=6)
    model = PPCA(n_components=k, ddof=1).fit(X)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    np.testing.assert_allclose(model.noise_variance_, sk.noise_variance_, rtol=1e-10)
    np.testing.assert_allclose(model.get_covariance(), sk.get_covariance(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.get_precision(), sk.get_precision(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.explained_variance_, sk.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(
        align_signs(model.components_.T, sk.components_.T), sk.components_.T, atol=1e-10
    )
    for data in (X, X_test):
        np.testing.assert_allclose(model.score_samples(data), sk.score_samples(data), rtol=1e-10)
        np.testing.assert_allclose(model.score(data), sk.score(data), rtol=1e-10)


def test_ddof0_differs_from_sklearn_by_the_n_over_n_minus_1_factor():
    n, k = 40, 2
    X, _ = make_ppca_data(n, n_features=5, seed=7)
    ml = PPCA(n_components=k).fit(X)
    unbiased = PPCA(n_components=k, ddof=1).fit(X)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    np.testing.assert_allclose(
        ml.noise_variance_, unbiased.noise_variance_ * (n - 1) / n, rtol=1e-12
    )
    np.testing.assert_allclose(ml.noise_variance_, sk.noise_variance_ * (n - 1) / n, rtol=1e-10)
    factor = (n - 1) / n
    np.testing.assert_allclose(
        ml.get_covariance(), sk.get_covariance() * factor, rtol=1e-10, atol=1e-13
    )
    np.testing.assert_allclose(ml.explained_variance_, sk.explained_variance_ * factor, rtol=1e-10)
    # the convention changes the score visibly; on the training data the
    # ddof=0 fit is the maximum-likelihood one, so it scores strictly higher.
    # Scaling C by n/(n-1) away from the maximum costs about d / (4 n²) ≈ 8e-4
    # per sample (second order in 1/n), far above rounding
    assert ml.score(X) - sk.score(X) > 1e-4
    assert abs(ml.score(X) - sk.score(X)) > 1e6 * EPS * abs(sk.score(X))


def test_cross_validated_score_equals_sklearn_pca():
    # PPCA.score is a valid scorer: choosing k by held-out likelihood with
    # ddof=1 gives the same numbers as scikit-learn's PCA
    X, _ = make_ppca_data(100, n_features=6, seed=8)
    cv = KFold(5, shuffle=True, random_state=0)
    for k in (1, 2, 3):
        ours = cross_val_score(PPCA(n_components=k, ddof=1), X, cv=cv)
        theirs = cross_val_score(SklearnPCA(n_components=k, svd_solver="full"), X, cv=cv)
        np.testing.assert_allclose(ours, theirs, rtol=1e-10)


def test_held_out_likelihood_picks_the_true_dimension():
    true_k = 3
    X, _ = make_ppca_data(
        1200,
        n_features=10,
        n_components=true_k,
        sigma2=0.3,
        seed=9,
        scales=np.array([3.0, 2.5, 2.0]),
    )
    X_train, X_test = X[:600], X[600:]
    scores = [PPCA(n_components=k).fit(X_train).score(X_test) for k in range(1, 10)]
    assert int(np.argmax(scores)) + 1 == true_k


def test_factor_analysis_likelihood_is_at_least_ppca():
    # FactorAnalysis has one noise variance per feature, so it nests PPCA: its
    # maximum training likelihood is at least PPCA's. On data from a PPCA model
    # its noise variances all estimate the same σ².
    X, truth = make_ppca_data(1000, n_features=6, seed=11, sigma2=0.4)
    ppca = PPCA(n_components=2).fit(X)
    fa = FactorAnalysis(n_components=2, tol=1e-8, max_iter=10000, svd_method="lapack").fit(X)
    # FactorAnalysis stops on its own tolerance: allow a rounding-size shortfall
    assert fa.score(X) >= ppca.score(X) - 1e-9
    # Monte Carlo: σ² pools (d - k) n squared residuals, relative sd about
    # sqrt(2 / (n (d - k))) ≈ 0.02; FactorAnalysis estimates each noise variance
    # from one column, traded off against that column's loadings, so each is
    # much noisier (up to ~25% here) while their average stays close to σ²
    np.testing.assert_allclose(ppca.noise_variance_, truth.sigma2, rtol=0.1)
    np.testing.assert_allclose(fa.noise_variance_.mean(), ppca.noise_variance_, rtol=0.1)
    np.testing.assert_allclose(fa.noise_variance_, ppca.noise_variance_, rtol=0.4)


# ---------------------------------------------------------------------------
# 3. Maximum likelihood: the closed form is the maximum, other subsets saddles
# ---------------------------------------------------------------------------


def test_perturbations_never_increase_the_likelihood():
    X, _ = make_ppca_data(150, n_features=6, seed=12)
    model = PPCA(n_components=2).fit(X)
    mean, W, sigma2 = model.mean_, model.W_, model.noise_variance_
    best = log_likelihood(X, mean, W, sigma2)
    rng = np.random.default_rng(13)
    scale = 1e-3 * np.abs(W).max()
    for _ in range(20):
        assert log_likelihood(X, mean, W + scale * rng.standard_normal(W.shape), sigma2) < best
        assert log_likelihood(X, mean + scale * rng.standard_normal(mean.shape), W, sigma2) < best
    for factor in (0.9, 0.99, 0.999, 1.001, 1.01, 1.1):
        assert log_likelihood(X, mean, W, sigma2 * factor) < best
        assert log_likelihood(X, mean, W * factor, sigma2) < best
    # any rotation W R is the same model: equal likelihood
    for _ in range(5):
        R = scipy.stats.ortho_group.rvs(2, random_state=rng)
        np.testing.assert_allclose(
            (W @ R) @ (W @ R).T, W @ W.T, rtol=0, atol=1e-12 * np.abs(W).max() ** 2
        )
        np.testing.assert_allclose(log_likelihood(X, mean, W @ R, sigma2), best, rtol=1e-13)


@pytest.mark.parametrize("keep", [[0, 2], [1, 2], [1], [2]], ids=str)
def test_other_eigenvectors_give_saddle_points_of_lower_likelihood(keep):
    # a gently decaying spectrum, rotated, so that eigenvalues other than the
    # top ones still exceed the mean of the rest (the stationary point exists)
    rng = np.random.default_rng(14)
    rotation = scipy.stats.ortho_group.rvs(6, random_state=rng)
    scales = np.array([2.0, 1.8, 1.6, 1.0, 0.9, 0.8])
    X = (rng.standard_normal((400, 6)) * scales) @ rotation.T + rng.uniform(-1, 1, 6)
    k = len(keep)
    ml, eigenvalues, U = reference_closed_form(X, k)
    other, _, _ = reference_closed_form(X, k, keep=keep)
    assert np.all(eigenvalues[keep] > other.sigma2)
    best = log_likelihood(X, ml.mean, ml.W, ml.sigma2)
    np.testing.assert_allclose(PPCA(n_components=k).fit(X).score(X) * 400, best, rtol=1e-12)
    value = log_likelihood(X, other.mean, other.W, other.sigma2)
    assert value < best
    # a stationary point that is not a maximum: turning the last column
    # towards a skipped eigenvector of larger eigenvalue raises the likelihood ...
    skipped = min(set(range(k + 1)) - set(keep))
    W_up = other.W.copy()
    W_up[:, -1] += 1e-2 * np.linalg.norm(W_up[:, -1]) * U[:, skipped]
    assert log_likelihood(X, other.mean, W_up, other.sigma2) > value
    # ... while changing the length of a column, or σ², lowers it
    for factor in (0.99, 1.01):
        W_scaled = other.W * np.r_[np.ones(k - 1), factor]
        assert log_likelihood(X, other.mean, W_scaled, other.sigma2) < value
        assert log_likelihood(X, other.mean, other.W, other.sigma2 * factor) < value


# ---------------------------------------------------------------------------
# 4. EM: converges to the closed form, monotone, warns at max_iter
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [15, 16])
@pytest.mark.parametrize("ddof", [0, 1])
def test_em_converges_to_the_closed_form(seed, ddof):
    X, _ = make_ppca_data(200, n_features=6, seed=seed)
    k = 2
    ref, _, _ = reference_closed_form(X, k, ddof=ddof)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        em = PPCA(
            n_components=k, solver="em", ddof=ddof, tol=1e-14, max_iter=100_000, random_state=seed
        ).fit(X)
    assert em.solver_ == "em" and em.n_iter_ > 1
    np.testing.assert_allclose(em.mean_, ref.mean, rtol=1e-13, atol=1e-13)
    # EM converges linearly and the likelihood is flat to second order at its
    # maximum, so stopping at a rise of 1e-14 per entry leaves the parameters
    # about 1e-6 (σ²) to 1e-5 (W) away, relatively
    np.testing.assert_allclose(em.noise_variance_, ref.sigma2, rtol=1e-6)
    assert relative_error(em.W_ @ em.W_.T, ref.W @ ref.W.T) < 1e-4
    # pcalib rotates the EM result to the closed form's R = I representative
    assert relative_error(align_signs(em.W_, ref.W), ref.W) < 1e-4
    if ddof == 0:
        # the likelihood itself, being quadratic near the maximum, is much closer
        np.testing.assert_allclose(
            log_likelihood(X, em.mean_, em.W_, em.noise_variance_),
            log_likelihood(X, ref.mean, ref.W, ref.sigma2),
            rtol=1e-10,
        )


def test_em_with_generator_random_state_is_reproducible():
    X, _ = make_ppca_data(80, n_features=5, seed=17)
    a = PPCA(n_components=2, solver="em", random_state=3).fit(X)
    b = PPCA(n_components=2, solver="em", random_state=3).fit(X)
    c = PPCA(n_components=2, solver="em", random_state=np.random.default_rng(3)).fit(X)
    np.testing.assert_array_equal(a.W_, b.W_)
    np.testing.assert_array_equal(a.W_, c.W_)
    np.testing.assert_array_equal(a.log_likelihood_history_, b.log_likelihood_history_)


@pytest.mark.parametrize("seed", [18, 19, 20])
@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
def test_em_log_likelihood_never_decreases(seed, missing):
    X, _ = make_ppca_data(120, n_features=6, seed=seed)
    if missing:
        X, _ = hide_at_random(X, 0.2, seed)
    model = PPCA(
        n_components=2,
        solver="em",
        allow_missing=missing,
        tol=1e-10,
        max_iter=5000,
        random_state=seed,
    ).fit(X)
    history = model.log_likelihood_history_
    assert history.shape == (model.n_iter_ + 1,) and model.n_iter_ > 5
    # every step; the objective is a sum over n·d terms, so rounding can make
    # a converged step look like a fall of ~1e-15 relative
    assert np.all(np.diff(history) >= -1e-12 * np.abs(history).max())
    assert history[-1] > history[0]
    # the last entry is the likelihood of the returned model (SciPy)
    if missing:
        expected = observed_log_likelihoods(X, model.mean_, model.W_, model.noise_variance_).sum()
    else:
        expected = log_likelihood(X, model.mean_, model.W_, model.noise_variance_)
    np.testing.assert_allclose(history[-1], expected, rtol=1e-11)


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
def test_tol_zero_runs_exactly_max_iter_iterations(missing):
    X, _ = make_ppca_data(60, n_features=5, seed=22)
    if missing:
        X, _ = hide_at_random(X, 0.2, 22)
    params = dict(n_components=2, solver="em", allow_missing=missing, random_state=0)
    # premise: with a tolerance, EM stops well before 300 iterations
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        early = PPCA(tol=1e-4, max_iter=300, **params).fit(X)
    assert early.converged_ is True and early.n_iter_ < 200
    model = PPCA(tol=0, max_iter=300, **params)
    with pytest.warns(ConvergenceWarning, match=r"stopped after max_iter=300 iterations"):
        model.fit(X)
    assert model.n_iter_ == 300 and model.converged_ is False
    assert model.log_likelihood_history_.shape == (301,)
    # the same start: the first iterations are those of the run with a tolerance
    np.testing.assert_array_equal(
        model.log_likelihood_history_[: early.n_iter_ + 1], early.log_likelihood_history_
    )


@pytest.mark.parametrize(
    "params",
    [
        {"solver": "closed_form"},
        {"solver": "auto"},
        {"solver": "em", "random_state": 0},
        {"solver": "auto", "allow_missing": True, "random_state": 0},
    ],
    ids=["closed_form", "auto", "em", "missing"],
)
def test_history_has_one_entry_more_than_iterations(params):
    X, _ = make_ppca_data(80, n_features=5, seed=23)
    if params.get("allow_missing"):
        X, _ = hide_at_random(X, 0.1, 23)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = PPCA(n_components=2, **params).fit(X)
    history = model.log_likelihood_history_
    assert isinstance(model.n_iter_, int) and isinstance(model.converged_, bool)
    assert history.shape == (model.n_iter_ + 1,)
    assert model.converged_ is True
    if model.solver_ == "closed_form":
        # a direct solver: no iteration, and the history is the maximum itself
        assert model.n_iter_ == 0
        np.testing.assert_allclose(history[0], model.score(X) * 80, rtol=1e-12)
    else:
        assert model.n_iter_ > 1
        # the first entry is the random start, the last the returned parameters
        assert history[0] < history[-1]
        if not params.get("allow_missing"):
            np.testing.assert_allclose(history[-1], model.score(X) * 80, rtol=1e-11)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_noise_variance_equals_sklearn_pca_with_ddof_1_on_tall_data(k):
    X = make_data(70, 5, seed=24)
    sk = SklearnPCA(n_components=k, svd_solver="full").fit(X)
    closed_form = PPCA(n_components=k, ddof=1).fit(X)
    np.testing.assert_allclose(closed_form.noise_variance_, sk.noise_variance_, rtol=1e-10)
    # EM, stopped at a rise of 1e-13 per entry, is at the same maximum
    em = PPCA(n_components=k, solver="em", ddof=1, tol=1e-13, max_iter=100_000, random_state=0)
    em.fit(X)
    np.testing.assert_allclose(em.noise_variance_, sk.noise_variance_, rtol=1e-6)
    # with the maximum-likelihood ddof=0 it is smaller by (n - 1) / n
    ml = PPCA(n_components=k).fit(X)
    np.testing.assert_allclose(ml.noise_variance_, sk.noise_variance_ * 69 / 70, rtol=1e-10)


@pytest.mark.parametrize("missing", [False, True], ids=["complete", "missing"])
def test_em_warns_when_stopped_at_max_iter(missing):
    X, _ = make_ppca_data(60, n_features=5, seed=21)
    if missing:
        X, _ = hide_at_random(X, 0.2, 21)
    model = PPCA(n_components=2, solver="em", allow_missing=missing, max_iter=3, random_state=0)
    with pytest.warns(ConvergenceWarning, match=r"PPCA's EM stopped after max_iter=3 iterations"):
        model.fit(X)
    assert model.n_iter_ == 3 and model.converged_ is False
    assert model.log_likelihood_history_.shape == (4,)
    assert np.all(np.diff(model.log_likelihood_history_) > 0)


# ---------------------------------------------------------------------------
# 5. The posterior of z
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params", [{}, {"solver": "em", "random_state": 0}, {"n_components": 3}], ids=repr
)
def test_posterior_formulas(params):
    X, _ = make_ppca_data(100, n_features=6, seed=22)
    X_new, _ = make_ppca_data(7, n_features=6, seed=23)
    model = PPCA(**{"n_components": 2, **params}).fit(X)
    W, sigma2, mu = model.W_, model.noise_variance_, model.mean_
    k = W.shape[1]
    mean, cov = model.posterior(X_new)
    assert mean.shape == (7, k) and cov.shape == (7, k, k)
    # Tipping and Bishop: N(M⁻¹ Wᵀ (x - μ), σ² M⁻¹), M = Wᵀ W + σ² I
    M = W.T @ W + sigma2 * np.eye(k)
    expected_mean = np.linalg.solve(M, W.T @ (X_new - mu).T).T
    np.testing.assert_allclose(mean, expected_mean, rtol=1e-11, atol=1e-13)
    for slice_ in cov:
        np.testing.assert_allclose(slice_, sigma2 * np.linalg.inv(M), rtol=1e-11, atol=1e-14)
    # Gaussian conditioning in the joint (z, x): Cov(z, x) = Wᵀ, Cov(x) = C
    C = model_covariance(W, sigma2)
    conditional_mean = (W.T @ np.linalg.solve(C, (X_new - mu).T)).T
    conditional_cov = np.eye(k) - W.T @ np.linalg.solve(C, W)
    np.testing.assert_allclose(mean, conditional_mean, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cov[0], conditional_cov, rtol=1e-10, atol=1e-12)
    # the wrong form σ⁻² M circulating in notes is not it
    assert not np.allclose(cov[0], M / sigma2)
    np.testing.assert_allclose(model.transform(X_new), mean, rtol=1e-15, atol=0)


def test_posterior_with_missing_entries_conditions_on_the_observed_coordinates():
    X, _ = make_ppca_data(150, n_features=6, seed=24)
    X_missing, _ = hide_at_random(X, 0.2, 24)
    model = PPCA(n_components=2, allow_missing=True, random_state=0).fit(X_missing)
    W, sigma2, mu = model.W_, model.noise_variance_, model.mean_
    C = model_covariance(W, sigma2)
    rows = X_missing[:12]
    mean, cov = model.posterior(rows)
    for row, m, s in zip(rows, mean, cov, strict=True):
        o = ~np.isnan(row)
        C_oo = C[np.ix_(o, o)]
        expected_mean = W[o].T @ np.linalg.solve(C_oo, row[o] - mu[o])
        expected_cov = np.eye(2) - W[o].T @ np.linalg.solve(C_oo, W[o])
        np.testing.assert_allclose(m, expected_mean, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(s, expected_cov, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(model.transform(rows), mean)


def test_inverse_transform_is_W_z_plus_mean():
    X, _ = make_ppca_data(50, n_features=5, seed=25)
    model = PPCA(n_components=2).fit(X)
    Z = np.random.default_rng(26).standard_normal((4, 2))
    np.testing.assert_allclose(model.inverse_transform(Z), Z @ model.W_.T + model.mean_, rtol=1e-14)


def test_reconstruction_shrinks_pca_projection_by_lambda_minus_sigma2_over_lambda():
    # μ + W M⁻¹ Wᵀ (x - μ) = μ + U diag((λ - σ²)/λ) Uᵀ (x - μ): PCA's projection
    # with each component shrunk towards the mean
    X, _ = make_ppca_data(80, n_features=6, seed=27)
    k = 2
    ref, eigenvalues, U = reference_closed_form(X, k)
    model = PPCA(n_components=k).fit(X)
    shrink = (eigenvalues[:k] - ref.sigma2) / eigenvalues[:k]
    Xc = X - ref.mean
    expected = ref.mean + (Xc @ U[:, :k]) * shrink @ U[:, :k].T
    np.testing.assert_allclose(
        model.inverse_transform(model.transform(X)), expected, rtol=0, atol=1e-10 * np.abs(X).max()
    )


# ---------------------------------------------------------------------------
# 6. σ² → 0: the PCA projection
# ---------------------------------------------------------------------------


def test_vanishing_noise_gives_the_pca_projection():
    rng = np.random.default_rng(28)
    n, d, k = 100, 5, 2
    loadings = 2.0 * rng.standard_normal((k, d))
    low_rank = rng.standard_normal((n, k)) @ loadings + rng.uniform(-1, 1, d)
    noise = rng.standard_normal((n, d))
    errors = []
    for s in (1e-1, 1e-2, 1e-3, 1e-4):
        X = low_rank + s * noise
        model = PPCA(n_components=k).fit(X)
        pca = SklearnPCA(n_components=k, svd_solver="full").fit(X)
        errors.append(
            np.abs(
                model.inverse_transform(model.transform(X))
                - pca.inverse_transform(pca.transform(X))
            ).max()
        )
    errors = np.array(errors)
    assert np.all(np.diff(errors) < 0)
    # the gap is the shrinkage σ²/λ, and σ² ∝ s²: a factor ~100 per decade of s
    ratios = errors[:-1] / errors[1:]
    assert np.all((ratios > 50) & (ratios < 200))
    # at s = 1e-4, σ²/λ is about 1e-9: the two reconstructions agree to ~1e-8 of the data
    assert errors[-1] < 1e-6 * np.abs(low_rank).max()


# ---------------------------------------------------------------------------
# 7. Consistency: the estimates approach the generating model
# ---------------------------------------------------------------------------


def test_estimates_converge_to_the_truth_as_n_grows():
    d, k = 8, 2
    sigma2_errors, angles, covariance_errors = [], [], []
    for n in (200, 2000, 20000):
        rng = np.random.default_rng(29)
        W_true = rng.standard_normal((d, k)) * np.array([2.0, 1.0])
        mu_true = rng.uniform(-2, 2, d)
        sigma2_true = 0.5
        rng_data = np.random.default_rng(n)
        X = (
            rng_data.standard_normal((n, k)) @ W_true.T
            + mu_true
            + np.sqrt(sigma2_true) * rng_data.standard_normal((n, d))
        )
        model = PPCA(n_components=k).fit(X)
        sigma2_errors.append(abs(model.noise_variance_ - sigma2_true) / sigma2_true)
        angles.append(scipy.linalg.subspace_angles(model.W_, W_true).max())
        C_true = model_covariance(W_true, sigma2_true)
        covariance_errors.append(relative_error(model.get_covariance(), C_true))
    for errors in (sigma2_errors, angles, covariance_errors):
        assert np.all(np.diff(errors) < 0), errors
    # Monte Carlo: at n = 20000 the sd of σ²'s relative error is about
    # sqrt(2 / (n (d - k))) ≈ 0.004 and that of the angle about 0.01
    assert sigma2_errors[-1] < 0.02
    assert angles[-1] < 0.05
    assert covariance_errors[-1] < 0.05


# ---------------------------------------------------------------------------
# 8. Missing data
# ---------------------------------------------------------------------------


def test_imputation_beats_mean_imputation_and_nears_the_oracle():
    X, truth = make_ppca_data(
        300, n_features=10, n_components=3, sigma2=0.05, seed=31, scales=np.array([2.0, 1.5, 1.0])
    )
    X_missing, hidden = hide_at_random(X, 0.2, 31)
    model = PPCA(n_components=3, allow_missing=True, random_state=0).fit(X_missing)
    assert model.solver_ == "em"
    imputed = model.impute(X_missing)
    rmse = np.sqrt(np.mean((imputed[hidden] - X[hidden]) ** 2))
    column_means = np.nanmean(X_missing, axis=0)
    mean_imputed = np.where(hidden, column_means, X_missing)
    rmse_mean = np.sqrt(np.mean((mean_imputed[hidden] - X[hidden]) ** 2))
    # three strong factors make a hidden entry predictable from the row's
    # observed ones, which mean imputation ignores (here the ratio is ~0.15)
    assert rmse < 0.6 * rmse_mean
    # the conditional mean under the true model is the best possible imputation
    C = model_covariance(truth.W, truth.sigma2)
    oracle = X_missing.copy()
    for row in oracle:
        m = np.isnan(row)
        o = ~m
        residual = row[o] - truth.mean[o]
        row[m] = truth.mean[m] + C[np.ix_(m, o)] @ np.linalg.solve(C[np.ix_(o, o)], residual)
    rmse_oracle = np.sqrt(np.mean((oracle[hidden] - X[hidden]) ** 2))
    # estimation error of W, μ, σ² from 300 incomplete rows costs a little
    assert rmse_oracle <= rmse < 1.2 * rmse_oracle


def test_missing_em_on_complete_data_agrees_with_complete_em():
    X, _ = make_ppca_data(150, n_features=6, seed=32)
    ref, _, _ = reference_closed_form(X, 2)
    params = dict(n_components=2, solver="em", tol=1e-13, max_iter=100_000, random_state=0)
    complete = PPCA(**params).fit(X)
    flagged = PPCA(allow_missing=True, **params).fit(X)
    # with no NaN both run the complete-data EM from the same start
    np.testing.assert_array_equal(flagged.W_, complete.W_)
    assert flagged.noise_variance_ == complete.noise_variance_
    # and the missing-data EM steps (μ estimated jointly, per-row M_n), iterated
    # here on the same complete data until the rise is at rounding level, reach
    # the same maximum
    observed = np.ones(X.shape, dtype=bool)
    rng = np.random.default_rng(33)
    mean, W, sigma2 = X.mean(axis=0) + rng.standard_normal(6), rng.standard_normal((6, 2)), 1.0
    previous = -np.inf
    for _ in range(20_000):
        Ez, cov_z, ll = missing_e_step(X, observed, mean, W, sigma2)
        assert ll.sum() >= previous - 1e-12 * abs(ll.sum())
        if ll.sum() - previous < 1e-15 * X.size:
            break
        previous = ll.sum()
        mean, W, sigma2 = missing_m_step(X, observed, Ez, cov_z)
    np.testing.assert_allclose(sigma2, ref.sigma2, rtol=1e-8)
    # EM converges linearly, slowest where the likelihood is flattest: W along
    # its own column space, and μ along the top principal axis (curvature
    # n / λ₁), so μ is compared in the Mahalanobis metric of C
    assert relative_error(W @ W.T, ref.W @ ref.W.T) < 1e-6
    offset = mean - ref.mean
    C = model_covariance(ref.W, ref.sigma2)
    assert np.sqrt(offset @ np.linalg.solve(C, offset)) < 1e-4
    # the estimator's complete-data EM (tol=1e-13 per entry) is also at the maximum,
    # up to its stopping level: ~1e-5 relative on W, less on σ²
    assert relative_error(complete.W_ @ complete.W_.T, ref.W @ ref.W.T) < 1e-4
    np.testing.assert_allclose(complete.noise_variance_, ref.sigma2, rtol=1e-6)


def test_missing_fit_is_a_local_maximum_of_the_observed_likelihood():
    X, _ = make_ppca_data(100, n_features=5, seed=34)
    X_missing, _ = hide_at_random(X, 0.2, 34)
    model = PPCA(
        n_components=2, allow_missing=True, tol=1e-12, max_iter=100_000, random_state=0
    ).fit(X_missing)
    mean, W, sigma2 = model.mean_, model.W_, model.noise_variance_
    best = observed_log_likelihoods(X_missing, mean, W, sigma2).sum()
    np.testing.assert_allclose(model.log_likelihood_history_[-1], best, rtol=1e-11)
    rng = np.random.default_rng(35)
    scale = 1e-2 * np.abs(W).max()
    for _ in range(5):
        W_moved = W + scale * rng.standard_normal(W.shape)
        mean_moved = mean + scale * rng.standard_normal(5)
        assert observed_log_likelihoods(X_missing, mean, W_moved, sigma2).sum() < best
        assert observed_log_likelihoods(X_missing, mean_moved, W, sigma2).sum() < best
    for factor in (0.99, 1.01):
        assert observed_log_likelihoods(X_missing, mean, W, sigma2 * factor).sum() < best
    # the observed-data mean is estimated jointly: it is not the naive column mean
    assert not np.allclose(mean, np.nanmean(X_missing, axis=0), rtol=1e-6)


def test_score_samples_with_missing_entries_is_the_marginal_of_the_observed():
    X, _ = make_ppca_data(120, n_features=6, seed=36)
    X_missing, _ = hide_at_random(X, 0.25, 36)
    model = PPCA(n_components=2, allow_missing=True, random_state=0).fit(X_missing)
    expected = observed_log_likelihoods(X_missing, model.mean_, model.W_, model.noise_variance_)
    np.testing.assert_allclose(model.score_samples(X_missing), expected, rtol=1e-11)
    np.testing.assert_allclose(model.score(X_missing), expected.mean(), rtol=1e-11)
    # a single row with one observed coordinate: a 1-D Gaussian
    row = np.full((1, 6), np.nan)
    row[0, 3] = 0.7
    C = model_covariance(model.W_, model.noise_variance_)
    np.testing.assert_allclose(
        model.score_samples(row),
        [scipy.stats.norm(model.mean_[3], np.sqrt(C[3, 3])).logpdf(0.7)],
        rtol=1e-12,
    )
    # complete rows are unaffected by allow_missing
    np.testing.assert_allclose(
        model.score_samples(X[:5]),
        scipy.stats.multivariate_normal(model.mean_, C).logpdf(X[:5]),
        rtol=1e-11,
    )


def test_impute_is_gaussian_conditioning():
    X, _ = make_ppca_data(120, n_features=6, seed=37)
    X_missing, hidden = hide_at_random(X, 0.2, 37)
    model = PPCA(n_components=2, allow_missing=True, random_state=0).fit(X_missing)
    W, mu = model.W_, model.mean_
    C = model_covariance(W, model.noise_variance_)
    X_before = X_missing.copy()
    imputed = model.impute(X_missing)
    np.testing.assert_array_equal(X_missing, X_before)  # input untouched
    assert not np.isnan(imputed).any()
    np.testing.assert_array_equal(imputed[~hidden], X_missing[~hidden])
    for row, out in zip(X_missing, imputed, strict=True):
        m = np.isnan(row)
        o = ~m
        if not m.any():
            continue
        residual = row[o] - mu[o]
        via_x = mu[m] + C[np.ix_(m, o)] @ np.linalg.solve(C[np.ix_(o, o)], residual)
        Ez = W[o].T @ np.linalg.solve(C[np.ix_(o, o)], residual)
        via_z = mu[m] + W[m] @ Ez
        np.testing.assert_allclose(via_x, via_z, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(out[m], via_x, rtol=1e-10, atol=1e-12)
    # a complete matrix comes back unchanged (as a copy)
    np.testing.assert_array_equal(model.impute(X), X)
    assert not np.shares_memory(model.impute(X), X)


# ---------------------------------------------------------------------------
# 9. Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, error, message",
    [
        (
            {"n_components": 0},
            ValueError,
            r"between 1 and n_features - 1 \(one direction is left for the noise\) = 3",
        ),
        ({"n_components": -1}, ValueError, "n_components"),
        ({"n_components": 4}, ValueError, r"n_components .* = 3; got 4"),
        ({"n_components": 5}, ValueError, r"n_components .* got 5"),
        ({"n_components": True}, TypeError, "n_components"),
        ({"n_components": 2.0}, TypeError, "n_components"),
        ({"n_components": 1.5}, TypeError, "n_components"),
        ({"n_components": "2"}, TypeError, "n_components"),
        ({"solver": "EM"}, ValueError, r"solver must be one of 'auto', 'closed_form', 'em'"),
        ({"solver": "svd"}, ValueError, "solver"),
        ({"solver": None}, ValueError, "solver"),
        ({"ddof": 2}, ValueError, r"ddof must be 0 or 1, got 2"),
        ({"ddof": -1}, ValueError, "ddof"),
        ({"ddof": True}, ValueError, "ddof"),
        ({"ddof": 0.5}, ValueError, "ddof"),
        ({"ddof": 1.0}, ValueError, "ddof"),
        ({"allow_missing": "yes"}, TypeError, "allow_missing"),
        ({"allow_missing": 1}, TypeError, "allow_missing"),
        ({"tol": -1e-6}, ValueError, "tol"),
        ({"tol": np.nan}, ValueError, "tol"),
        ({"tol": np.inf}, ValueError, "tol"),
        ({"tol": "1e-6"}, TypeError, "tol"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"max_iter": -3}, ValueError, "max_iter"),
        ({"max_iter": 10.0}, TypeError, "max_iter"),
        ({"max_iter": True}, TypeError, "max_iter"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": 1.5}, TypeError, "random_state"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
    ids=lambda value: repr(value) if isinstance(value, dict) else "",
)
def test_invalid_parameters_are_named(params, error, message):
    X = make_data(20, 4, seed=38)
    model = PPCA(**params)
    with pytest.raises(error, match=message):
        model.fit(X)
    assert not hasattr(model, "W_")
    with pytest.raises(error, match=message):
        PPCA(**params).fit_transform(X)


@pytest.mark.parametrize(
    "make_bad, allow_missing, error, message",
    [
        (lambda X: np.where(X > 1, np.nan, X), False, ValueError, r"X contains NaN"),
        (lambda X: np.where(X > 1, np.inf, X), False, ValueError, r"X contains infinite"),
        (lambda X: np.where(X > 1, -np.inf, X), True, ValueError, r"X contains infinite"),
        (lambda X: X[:, 0], False, ValueError, r"X must be a 2-D array"),
        (lambda X: None, False, TypeError, r"X must be a 2-D array-like"),
        (lambda X: X.astype(str), False, TypeError, r"X must contain only numbers"),
        (lambda X: X + 1j, False, ValueError, r"complex"),
    ],
    ids=["nan", "inf", "inf-allow-missing", "1-D", "None", "strings", "complex"],
)
def test_bad_X_is_named(make_bad, allow_missing, error, message):
    X = make_data(20, 4, seed=39)
    with pytest.raises(error, match=message):
        PPCA(allow_missing=allow_missing).fit(make_bad(X))
    fitted = PPCA(allow_missing=allow_missing, random_state=0).fit(X)
    for method in (
        fitted.transform,
        fitted.score_samples,
        fitted.score,
        fitted.posterior,
        fitted.impute,
    ):
        with pytest.raises(error, match=message):
            method(make_bad(X))


def test_too_few_samples_or_features():
    X = make_data(20, 4, seed=40)
    with pytest.raises(ValueError, match=r"X has 1 sample"):
        PPCA().fit(X[:1])
    with pytest.raises(ValueError, match=r"X has 1 feature.*minimum of 2"):
        PPCA().fit(X[:, :1])
    # one sample can be scored once the model is fitted
    fitted = PPCA(n_components=2).fit(X)
    np.testing.assert_allclose(fitted.score_samples(X[:1]), fitted.score_samples(X)[:1], rtol=1e-14)


@pytest.mark.parametrize(
    "which, message",
    [
        ("row", r"X has 1 row\(s\) with every entry missing \(NaN\), the first is row 3"),
        ("column", r"X has 1 column\(s\) with every entry missing \(NaN\), the first is column 2"),
    ],
)
def test_all_missing_row_or_column_is_an_error(which, message):
    X = make_data(20, 4, seed=41)
    X[0, 0] = np.nan
    if which == "row":
        X[3, :] = np.nan
    else:
        X[:, 2] = np.nan
    with pytest.raises(ValueError, match=message):
        PPCA(n_components=1, allow_missing=True).fit(X)


def test_all_missing_row_in_new_data_is_an_error():
    X = make_data(20, 4, seed=42)
    model = PPCA(n_components=2, allow_missing=True).fit(X)
    X_new = X[:3].copy()
    X_new[1] = np.nan
    for method in (model.transform, model.posterior, model.score_samples, model.impute):
        with pytest.raises(ValueError, match=r"1 row\(s\) with every entry missing.*row 1"):
            method(X_new)


def test_missing_data_needs_em_and_ddof0():
    X = make_data(20, 4, seed=43)
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN.*solver='closed_form'"):
        PPCA(n_components=2, allow_missing=True, solver="closed_form").fit(X)
    with pytest.raises(ValueError, match=r"ddof=1 is defined for complete data only"):
        PPCA(n_components=2, allow_missing=True, ddof=1).fit(X)
    with pytest.raises(ValueError, match=r"X contains NaN"):
        PPCA(n_components=2).fit(X)
    # "auto" and "em" both fit it by missing-data EM
    for solver in ("auto", "em"):
        model = PPCA(n_components=2, allow_missing=True, solver=solver, random_state=0)
        assert model.fit(X).solver_ == "em"


@pytest.mark.parametrize("solver", ["closed_form", "em"])
def test_components_at_or_above_the_rank_are_an_error(solver):
    rng = np.random.default_rng(44)
    # points on a line in 3-D: the centred data has rank 1
    line = rng.standard_normal((30, 1)) @ np.array([[1.0, 2.0, -0.5]]) + np.array([1.0, 0.0, 3.0])
    # EM meets the degenerate maximum either as σ² reaching 0 or as the
    # log-likelihood falling once rounding dominates; both errors name σ²
    degenerate = r"noise variance is (0|nearly 0)"
    for k in (1, 2):
        with pytest.raises(ValueError, match=degenerate):
            PPCA(n_components=k, solver=solver, random_state=0).fit(line)
    # a plane in 4-D: rank 2, so k = 2 fails and k = 1 is fine
    plane = rng.standard_normal((30, 2)) @ rng.standard_normal((2, 4))
    with pytest.raises(ValueError, match=degenerate):
        PPCA(n_components=2, solver=solver, random_state=0).fit(plane)
    model = PPCA(n_components=1, solver=solver, tol=1e-12, max_iter=100_000, random_state=0)
    model.fit(plane)
    eigenvalues, _ = reference_eigh(plane)
    # EM stops at a rise of 1e-12 per entry: σ² about 1e-7 from the maximum
    np.testing.assert_allclose(model.noise_variance_, eigenvalues[1:].mean(), rtol=1e-6)
    # constant data
    with pytest.raises(ValueError, match=r"zero variance"):
        PPCA(n_components=1, solver=solver, random_state=0).fit(np.ones((10, 3)))


@pytest.mark.parametrize("solver", ["closed_form", "em"])
@pytest.mark.parametrize("k", [4, 5, 8, 19])  # all >= n - 1: refused before any iteration
def test_wide_data_with_components_beyond_the_rank_is_an_error(solver, k):
    # 5 samples: the centred data has rank 4, so any k >= 4 has σ² = 0; for
    # k >= n the Gram matrix does not even have k eigenpairs
    X = make_data(5, 20, seed=62)
    with pytest.raises(ValueError, match=rf"n_components={k} the noise variance is 0"):
        PPCA(n_components=k, solver=solver, random_state=0).fit(X)
    model = PPCA(n_components=3, solver=solver, tol=1e-12, max_iter=100_000, random_state=0).fit(X)
    eigenvalues, _ = reference_eigh(X)
    # EM stops at a rise of 1e-12 per entry: σ² about 1e-7 from the maximum
    np.testing.assert_allclose(model.noise_variance_, eigenvalues[3:].mean(), rtol=1e-6)


@pytest.mark.parametrize(
    "shape, rank, k",
    [((5, 10), 4, 6), ((5, 10), 4, 9), ((40, 5), 2, 3)],
    ids=["wide-6", "wide-9", "tall-rank2-k3"],
)
def test_missing_data_with_too_many_components_is_an_error(shape, rank, k):
    # the observed-data likelihood is unbounded (σ² → 0 fits every observed
    # entry exactly); EM must say so rather than return a degenerate fit
    n, d = shape
    rng = np.random.default_rng(63)
    X = rng.standard_normal((n, rank)) @ rng.standard_normal((rank, d)) + rng.uniform(-1, 1, d)
    X_missing = X.copy()
    X_missing[0, 0] = X_missing[n - 1, d - 1] = np.nan
    with pytest.raises(ValueError, match=r"noise variance is (0|nearly 0)"):
        PPCA(n_components=k, allow_missing=True, random_state=0).fit(X_missing)


def test_use_before_fit_raises_not_fitted():
    model = PPCA()
    X = make_data(5, 3)
    for call in (
        lambda: model.transform(X),
        lambda: model.inverse_transform(X[:, :2]),
        lambda: model.score(X),
        lambda: model.score_samples(X),
        lambda: model.posterior(X),
        lambda: model.impute(X),
        lambda: model.sample(3),
        model.get_covariance,
        model.get_precision,
        model.get_feature_names_out,
    ):
        with pytest.raises(NotFittedError, match="not fitted"):
            call()


@pytest.mark.parametrize("n_new_features", [2, 4])
def test_new_data_with_wrong_number_of_features(n_new_features):
    model = PPCA(n_components=2, allow_missing=True).fit(make_data(40, 3, seed=45))
    X_new = make_data(5, n_new_features, seed=46)
    for method in (model.transform, model.score_samples, model.posterior, model.impute):
        with pytest.raises(ValueError, match=rf"X has {n_new_features} features.*expecting 3"):
            method(X_new)


def test_inverse_transform_with_wrong_number_of_columns():
    model = PPCA(n_components=2).fit(make_data(40, 4, seed=47))
    with pytest.raises(ValueError, match=r"Z has 3 columns but this PPCA has 2 components"):
        model.inverse_transform(np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"Z contains NaN"):
        model.inverse_transform(np.full((5, 2), np.nan))


@pytest.mark.parametrize(
    "n_samples, error",
    [
        (0, ValueError),
        (-2, ValueError),
        (1.5, TypeError),
        (True, TypeError),
        (None, TypeError),
        # more entries than NumPy can address, and an int beyond 64 bits
        (2**62, ValueError),
        (2**70, ValueError),
    ],
)
def test_sample_with_bad_n_samples(n_samples, error):
    model = PPCA(n_components=2).fit(make_data(40, 4, seed=48))
    with pytest.raises(error, match="n_samples"):
        model.sample(n_samples)


def test_sample_with_bad_random_state():
    model = PPCA(n_components=2).fit(make_data(40, 4, seed=48))
    with pytest.raises(TypeError, match="random_state"):
        model.sample(3, random_state="seed")


# ---------------------------------------------------------------------------
# 10. Sampling, covariance and precision
# ---------------------------------------------------------------------------


def test_sample_shape_and_reproducibility():
    model = PPCA(n_components=2).fit(make_data(50, 4, seed=49))
    assert model.sample().shape == (1, 4)
    assert model.sample(7).shape == (7, 4)
    np.testing.assert_array_equal(model.sample(5, random_state=0), model.sample(5, random_state=0))
    np.testing.assert_array_equal(
        model.sample(5, random_state=0), model.sample(5, random_state=np.random.default_rng(0))
    )
    assert not np.array_equal(model.sample(5, random_state=0), model.sample(5, random_state=1))


def test_sample_moments_match_the_model():
    X, _ = make_ppca_data(80, n_features=4, seed=50)
    model = PPCA(n_components=2).fit(X)
    N = 200_000
    draws = model.sample(N, random_state=51)
    C = model.get_covariance()
    np.testing.assert_allclose(C, model_covariance(model.W_, model.noise_variance_), rtol=1e-15)
    # Monte Carlo: the sample mean has sd sqrt(C_ii / N) and the sample
    # covariance entry (i, j) sd sqrt((C_ii C_jj + C_ij²) / N); allow 5 sd
    mean_sd = np.sqrt(np.diag(C) / N)
    assert np.all(np.abs(draws.mean(axis=0) - model.mean_) < 5 * mean_sd)
    cov_sd = np.sqrt((np.outer(np.diag(C), np.diag(C)) + C**2) / N)
    assert np.all(np.abs(np.cov(draws.T) - C) < 5 * cov_sd)


def test_precision_is_the_inverse_covariance():
    for X in (make_data(60, 5, seed=52), make_data(10, 30, seed=53)):
        model = PPCA(n_components=2).fit(X)
        C = model.get_covariance()
        P = model.get_precision()
        condition = np.linalg.cond(C)
        np.testing.assert_allclose(P @ C, np.eye(C.shape[0]), rtol=0, atol=1e-13 * condition)
        np.testing.assert_allclose(
            P, np.linalg.inv(C), rtol=1e-10, atol=1e-13 * condition / C.max()
        )
        np.testing.assert_allclose(P, P.T, rtol=0, atol=1e-14 * np.abs(P).max())


# ---------------------------------------------------------------------------
# 11. The rotation and sign convention
# ---------------------------------------------------------------------------


def convention_case(case):
    """Data and parameters for each way of fitting ``W``."""
    X, _ = make_ppca_data(
        100, n_features=6, n_components=3, seed=54, scales=np.array([2.0, 1.5, 1.0])
    )
    if case == "closed_form":
        return X, dict(n_components=3)
    if case == "em":
        return X, dict(n_components=3, solver="em", random_state=1)
    if case == "missing":
        X_missing, _ = hide_at_random(X, 0.2, 54)
        return X_missing, dict(n_components=3, allow_missing=True, random_state=2)
    return make_data(10, 25, seed=55), dict(n_components=3)  # wide: the Gram-matrix path


@pytest.mark.parametrize("case", ["closed_form", "em", "missing", "wide"])
def test_sign_and_rotation_convention(case):
    X, params = convention_case(case)
    model = PPCA(**params).fit(X)
    W = model.W_
    norms = np.linalg.norm(W, axis=0)
    gram = W.T @ W
    np.testing.assert_allclose(gram - np.diag(np.diag(gram)), 0, atol=1e-12 * norms.max() ** 2)
    assert np.all(np.diff(norms) < 0)
    largest = np.argmax(np.abs(W), axis=0)
    assert np.all(W[largest, np.arange(W.shape[1])] > 0)
    np.testing.assert_allclose(model.components_, (W / norms).T, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(model.components_ @ model.components_.T, np.eye(3), atol=1e-13)
    np.testing.assert_allclose(
        model.explained_variance_, norms**2 + model.noise_variance_, rtol=1e-13
    )


# ---------------------------------------------------------------------------
# 12. scikit-learn API
# ---------------------------------------------------------------------------


def test_get_params_set_params_clone():
    model = PPCA(n_components=2, solver="em", tol=1e-8)
    expected = {
        "n_components": 2,
        "solver": "em",
        "ddof": 0,
        "allow_missing": False,
        "max_iter": 1000,
        "tol": 1e-8,
        "random_state": None,
    }
    assert model.get_params() == expected
    assert model.set_params(random_state=4, ddof=1) is model
    assert model.get_params() == {**expected, "random_state": 4, "ddof": 1}
    X = make_data(40, 4, seed=56)
    model.fit(X)
    copy = clone(model)
    assert copy is not model and copy.get_params() == model.get_params()
    assert not hasattr(copy, "W_")
    np.testing.assert_array_equal(copy.fit(X).W_, model.W_)


def test_pipeline_with_logistic_regression():
    X, y = load_iris(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), PPCA(n_components=2), LogisticRegression()).fit(X, y)
    # the pipeline is exactly the composition of its steps
    X_scaled = StandardScaler().fit_transform(X)
    ppca = PPCA(n_components=2).fit(X_scaled)
    clf = LogisticRegression().fit(ppca.transform(X_scaled), y)
    np.testing.assert_array_equal(pipe.predict(X), clf.predict(ppca.transform(X_scaled)))
    # two principal components of standardised iris separate the species well
    # (about 90% training accuracy for PCA scores, of which these are a rescaling)
    assert pipe.score(X, y) > 0.85
    pipe.set_params(ppca__n_components=3).fit(X, y)
    assert pipe.named_steps["logisticregression"].coef_.shape == (3, 3)


def test_feature_names_out():
    X = make_data(40, 4, seed=57)
    model = PPCA(n_components=3).fit(X)
    assert model.get_feature_names_out().tolist() == ["ppca0", "ppca1", "ppca2"]
    out = clone(model).set_output(transform="pandas").fit(X).transform(X)
    assert list(out.columns) == ["ppca0", "ppca1", "ppca2"]
    np.testing.assert_array_equal(out.to_numpy(), model.transform(X))


def test_dataframe_input():
    X, _ = make_ppca_data(40, n_features=4, seed=58)
    X[3, 1] = np.nan
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    model = PPCA(n_components=2, allow_missing=True, random_state=0).fit(frame)
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b", "c", "d"])
    expected = PPCA(n_components=2, allow_missing=True, random_state=0).fit(X)
    # no "X does not have valid feature names" warning from any method
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for method in (model.transform, model.score_samples, model.posterior, model.impute):
            method(frame)
    # a DataFrame converts to a column-major array: BLAS may sum in another
    # order, so agreement is to rounding, not bit for bit
    np.testing.assert_allclose(model.W_, expected.W_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(
        model.transform(frame), expected.transform(X), rtol=1e-12, atol=1e-14
    )
    np.testing.assert_allclose(model.impute(frame), expected.impute(X), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(model.score_samples(frame), expected.score_samples(X), rtol=1e-12)
    # lists are accepted too
    np.testing.assert_allclose(
        PPCA(n_components=2).fit(frame.fillna(0).values.tolist()).noise_variance_,
        PPCA(n_components=2).fit(np.nan_to_num(X)).noise_variance_,
        rtol=1e-15,
    )


def test_fitted_attributes():
    X = make_data(30, 5, seed=59)
    model = PPCA().fit(X)
    assert model.n_components_ == 4  # None means n_features - 1
    assert model.n_samples_ == 30 and model.n_features_in_ == 5
    assert model.W_.shape == (5, 4) and model.components_.shape == (4, 5)
    assert model.mean_.shape == (5,) and model.explained_variance_.shape == (4,)
    assert isinstance(model.noise_variance_, float)
    assert model.solver_ == "closed_form" and model.n_iter_ == 0 and model.converged_ is True
    assert model.log_likelihood_history_.shape == (1,)
    assert PPCA(n_components=2, allow_missing=True).fit(X).solver_ == "closed_form"
    ref, _, _ = reference_closed_form(X, 4)
    np.testing.assert_allclose(model.noise_variance_, ref.sigma2, rtol=1e-10)


# ---------------------------------------------------------------------------
# 13. Inputs are not modified; a failed refit changes nothing
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, missing",
    [
        ({}, False),
        ({"solver": "em", "random_state": 0}, False),
        ({"allow_missing": True, "random_state": 0}, True),
    ],
    ids=["closed_form", "em", "missing"],
)
def test_fit_does_not_modify_its_input(params, missing):
    X, _ = make_ppca_data(50, n_features=5, seed=60)
    if missing:
        X, _ = hide_at_random(X, 0.2, 60)
    X_copy = X.copy()
    model = PPCA(n_components=2, **params)
    Z = model.fit_transform(X)
    np.testing.assert_array_equal(X, X_copy)
    for method in (model.transform, model.score_samples, model.posterior, model.impute):
        method(X)
        np.testing.assert_array_equal(X, X_copy)
    # the model keeps no reference to X
    X[:] = 0.0
    np.testing.assert_array_equal(model.transform(X_copy), Z)


@pytest.mark.parametrize(
    "bad_fit",
    [
        lambda model, X: model.fit(np.where(X > 1, np.nan, X)),
        lambda model, X: model.fit(np.ones((10, 5))),
        # rank-2 data in 6-D: with k = 3 the noise variance is 0
        lambda model, X: model.fit(
            X[:, :2] @ np.array([[1.0, 0, 1, 2, 0, 1], [0, 1, 1, -1, 3, 0]])
        ),
        # missing-data EM on the same rank-2 data: σ² → 0 breaks EM mid-way
        lambda model, X: model.set_params(allow_missing=True, random_state=0).fit(
            np.where(
                np.eye(40, 6, dtype=bool),
                np.nan,
                X[:, :2] @ np.array([[1.0, 0, 1, 2, 0, 1], [0, 1, 1, -1, 3, 0]]),
            )
        ),
        lambda model, X: model.set_params(n_components=9).fit(X),
        lambda model, X: model.set_params(tol=-1.0).fit(X),
        lambda model, X: model.set_params(allow_missing=True, solver="closed_form").fit(
            np.where(X > 1.5, np.nan, X)
        ),
        # fails after the fit, when σ² is scaled back to the units of X
        lambda model, X: model.fit(X * 1e-170),
        lambda model, X: model.set_params(tol=10**400).fit(X),
    ],
    ids=[
        "nan",
        "constant",
        "rank",
        "rank-missing",
        "n_components",
        "tol",
        "closed_form-with-nan",
        "variance-underflows",
        "huge-int-tol",
    ],
)
def test_failed_refit_leaves_the_fitted_estimator_unchanged(bad_fit):
    X, _ = make_ppca_data(40, n_features=5, seed=61)
    frame = pd.DataFrame(X, columns=list("abcde"))
    model = PPCA(n_components=3).fit(frame)
    before = fitted_state(model)
    X_test = frame.iloc[:4]
    Z = model.transform(X_test)
    with pytest.raises(ValueError):
        bad_fit(model, X)
    after = fitted_state(model)
    assert after.keys() == before.keys()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    np.testing.assert_array_equal(model.transform(X_test), Z)


# ---------------------------------------------------------------------------
# 13. Units of the data and extreme magnitudes
# ---------------------------------------------------------------------------

# None is a power of two: the rescaled data differ from X by rounding.
UNIT_FACTORS = [1e-8, 1e-3, 255.0, 1e8]
UNIT_FITS = {
    "closed_form": dict(solver="closed_form"),
    "em": dict(solver="em", random_state=0),
    "missing": dict(allow_missing=True, random_state=0),
}


def unit_data(fit):
    X, _ = make_ppca_data(60, n_features=6, seed=70)
    return hide_at_random(X, 0.1, seed=71)[0] if fit == "missing" else X


def assert_ppca_scaled(b, a, c, n_observed):
    """``b`` fitted to ``c X``, ``a`` to ``X``: ``μ, W`` times c, variances times c²."""
    assert_scaled(b.mean_, c * a.mean_)
    assert_scaled(b.W_, c * a.W_)
    assert_scaled(b.components_, a.components_)
    assert b.noise_variance_ == pytest.approx(c**2 * a.noise_variance_, rel=1e-6)
    assert_scaled(b.explained_variance_, c**2 * a.explained_variance_)
    # the density of c x is that of x divided by c in each observed coordinate
    shifted = a.log_likelihood_history_ - n_observed * np.log(c)
    np.testing.assert_allclose(
        b.log_likelihood_history_, shifted, rtol=0, atol=1e-6 * np.abs(shifted).max()
    )
    assert (b.n_iter_, b.converged_, b.solver_) == (a.n_iter_, a.converged_, a.solver_)


@pytest.mark.parametrize("c", UNIT_FACTORS)
@pytest.mark.parametrize("fit", UNIT_FITS)
def test_fit_does_not_depend_on_the_units_of_X(fit, c):
    X = unit_data(fit)
    n_observed = int(np.sum(~np.isnan(X)))
    a = PPCA(n_components=2, **UNIT_FITS[fit]).fit(X)
    b = PPCA(n_components=2, **UNIT_FITS[fit]).fit(c * X)
    assert a.n_iter_ > 10 or fit == "closed_form"
    assert_ppca_scaled(b, a, c, n_observed)
    # the latent posterior means have no units; the log-densities shift by d log c
    X_new = unit_data(fit)[:5]
    assert_scaled(b.transform(c * X_new), a.transform(X_new))
    observed_per_row = np.sum(~np.isnan(X_new), axis=1)
    np.testing.assert_allclose(
        b.score_samples(c * X_new),
        a.score_samples(X_new) - observed_per_row * np.log(c),
        rtol=1e-9,
    )


@pytest.mark.parametrize("c", [4.0**-200, 1e-150, 1e140])
@pytest.mark.parametrize("fit", UNIT_FITS)
def test_fit_at_extreme_magnitudes(fit, c):
    # σ² of data scaled by 1e-150 is about 1e-301, still a normal float64
    X = unit_data(fit)
    n_observed = int(np.sum(~np.isnan(X)))
    a = PPCA(n_components=2, **UNIT_FITS[fit]).fit(X)
    b = PPCA(n_components=2, **UNIT_FITS[fit]).fit(c * X)
    assert_ppca_scaled(b, a, c, n_observed)
    if c == 4.0**-200:  # a power of four only changes exponents
        np.testing.assert_array_equal(b.W_, c * a.W_)
        np.testing.assert_array_equal(b.mean_, c * a.mean_)


@pytest.mark.parametrize("fit", UNIT_FITS)
def test_variances_that_underflow_are_named_truthfully(fit):
    # the reproduction: on data scaled by 1e-170 PPCA said "all samples are equal"
    X = unit_data(fit) * 1e-170
    with pytest.raises(ValueError, match=r"X varies by amounts too small") as error:
        PPCA(n_components=2, **UNIT_FITS[fit]).fit(X)
    assert "all samples are equal" not in str(error.value)
