"""Tests of :mod:`pcalib.elastic_net` (chapter 5): the elastic net by coordinate descent.

Expected values come from independent sources only: scikit-learn's
``ElasticNet``, ``Lasso``, ``lasso_path`` and ``lars_path_gram`` (the LARS
path, whose knots are exactly the penalties at which variables enter or leave),
after converting their parameterisation (``λ₁ = 2 n α ρ``, ``λ₂ = n α (1 - ρ)``);
NumPy linear solves written here (ridge regression, the stationarity system on
a known support, a break point of the path computed by hand); the optimality
(KKT) conditions of the problem checked at the solution; and a brute-force
minimisation on a fine grid. None of them is produced by pcalib itself.
"""

import warnings

import numpy as np
import pytest
import scipy.linalg
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import ElasticNet, Lasso, lars_path_gram, lasso_path

from pcalib import soft_threshold
from pcalib.elastic_net import (
    elastic_net,
    elastic_net_gram,
    elastic_net_n_nonzero,
    refine_on_orthant,
    solve_on_support,
)

# ---------------------------------------------------------------------------
# Independent references and helpers
# ---------------------------------------------------------------------------

SHAPES = [(60, 8), (20, 40)]  # n > d and d > n


def make_regression(n_samples, n_features, seed=0):
    """A sparse linear model plus noise; no intercept."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_samples, n_features))
    beta = np.zeros(n_features)
    beta[:4] = [3.0, -2.0, 1.0, 0.5]
    y = X @ beta + 0.5 * rng.standard_normal(n_samples)
    return X, y


def sklearn_elastic_net(X, y, alpha, l1_ratio):
    """scikit-learn's solution, without intercept and to a tight tolerance."""
    model = ElasticNet(
        alpha=alpha, l1_ratio=l1_ratio, fit_intercept=False, tol=1e-12, max_iter=100000
    )
    return model.fit(X, y).coef_


def to_lambdas(n_samples, alpha, l1_ratio):
    """scikit-learn's ``(α, ρ)`` as this module's ``(λ₁, λ₂)`` (objective times ``2n``)."""
    return 2 * n_samples * alpha * l1_ratio, n_samples * alpha * (1 - l1_ratio)


def exact_on_support(X, y, support_signs, l1, l2):
    """Stationarity on a known support with known signs, solved with NumPy.

    ``(X_Aᵀ X_A + λ₂ I) β_A = X_Aᵀ y - (λ₁ / 2) s_A``: exact once the support
    and signs are right (here: taken from scikit-learn's solution).
    """
    support = np.flatnonzero(support_signs)
    XA = X[:, support]
    beta = np.zeros(X.shape[1])
    beta[support] = np.linalg.solve(
        XA.T @ XA + l2 * np.eye(support.size), XA.T @ y - 0.5 * l1 * support_signs[support]
    )
    return beta


def kkt_gaps(G, c, beta, l1, l2):
    """Violations of the optimality conditions of ``βᵀGβ - 2cᵀβ + λ₂‖β‖² + λ₁‖β‖₁``.

    Half the gradient of the smooth part is ``g = Gβ - c + λ₂β``; optimality
    means ``g_m = -(λ₁/2) sign(β_m)`` where ``β_m ≠ 0`` and ``|g_m| ≤ λ₁/2``
    where ``β_m = 0``. Returns the largest violation of each kind.
    """
    g = G @ beta - c + l2 * beta
    nonzero = beta != 0
    on_support = np.abs(g[nonzero] + 0.5 * l1 * np.sign(beta[nonzero]))
    off_support = np.maximum(np.abs(g[~nonzero]) - 0.5 * l1, 0.0)
    return on_support.max(initial=0.0), off_support.max(initial=0.0)


def objective(X, y, beta, l1, l2):
    return np.sum((y - X @ beta) ** 2) + l2 * beta @ beta + l1 * np.abs(beta).sum()


# ---------------------------------------------------------------------------
# 1. Against scikit-learn's ElasticNet, Lasso and lasso_path
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("alpha", [0.01, 0.1, 0.5])
@pytest.mark.parametrize("l1_ratio", [0.1, 0.5, 0.9])
def test_matches_sklearn_elastic_net(shape, alpha, l1_ratio):
    X, y = make_regression(*shape, seed=1)
    l1, l2 = to_lambdas(X.shape[0], alpha, l1_ratio)
    expected = sklearn_elastic_net(X, y, alpha, l1_ratio)
    beta, n_iter = elastic_net(X, y, l1_penalty=l1, l2_penalty=l2)
    beta_gram, _ = elastic_net_gram(X.T @ X, X.T @ y, l1_penalty=l1, l2_penalty=l2)
    # scikit-learn stops on its duality gap (tol=1e-12 relative to ‖y‖²), which
    # leaves ~1e-10 in the coefficients of the ill-conditioned d > n problems
    np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(beta != 0, expected != 0)
    np.testing.assert_allclose(beta_gram, beta, rtol=0, atol=1e-12)
    assert 1 <= n_iter <= 1000
    # the exact solution on scikit-learn's support and signs, solved by NumPy
    exact = exact_on_support(X, y, np.sign(expected), l1, l2)
    np.testing.assert_allclose(beta, exact, rtol=0, atol=1e-10 * np.abs(exact).max())


@pytest.mark.parametrize("shape", SHAPES)
def test_lasso_matches_sklearn_lasso_and_lasso_path(shape):
    X, y = make_regression(*shape, seed=2)
    n = X.shape[0]
    alphas = np.array([1.0, 0.3, 0.1, 0.03])
    _, path, _ = lasso_path(X, y, alphas=alphas, tol=1e-12, max_iter=100000)
    for i, alpha in enumerate(alphas):
        lasso = Lasso(alpha=alpha, fit_intercept=False, tol=1e-12, max_iter=100000).fit(X, y)
        beta, _ = elastic_net(X, y, l1_penalty=2 * n * alpha, l2_penalty=0.0)
        beta_gram, _ = elastic_net_gram(X.T @ X, X.T @ y, l1_penalty=2 * n * alpha, l2_penalty=0.0)
        # duality-gap stopping of scikit-learn, as above
        np.testing.assert_allclose(beta, lasso.coef_, rtol=0, atol=1e-9)
        np.testing.assert_allclose(beta, path[:, i], rtol=0, atol=1e-9)
        np.testing.assert_allclose(beta_gram, beta, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(beta != 0, lasso.coef_ != 0)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("l2", [0.1, 1.0, 30.0])
def test_no_l1_is_ridge_regression(shape, l2):
    X, y = make_regression(*shape, seed=3)
    expected = np.linalg.solve(X.T @ X + l2 * np.eye(X.shape[1]), X.T @ y)
    beta, _ = elastic_net(X, y, l1_penalty=0.0, l2_penalty=l2)
    np.testing.assert_allclose(beta, expected, rtol=1e-10, atol=1e-12)
    assert np.all(beta != 0)


def test_no_penalty_is_least_squares():
    X, y = make_regression(50, 6, seed=4)
    expected = np.linalg.lstsq(X, y, rcond=None)[0]
    beta, _ = elastic_net(X, y, l1_penalty=0, l2_penalty=0)
    np.testing.assert_allclose(beta, expected, rtol=1e-10)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("l2", [0.0, 2.0])
def test_large_l1_gives_exactly_zero(shape, l2):
    X, y = make_regression(*shape, seed=5)
    l1_max = 2 * np.abs(X.T @ y).max()
    for l1 in (l1_max, 1.5 * l1_max, 1e6 * l1_max):
        beta, n_iter = elastic_net(X, y, l1_penalty=l1, l2_penalty=l2)
        np.testing.assert_array_equal(beta, np.zeros(X.shape[1]))
        assert n_iter <= 1  # nothing to do: stops in the first round
    # just below the threshold exactly one coefficient (the most correlated) enters
    beta, _ = elastic_net(X, y, l1_penalty=l1_max * (1 - 1e-6), l2_penalty=l2)
    np.testing.assert_array_equal(np.flatnonzero(beta), [np.argmax(np.abs(X.T @ y))])


def test_zero_column_without_ridge_stays_zero():
    X, y = make_regression(30, 5, seed=6)
    X[:, 2] = 0.0
    alpha = 0.05
    expected = Lasso(alpha=alpha, fit_intercept=False, tol=1e-12, max_iter=100000).fit(X, y).coef_
    beta, _ = elastic_net(X, y, l1_penalty=2 * 30 * alpha, l2_penalty=0.0)
    assert beta[2] == 0.0 and np.all(np.isfinite(beta))
    # duality-gap stopping of scikit-learn, as above
    np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-9)


def test_ill_conditioned_least_squares_is_exact():
    # two columns with correlation 0.9999 and a tiny third coefficient: plain
    # coordinate descent needs many thousands of sweeps here
    G = np.array([[1.0, 0.9999, 0.0], [0.9999, 1.0, 0.01], [0.0, 0.01, 1.0]])
    truth = np.array([1.0, -1.0, 0.001])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta, _ = elastic_net_gram(G, G @ truth, l1_penalty=0.0, l2_penalty=0.0)
        ridge, _ = elastic_net_gram(G, G @ truth, l1_penalty=0.0, l2_penalty=1e-6)
    # condition number 4e4: about 1e-12 of relative rounding in the solve
    np.testing.assert_allclose(beta, truth, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ridge, np.linalg.solve(G + 1e-6 * np.eye(3), G @ truth), rtol=1e-10)


@pytest.mark.parametrize("l1", [0.01, 0.003, 0.1])
def test_ill_conditioned_gram_matches_sklearn(l1):
    # the correlation matrix of the breast-cancer data (condition number ~1e5),
    # with the target of a sparse-PCA step: c = S v for its first eigenvector
    S = np.corrcoef(load_breast_cancer().data, rowvar=False)
    v = np.linalg.eigh(S)[1][:, -1]
    c = S @ v
    l2 = 1e-6
    # data with this Gram matrix for scikit-learn: X = S^{1/2}, y = S^{-1/2} c
    root = scipy.linalg.sqrtm(S).real
    X, y = root, np.linalg.solve(root, c)
    n = X.shape[0]
    alpha = (l1 / 2 + l2) / n  # λ₁ = 2nαρ, λ₂ = nα(1 - ρ)
    expected = sklearn_elastic_net(X, y, alpha, l1 / 2 / (n * alpha))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta, _ = elastic_net_gram(S, c, l1_penalty=l1, l2_penalty=l2)
    # scikit-learn's duality-gap stop leaves ~1e-9 on a problem this ill-conditioned
    np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-8)
    # exact on scikit-learn's support and signs, solved by NumPy
    exact = exact_on_support(X, y, np.sign(expected), l1, l2)
    np.testing.assert_allclose(beta, exact, rtol=0, atol=1e-10 * np.abs(exact).max())
    on_support, off_support = kkt_gaps(S, c, beta, l1, l2)
    assert max(on_support, off_support) <= 1e-10 * np.abs(c).max()


# ---------------------------------------------------------------------------
# 2. Optimality conditions, independent of any solver
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("l1, l2", [(1.0, 0.0), (5.0, 0.5), (20.0, 5.0), (0.1, 0.01)])
def test_kkt_conditions_hold(shape, l1, l2):
    X, y = make_regression(*shape, seed=7)
    G, c = X.T @ X, X.T @ y
    beta, _ = elastic_net_gram(G, c, l1_penalty=l1, l2_penalty=l2)
    on_support, off_support = kkt_gaps(G, c, beta, l1, l2)
    scale = np.abs(c).max()
    assert on_support <= 1e-9 * scale
    assert off_support <= 1e-9 * scale
    # and no feasible perturbation lowers the objective
    rng = np.random.default_rng(8)
    base = objective(X, y, beta, l1, l2)
    for _ in range(20):
        step = 1e-4 * rng.standard_normal(beta.shape)
        assert objective(X, y, beta + step, l1, l2) >= base - 1e-9 * base


@pytest.mark.parametrize("shape", SHAPES)
def test_solve_on_support_is_the_stationary_point_of_the_orthant(shape):
    X, y = make_regression(*shape, seed=9)
    G, c = X.T @ X, X.T @ y
    l1, l2 = to_lambdas(X.shape[0], 0.1, 0.7)
    expected = sklearn_elastic_net(X, y, 0.1, 0.7)
    # with scikit-learn's support and signs: the solution itself
    exact = solve_on_support(G, c, np.sign(expected), l1, l2)
    np.testing.assert_allclose(
        exact, exact_on_support(X, y, np.sign(expected), l1, l2), rtol=1e-10, atol=1e-14
    )
    # duality-gap stopping of scikit-learn, as above
    np.testing.assert_allclose(exact, expected, rtol=0, atol=1e-9)
    # with other signs: the stationary point of that orthant's quadratic
    wrong = np.sign(expected)
    wrong[np.flatnonzero(wrong)[0]] *= -1
    np.testing.assert_allclose(
        solve_on_support(G, c, wrong, l1, l2),
        exact_on_support(X, y, wrong, l1, l2),
        rtol=1e-10,
        atol=1e-14,
    )


def test_solve_on_support_singular_system_raises():
    G = np.array([[1.0, 1.0], [1.0, 1.0]])  # two identical columns, no ridge
    with pytest.raises(np.linalg.LinAlgError):
        solve_on_support(G, np.array([1.0, 1.0]), np.array([1.0, 1.0]), 0.1, 0.0)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_refine_on_orthant_descends_to_an_exact_signed_point(shape, seed):
    X, y = make_regression(*shape, seed=18)
    G, c = X.T @ X, X.T @ y
    l1, l2 = 5.0, 0.3
    rng = np.random.default_rng(seed)
    start = rng.standard_normal(c.shape) * (rng.random(c.shape) < 0.5)
    refined = refine_on_orthant(G, c, start, l1, l2)
    # the objective never increases
    assert objective(X, y, refined, l1, l2) <= objective(X, y, start, l1, l2) * (1 + 1e-14)
    # the result is the stationary point of its own orthant, with consistent signs
    signs = np.sign(refined)
    assert set(np.flatnonzero(signs)) <= set(np.flatnonzero(start))
    np.testing.assert_allclose(
        refined,
        exact_on_support(X, y, signs, l1, l2),
        rtol=0,
        atol=1e-10 * np.abs(refined).max(initial=1.0),
    )


# ---------------------------------------------------------------------------
# 3. Soft thresholding
# ---------------------------------------------------------------------------


def test_soft_threshold_definition():
    values = np.array([-3.0, -1.0, -0.5, -0.2, 0.0, 0.2, 0.5, 1.0, 3.0])
    for t in (0.0, 0.5, 1.0, 4.0):
        expected = [v - t if v > t else v + t if v < -t else 0.0 for v in values]
        np.testing.assert_array_equal(soft_threshold(values, t), expected)
    assert soft_threshold(2.5, 1.0) == 1.5
    assert soft_threshold(-2.5, 1.0) == -1.5


@pytest.mark.parametrize("v, t", [(1.3, 0.4), (-2.2, 0.7), (0.3, 0.5), (-0.45, 0.45), (2.0, 0.0)])
def test_soft_threshold_is_the_prox_of_the_absolute_value(v, t):
    grid = np.linspace(-5.0, 5.0, 2_000_001)  # spacing 5e-6
    brute = grid[np.argmin(0.5 * (grid - v) ** 2 + t * np.abs(grid))]
    # the grid minimiser is within one grid step of the true one
    assert abs(soft_threshold(v, t) - brute) <= 5e-6


# ---------------------------------------------------------------------------
# 4. Warm start
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES)
def test_warm_start_gives_the_same_answer(shape):
    X, y = make_regression(*shape, seed=10)
    G, c = X.T @ X, X.T @ y
    cold, _ = elastic_net_gram(G, c, l1_penalty=3.0, l2_penalty=0.2)
    starts = [
        elastic_net_gram(G, c, l1_penalty=30.0, l2_penalty=0.2)[0],  # a sparser solution
        elastic_net_gram(G, c, l1_penalty=0.3, l2_penalty=0.2)[0],  # a denser one
        np.random.default_rng(11).standard_normal(c.shape),  # anything
    ]
    for start in starts:
        kept = start.copy()
        warm, _ = elastic_net_gram(G, c, l1_penalty=3.0, l2_penalty=0.2, beta_init=start)
        np.testing.assert_array_equal(start, kept)  # the warm start is copied
        np.testing.assert_allclose(warm, cold, rtol=0, atol=1e-10 * np.abs(cold).max())
        np.testing.assert_array_equal(warm != 0, cold != 0)


# ---------------------------------------------------------------------------
# 5. A given number of non-zero coefficients
# ---------------------------------------------------------------------------


def lars_reference(G, c, l2, n_nonzero):
    """The path's solution with ``n_nonzero`` non-zeros where one more enters, by LARS.

    scikit-learn's LARS-lasso path of the augmented problem (``G + λ₂ I``, ``c``)
    is the elastic-net path. With ``n_samples=1`` it minimises
    ``½‖·‖² + α‖β‖₁``, so a knot ``α`` is ``λ₁ = 2α`` here, and ``coefs[:, i]`` is
    the solution at knot ``i``. The reference is the first knot (from large
    ``λ₁`` down) whose solution has ``n_nonzero`` non-zeros and at which a new
    variable enters (it is non-zero at the next knot); knots where a variable
    leaves the path are passed over.
    """
    alphas, _, coefs = lars_path_gram(
        Xy=c, Gram=G + l2 * np.eye(G.shape[0]), n_samples=1, method="lasso"
    )
    nonzero = np.abs(coefs) > 1e-12 * np.abs(coefs).max()
    for i in range(len(alphas) - 1):
        enters = np.any(nonzero[:, i + 1] & ~nonzero[:, i])
        if nonzero[:, i].sum() == n_nonzero and enters:
            return 2 * alphas[i], np.where(nonzero[:, i], coefs[:, i], 0.0)
    raise AssertionError(f"the path never has {n_nonzero} non-zeros before an entry")


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("l2", [0.0, 0.5, 5.0])
@pytest.mark.parametrize("n_nonzero", [1, 2, 3, 5])
def test_n_nonzero_is_exact_and_at_the_lars_knot(shape, l2, n_nonzero):
    X, y = make_regression(*shape, seed=12)
    G, c = X.T @ X, X.T @ y
    knot, expected = lars_reference(G, c, l2, n_nonzero)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no tie here: no warning expected
        beta, l1 = elastic_net_n_nonzero(G, c, n_nonzero=n_nonzero, l2_penalty=l2)
    assert np.count_nonzero(beta) == n_nonzero
    np.testing.assert_allclose(l1, knot, rtol=1e-10)
    np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    assert_is_the_boundary(G, c, beta, l1, l2, n_nonzero)


def assert_is_the_boundary(G, c, beta, l1, l2, n_nonzero):
    """``β`` solves the problem at ``λ₁`` and the next variable enters just below."""
    on_support, off_support = kkt_gaps(G, c, beta, l1, l2)
    assert max(on_support, off_support) <= 1e-10 * np.abs(c).max()
    # l1 is the boundary: a slightly smaller penalty lets one more variable in
    smaller, _ = elastic_net_gram(G, c, l1_penalty=l1 * (1 - 1e-6), l2_penalty=l2)
    assert np.count_nonzero(smaller) == n_nonzero + 1
    # ... and at l1 that variable's optimality condition is tight
    g = c - G @ beta - l2 * beta
    assert np.abs(g[beta == 0]).max() == pytest.approx(l1 / 2, rel=1e-10)


@pytest.mark.parametrize("n_nonzero", [1, 2, 3, 4, 5])
def test_n_nonzero_on_a_path_where_a_variable_leaves(n_nonzero):
    # two correlated columns: on this path variable 1 enters second and leaves
    # at the knot after variable 4 has entered, so the first five-variable
    # stretch of the path ends where a variable leaves, not where one enters,
    # and the answer for n_nonzero = 5 lies further down the path
    rng = np.random.default_rng(96)
    X = rng.standard_normal((30, 6))
    X[:, 1] = X[:, 0] + rng.standard_normal(30)
    y = X @ rng.standard_normal(6) + rng.standard_normal(30)
    G, c = X.T @ X, X.T @ y
    alphas, _, coefs = lars_path_gram(Xy=c, Gram=G, n_samples=1, method="lasso")
    # a leaving coefficient is zero at its knot up to rounding: count with a threshold
    nonzero = np.abs(coefs) > 1e-12 * np.abs(coefs).max()
    leaves = nonzero[:, :-1] & ~nonzero[:, 1:]
    # the premise, with a margin: exactly one variable leaves, and the knots are at
    # least 10 % apart (19 % here), so no change of summation order merges two events
    assert leaves.sum() == 1 and leaves[1].any(), "the path must drop variable 1"
    assert np.min(-np.diff(alphas[:-1]) / alphas[:-2]) > 0.1
    knot, expected = lars_reference(G, c, 0.0, n_nonzero)
    beta, l1 = elastic_net_n_nonzero(G, c, n_nonzero=n_nonzero, l2_penalty=0.0)
    assert np.count_nonzero(beta) == n_nonzero
    np.testing.assert_allclose(l1, knot, rtol=1e-10)
    np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-10 * np.abs(expected).max())
    assert_is_the_boundary(G, c, beta, l1, 0.0, n_nonzero)
    # cross-check with scikit-learn's coordinate descent at that penalty (Lasso: λ₁ = 2nα)
    lasso = Lasso(alpha=l1 / 60, fit_intercept=False, tol=1e-12, max_iter=100000).fit(X, y)
    # duality-gap stopping of scikit-learn, as above
    np.testing.assert_allclose(beta, lasso.coef_, rtol=0, atol=1e-9)


@pytest.mark.parametrize("l2", [0.0, 1.0])
def test_n_nonzero_all_features_is_ridge(l2):
    X, y = make_regression(40, 6, seed=14)
    G, c = X.T @ X, X.T @ y
    beta, l1 = elastic_net_n_nonzero(G, c, n_nonzero=6, l2_penalty=l2)
    assert l1 == 0.0
    np.testing.assert_allclose(beta, np.linalg.solve(G + l2 * np.eye(6), c), rtol=1e-10)


def test_n_nonzero_with_zero_target_returns_zero():
    G = np.eye(3)
    beta, l1 = elastic_net_n_nonzero(G, np.zeros(3), n_nonzero=2, l2_penalty=0.0)
    np.testing.assert_array_equal(beta, np.zeros(3))
    assert l1 == 0.0


def test_n_nonzero_warns_when_two_variables_enter_together():
    # variables 1 and 2 are exchangeable (same variance, same correlation with
    # variable 0, same c): the lasso path adds them at the same λ₁
    rho, r, a = 0.3, 0.6, 0.8
    G = np.array([[1.0, rho, rho], [rho, 1.0, r], [rho, r, 1.0]])
    c = np.array([1.0, a, a])
    # by hand: with only β₀ active, β₀ = 1 - λ₁/2, and variables 1, 2 enter when
    # a - ρ β₀ = λ₁/2, i.e. at λ₁ = 2 (a - ρ) / (1 - ρ)
    knot = 2 * (a - rho) / (1 - rho)
    expected = np.array([1 - knot / 2, 0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta_one, l1_one = elastic_net_n_nonzero(G, c, n_nonzero=1, l2_penalty=0.0)
    with pytest.warns(UserWarning, match="no penalty gives exactly 2 non-zero"):
        beta_two, l1_two = elastic_net_n_nonzero(G, c, n_nonzero=2, l2_penalty=0.0)
    for beta, l1 in ((beta_one, l1_one), (beta_two, l1_two)):
        np.testing.assert_allclose(l1, knot, rtol=1e-12)
        np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(np.flatnonzero(beta), [0])
    # below the knot both enter at once: three non-zeros, never two
    below, _ = elastic_net_gram(G, c, l1_penalty=knot * (1 - 1e-6), l2_penalty=0.0)
    assert np.count_nonzero(below) == 3


def test_n_nonzero_warns_when_the_first_variables_tie():
    # two variables with the same |c| enter at λ₁ = 2 max|c|: one alone is impossible
    G = np.array([[1.0, 0.2, 0.1], [0.2, 1.0, 0.1], [0.1, 0.1, 1.0]])
    c = np.array([1.0, -1.0, 0.3])
    with pytest.warns(UserWarning, match="no penalty gives exactly 1 non-zero"):
        beta, l1 = elastic_net_n_nonzero(G, c, n_nonzero=1, l2_penalty=0.5)
    assert np.count_nonzero(beta) != 1
    # whatever is returned is the elastic-net solution at the returned penalty
    on_support, off_support = kkt_gaps(G, c, beta, l1, 0.5)
    assert max(on_support, off_support) <= 1e-12
    assert 0.0 < l1 <= 2.0


# ---------------------------------------------------------------------------
# 6. Bad input and convergence warnings
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, error, name",
    [
        (dict(y=np.ones(7)), ValueError, "y"),
        (dict(y=np.ones((10, 1))), ValueError, "y"),
        (dict(y=np.ones((10, 2))), ValueError, "y"),
        (dict(y=np.r_[np.nan, np.ones(9)]), ValueError, "y"),
        (dict(y=np.array(["a"] * 10)), TypeError, "y"),
        (dict(X=np.where(np.eye(10, 3) == 1, np.nan, 1.0)), ValueError, "X"),
        (dict(X=np.r_[np.inf, np.ones(29)].reshape(10, 3)), ValueError, "X"),
        (dict(X=np.ones(10)), ValueError, "X"),
        (dict(l1_penalty=-1.0), ValueError, "l1_penalty"),
        (dict(l2_penalty=-0.5), ValueError, "l2_penalty"),
        (dict(l1_penalty=np.nan), ValueError, "l1_penalty"),
        (dict(l2_penalty=np.nan), ValueError, "l2_penalty"),
        (dict(l1_penalty=np.inf), ValueError, "l1_penalty"),
        (dict(l1_penalty="1"), TypeError, "l1_penalty"),
        (dict(l2_penalty=None), TypeError, "l2_penalty"),
        (dict(max_iter=0), ValueError, "max_iter"),
        (dict(max_iter=2.5), TypeError, "max_iter"),
        (dict(tol=0.0), ValueError, "tol"),
    ],
)
def test_bad_input_raises_naming_the_argument(change, error, name):
    rng = np.random.default_rng(15)
    arguments = dict(
        X=rng.standard_normal((10, 3)), y=rng.standard_normal(10), l1_penalty=1.0, l2_penalty=0.1
    )
    arguments.update(change)
    X, y = arguments.pop("X"), arguments.pop("y")
    with pytest.raises(error, match=name):
        elastic_net(X, y, **arguments)


@pytest.mark.parametrize(
    "change, error, name",
    [
        (dict(G=np.where(np.eye(3) == 1, np.nan, 0.0)), ValueError, "G"),
        (dict(G=np.ones((3, 4))), ValueError, "G"),
        (dict(c=np.ones(4)), ValueError, "c"),
        (dict(c=np.r_[np.nan, 1.0, 1.0]), ValueError, "c"),
        (dict(l1_penalty=np.nan), ValueError, "l1_penalty"),
        (dict(l1_penalty=-1.0), ValueError, "l1_penalty"),
        (dict(l2_penalty=-0.5), ValueError, "l2_penalty"),
        (dict(beta_init=np.zeros(4)), ValueError, "beta_init"),
    ],
)
def test_gram_form_rejects_bad_input(change, error, name):
    arguments = dict(G=np.eye(3), c=np.array([1.0, 2.0, 3.0]), l1_penalty=1.0, l2_penalty=0.0)
    arguments.update(change)
    G, c = arguments.pop("G"), arguments.pop("c")
    with pytest.raises(error, match=name):
        elastic_net_gram(G, c, **arguments)


@pytest.mark.parametrize(
    "n_nonzero, l2, error, name",
    [
        (0, 0.0, ValueError, "n_nonzero"),
        (4, 0.0, ValueError, "n_nonzero"),
        (1.0, 0.0, TypeError, "n_nonzero"),
        (True, 0.0, TypeError, "n_nonzero"),
        (1, -1.0, ValueError, "l2_penalty"),
    ],
)
def test_n_nonzero_rejects_bad_input(n_nonzero, l2, error, name):
    with pytest.raises(error, match=name):
        elastic_net_n_nonzero(
            np.eye(3), np.array([1.0, 2.0, 3.0]), n_nonzero=n_nonzero, l2_penalty=l2
        )


def test_list_input_is_accepted():
    X, y = make_regression(20, 5, seed=16)
    beta, _ = elastic_net(X.tolist(), y.tolist(), l1_penalty=1, l2_penalty=0)
    expected = Lasso(alpha=1 / 40, fit_intercept=False, tol=1e-12, max_iter=100000).fit(X, y).coef_
    # duality-gap stopping of scikit-learn, as above
    np.testing.assert_allclose(beta, expected, rtol=0, atol=1e-9)


@pytest.mark.parametrize("function", ["elastic_net", "elastic_net_gram"])
def test_convergence_warning_when_max_iter_is_too_small(function):
    X, y = make_regression(20, 40, seed=17)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        if function == "elastic_net":
            beta, n_iter = elastic_net(X, y, l1_penalty=0.5, l2_penalty=0.0, max_iter=1)
        else:
            beta, n_iter = elastic_net_gram(
                X.T @ X, X.T @ y, l1_penalty=0.5, l2_penalty=0.0, max_iter=1
            )
    assert n_iter == 1
    assert np.all(np.isfinite(beta)) and np.any(beta != 0)
    # with enough sweeps the same problem converges silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta, n_iter = elastic_net(X, y, l1_penalty=0.5, l2_penalty=0.0, max_iter=100000)
    assert n_iter > 1
    on_support, off_support = kkt_gaps(X.T @ X, X.T @ y, beta, 0.5, 0.0)
    assert max(on_support, off_support) <= 1e-9 * np.abs(X.T @ y).max()


# ---------------------------------------------------------------------------
# 7. Collinear ties, the checks of G, c and beta_init, and units
# ---------------------------------------------------------------------------


def test_n_nonzero_with_tied_collinear_columns_and_no_ridge_raises_clearly():
    """Three identical columns: any mix of them is a lasso solution, so the path is not unique."""
    G, c = np.ones((3, 3)), np.ones(3)
    with pytest.raises(ValueError, match=r"columns \[0, 1, 2\] of G are collinear.*l2_penalty"):
        elastic_net_n_nonzero(G, c, n_nonzero=1, l2_penalty=0.0)
    # two identical columns out of three, entering first
    x = np.random.default_rng(18).standard_normal((20, 2))
    X = np.column_stack([x[:, 0], x[:, 0], x[:, 1]])
    y = X[:, 0] + 0.1 * x[:, 1]
    with pytest.raises(ValueError, match=r"columns \[0, 1\] of G are collinear"):
        elastic_net_n_nonzero(X.T @ X, X.T @ y, n_nonzero=1, l2_penalty=0.0)
    # a ridge makes the path unique: the tie splits equally, with a warning
    with pytest.warns(UserWarning, match="no penalty gives exactly 1 non-zero"):
        beta, l1 = elastic_net_n_nonzero(G, c, n_nonzero=1, l2_penalty=0.1)
    assert beta[0] == pytest.approx(beta[1]) == pytest.approx(beta[2])
    on_support, off_support = kkt_gaps(G, c, beta, l1, 0.1)
    assert max(on_support, off_support) <= 1e-12


def test_n_nonzero_with_columns_in_very_different_units_is_not_collinear():
    """Column 0 in units 1e50 times larger: G is badly scaled, yet its columns are independent."""
    X, y = make_regression(30, 4, seed=21)
    X[:, 0] *= 1e50
    G, c = X.T @ X, X.T @ y
    assert np.linalg.cond(G) > 1e90  # what a plain condition number would call singular
    beta, l1 = elastic_net_n_nonzero(G, c, n_nonzero=2, l2_penalty=0.0)
    assert np.count_nonzero(beta) == 2
    # the exact lasso solution at its knot, checked row by row in each row's own units:
    # (G β - c)_m = -(λ₁/2) sign(β_m) on the support, |(G β - c)_m| ≤ λ₁/2 off it
    gradient = G @ beta - c
    tolerance = 1e-9 * (np.abs(c) + l1)
    support = beta != 0
    assert np.all(np.abs(gradient + 0.5 * l1 * np.sign(beta))[support] <= tolerance[support])
    assert np.all(np.abs(gradient)[~support] <= 0.5 * l1 + tolerance[~support])


def asymmetric_and_indefinite(scale):
    S = scale * np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.3], [0.1, 0.3, 1.5]])
    asymmetric = S.copy()
    asymmetric[0, 2] += 0.2 * scale
    indefinite = S - 1.6 * scale * np.eye(3)
    assert np.linalg.eigvalsh(indefinite)[0] < 0
    return S, asymmetric, indefinite


GRAM_FUNCTIONS = {
    "elastic_net_gram": lambda G, c: elastic_net_gram(G, c, l1_penalty=0.0, l2_penalty=0.0),
    "elastic_net_n_nonzero": lambda G, c: elastic_net_n_nonzero(G, c, n_nonzero=1, l2_penalty=0),
}


@pytest.mark.parametrize("scale", [1e-150, 1.0, 1e100], ids=lambda s: f"{s:g}")
@pytest.mark.parametrize("function", GRAM_FUNCTIONS.values(), ids=GRAM_FUNCTIONS.keys())
def test_gram_must_be_symmetric_positive_semidefinite_at_any_scale(function, scale):
    S, asymmetric, indefinite = asymmetric_and_indefinite(scale)
    c = scale * np.array([1.0, 0.5, -0.2])
    with pytest.raises(ValueError, match=r"G must be symmetric.*\(0, 2\)"):
        function(asymmetric, c)
    with pytest.raises(ValueError, match="G must be positive semi-definite"):
        function(indefinite, c)
    # rounding-level asymmetry and a null eigenvalue at rounding level are accepted
    rounded = S * (1 + 1e-15 * np.random.default_rng(19).standard_normal((3, 3)))
    beta, _ = function(rounded, c)
    assert np.all(np.isfinite(beta))
    singular = np.outer([1.0, 2.0, 0.5], [1.0, 2.0, 0.5]) * scale
    beta, _ = elastic_net_gram(singular, c, l1_penalty=0.1 * scale, l2_penalty=scale)
    assert np.all(np.isfinite(beta))


@pytest.mark.parametrize(
    "argument, value, error",
    [
        ("c", ["a", "b", "c"], TypeError),
        ("c", ["1", "2", "3"], TypeError),  # numeric strings are not numbers
        ("c", np.array(["1", "2", "3"], dtype=object), TypeError),
        ("c", "123", TypeError),
        ("c", None, TypeError),
        ("c", [[1.0], [2.0, 3.0]], ValueError),  # ragged, as for X
        ("c", {"a": 1}, TypeError),
        ("c", np.array([1.0, 2.0, 3.0]) + 1j, ValueError),  # the imaginary part is not dropped
        ("c", [1.0, 10**400, 2.0], ValueError),
        ("beta_init", "abc", TypeError),
        ("beta_init", ["0", "0", "0"], TypeError),
        ("beta_init", [0.0, 0.0, 0.0j + 1j], ValueError),
        ("beta_init", [np.nan, 0.0, 0.0], ValueError),
        ("beta_init", [np.inf, 0.0, 0.0], ValueError),
        ("beta_init", np.zeros((3, 1)), ValueError),
    ],
)
def test_c_and_beta_init_must_be_real_numbers(argument, value, error):
    arguments = dict(G=np.eye(3), c=np.array([1.0, 2.0, 3.0]), l1_penalty=1.0, l2_penalty=0.0)
    arguments[argument] = value
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way to the error
        with pytest.raises(error, match=argument):
            elastic_net_gram(arguments.pop("G"), arguments.pop("c"), **arguments)
        if argument == "c":
            with pytest.raises(error, match=argument):
                elastic_net_n_nonzero(np.eye(3), value, n_nonzero=1, l2_penalty=0.0)


@pytest.mark.parametrize(
    "a, b",
    [(1e-8, 1e-8), (1e-3, 255.0), (255.0, 1e-3), (1e8, 1e8), (1e-150, 1e-150), (1e100, 1e100)],
    ids=lambda s: f"{s:g}",
)
def test_elastic_net_is_equivariant_to_the_units_of_X_and_y(a, b):
    """elastic_net(a X, b y) with λ₁ times a b and λ₂ times a² is β times b / a.

    Xᵀ X of 1e100 X has entries near 1e201, whose squares overflow, and that
    of 1e-150 X entries near 1e-299: the solver must not see either.
    """
    X, y = make_regression(30, 6, seed=20)
    X, y = X / np.abs(X).max(), y / np.abs(y).max()  # unit size, so that a X passes the check
    l1, l2 = 0.5, 0.2
    beta, n_iter = elastic_net(X, y, l1_penalty=l1, l2_penalty=l2)
    assert 0 < np.count_nonzero(beta) < 6  # a sparse solution
    beta_scaled, n_iter_scaled = elastic_net(
        a * X, b * y, l1_penalty=l1 * a * b, l2_penalty=l2 * a * a
    )
    np.testing.assert_array_equal(beta_scaled != 0, beta != 0)
    np.testing.assert_allclose(beta_scaled, beta * (b / a), rtol=1e-6)
    assert n_iter_scaled == n_iter
