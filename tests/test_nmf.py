"""Tests of :class:`pcalib.NMF` (chapter 6): monotone updates, KKT conditions, scikit-learn.

Expected values come from scikit-learn's ``NMF`` (same loss, same solver
family, same initialisation), from the KKT conditions of the problem written
out here, and from the objective evaluated here with NumPy.
"""

import warnings
from contextlib import contextmanager

import numpy as np
import pytest
import scipy.optimize
from sklearn.datasets import load_digits
from sklearn.decomposition import NMF as SklearnNMF
from sklearn.utils.estimator_checks import parametrize_with_checks

from estimator_checks import without_array_api_check

from pcalib import NMF
import pcalib.nmf
from pcalib.nmf import nndsvd

DIGITS = load_digits().data


@contextmanager
def convergence_warnings_allowed():
    """Let ConvergenceWarnings pass: these tests ask for tolerances that may not be met
    within max_iter, and check the objective or the KKT conditions instead."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def loss_here(X, W, H, loss):
    """The loss written out independently of pcalib."""
    WH = W @ H
    if loss == "frobenius":
        return 0.5 * np.sum((X - WH) ** 2)
    mask = X > 0
    return np.sum(X[mask] * np.log(X[mask] / WH[mask])) - X.sum() + WH.sum()


@pytest.mark.parametrize("solver, loss, extrapolate", [
    ("hals", "frobenius", True), ("hals", "frobenius", False), ("mu", "frobenius", False),
    ("pg", "frobenius", False), ("mu", "kullback-leibler", False)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objective_never_increases(solver, loss, extrapolate, seed):
    X = np.random.default_rng(seed).random((40, 25)) ** 2
    model = NMF(5, solver=solver, loss=loss, extrapolate=extrapolate, init="random",
                random_state=seed, max_iter=300, tol=1e-12)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    history = model.objective_history_
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    # the last entry is the objective of the returned factors (normalisation keeps W H)
    np.testing.assert_allclose(history[-1], loss_here(X, W, model.components_, loss),
                               rtol=1e-10)


@pytest.mark.parametrize("solver, sklearn_solver, loss, max_iter", [
    ("hals", "cd", "frobenius", 3000), ("mu", "mu", "frobenius", 3000),
    ("mu", "mu", "kullback-leibler", 600)])
def test_final_loss_within_one_percent_of_sklearn(solver, sklearn_solver, loss, max_iter):
    X = DIGITS[:600]
    ours = NMF(8, solver=solver, loss=loss, init="nndsvda", max_iter=max_iter, tol=1e-9)
    theirs = SklearnNMF(8, solver=sklearn_solver, beta_loss=loss, init="nndsvda",
                        max_iter=max_iter, tol=1e-9)
    with convergence_warnings_allowed():
        ours.fit(X)
        theirs.fit(X)
    # both are local optima from the same start: within 1 % (the criterion)
    assert ours.reconstruction_err_ <= 1.01 * theirs.reconstruction_err_


def sklearn_penalties(X, alpha_W, alpha_H, l1_ratio):
    """scikit-learn's alpha_W, alpha_H, l1_ratio as pcalib's (for W, for H) pairs.

    scikit-learn's objective is ½‖X - WH‖² + α_W ρ d ‖W‖₁ + ½ α_W (1-ρ) d ‖W‖²
    + α_H ρ n ‖H‖₁ + ½ α_H (1-ρ) n ‖H‖² (its user guide, "NMF with a beta-divergence").
    """
    n, d = X.shape
    l1 = (alpha_W * l1_ratio * d, alpha_H * l1_ratio * n)
    l2 = (alpha_W * (1 - l1_ratio) * d, alpha_H * (1 - l1_ratio) * n)
    return l1, l2


def objective_here(X, W, H, l1, l2):
    return (loss_here(X, W, H, "frobenius") + l1[0] * W.sum() + l1[1] * H.sum()
            + 0.5 * l2[0] * np.sum(W ** 2) + 0.5 * l2[1] * np.sum(H ** 2))


# A penalty on one factor alone has no minimiser (shrinking that factor and
# growing the other lowers it forever), so both factors are penalised, unequally.
@pytest.mark.parametrize("alpha_W, alpha_H, l1_ratio", [
    (0.002, 0.05, 1.0), (0.01, 0.002, 1.0), (0.05, 0.01, 0.0), (0.01, 0.03, 0.5)])
def test_penalties_on_each_factor_match_sklearn(alpha_W, alpha_H, l1_ratio):
    X = DIGITS[:400]
    l1, l2 = sklearn_penalties(X, alpha_W, alpha_H, l1_ratio)
    ours = NMF(6, solver="hals", l1_penalty=l1, l2_penalty=l2, max_iter=3000, tol=1e-10)
    theirs = SklearnNMF(6, solver="cd", init="nndsvda", alpha_W=alpha_W, alpha_H=alpha_H,
                        l1_ratio=l1_ratio, max_iter=3000, tol=1e-10)
    with convergence_warnings_allowed():
        W = ours.fit_transform(X)
        W_sk = theirs.fit_transform(X)
    value = objective_here(X, W, ours.components_, l1, l2)
    value_sk = objective_here(X, W_sk, theirs.components_, l1, l2)
    np.testing.assert_allclose(ours.objective_history_[-1], value, rtol=1e-10)
    assert value <= 1.01 * value_sk
    # the more heavily L1-penalised factor is the sparser one
    if l1_ratio == 1.0:
        zeros_W, zeros_H = np.mean(W == 0), np.mean(ours.components_ == 0)
        assert (zeros_H > zeros_W) == (alpha_H * X.shape[0] > alpha_W * X.shape[1])


def test_kkt_conditions_with_penalties_on_each_factor():
    X = np.random.default_rng(6).random((30, 20))
    l1, l2 = (0.3, 0.05), (0.1, 0.2)
    model = NMF(4, solver="hals", l1_penalty=l1, l2_penalty=l2, max_iter=5000, tol=1e-14)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    H = model.components_
    grad_W = (W @ H - X) @ H.T + l1[0] + l2[0] * W
    grad_H = W.T @ (W @ H - X) + l1[1] + l2[1] * H
    scale = np.abs(X).max() ** 2
    assert W.min() >= 0 and H.min() >= 0
    assert grad_W.min() >= -1e-5 * scale and grad_H.min() >= -1e-5 * scale
    assert np.abs(W * grad_W).max() <= 1e-5 * scale
    assert np.abs(H * grad_H).max() <= 1e-5 * scale


@pytest.mark.parametrize("value, error", [((0.1,), ValueError), ((0.1, -1.0), ValueError),
                                          ((0.1, "a"), TypeError)])
def test_penalty_pairs_are_checked(value, error):
    with pytest.raises(error, match="l2_penalty"):
        NMF(2, l2_penalty=value).fit(np.ones((4, 3)))


def test_nndsvd_from_randomized_svd_matches_full_svd(monkeypatch):
    rng = np.random.default_rng(7)
    X = rng.random((60, 4)) @ rng.random((4, 50)) + 0.01 * rng.random((60, 50))
    W_full, H_full = nndsvd(X, 4)
    monkeypatch.setattr(pcalib.nmf, "FULL_SVD_MAX", 10)  # take the randomized branch
    W_rand, H_rand = nndsvd(X, 4)
    np.testing.assert_allclose(W_rand @ H_rand, W_full @ H_full, atol=1e-8)


@pytest.mark.parametrize("extrapolate", [True, False])
def test_kkt_conditions_hold_at_a_hals_fixed_point(extrapolate):
    X = np.random.default_rng(3).random((30, 20))
    model = NMF(4, solver="hals", extrapolate=extrapolate, max_iter=5000, tol=1e-14)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    H = model.components_
    grad_W = (W @ H - X) @ H.T
    grad_H = W.T @ (W @ H - X)
    scale = np.abs(X).max() ** 2
    # KKT of min ½‖X - WH‖²: factors ≥ 0, gradients ≥ 0, complementarity;
    # to the stopping tolerance of an iterative solver, hence 1e-5 of the scale
    assert W.min() >= 0 and H.min() >= 0
    assert grad_W.min() >= -1e-5 * scale and grad_H.min() >= -1e-5 * scale
    assert np.abs(W * grad_W).max() <= 1e-5 * scale
    assert np.abs(H * grad_H).max() <= 1e-5 * scale


def test_transform_of_training_data_reproduces_the_fit():
    X = DIGITS[:300]
    model = NMF(6, solver="hals", max_iter=2000, tol=1e-10)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
        W_again = model.transform(X)
    # both are solutions of the same convex problem in W (H fixed), reached iteratively
    np.testing.assert_allclose(W_again @ model.components_, W @ model.components_,
                               atol=1e-3 * np.abs(X).max())


@pytest.mark.parametrize("l2", [0.0, 0.7])
def test_exact_W_solve_matches_scipy_nnls(l2):
    rng = np.random.default_rng(9)
    X, H = rng.random((25, 30)), rng.random((5, 30))
    H[:, ::3] = 0.0                      # sparse parts: many zeros in the solution
    W = pcalib.nmf.solve_W(X, np.ones((25, 5)), H, loss="frobenius", l1=0.0, l2=l2)
    # row i: min ½‖x_i - Hᵀ w‖² + ½λ₂‖w‖², w ≥ 0, as an NNLS on [Hᵀ; √λ₂ I] w ≈ [x_i; 0]
    design = np.vstack([H.T, np.sqrt(l2) * np.eye(5)])
    expected = np.array([scipy.optimize.nnls(design, np.concatenate([x, np.zeros(5)]))[0]
                         for x in X])
    np.testing.assert_allclose(W, expected, atol=1e-9)
    assert np.mean(W == 0) > 0.05        # the zeros are exact


@pytest.mark.parametrize("l1, l2", [(0.0, 0.0), (1.0, 0.5)])
def test_kl_transform_solves_the_convex_problem_in_W(l1, l2):
    X = DIGITS[:300]
    model = NMF(6, solver="mu", loss="kullback-leibler", l1_penalty=l1, l2_penalty=l2,
                max_iter=100)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    W_again = model.transform(X)
    H = model.components_
    # two starts (the fitted W and a constant), one strictly convex problem
    np.testing.assert_allclose(W_again, W, atol=1e-6 * np.abs(W).max())
    # its KKT conditions, written out: gradient (1 - X / WH) Hᵀ + λ₁ + λ₂ W
    ratio = np.divide(X, W @ H, out=np.zeros_like(X), where=X > 0)   # 0/0 counts as 0
    gradient = (1 - ratio) @ H.T + l1 + l2 * W
    scale = np.abs(gradient).max()
    assert gradient.min() >= -1e-6 * scale
    assert np.abs(W * gradient).max() <= 1e-6 * scale * np.abs(W).max()


def test_negative_input_names_the_smallest_value():
    X = np.ones((5, 4))
    X[2, 3] = -0.25
    with pytest.raises(ValueError, match=r"smallest entry is -0.25 at index \(2, 3\)"):
        NMF(2).fit(X)


@pytest.mark.parametrize("solver, loss", [("hals", "frobenius"), ("mu", "frobenius"),
                                          ("pg", "frobenius"), ("mu", "kullback-leibler")])
def test_zero_rows_columns_and_entries_give_no_nan(solver, loss):
    X = np.random.default_rng(4).random((12, 8))
    X[3] = 0.0
    X[:, 5] = 0.0
    X[X < 0.3] = 0.0
    model = NMF(3, solver=solver, loss=loss, max_iter=200)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    assert np.all(np.isfinite(W)) and np.all(np.isfinite(model.components_))
    assert np.isfinite(model.reconstruction_err_)


@pytest.mark.parametrize("params, error", [
    ({"solver": "mu", "extrapolate": True}, ValueError),
    ({"solver": "pg", "extrapolate": True}, ValueError),
    ({"extrapolate": "yes"}, TypeError)])
def test_extrapolation_needs_hals_and_a_bool(params, error):
    with pytest.raises(error, match="extrapolate"):
        NMF(2, **params).fit(np.ones((4, 3)))


def test_extrapolation_never_kills_a_component():
    H_previous = np.array([[2.0, 2.0, 2.0], [1.0, 0.0, 3.0]])
    H_new = np.array([[0.1, 0.2, 0.1], [1.5, 0.0, 3.5]])
    H_from = pcalib.nmf.extrapolate_factor(H_new, H_previous, 1.0)
    # row 0 would be max(0, 2 H_new - H_previous) = 0: it keeps H_new instead
    np.testing.assert_array_equal(H_from[0], H_new[0])
    np.testing.assert_allclose(H_from[1], [2.0, 0.0, 4.0])


def test_extrapolated_and_plain_hals_reach_the_same_quality():
    X = DIGITS[:500]
    with convergence_warnings_allowed():
        fits = {flag: NMF(10, extrapolate=flag, max_iter=3000, tol=1e-9).fit(X)
                for flag in (True, False)}
    # two local minima from the same start: within 1 % of each other, and the
    # extrapolated run needs fewer iterations (its purpose)
    errors = {flag: fit.reconstruction_err_ for flag, fit in fits.items()}
    assert abs(errors[True] - errors[False]) <= 0.01 * errors[False]
    assert fits[True].n_iter_ < fits[False].n_iter_


@pytest.mark.parametrize("solver", ["hals", "pg"])
def test_frobenius_only_solvers_refuse_kl(solver):
    with pytest.raises(ValueError, match=f"solver='{solver}'"):
        NMF(2, solver=solver, loss="kullback-leibler").fit(np.ones((4, 3)))


def test_projected_gradient_reaches_the_hals_minimum_of_a_convex_subproblem():
    # with W fixed the problem in H is convex: PG steps and HALS sweeps must meet
    rng = np.random.default_rng(8)
    X, W = rng.random((30, 12)), rng.random((30, 3))
    A, B = W.T @ X, W.T @ W
    H_pg = H_hals = rng.random((3, 12))
    for _ in range(5000):
        H_pg = pcalib.nmf.projected_gradient_update(H_pg, A, B, 0.1, 0.2)
    for _ in range(500):
        H_hals = pcalib.nmf.hals_update(H_hals, A, B, 0.1, 0.2)
    np.testing.assert_allclose(H_pg, H_hals, atol=1e-8)
    # and it is the minimiser: the KKT conditions of ½‖X - WH‖² + 0.1 ΣH + 0.1 ‖H‖²
    gradient = B @ H_hals - A + 0.1 + 0.2 * H_hals
    assert gradient.min() >= -1e-10 and np.abs(H_hals * gradient).max() <= 1e-10


@pytest.mark.parametrize("params, message", [
    ({"n_components": 0}, "n_components"), ({"loss": "l2"}, "loss"),
    ({"init": "svd"}, "init"), ({"l1_penalty": -1.0}, "l1_penalty"),
    ({"max_iter": 0}, "max_iter"), ({"tol": 0.0}, "tol")])
def test_invalid_parameters_are_named(params, message):
    with pytest.raises((ValueError, TypeError), match=message):
        NMF(**params).fit(np.ones((4, 3)))


def test_nndsvd_is_non_negative_and_exact_for_rank_one():
    rng = np.random.default_rng(5)
    u, v = rng.random(10), rng.random(7)
    W, H = nndsvd(np.outer(u, v), 1)
    np.testing.assert_allclose(W @ H, np.outer(u, v), atol=1e-12)
    W, H = nndsvd(DIGITS[:50], 5)
    assert W.min() >= 0 and H.min() >= 0


def test_normalised_components_have_unit_rows():
    model = NMF(4, max_iter=100)
    with convergence_warnings_allowed():
        W = model.fit_transform(DIGITS[:200])
    nonzero = np.linalg.norm(model.components_, axis=1) > 0
    np.testing.assert_allclose(np.linalg.norm(model.components_[nonzero], axis=1), 1.0,
                               rtol=1e-12)
    contributions = np.linalg.norm(W, axis=0)
    assert np.all(np.diff(contributions) <= 0)


@without_array_api_check(parametrize_with_checks([
    NMF(), NMF(extrapolate=False), NMF(solver="mu"), NMF(solver="pg"),
    NMF(solver="mu", loss="kullback-leibler")]))
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
