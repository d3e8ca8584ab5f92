"""Tests of :class:`pcalib.NMF` (chapter 6): monotone updates, KKT conditions, scikit-learn.

Expected values come from scikit-learn's ``NMF`` (same loss, same solver
family, same start: scikit-learn's NNDSVDa fills zeros with the mean of X
where pcalib fills with √(mean / k), so it is given pcalib's start), from the
KKT conditions of the problem written out here, from the objective evaluated
here with NumPy, and from the laws by which a fit changes with the units of X.
"""

import copy
import warnings
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest
import scipy.optimize
import scipy.sparse
from sklearn.datasets import load_digits
from sklearn.decomposition import NMF as SklearnNMF
from sklearn.decomposition import non_negative_factorization
from sklearn.exceptions import ConvergenceWarning

import pcalib.nmf
import pcalib.nmf.divergences
import pcalib.nmf.initialization
from pcalib import NMF
from pcalib.datasets import load_faces
from pcalib.nmf import nndsvd

DIGITS = load_digits().data


@contextmanager
def convergence_warnings_allowed():
    """Let ConvergenceWarnings pass.

    These tests ask for tolerances that may not be met within max_iter, and
    check the objective or the KKT conditions instead.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def loss_here(X, W, H, beta_loss):
    """The loss written out independently of pcalib."""
    WH = W @ H
    if beta_loss == "frobenius":
        return 0.5 * np.sum((X - WH) ** 2)
    mask = X > 0
    return np.sum(X[mask] * np.log(X[mask] / WH[mask])) - X.sum() + WH.sum()


SOLVER_CONFIGURATIONS = [
    ("cd", "frobenius", True),
    ("cd", "frobenius", False),
    ("mu", "frobenius", False),
    ("pg", "frobenius", False),
    ("anls", "frobenius", False),
    ("mu", "kullback-leibler", False),
]


@pytest.mark.parametrize("solver, beta_loss, extrapolate", SOLVER_CONFIGURATIONS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_objective_never_increases(solver, beta_loss, extrapolate, seed):
    X = np.random.default_rng(seed).random((40, 25)) ** 2
    model = NMF(
        5,
        solver=solver,
        beta_loss=beta_loss,
        extrapolate=extrapolate,
        init="random",
        random_state=seed,
        max_iter=300,
        tol=1e-12,
    )
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    history = model.objective_history_
    assert len(history) == model.n_iter_ + 1
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    # the final exact solve for W (not in the history) can only lower the last value;
    # reconstruction_err_ is √(2 × loss) of the returned factors (normalisation keeps W H)
    final = loss_here(X, W, model.components_, beta_loss)
    assert final <= history[-1] * (1 + 1e-12)
    np.testing.assert_allclose(model.reconstruction_err_, np.sqrt(2 * final), rtol=1e-10)


@pytest.mark.parametrize("solver, beta_loss, extrapolate", SOLVER_CONFIGURATIONS)
def test_tol_zero_runs_exactly_max_iter(solver, beta_loss, extrapolate):
    X = DIGITS[:100]
    model = NMF(4, solver=solver, beta_loss=beta_loss, extrapolate=extrapolate, tol=0, max_iter=60)
    with pytest.warns(ConvergenceWarning, match="NMF stopped after max_iter=60 iterations"):
        model.fit(X)
    assert model.n_iter_ == 60 and model.converged_ is False
    assert model.objective_history_.shape == (61,)


@pytest.mark.parametrize("tol, max_iter, converged", [(1e-3, 500, True), (1e-12, 7, False)])
def test_history_has_one_entry_per_iteration_and_the_start(tol, max_iter, converged):
    X = DIGITS[:200]
    model = NMF(5, tol=tol, max_iter=max_iter)
    with convergence_warnings_allowed():
        model.fit(X)
    assert model.converged_ is converged
    assert (model.n_iter_ < max_iter) is converged
    assert model.objective_history_.shape == (model.n_iter_ + 1,)
    # the first entry is the objective of the NNDSVDa start, computed here
    W_start, H_start = nndsvd(X, 5, fill_zeros="nndsvda")
    np.testing.assert_allclose(
        model.objective_history_[0], loss_here(X, W_start, H_start, "frobenius"), rtol=1e-10
    )
    if model.converged_:
        assert model.objective_history_[-2] - model.objective_history_[-1] < (
            tol * model.objective_history_[0]
        )


@pytest.mark.parametrize(
    "shape, n_components, expected",
    [
        ((30, 8), 5, "nndsvda"),
        ((30, 8), 8, "nndsvda"),
        ((6, 8), 7, "random"),
        ((6, 8), None, "random"),
        ((30, 8), None, "nndsvda"),
    ],
)
def test_init_none_follows_sklearns_rule_and_is_recorded(shape, n_components, expected):
    X = np.random.default_rng(10).random(shape)
    with convergence_warnings_allowed():
        model = NMF(n_components, random_state=0, max_iter=50).fit(X)
    # scikit-learn: "nndsvda" if n_components <= min(n_samples, n_features), else "random"
    assert model.init_ == expected
    assert model.n_components_ == (shape[1] if n_components is None else n_components)
    assert model.n_samples_ == shape[0] and model.n_features_in_ == shape[1]
    for init in ("nndsvd", "nndsvda", "random"):
        with convergence_warnings_allowed():
            assert NMF(3, init=init, random_state=0, max_iter=5).fit(X).init_ == init


@pytest.mark.parametrize("init", ["nndsvd", "nndsvda", "nndsvdar"])
def test_nndsvd_needs_at_most_min_n_d_components(init):
    with pytest.raises(ValueError, match=f"init = '{init}' can only be used when n_components <= "):
        NMF(7, init=init).fit(np.random.default_rng(0).random((6, 8)))


@pytest.mark.parametrize(
    "solver, extrapolate, expected",
    [
        ("cd", "auto", True),
        ("cd", False, False),
        ("cd", True, True),
        ("mu", "auto", False),
        ("pg", "auto", False),
    ],
)
def test_what_extrapolate_auto_chose_is_recorded(solver, extrapolate, expected):
    with convergence_warnings_allowed():
        model = NMF(3, solver=solver, extrapolate=extrapolate, max_iter=5).fit(DIGITS[:50])
    assert model.extrapolate_ is expected


@pytest.mark.parametrize(
    "solver, beta_loss, max_iter",
    [("cd", "frobenius", 3000), ("mu", "frobenius", 3000), ("mu", "kullback-leibler", 600)],
)
def test_final_loss_within_one_percent_of_sklearn(solver, beta_loss, max_iter):
    X = DIGITS[:600]
    same = dict(solver=solver, beta_loss=beta_loss, max_iter=max_iter, tol=1e-9)
    ours = NMF(8, init="nndsvda", **same)
    theirs = SklearnNMF(8, init="custom", **same)
    W_start, H_start = nndsvd(X, 8, fill_zeros="nndsvda")
    with convergence_warnings_allowed():
        ours.fit(X)
        theirs.fit(X, W=W_start, H=H_start)
    # both are local optima from the same start: within 1 % (the criterion)
    assert ours.reconstruction_err_ <= 1.01 * theirs.reconstruction_err_


def sklearn_penalties(X, alpha_W, alpha_H, l1_ratio):
    """The weights (for W, for H) of the L1 and L2 penalties that alpha_W, alpha_H, l1_ratio set.

    scikit-learn's objective is ½‖X - WH‖² + α_W ρ d ‖W‖₁ + ½ α_W (1-ρ) d ‖W‖²
    + α_H ρ n ‖H‖₁ + ½ α_H (1-ρ) n ‖H‖² (its user guide, "NMF with a beta-divergence"),
    with α_H = α_W for alpha_H="same".
    """
    n, d = X.shape
    alpha_H = alpha_W if alpha_H == "same" else alpha_H
    l1 = (alpha_W * l1_ratio * d, alpha_H * l1_ratio * n)
    l2 = (alpha_W * (1 - l1_ratio) * d, alpha_H * (1 - l1_ratio) * n)
    return l1, l2


def objective_here(X, W, H, l1, l2):
    return (
        loss_here(X, W, H, "frobenius")
        + l1[0] * W.sum()
        + l1[1] * H.sum()
        + 0.5 * l2[0] * np.sum(W**2)
        + 0.5 * l2[1] * np.sum(H**2)
    )


# A penalty on one factor alone has no minimiser (shrinking that factor and
# growing the other lowers it forever), so both factors are penalised, unequally.
# extrapolate=False runs the iteration of scikit-learn's cd itself.
@pytest.mark.parametrize(
    "solver, extrapolate, alpha_W, alpha_H, l1_ratio",
    [
        ("cd", "auto", 0.002, 0.05, 1.0),
        ("cd", "auto", 0.01, 0.002, 1.0),
        ("cd", "auto", 0.05, 0.01, 0.0),
        ("cd", "auto", 0.01, 0.03, 0.5),
        ("cd", "auto", 0.01, "same", 1.0),
        ("cd", False, 0.005, "same", 0.5),
        ("mu", "auto", 0.01, 0.03, 0.5),
        ("mu", "auto", 0.005, "same", 0.5),
    ],
)
def test_alpha_W_alpha_H_l1_ratio_give_sklearns_fit(
    solver, extrapolate, alpha_W, alpha_H, l1_ratio
):
    X = DIGITS[:400]
    params = dict(
        solver=solver,
        alpha_W=alpha_W,
        alpha_H=alpha_H,
        l1_ratio=l1_ratio,
        max_iter=3000,
        tol=1e-10,
    )
    ours = NMF(6, init="nndsvda", extrapolate=extrapolate, **params)
    theirs = SklearnNMF(6, init="custom", **params)
    W_start, H_start = nndsvd(X, 6, fill_zeros="nndsvda")
    with convergence_warnings_allowed():
        W = ours.fit_transform(X)
        W_sk = theirs.fit_transform(X, W=W_start, H=H_start)
    l1, l2 = sklearn_penalties(X, alpha_W, alpha_H, l1_ratio)
    value = objective_here(X, W, ours.components_, l1, l2)
    value_sk = objective_here(X, W_sk, theirs.components_, l1, l2)
    # both minimise the same penalised objective from the same start: within 1 %
    assert value <= 1.01 * value_sk
    # the history holds that objective; the final solve for W can only lower it
    assert value <= ours.objective_history_[-1] * (1 + 1e-12)
    assert ours.objective_history_[-1] <= 1.001 * value
    # the more heavily L1-penalised factor is the sparser one
    if l1_ratio == 1.0:
        zeros_W, zeros_H = np.mean(W == 0), np.mean(ours.components_ == 0)
        assert (zeros_H > zeros_W) == (l1[1] > l1[0])


def test_scaled_penalties_are_sklearns():
    X = DIGITS[:400]
    for alpha_H in (0.03, "same"):
        weights = pcalib.nmf.scaled_penalties(0.01, alpha_H, 0.25, *X.shape)
        (l1_W, l1_H), (l2_W, l2_H) = sklearn_penalties(X, 0.01, alpha_H, 0.25)
        np.testing.assert_allclose(weights, (l1_W, l1_H, l2_W, l2_H), rtol=1e-15)


def test_kkt_conditions_with_penalties_on_each_factor():
    X = np.random.default_rng(6).random((30, 20))
    l1, l2 = sklearn_penalties(X, 0.008, 0.005, 0.6)
    model = NMF(
        4, solver="cd", alpha_W=0.008, alpha_H=0.005, l1_ratio=0.6, max_iter=5000, tol=1e-14
    )
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


@pytest.mark.parametrize(
    "params, error, name",
    [
        ({"alpha_W": -0.1}, ValueError, "alpha_W"),
        ({"alpha_W": "same"}, TypeError, "alpha_W"),
        ({"alpha_H": -0.1}, ValueError, "alpha_H"),
        ({"alpha_H": "other"}, ValueError, "alpha_H"),
        ({"alpha_H": None}, TypeError, "alpha_H"),
        ({"l1_ratio": 1.5}, ValueError, "l1_ratio"),
        ({"l1_ratio": -0.5}, ValueError, "l1_ratio"),
        ({"l1_ratio": "a"}, TypeError, "l1_ratio"),
    ],
)
def test_penalty_parameters_are_checked(params, error, name):
    with pytest.raises(error, match=name):
        NMF(2, **params).fit(np.ones((4, 3)))


def test_nndsvd_from_randomized_svd_matches_full_svd(monkeypatch):
    rng = np.random.default_rng(7)
    X = rng.random((60, 4)) @ rng.random((4, 50)) + 0.01 * rng.random((60, 50))
    W_full, H_full = nndsvd(X, 4)
    monkeypatch.setattr(pcalib.nmf.initialization, "FULL_SVD_MAX", 10)  # take the randomized branch
    W_rand, H_rand = nndsvd(X, 4)
    np.testing.assert_allclose(W_rand @ H_rand, W_full @ H_full, atol=1e-8)


@pytest.mark.parametrize("extrapolate", [True, False])
def test_kkt_conditions_hold_at_a_hals_fixed_point(extrapolate):
    X = np.random.default_rng(3).random((30, 20))
    model = NMF(4, solver="cd", extrapolate=extrapolate, max_iter=5000, tol=1e-14)
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
    model = NMF(6, solver="cd", max_iter=2000, tol=1e-10)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
        W_again = model.transform(X)
    # both are solutions of the same convex problem in W (H fixed), reached iteratively
    np.testing.assert_allclose(
        W_again @ model.components_, W @ model.components_, atol=1e-3 * np.abs(X).max()
    )


@pytest.mark.parametrize("l2", [0.0, 0.7])
def test_exact_W_solve_matches_scipy_nnls(l2):
    rng = np.random.default_rng(9)
    X, H = rng.random((25, 30)), rng.random((5, 30))
    H[:, ::3] = 0.0  # sparse parts: many zeros in the solution
    W = pcalib.nmf.solve_W(X, np.ones((25, 5)), H, beta=2, l1_penalty=0.0, l2_penalty=l2)
    # row i: min ½‖x_i - Hᵀ w‖² + ½λ₂‖w‖², w ≥ 0, as an NNLS on [Hᵀ; √λ₂ I] w ≈ [x_i; 0]
    design = np.vstack([H.T, np.sqrt(l2) * np.eye(5)])
    expected = np.array(
        [scipy.optimize.nnls(design, np.concatenate([x, np.zeros(5)]))[0] for x in X]
    )
    np.testing.assert_allclose(W, expected, atol=1e-9)
    assert np.mean(W == 0) > 0.05  # the zeros are exact


@pytest.mark.parametrize("alpha_W, l1_ratio", [(0.0, 0.0), (0.02, 2 / 3)])
def test_kl_transform_solves_the_convex_problem_in_W(alpha_W, l1_ratio):
    X = DIGITS[:300]
    model = NMF(
        6,
        solver="mu",
        beta_loss="kullback-leibler",
        alpha_W=alpha_W,
        l1_ratio=l1_ratio,
        max_iter=100,
    )
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    W_again = model.transform(X)
    H = model.components_
    (l1, _), (l2, _) = sklearn_penalties(X, alpha_W, "same", l1_ratio)
    # two starts (the fitted W and a constant), one strictly convex problem
    np.testing.assert_allclose(W_again, W, atol=1e-6 * np.abs(W).max())
    # its KKT conditions, written out: gradient (1 - X / WH) Hᵀ + λ₁ + λ₂ W
    ratio = np.divide(X, W @ H, out=np.zeros_like(X), where=X > 0)  # 0/0 counts as 0
    gradient = (1 - ratio) @ H.T + l1 + l2 * W
    scale = np.abs(gradient).max()
    assert gradient.min() >= -1e-6 * scale
    assert np.abs(W * gradient).max() <= 1e-6 * scale * np.abs(W).max()


def test_negative_input_names_the_smallest_value():
    X = np.ones((5, 4))
    X[2, 3] = -0.25
    with pytest.raises(ValueError, match=r"smallest entry is -0.25 at index \(2, 3\)"):
        NMF(2).fit(X)


@pytest.mark.parametrize(
    "solver, beta_loss",
    [("cd", "frobenius"), ("mu", "frobenius"), ("pg", "frobenius"), ("mu", "kullback-leibler")],
)
def test_zero_rows_columns_and_entries_give_no_nan(solver, beta_loss):
    X = np.random.default_rng(4).random((12, 8))
    X[3] = 0.0
    X[:, 5] = 0.0
    X[X < 0.3] = 0.0
    model = NMF(3, solver=solver, beta_loss=beta_loss, max_iter=200)
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    assert np.all(np.isfinite(W)) and np.all(np.isfinite(model.components_))
    assert np.isfinite(model.reconstruction_err_)


@pytest.mark.parametrize(
    "params, error",
    [
        ({"solver": "mu", "extrapolate": True}, ValueError),
        ({"solver": "pg", "extrapolate": True}, ValueError),
        ({"extrapolate": "yes"}, ValueError),  # a string, but not "auto"
    ],
)
def test_extrapolation_needs_cd_and_a_bool(params, error):
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
        fits = {
            flag: NMF(10, extrapolate=flag, max_iter=3000, tol=1e-9).fit(X)
            for flag in (True, False)
        }
    # two local minima from the same start: within 1 % of each other, and the
    # extrapolated run needs fewer iterations (its purpose)
    errors = {flag: fit.reconstruction_err_ for flag, fit in fits.items()}
    assert abs(errors[True] - errors[False]) <= 0.01 * errors[False]
    assert fits[True].n_iter_ < fits[False].n_iter_


@pytest.mark.parametrize("solver", ["cd", "pg"])
@pytest.mark.parametrize("beta_loss", ["kullback-leibler", "itakura-saito", 1.0, 0.5, 2.5])
def test_frobenius_only_solvers_refuse_other_betas(solver, beta_loss):
    # scikit-learn's message, which names the solver and the loss
    message = f"Invalid beta_loss parameter: solver '{solver}' does not handle beta_loss"
    with pytest.raises(ValueError, match=message):
        NMF(2, solver=solver, beta_loss=beta_loss).fit(np.ones((4, 3)))


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


@pytest.mark.parametrize(
    "params, message",
    [
        ({"n_components": 0}, "n_components"),
        ({"n_components": "all"}, "n_components"),
        ({"n_components": 4, "init": "nndsvd"}, "n_components"),
        ({"beta_loss": None}, "beta_loss"),
        ({"beta_loss": np.inf, "solver": "mu"}, "beta_loss"),
        ({"beta_loss": 1.5}, "beta_loss"),
        ({"n_components": 2.0}, "n_components"),
        ({"beta_loss": "l2"}, "beta_loss"),
        ({"solver": "hals"}, "solver"),
        ({"init": "svd"}, "init"),
        ({"max_iter": 0}, "max_iter"),
        ({"tol": -1e-6}, "tol"),
    ],
)
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
    np.testing.assert_allclose(np.linalg.norm(model.components_[nonzero], axis=1), 1.0, rtol=1e-12)
    contributions = np.linalg.norm(W, axis=0)
    assert np.all(np.diff(contributions) <= 0)


# ----------------------------------------------------------------------------
# Units: fit(c X) is fit(X) rescaled

SCALES = [1e-8, 1e-3, 255.0, 1e8]
# The objective of (c X, c W H) is c^p times that of (X, W H): p = 2 for the
# squared Frobenius loss, p = 1 for the KL divergence, which is linear in X and W H.
LOSS_DEGREE = {"frobenius": 2, "kullback-leibler": 1}
# The criterion of the reliability standard: every scale-carrying attribute to 1e-6 relative.
RTOL = 1e-6


def assert_scaled(actual, expected, name):
    """``actual`` equals ``expected`` to ``RTOL`` relative to the largest entry of ``expected``.

    Relative to the array's scale, not entry by entry: an entry that is 0 in one
    fit can be a rounding error away from 0 in the other.
    """
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, name
    difference = np.max(np.abs(actual - expected)) / np.max(np.abs(expected))
    assert difference <= RTOL, f"{name}: relative difference {difference:.2e}"


def fit_quietly(model, X):
    with convergence_warnings_allowed():
        W = model.fit_transform(X)
    return model, W


@pytest.mark.parametrize("c", SCALES)
@pytest.mark.parametrize("init", ["nndsvda", "nndsvd", "random"])
@pytest.mark.parametrize("solver, beta_loss, extrapolate", SOLVER_CONFIGURATIONS)
def test_fit_of_scaled_data_is_the_fit_rescaled(solver, beta_loss, extrapolate, init, c):
    X, X_new = DIGITS[:120], DIGITS[120:130]
    params = dict(
        solver=solver, beta_loss=beta_loss, extrapolate=extrapolate, init=init, random_state=0
    )
    base, W = fit_quietly(NMF(5, **params), X)
    scaled, W_scaled = fit_quietly(NMF(5, **params), c * X)
    degree = LOSS_DEGREE[beta_loss]
    # without penalties the rows of H have unit norm: H is unit-free, W carries the units of X
    assert_scaled(scaled.components_, base.components_, "components_")
    assert_scaled(W_scaled, c * W, "W")
    assert_scaled(scaled.transform(c * X_new), c * base.transform(X_new), "transform")
    # reconstruction_err_ = √(2 × loss)
    assert_scaled(scaled.reconstruction_err_, c ** (degree / 2) * base.reconstruction_err_, "error")
    assert_scaled(scaled.objective_history_, c**degree * base.objective_history_, "history")
    assert (scaled.n_iter_, scaled.converged_) == (base.n_iter_, base.converged_)
    history = scaled.objective_history_
    assert np.all(np.diff(history) <= 1e-12 * history[0])


# With W, H → √c W, √c H: the Frobenius loss scales by c², λ₁‖W‖₁ by √c and
# ½λ₂‖W‖² by c, so the objective scales by c² when λ₁ → c^(3/2) λ₁ and λ₂ → c λ₂;
# the KL divergence scales by c, so λ₁ → √c λ₁ and λ₂ stays.
PENALTY_SCALE_POWER = {
    ("frobenius", 1.0): 1.5,
    ("frobenius", 0.0): 1.0,
    ("kullback-leibler", 1.0): 0.5,
    ("kullback-leibler", 0.0): 0.0,
}


@pytest.mark.parametrize("c", SCALES)
@pytest.mark.parametrize("l1_ratio", [0.0, 1.0])
@pytest.mark.parametrize(
    "solver, beta_loss",
    [("cd", "frobenius"), ("mu", "frobenius"), ("pg", "frobenius"), ("mu", "kullback-leibler")],
)
def test_penalised_fit_of_scaled_data_with_penalties_in_its_units(solver, beta_loss, l1_ratio, c):
    X, X_new = DIGITS[:120], DIGITS[120:130]
    params = dict(solver=solver, beta_loss=beta_loss, l1_ratio=l1_ratio, max_iter=300)
    alpha_c = 0.01 * c ** PENALTY_SCALE_POWER[beta_loss, l1_ratio]
    base, W = fit_quietly(NMF(5, alpha_W=0.01, alpha_H=0.02, **params), X)
    scaled, W_scaled = fit_quietly(NMF(5, alpha_W=alpha_c, alpha_H=2 * alpha_c, **params), c * X)
    degree = LOSS_DEGREE[beta_loss]
    # with penalties the scale is not normalised away: each factor carries √c
    assert_scaled(scaled.components_, np.sqrt(c) * base.components_, "components_")
    assert_scaled(W_scaled, np.sqrt(c) * W, "W")
    assert_scaled(scaled.transform(c * X_new), np.sqrt(c) * base.transform(X_new), "transform")
    assert_scaled(scaled.reconstruction_err_, c ** (degree / 2) * base.reconstruction_err_, "error")
    assert_scaled(scaled.objective_history_, c**degree * base.objective_history_, "history")
    assert (scaled.n_iter_, scaled.converged_) == (base.n_iter_, base.converged_)


def test_faces_as_8_bit_values_give_the_same_fit():
    X = load_faces().data
    a, b = NMF(10).fit(X), NMF(10).fit(255 * X)
    assert_scaled(b.reconstruction_err_, 255 * a.reconstruction_err_, "error")
    assert (a.n_iter_, a.converged_) == (b.n_iter_, b.converged_)
    assert_scaled(b.components_, a.components_, "components_")


def test_multiplicative_updates_on_data_of_scale_1e_8_never_increase_the_objective():
    X = load_faces().data
    model, _ = fit_quietly(NMF(10, solver="mu"), 1e-8 * X)
    history = model.objective_history_
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    base, _ = fit_quietly(NMF(10, solver="mu"), X)
    assert model.n_iter_ == base.n_iter_


def test_kl_divergence_of_data_of_scale_1e_12_is_not_zero():
    X = DIGITS[:100]
    model, W = fit_quietly(NMF(4, solver="mu", beta_loss="kullback-leibler"), 1e-12 * X)
    # √(2 D) written out here, for the factors returned
    expected = np.sqrt(2 * loss_here(1e-12 * X, W, model.components_, "kullback-leibler"))
    assert expected > 0
    np.testing.assert_allclose(model.reconstruction_err_, expected, rtol=1e-9)


def test_nndsvd_start_is_in_units_of_the_square_root_of_X():
    X = DIGITS[:100]
    for fill_zeros in (None, "nndsvda", "nndsvdar"):
        W, H = nndsvd(X, 6, fill_zeros=fill_zeros, random_state=0)
        W_scaled, H_scaled = nndsvd(255 * X, 6, fill_zeros=fill_zeros, random_state=0)
        assert_scaled(W_scaled, np.sqrt(255) * W, "W")
        assert_scaled(H_scaled, np.sqrt(255) * H, "H")
    # the fill: factors of entries √(mean / k) alone give W H the mean of X
    W, H = nndsvd(X, 6, fill_zeros="nndsvda")
    fill = np.sqrt(X.mean() / 6)
    assert np.mean(W == fill) > 0 and np.mean(H == fill) > 0
    np.testing.assert_allclose(np.full((1, 6), fill) @ np.full((6, 1), fill), X.mean())


# ----------------------------------------------------------------------------
# Finite input never gives NaN


# (every configuration on huge, tiny, subnormal and mixed-unit data:
# test_reliability.py::test_finite_input_never_gives_nan)


def test_multiplicative_updates_on_data_of_scale_1e150_give_the_rescaled_error():
    U = np.random.default_rng(0).uniform(0.1, 1.0, (12, 5))
    model, _ = fit_quietly(NMF(2, solver="mu"), U * 1e150)
    base, _ = fit_quietly(NMF(2, solver="mu"), U)
    assert_scaled(model.reconstruction_err_, 1e150 * base.reconstruction_err_, "error")


@pytest.mark.parametrize("solver, beta_loss, extrapolate", SOLVER_CONFIGURATIONS)
def test_a_column_in_other_units_is_fitted_without_nan(solver, beta_loss, extrapolate):
    X = np.random.default_rng(0).uniform(0.1, 1.0, (12, 5))
    X[:, 0] *= 1e150
    model, W = fit_quietly(NMF(2, solver=solver, beta_loss=beta_loss, extrapolate=extrapolate), X)
    H = model.components_
    assert np.all(np.isfinite(W)) and np.all(np.isfinite(H))
    # W = X[:, :1], H = e₁ᵀ fits column 0 exactly and leaves the other columns,
    # of size 1, that is 1e-150 of ‖X‖, as the error. The iterations stop at a
    # relative decrease of tol = 1e-6, so the fit is held to that, not to 1e-150.
    scale = 2.0**-498  # near 1/1e150, a power of two: exact
    residual = np.linalg.norm(scale * X - (scale * W) @ H)
    assert residual <= 1e-6 * np.linalg.norm(scale * X)


# ----------------------------------------------------------------------------
# A refit that fails leaves the earlier fit intact


def fitted_attributes(model):
    """What ``fit`` sets: the names ending in ``_``."""
    return {name: value for name, value in vars(model).items() if name.endswith("_")}


def refit_with_another_width_and_a_negative_entry(model):
    X = np.ones((10, 4))
    X[2, 1] = -1.0
    model.fit(X)


def refit_with_a_custom_H_of_the_wrong_shape(model):
    model.set_params(init="custom").fit(np.ones((10, 6)), W=np.ones((10, 3)), H=np.ones((2, 6)))


def refit_with_nan(model):
    X = np.ones((10, 4))
    X[0, 0] = np.nan
    model.fit(X)


def refit_with_nndsvd_and_fewer_samples_than_components(model):
    model.set_params(init="nndsvd").fit(np.ones((2, 4)))


def refit_that_does_not_converge_with_warnings_as_errors(model):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.set_params(max_iter=1, tol=1e-15).fit(DIGITS[:20, :10])


@pytest.mark.parametrize(
    "failing_refit",
    [
        refit_with_another_width_and_a_negative_entry,
        refit_with_a_custom_H_of_the_wrong_shape,
        refit_with_nan,
        refit_with_nndsvd_and_fewer_samples_than_components,
        refit_that_does_not_converge_with_warnings_as_errors,
    ],
)
@pytest.mark.parametrize("as_frame", [False, True])
def test_a_failed_refit_leaves_the_earlier_fit_usable(failing_refit, as_frame):
    X = DIGITS[:60, :6]
    if as_frame:
        X = pd.DataFrame(X, columns=[f"pixel {j}" for j in range(6)])
    model, _ = fit_quietly(NMF(3), X)
    before, W_before = copy.deepcopy(fitted_attributes(model)), model.transform(X)
    with pytest.raises((ValueError, ConvergenceWarning)):
        failing_refit(model)
    after = fitted_attributes(model)
    assert after.keys() == before.keys()
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    np.testing.assert_array_equal(model.transform(X), W_before)


def test_penalties_too_large_for_the_scale_of_X_are_refused_by_name():
    # λ₁ in the units of X / 4ᵉ is λ₁ 2^(-3e) (penalties_in_units): for entries
    # near 1e-300, e ≈ -500 and 2^1500 overflows
    X = 1e-300 * np.random.default_rng(0).uniform(0.1, 1.0, (12, 5))
    with pytest.raises(ValueError, match=r"alpha_W=0\.01 .* too large for the scale of X"):
        NMF(2, alpha_W=0.01, l1_ratio=1.0).fit(X)
    # without penalties the same data fit
    assert np.isfinite(NMF(2).fit(X).reconstruction_err_)


# ----------------------------------------------------------------------------
# The β-divergence family (eq. eq-nmf-beta) and its multiplicative updates

POSITIVE = np.random.default_rng(7).random((30, 12)) + 0.1


def beta_divergence_here(X, Y, beta):
    """``Σ d_β(x | y)`` entry by entry, written out independently of pcalib."""
    total = 0.0
    for x, y in zip(np.ravel(X), np.ravel(Y), strict=True):
        if beta == 0:
            total += x / y - np.log(x / y) - 1
        elif beta == 1:
            total += (x * np.log(x / y) if x > 0 else 0.0) - x + y
        else:
            total += (
                x**beta / (beta * (beta - 1)) + y**beta / beta - x * y ** (beta - 1) / (beta - 1)
            )
    return total


@pytest.mark.parametrize("beta", [-0.5, 0, 0.5, 1, 1.5, 2, 3])
def test_beta_divergence_matches_the_entrywise_formula(beta):
    rng = np.random.default_rng(1)
    X, Y = rng.random((6, 5)) + 0.05, rng.random((6, 5)) + 0.05
    if beta > 0:
        X[0, :2] = 0.0  # d_β(0 | y) = yᵝ / β is finite for β > 0
    expected = beta_divergence_here(X, Y, beta)
    assert pcalib.nmf.beta_divergence(X, Y, beta) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("beta", [-0.5, 0, 0.5, 1, 1.5, 2, 3])
def test_beta_divergence_is_zero_at_y_equal_x_with_derivative_y_to_beta_minus_2_times_y_minus_x(
    beta,
):
    # d(x | x) = 0 and ∂d/∂y = y^(β-2) (y - x) define d_β, independently of its closed form
    x, y, step = 0.7, 1.3, 1e-6
    d = pcalib.nmf.beta_divergence
    assert d(np.array([[x]]), np.array([[x]]), beta) == pytest.approx(0.0, abs=1e-15)
    slope = (
        d(np.array([[x]]), np.array([[y + step]]), beta)
        - d(np.array([[x]]), np.array([[y - step]]), beta)
    ) / (2 * step)
    assert slope == pytest.approx(y ** (beta - 2) * (y - x), rel=1e-7)


def test_the_named_losses_are_the_special_cases_of_the_beta_divergence():
    rng = np.random.default_rng(2)
    X, Y = rng.random((6, 5)) + 0.05, rng.random((6, 5)) + 0.05
    d = pcalib.nmf.beta_divergence
    assert d(X, Y, 2) == pytest.approx(0.5 * np.sum((X - Y) ** 2), rel=1e-12)
    assert d(X, Y, 1) == pytest.approx(loss_here(X, Y, np.eye(5), "kullback-leibler"), rel=1e-12)
    # the general formula is continuous in β: near 0 and 1 it approaches IS and KL
    for beta in (0, 1):
        for side in (-1, 1):
            assert d(X, Y, beta + side * 1e-6) == pytest.approx(d(X, Y, beta), rel=1e-5)


@pytest.mark.parametrize("beta_loss", ["itakura-saito", 0, 0.5, 1, 1.5, 2, 3, "kullback-leibler"])
@pytest.mark.parametrize("seed", [0, 1])
def test_multiplicative_updates_never_increase_the_beta_divergence(beta_loss, seed):
    model, _ = fit_quietly(
        NMF(
            4,
            solver="mu",
            beta_loss=beta_loss,
            init="random",
            random_state=seed,
            tol=0,
            max_iter=150,
        ),
        POSITIVE,
    )
    history = model.objective_history_
    assert history[-1] < 0.5 * history[0]
    # rounding only: the objective is a sum of 360 terms of order history[0] / 360
    assert np.all(np.diff(history) <= 1e-13 * history[0])


@pytest.mark.parametrize(
    "beta, gamma",
    [(-1, 1 / 3), (0, 0.5), (0.5, 2 / 3), (1, 1), (1.5, 1), (2, 1), (3, 0.5), (5, 0.25)],
)
def test_mm_exponent_is_fevotte_and_idiers(beta, gamma):
    assert pcalib.nmf.mm_exponent(beta) == pytest.approx(gamma, rel=1e-15)


@pytest.mark.parametrize("beta_loss", ["itakura-saito", 0.5, 1.5, 3.0])
def test_multiplicative_updates_follow_sklearns_iterate_by_iterate(beta_loss):
    # The same start, the same update (Févotte and Idier's, with their exponent γ(β)).
    # pcalib adds TINY = 1e-12 to denominators of order 1 here, a relative change of
    # 1e-12 per update that accumulates to about 1e-11 over 20 iterations; a wrong
    # exponent or numerator would change the iterates by percents.
    rng = np.random.default_rng(3)
    W0, H0 = rng.random((30, 4)) + 0.1, rng.random((4, 12)) + 0.1
    beta = pcalib.nmf.beta_value(beta_loss)
    for iterations in range(1, 21):
        W_sk, H_sk, _ = non_negative_factorization(
            POSITIVE,
            W0.copy(),
            H0.copy(),
            init="custom",
            solver="mu",
            beta_loss=beta_loss,
            max_iter=iterations,
            tol=0,
        )
        W, H, _, _ = pcalib.nmf.beta_iterations(
            POSITIVE,
            W0.copy(),
            H0.copy(),
            beta=beta,
            penalties=pcalib.nmf.NO_PENALTIES,
            max_iter=iterations,
            tol=0,
        )
        np.testing.assert_allclose(W, W_sk, rtol=1e-10)
        np.testing.assert_allclose(H, H_sk, rtol=1e-10)


@pytest.mark.parametrize("beta_loss", ["frobenius", "kullback-leibler", "itakura-saito", 1.5, 0.5])
def test_reconstruction_err_is_the_square_root_of_twice_the_beta_divergence(beta_loss):
    model = NMF(3, solver="mu", beta_loss=beta_loss, max_iter=50, tol=0, random_state=0)
    W = fit_quietly(model, POSITIVE)[1]
    beta = pcalib.nmf.beta_value(beta_loss)
    expected = np.sqrt(2 * beta_divergence_here(POSITIVE, W @ model.components_, beta))
    assert model.reconstruction_err_ == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("beta_loss", ["itakura-saito", 0, -0.5])
def test_zeros_in_X_are_refused_for_beta_at_most_0(beta_loss):
    X = POSITIVE.copy()
    X[3, 4] = 0.0
    for data in (X, scipy.sparse.csr_matrix(POSITIVE * (POSITIVE > 0.3))):
        with pytest.raises(ValueError, match="When beta_loss <= 0 and X contains zeros"):
            NMF(2, solver="mu", beta_loss=beta_loss).fit(data)
    model, _ = fit_quietly(NMF(2, solver="mu", beta_loss=beta_loss), POSITIVE)
    with pytest.raises(ValueError, match="X contains zeros"):
        model.transform(X)


@pytest.mark.parametrize("c", SCALES)
@pytest.mark.parametrize("beta_loss", ["itakura-saito", 0.5, 1.5, 3.0])
def test_fit_of_scaled_data_is_the_fit_rescaled_for_every_beta(beta_loss, c):
    # d_β(c x | c y) = cᵝ d_β(x | y): the objective scales by cᵝ, reconstruction_err_ by c^(β/2)
    X = POSITIVE
    params = dict(solver="mu", beta_loss=beta_loss, max_iter=100)
    base, W = fit_quietly(NMF(3, **params), X)
    scaled, W_scaled = fit_quietly(NMF(3, **params), c * X)
    beta = pcalib.nmf.beta_value(beta_loss)
    assert_scaled(scaled.components_, base.components_, "components_")
    assert_scaled(W_scaled, c * W, "W")
    assert_scaled(scaled.transform(c * X[:5]), c * base.transform(X[:5]), "transform")
    assert_scaled(scaled.reconstruction_err_, c ** (beta / 2) * base.reconstruction_err_, "error")
    assert_scaled(scaled.objective_history_, c**beta * base.objective_history_, "history")
    assert (scaled.n_iter_, scaled.converged_) == (base.n_iter_, base.converged_)


def test_itakura_saito_fit_is_a_stationary_point_of_its_objective():
    # KKT for H at the fitted factors: the gradient Wᵀ((WH - X) / (WH)²) is ≥ 0, and 0
    # where H > 0 (up to the accuracy that 10 000 updates reach); computed here with NumPy
    model = NMF(3, solver="mu", beta_loss="itakura-saito", max_iter=10000, tol=0, random_state=0)
    W = fit_quietly(model, POSITIVE)[1]
    H = model.components_
    WH = W @ H
    gradient = W.T @ ((WH - POSITIVE) / WH**2)
    scale = np.abs(W.T @ (POSITIVE / WH**2)).max()
    assert np.all(gradient >= -1e-5 * scale)
    assert np.all(np.abs(gradient[H > 1e-3 * H.max()]) <= 1e-5 * scale)


@pytest.mark.parametrize("beta_loss", [1.5, 1.2])
def test_transform_for_a_float_beta_solves_the_convex_problem_in_W(beta_loss):
    # for β in [1, 2] the problem in W is convex: the fitted W and transform's W, from
    # two starts, agree, and both meet its KKT conditions, written out here
    model = NMF(3, solver="mu", beta_loss=beta_loss, max_iter=100, random_state=0)
    W = fit_quietly(model, POSITIVE)[1]
    W_again = model.transform(POSITIVE)
    np.testing.assert_allclose(W_again, W, atol=1e-6 * np.abs(W).max())
    H = model.components_
    WH = W @ H
    gradient = (WH ** (beta_loss - 2) * (WH - POSITIVE)) @ H.T  # ∂/∂W of Σ d_β(x | WH)
    scale = np.abs(WH ** (beta_loss - 1) @ H.T).max()
    assert gradient.min() >= -1e-6 * scale
    assert np.abs(W * gradient).max() <= 1e-6 * scale * np.abs(W).max()


# ----------------------------------------------------------------------------
# scikit-learn's init="custom", n_components="auto" and n_components > min(n, d)


def test_custom_init_starts_from_the_given_factors():
    rng = np.random.default_rng(4)
    W0, H0 = rng.random((30, 3)) + 0.1, rng.random((3, 12)) + 0.1
    model = NMF(3, init="custom", solver="mu", max_iter=5, tol=0)
    with convergence_warnings_allowed():
        model.fit(POSITIVE, W=W0, H=H0)
    assert model.init_ == "custom"
    assert model.objective_history_[0] == pytest.approx(
        loss_here(POSITIVE, W0, H0, "frobenius"), rel=1e-12
    )
    # five multiplicative updates from the start, computed here
    W, H = W0.copy(), H0.copy()
    for _ in range(5):
        W *= (POSITIVE @ H.T) / (W @ H @ H.T)
        H *= (W.T @ POSITIVE) / (W.T @ W @ H)
    assert model.objective_history_[-1] == pytest.approx(
        loss_here(POSITIVE, W, H, "frobenius"), rel=1e-9
    )


def test_n_components_auto_takes_the_rows_of_the_custom_H():
    rng = np.random.default_rng(5)
    W0, H0 = rng.random((30, 2)), rng.random((2, 12))
    model = NMF("auto", init="custom", max_iter=20)
    with convergence_warnings_allowed():
        W = model.fit_transform(POSITIVE, W=W0, H=H0)
    assert model.n_components_ == 2 and W.shape == (30, 2) and model.components_.shape == (2, 12)
    with convergence_warnings_allowed():
        assert NMF("auto", max_iter=5).fit(POSITIVE).n_components_ == 12


@pytest.mark.parametrize(
    "W, H, error, message",
    [
        (np.ones((29, 2)), np.ones((2, 12)), ValueError, "wrong first dimension passed to NMF"),
        (np.ones((30, 3)), np.ones((2, 12)), ValueError, "wrong second dimension passed to NMF"),
        (np.ones((30, 2)), np.ones((2, 11)), ValueError, "wrong second dimension passed to NMF"),
        (np.ones((30, 2)), -np.ones((2, 12)), ValueError, "Negative values in data passed to NMF"),
        (np.zeros((30, 2)), np.ones((2, 12)), ValueError, r"input W\) is full of zeros"),
        (np.ones((30, 2)), None, ValueError, "init='custom' needs H"),
        (np.ones((30, 2)), np.ones((2, 12), np.float32), TypeError, "same dtype as X"),
    ],
)
def test_custom_factors_are_checked_with_sklearns_messages(W, H, error, message):
    with pytest.raises(error, match=message):
        NMF(2, init="custom").fit(POSITIVE, W=W, H=H)


def test_factors_given_without_init_custom_are_ignored_with_a_warning():
    with pytest.warns(RuntimeWarning, match="When init!='custom', provided W or H are ignored"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            NMF(2, max_iter=5).fit(POSITIVE, H=np.ones((2, 12)))


@pytest.mark.parametrize("solver", ["cd", "mu", "pg"])
def test_more_components_than_features_fit_and_never_increase_the_objective(solver):
    X = np.abs(np.random.default_rng(6).standard_normal((30, 10)))
    model, W = fit_quietly(NMF(15, solver=solver, random_state=0, max_iter=100), X)
    assert model.init_ == "random" and W.shape == (30, 15) and model.components_.shape == (15, 10)
    history = model.objective_history_
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    # 15 non-negative components can fit 10 features exactly (H = [I, 0]); from a random
    # start near ‖X‖, 100 iterations of the slowest solver come within 5 % of it
    assert model.reconstruction_err_ <= 0.05 * np.linalg.norm(X)


def test_nndsvdar_fills_the_zeros_of_nndsvd_with_small_random_values():
    X = DIGITS[:100]
    W_plain, H_plain = nndsvd(X, 6)
    W, H = nndsvd(X, 6, fill_zeros="nndsvdar", random_state=0)
    fill = np.sqrt(X.mean() / 6)
    for plain, filled in ((W_plain, W), (H_plain, H)):
        np.testing.assert_array_equal(filled[plain > 0], plain[plain > 0])
        zeros = filled[plain == 0]
        assert zeros.size > 0 and np.all(zeros > 0)
        # |N(0, 1)| / 100 of the typical entry: below a tenth of it (6 standard deviations)
        assert np.all(zeros < 0.06 * fill)
    W_again, _ = nndsvd(X, 6, fill_zeros="nndsvdar", random_state=0)
    np.testing.assert_array_equal(W_again, W)


# ----------------------------------------------------------------------------
# Sparse input and float32


@pytest.mark.parametrize("container", [scipy.sparse.csr_matrix, scipy.sparse.csc_array])
@pytest.mark.parametrize(
    "solver, beta_loss",
    [
        ("cd", "frobenius"),
        ("mu", "frobenius"),
        ("pg", "frobenius"),
        ("mu", "kullback-leibler"),
        ("mu", 1.5),
    ],
)
def test_sparse_X_gives_the_fit_of_the_dense_X(container, solver, beta_loss):
    X = DIGITS[:150]  # about half zeros
    params = dict(solver=solver, beta_loss=beta_loss, max_iter=60, tol=0)
    dense, W_dense = fit_quietly(NMF(5, **params), X)
    sparse, W_sparse = fit_quietly(NMF(5, **params), container(X))
    # The same iterations; products with a sparse X add in another order, a rounding
    # difference that the slowly contracting MU and PG iterations amplify to about 1e-6
    # relative in 60 iterations. A 1 % error breaks 1e-5.
    np.testing.assert_allclose(W_sparse, W_dense, rtol=1e-5, atol=1e-6 * W_dense.max())
    np.testing.assert_allclose(sparse.components_, dense.components_, rtol=1e-5, atol=1e-6)
    assert sparse.reconstruction_err_ == pytest.approx(dense.reconstruction_err_, rel=1e-9)
    np.testing.assert_allclose(
        sparse.transform(container(X[:20])),
        dense.transform(X[:20]),
        rtol=1e-6,
        atol=1e-9 * W_dense.max(),
    )


def test_frobenius_fit_of_sparse_X_densifies_only_blocks_of_rows(monkeypatch):
    X = scipy.sparse.csr_matrix(DIGITS[:150])
    monkeypatch.setattr(pcalib.nmf.divergences, "DENSE_BLOCK", 10 * X.shape[1])
    shapes = []
    toarray = scipy.sparse.csr_matrix.toarray

    def recording_toarray(self, *args, **kwargs):
        shapes.append(self.shape)
        return toarray(self, *args, **kwargs)

    monkeypatch.setattr(scipy.sparse.csr_matrix, "toarray", recording_toarray)
    fit_quietly(NMF(5, max_iter=20), X)
    assert shapes and max(rows for rows, _ in shapes) <= 10


@pytest.mark.parametrize(
    "solver, beta_loss", [("cd", "frobenius"), ("mu", "kullback-leibler"), ("mu", "itakura-saito")]
)
def test_float32_in_float32_out_with_float32_accuracy(solver, beta_loss):
    X = DIGITS[:150] + 1.0
    X32 = X.astype(np.float32)
    params = dict(solver=solver, beta_loss=beta_loss, max_iter=50, tol=0)
    model32, W32 = fit_quietly(NMF(4, **params), X32)
    model64, W64 = fit_quietly(NMF(4, **params), X32.astype(np.float64))
    assert W32.dtype == model32.components_.dtype == model32.transform(X32).dtype == np.float32
    assert model64.components_.dtype == np.float64
    # the fit runs in float64 from the same float32 numbers: the results are the float64
    # ones rounded once, within half an ulp of float32 (2⁻²⁴ relative)
    np.testing.assert_allclose(W32, W64, rtol=2.0**-24)
    np.testing.assert_allclose(model32.components_, model64.components_, rtol=2.0**-24)
    # against the fit of the float64 data: rounding X to float32 moves it by 2⁻²⁴ relative,
    # which moves the loss by about as much (it is smooth in X); 1e-5 allows the amplification
    # of a 50-iteration fit and would be broken by a 1 % error
    assert model32.reconstruction_err_ == pytest.approx(
        fit_quietly(NMF(4, **params), X)[0].reconstruction_err_, rel=1e-5
    )


# ----------------------------------------------------------------------------
# ANLS with block principal pivoting, the KKT residual, SPA


def nnls_by_scipy(Q, q):
    """``min_{x ≥ 0} ½ xᵀQx - qᵀx`` column by column, by SciPy's Lawson–Hanson NNLS.

    With ``Q = L Lᵀ`` the objective is ``½‖Lᵀx - L⁻¹q‖²`` up to a constant.
    """
    L = np.linalg.cholesky(Q)
    targets = np.linalg.solve(L, q)
    return np.column_stack([scipy.optimize.nnls(L.T, targets[:, c])[0] for c in range(q.shape[1])])


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("warm", [False, True])
def test_block_principal_pivoting_equals_scipy_nnls(seed, warm):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(1, 13))
    A = rng.standard_normal((40, k)) + rng.uniform(0, 1)  # correlated columns
    B = rng.standard_normal((40, 60))
    Q, q = A.T @ A, A.T @ B
    guess = rng.random((k, 60)) < 0.5 if warm else None
    x = pcalib.nmf.block_principal_pivoting(Q, q, guess=guess)
    np.testing.assert_allclose(x, nnls_by_scipy(Q, q), atol=1e-9 * np.abs(x).max())


@pytest.mark.parametrize("l1, l2", [(0.0, 0.0), (0.3, 0.0), (0.1, 0.5)])
def test_each_anls_half_step_equals_scipy_nnls_column_by_column(l1, l2):
    rng = np.random.default_rng(4)
    X, W, H = rng.random((30, 20)), rng.random((30, 5)), rng.random((5, 20))
    H_new = pcalib.nmf.anls_update(H, W.T @ X, W.T @ W, l1, l2)
    expected = nnls_by_scipy(W.T @ W + l2 * np.eye(5), W.T @ X - l1)
    np.testing.assert_allclose(H_new, expected, atol=1e-10)
    # the W half-step is the H half-step of Xᵀ ≈ Hᵀ Wᵀ
    W_new = pcalib.nmf.anls_update(W.T, H @ X.T, H @ H.T, l1, l2).T
    expected_W = nnls_by_scipy(H @ H.T + l2 * np.eye(5), H @ X.T - l1).T
    np.testing.assert_allclose(W_new, expected_W, atol=1e-10)


def test_anls_leaves_a_component_with_a_zero_column_of_W_as_it_is():
    rng = np.random.default_rng(5)
    X, W, H = rng.random((30, 20)), rng.random((30, 4)), rng.random((4, 20))
    W[:, 2] = 0.0
    H_new = pcalib.nmf.anls_update(H, W.T @ X, W.T @ W, 0.0, 0.0)
    np.testing.assert_array_equal(H_new[2], H[2])
    keep = [0, 1, 3]
    W_kept = W[:, keep]
    np.testing.assert_allclose(
        H_new[keep], nnls_by_scipy(W_kept.T @ W_kept, W_kept.T @ X), atol=1e-10
    )


@pytest.mark.parametrize("seed", range(3))
def test_anls_objective_never_increases_and_reaches_a_stationary_point(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((40, 25))
    W0, H0 = pcalib.nmf.random_start(X, 4, seed)
    W, H, history, _ = pcalib.nmf.frobenius_iterations(
        X, W0, H0, solver="anls", penalties=pcalib.nmf.NO_PENALTIES, max_iter=300, tol=0.0
    )
    assert np.all(np.diff(history) <= 1e-12 * history[0])
    np.testing.assert_allclose(history[-1], loss_here(X, W, H, "frobenius"), rtol=1e-10)
    # every half-step is exact, so the last H is the NNLS solution for the last W
    np.testing.assert_allclose(H, nnls_by_scipy(W.T @ W, W.T @ X), atol=1e-9)
    # convergence is linear, and slow on random data: 300 iterations gain four digits
    assert pcalib.nmf.kkt_residual(X, W, H) < 1e-4 * pcalib.nmf.kkt_residual(X, W0, H0)


def test_anls_fit_of_an_exactly_factorisable_matrix_is_exact():
    rng = np.random.default_rng(8)
    X = rng.random((40, 3)) @ rng.random((3, 30))
    anls = NMF(3, solver="anls", max_iter=1000, tol=1e-14)
    with convergence_warnings_allowed():
        anls.fit(X)
    # an exact factorisation exists, and ANLS finds one (the true factors are not unique)
    assert anls.reconstruction_err_ < 1e-6 * np.linalg.norm(X)


def finite_difference_gradient(f, A, step=1e-6):
    gradient = np.zeros_like(A)
    for index in np.ndindex(A.shape):
        E = np.zeros_like(A)
        E[index] = step
        gradient[index] = (f(A + E) - f(A - E)) / (2 * step)
    return gradient


def test_kkt_residual_is_min_of_factor_and_finite_difference_gradient():
    rng = np.random.default_rng(2)
    X, W, H = rng.random((8, 6)), rng.random((8, 3)), rng.random((3, 6))
    H[:, :2] = 0.0
    W[0] = 0.0

    def loss(W_, H_):
        return 0.5 * np.sum((X - W_ @ H_) ** 2)

    g_W = finite_difference_gradient(lambda A: loss(A, H), W)
    g_H = finite_difference_gradient(lambda A: loss(W, A), H)
    expected = np.sqrt(np.sum(np.minimum(W, g_W) ** 2) + np.sum(np.minimum(H, g_H) ** 2))
    np.testing.assert_allclose(pcalib.nmf.kkt_residual(X, W, H), expected, rtol=1e-6)
    # bounded by Lin's projected gradient, equal to it where a factor is 0 or below its gradient
    for A, g in ((W, g_W), (H, g_H)):
        lin = np.where(A > 0, g, np.minimum(g, 0.0))
        assert np.all(np.abs(np.minimum(A, g)) <= np.abs(lin) + 1e-8)


def test_kkt_residual_is_zero_at_an_exact_factorisation_and_positive_off_it():
    rng = np.random.default_rng(3)
    W, H = rng.random((10, 3)), rng.random((3, 7))
    X = W @ H
    assert pcalib.nmf.kkt_residual(X, W, H) < 1e-12
    assert pcalib.nmf.kkt_residual(X, 1.01 * W, H) > 1e-3


def test_multiplicative_updates_never_move_an_entry_at_zero():
    rng = np.random.default_rng(5)
    W_true, H_true = rng.random((30, 3)), rng.random((3, 20))
    X = W_true @ H_true
    W, H = pcalib.nmf.random_start(X, 3, 5)
    entry = np.unravel_index(np.argmax(H_true), H_true.shape)
    H[entry] = 0.0
    for _ in range(10):
        W, H, _, _ = pcalib.nmf.frobenius_iterations(
            X, W, H, solver="mu", penalties=pcalib.nmf.NO_PENALTIES, max_iter=50, tol=0.0
        )
        assert H[entry] == 0.0
    # not a stationary point: the objective wants the locked entry larger
    assert (W.T @ (W @ H - X))[entry] < 0


def planted_separable(seed, n=120, d=25, k=4):
    """``X = W H`` with ``H`` among the rows of ``X``; returns ``X``, ``H`` and their rows."""
    rng = np.random.default_rng(seed)
    H = rng.random((k, d))
    weights = rng.dirichlet(np.ones(k), n - k) * rng.uniform(0.1, 1.0, (n - k, 1))
    order = rng.permutation(n)
    W = np.vstack([np.eye(k), weights])[order]
    return W @ H, H, np.flatnonzero(order < k), order


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("noise", [0.0, 1e-3, 1e-2])
def test_successive_projection_recovers_the_planted_pure_rows(seed, noise):
    X, H, pure, order = planted_separable(seed)
    X_noisy = np.maximum(X + noise * np.random.default_rng(seed + 10).standard_normal(X.shape), 0)
    rows = pcalib.nmf.successive_projection(X_noisy, 4)
    assert sorted(rows) == sorted(pure)
    # the rows found are the planted parts, to the noise: row i of X is part order[i]
    np.testing.assert_allclose(X_noisy[rows], H[order[rows]], atol=5 * noise + 1e-15)


def test_successive_projection_is_the_projection_algorithm_written_out():
    X = np.random.default_rng(0).random((30, 8))
    R, expected = X.copy(), []
    for _ in range(5):  # the argmax of the norm of the projected rows, by brute force
        j = int(np.argmax(np.linalg.norm(R, axis=1)))
        expected.append(j)
        u = R[j] / np.linalg.norm(R[j])
        R = R - np.outer(R @ u, u)
    np.testing.assert_array_equal(pcalib.nmf.successive_projection(X, 5), expected)
    # the result does not depend on the units of X
    np.testing.assert_array_equal(pcalib.nmf.successive_projection(1e-150 * X, 5), expected)


@pytest.mark.parametrize(
    "X, n_components, error, name",
    [
        (np.ones((5, 3)), 4, ValueError, "n_components"),
        (np.ones((5, 3)), 0, ValueError, "n_components"),
        (np.ones((5, 3)), 1.5, TypeError, "n_components"),
        (np.zeros((5, 3)), 2, ValueError, "X"),
        (np.array([[1.0, np.nan], [0.0, 1.0]]), 1, ValueError, "X"),
        (np.ones(4), 1, ValueError, "X"),
    ],
)
def test_successive_projection_refuses_bad_input_by_name(X, n_components, error, name):
    with pytest.raises(error, match=name):
        pcalib.nmf.successive_projection(X, n_components)
