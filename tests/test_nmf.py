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
from sklearn.datasets import load_digits
from sklearn.decomposition import NMF as SklearnNMF
from sklearn.exceptions import ConvergenceWarning

import pcalib.nmf
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
    W_start, H_start = nndsvd(X, 5, fill_zeros=True)
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


@pytest.mark.parametrize("init", ["nndsvd", "nndsvda"])
def test_nndsvd_needs_at_most_min_n_d_components(init):
    with pytest.raises(ValueError, match=f"init='{init}' needs n_components <= "):
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
    W_start, H_start = nndsvd(X, 8, fill_zeros=True)
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
    W_start, H_start = nndsvd(X, 6, fill_zeros=True)
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
    monkeypatch.setattr(pcalib.nmf, "FULL_SVD_MAX", 10)  # take the randomized branch
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
    W = pcalib.nmf.solve_W(
        X, np.ones((25, 5)), H, beta_loss="frobenius", l1_penalty=0.0, l2_penalty=l2
    )
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
        ({"extrapolate": "yes"}, TypeError),
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
def test_frobenius_only_solvers_refuse_kl(solver):
    with pytest.raises(ValueError, match=f"solver='{solver}'"):
        NMF(2, solver=solver, beta_loss="kullback-leibler").fit(np.ones((4, 3)))


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
        ({"n_components": 4}, "n_components"),
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
    for fill_zeros in (False, True):
        W, H = nndsvd(X, 6, fill_zeros=fill_zeros)
        W_scaled, H_scaled = nndsvd(255 * X, 6, fill_zeros=fill_zeros)
        assert_scaled(W_scaled, np.sqrt(255) * W, "W")
        assert_scaled(H_scaled, np.sqrt(255) * H, "H")
    # the fill: factors of entries √(mean / k) alone give W H the mean of X
    W, H = nndsvd(X, 6, fill_zeros=True)
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


def refit_with_fewer_features_than_components(model):
    model.fit(np.ones((10, 2)))


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
        refit_with_fewer_features_than_components,
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
