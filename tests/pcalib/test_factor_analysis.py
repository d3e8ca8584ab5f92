"""Tests of :class:`pcalib.FactorAnalysis` (chapter 4).

Expected values come from independent sources only: scikit-learn's
``FactorAnalysis`` (another algorithm: the exact ``W`` for fixed ``Ψ``
alternated with the update of ``Ψ``), SciPy's ``multivariate_normal.logpdf``
under the model covariance, NumPy's matrix inverse, the Gaussian
conditioning formula ``E[z | x] = Wᵀ C⁻¹ (x - μ)``, the varimax criterion
evaluated at rotated loadings, and the parameters that generated the data.
"""

import warnings

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment
from sklearn.decomposition import FactorAnalysis as SklearnFactorAnalysis
from sklearn.exceptions import ConvergenceWarning

from pcalib import FactorAnalysis
from pcalib.factor_analysis import NOISE_FLOOR, orthomax_criterion


def make_fa_data(n_samples=300, n_features=8, n_components=3, seed=0):
    """Draws from a factor-analysis model with known ``W`` and ``Ψ`` (returned too)."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((n_features, n_components))
    psi = rng.uniform(0.3, 2.0, n_features)
    Z = rng.standard_normal((n_samples, n_components))
    X = Z @ W.T + rng.standard_normal((n_samples, n_features)) * np.sqrt(psi) + 3.0
    return X, W, psi


def fit_tight(X, k, **kwargs):
    return FactorAnalysis(k, tol=1e-7, max_iter=20_000, **kwargs).fit(X)


@pytest.mark.parametrize("seed", [0, 3, 4])
def test_log_likelihood_equals_sklearn(seed):
    X, _, _ = make_fa_data(seed=seed)
    ours = fit_tight(X, 3)
    reference = SklearnFactorAnalysis(3, tol=1e-9, max_iter=20_000).fit(X)
    assert ours.converged_
    ll_ours, ll_ref = ours.log_likelihood_history_[-1], reference.loglike_[-1]
    assert abs(ll_ours - ll_ref) <= 1e-6 * abs(ll_ref)
    # the same model, not only the same likelihood
    C_ours, C_ref = ours.get_covariance(), reference.get_covariance()
    assert np.abs(C_ours - C_ref).max() <= 1e-3 * np.abs(C_ref).max()
    assert ours.score(X) == pytest.approx(reference.score(X), rel=1e-6)


def test_score_samples_equals_scipy_logpdf():
    X, _, _ = make_fa_data(seed=3)
    fa = fit_tight(X, 2)
    expected = scipy.stats.multivariate_normal(fa.mean_, fa.get_covariance()).logpdf(X)
    np.testing.assert_allclose(fa.score_samples(X), expected, rtol=1e-10)
    assert fa.log_likelihood_history_[-1] == pytest.approx(expected.sum(), rel=1e-10)


def test_precision_is_the_inverse_covariance():
    X, _, _ = make_fa_data(seed=4)
    fa = fit_tight(X, 3)
    np.testing.assert_allclose(
        fa.get_precision(), np.linalg.inv(fa.get_covariance()), rtol=0, atol=1e-10
    )


def test_transform_is_the_gaussian_conditional_mean():
    X, _, _ = make_fa_data(seed=5)
    fa = fit_tight(X, 3)
    W = fa.components_.T
    expected = (X - fa.mean_) @ np.linalg.solve(fa.get_covariance(), W)
    np.testing.assert_allclose(fa.transform(X), expected, rtol=0, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1])
def test_em_log_likelihood_never_decreases(seed):
    X, _, _ = make_fa_data(seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fa = FactorAnalysis(3, tol=0, max_iter=200).fit(X)
    history = fa.log_likelihood_history_
    assert len(history) == 201 and fa.n_iter_ == 200 and not fa.converged_
    assert np.all(np.diff(history) >= -1e-9 * np.abs(history).max())
    assert history[-1] > history[0]
    assert fa.loglike_ == list(history[1:])


def test_large_samples_recover_the_generating_noise_variances():
    X, W, psi = make_fa_data(n_samples=20_000, seed=6)
    fa = fit_tight(X, 3)
    np.testing.assert_allclose(fa.noise_variance_, psi, rtol=0.15)
    np.testing.assert_allclose(fa.get_covariance(), W @ W.T + np.diag(psi), atol=0.15)


@pytest.mark.parametrize("rotation", ["varimax", "quartimax"])
def test_rotation_equals_sklearn_and_keeps_the_model(rotation):
    X, _, _ = make_fa_data(seed=7)
    plain = fit_tight(X, 3)
    ours = fit_tight(X, 3, rotation=rotation)
    reference = SklearnFactorAnalysis(3, tol=1e-9, max_iter=20_000, rotation=rotation).fit(X)
    # columns agree up to order and sign (scikit-learn fixes neither; pcalib
    # orders the rotated factors by variance); scikit-learn's rotation stops
    # at a relative change of 1e-6 in its criterion
    W_ours, W_ref = ours.components_.T, reference.components_.T
    _, order = linear_sum_assignment(-np.abs(W_ours.T @ W_ref))
    W_ref = W_ref[:, order]
    W_ref = W_ref * np.sign(np.sum(W_ours * W_ref, axis=0))
    assert np.abs(W_ours - W_ref).max() <= 5e-3 * np.abs(W_ref).max()
    np.testing.assert_allclose(ours.get_covariance(), plain.get_covariance(), atol=1e-12)
    np.testing.assert_allclose(ours.noise_variance_, plain.noise_variance_, rtol=1e-12)


@pytest.mark.parametrize("rotation", [None, "varimax", "quartimax"])
@pytest.mark.parametrize("seed", range(3))
def test_the_model_does_not_depend_on_the_order_of_the_rows(rotation, seed):
    # generic data (no exact symmetry between columns), converged tightly: the
    # row order changes only the rounding, so the model and the rotation's
    # criterion agree to far below a 1 % slip
    X, _, _ = make_fa_data(n_samples=120, n_features=6, n_components=2, seed=seed)
    order = np.random.default_rng(seed).permutation(X.shape[0])
    a, b = fit_tight(X, 2, rotation=rotation), fit_tight(X[order], 2, rotation=rotation)
    assert a.converged_ and b.converged_
    C = a.get_covariance()
    np.testing.assert_allclose(b.get_covariance(), C, atol=1e-5 * np.abs(C).max())
    assert b.log_likelihood_history_[-1] == pytest.approx(a.log_likelihood_history_[-1], rel=1e-9)
    if rotation is not None:
        gamma = 1.0 if rotation == "varimax" else 0.0
        criteria = [orthomax_criterion(f.components_.T, gamma) for f in (a, b)]
        assert criteria[1] == pytest.approx(criteria[0], rel=1e-5)


def givens(k, i, j, angle):
    R = np.eye(k)
    R[[i, j], [i, j]] = np.cos(angle)
    R[i, j], R[j, i] = -np.sin(angle), np.sin(angle)
    return R


@pytest.mark.parametrize(("rotation", "gamma"), [("varimax", 1.0), ("quartimax", 0.0)])
def test_rotated_loadings_maximise_the_criterion_against_finite_rotations(rotation, gamma):
    X, _, _ = make_fa_data(seed=8)
    W = fit_tight(X, 3, rotation=rotation).components_.T
    best = orthomax_criterion(W, gamma)
    unrotated = orthomax_criterion(fit_tight(X, 3).components_.T, gamma)
    assert best > unrotated
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        for angle in [-0.3, -0.05, -0.01, 0.01, 0.05, 0.3]:
            assert orthomax_criterion(W @ givens(3, i, j, angle), gamma) < best


def heywood_data(n_samples=200, seed=0):
    """Samples whose covariance is exactly R = [[1, .8, .7], [.8, 1, .4], [.7, .4, 1]].

    One factor would need the loading ``l_1² = r_12 r_13 / r_23 = 1.4 > 1``
    on feature 1, i.e. ``ψ_1 = 1 - 1.4 < 0``: a Heywood case.
    """
    R = np.array([[1.0, 0.8, 0.7], [0.8, 1.0, 0.4], [0.7, 0.4, 1.0]])
    Z = np.random.default_rng(seed).standard_normal((n_samples, 3))
    Z -= Z.mean(axis=0)
    Z = Z @ np.linalg.inv(np.linalg.cholesky(Z.T @ Z / n_samples)).T
    return Z @ np.linalg.cholesky(R).T


def test_heywood_case_stops_at_the_floor():
    X = heywood_data()
    np.testing.assert_allclose(X.T @ X / len(X), [[1, 0.8, 0.7], [0.8, 1, 0.4], [0.7, 0.4, 1]])
    fa = fit_tight(X, 1)
    assert fa.converged_
    assert fa.noise_variance_[0] == pytest.approx(NOISE_FLOOR * np.var(X[:, 0]), rel=1e-12)
    assert np.all(fa.noise_variance_[1:] > 0.3)
    # scikit-learn, whose floor is 1e-12, drives the same variance towards 0
    reference = SklearnFactorAnalysis(1, tol=1e-6, max_iter=20_000).fit(X)
    assert reference.noise_variance_[0] < NOISE_FLOOR


@settings(deadline=None, max_examples=10, database=None)
@given(exponents=st.lists(st.integers(-300, 300), min_size=5, max_size=5))
def test_fit_is_equivariant_to_the_units_of_each_feature(exponents):
    X, _, _ = make_fa_data(n_samples=100, n_features=5, n_components=2, seed=9)
    scale = np.ldexp(1.0, np.array(exponents))
    base, scaled = FactorAnalysis(2).fit(X), FactorAnalysis(2).fit(X * scale)
    assert scaled.n_iter_ == base.n_iter_
    np.testing.assert_allclose(scaled.noise_variance_, base.noise_variance_ * scale**2, rtol=1e-9)
    # the sign of each factor follows its largest loading, which the units can change
    signs = np.sign(np.sum(scaled.components_ * base.components_ * scale, axis=1))
    expected = signs[:, np.newaxis] * base.components_ * scale
    np.testing.assert_allclose(scaled.components_, expected, rtol=1e-9, atol=0)
    np.testing.assert_allclose(scaled.transform(X * scale), base.transform(X) * signs, atol=1e-9)


def test_tol_zero_runs_max_iter_and_warns():
    X, _, _ = make_fa_data(seed=10)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        fa = FactorAnalysis(2, tol=0, max_iter=3).fit(X)
    assert fa.n_iter_ == 3 and len(fa.log_likelihood_history_) == 4


def test_noise_variance_init_is_used():
    X, _, _ = make_fa_data(seed=11)
    a = FactorAnalysis(2, max_iter=1, tol=0, noise_variance_init=np.ones(8))
    b = FactorAnalysis(2, max_iter=1, tol=0, noise_variance_init=2 * np.ones(8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert a.fit(X).log_likelihood_history_[0] != b.fit(X).log_likelihood_history_[0]
    assert fit_tight(X, 2, noise_variance_init=np.ones(8)).score(X) == pytest.approx(
        fit_tight(X, 2).score(X), rel=1e-6
    )


@pytest.mark.parametrize(
    ("params", "name"),
    [
        ({"n_components": 0}, "n_components"),
        ({"n_components": 9}, "n_components"),
        ({"n_components": 1.5}, "n_components"),
        ({"rotation": "promax"}, "rotation"),
        ({"rotation": True}, "rotation"),
        ({"noise_variance_init": np.ones(3)}, "noise_variance_init"),
        ({"noise_variance_init": -np.ones(8)}, "noise_variance_init"),
        ({"noise_variance_init": "bogus"}, "noise_variance_init"),
        ({"tol": -1.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
    ],
)
def test_bad_parameters_are_refused_by_name(params, name):
    X, _, _ = make_fa_data(seed=12)
    with pytest.raises((ValueError, TypeError), match=name):
        FactorAnalysis(**params).fit(X)


def test_constant_feature_is_refused():
    X, _, _ = make_fa_data(seed=13)
    X[:, 4] = 7.0
    with pytest.raises(ValueError, match="column 4"):
        FactorAnalysis(2).fit(X)


def test_new_data_of_another_width_is_refused():
    X, _, _ = make_fa_data(seed=14)
    fa = FactorAnalysis(2).fit(X)
    with pytest.raises(ValueError, match="X"):
        fa.transform(X[:, :5])
