"""Non-negative matrix factorisation (chapter 6 of the book, in preparation).

``X ≈ W H`` with ``X`` (n × d), ``W`` (n × k) and ``H`` (k × d) all
non-negative, fitted by minimising

* the Frobenius loss ``½ ‖X - W H‖²_F`` (eq. ``eq-nmf-frobenius``), or
* the generalised Kullback–Leibler divergence
  ``Σ_ij x_ij log(x_ij / (WH)_ij) - x_ij + (WH)_ij`` (eq. ``eq-nmf-kl``),

plus optional penalties ``λ₁ (‖W‖₁ + ‖H‖₁) + ½ λ₂ (‖W‖²_F + ‖H‖²_F)``.

Solvers: the multiplicative updates of Lee and Seung (both losses; each update
never increases the objective), and HALS (hierarchical alternating least
squares, exact coordinate-block minimisation, Frobenius only), usually much
faster. Naming follows scikit-learn: ``components_`` is ``H``, ``transform``
returns ``W``.

Non-uniqueness: ``W H = (W D)(D⁻¹ H)`` for any positive diagonal ``D`` and
any permutation. Without penalties pcalib normalises the rows of ``H`` to
unit Euclidean norm (moving the scale into ``W``) and orders the components
by decreasing ``‖w_j‖ ‖h_j‖``; with penalties the scale is part of the
objective and is left as fitted.
"""

import warnings

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import validate_data

from ._validation import (
    as_float_matrix,
    as_generator,
    check_fitted,
    check_non_negative_float,
    check_option,
    check_positive_float,
    check_positive_int,
)

LOSSES = ("frobenius", "kullback-leibler")
SOLVERS = ("mu", "hals")
INITS = ("random", "nndsvd", "nndsvda")
# Added to denominators and arguments of logarithms so that zero rows,
# zero columns and exact zeros never divide by zero.
TINY = 1e-12


def check_non_negative(X, *, name="X"):
    """Raise ``ValueError`` naming the smallest entry when ``X`` has a negative one."""
    smallest = float(X.min(initial=0.0))
    if smallest < 0.0:
        where = tuple(int(i) for i in np.unravel_index(np.argmin(X), X.shape))
        raise ValueError(
            f"Negative values in data passed to NMF: {name} must be non-negative; its "
            f"smallest entry is {smallest:.6g} at index {where}. Shift or clip the data, "
            "or use PCA."
        )


def objective(X, W, H, loss, l1, l2):
    """The loss (eq. ``eq-nmf-frobenius`` or ``eq-nmf-kl``) plus the penalties."""
    WH = W @ H
    if loss == "frobenius":
        value = 0.5 * float(np.sum((X - WH) ** 2))
    else:
        positive = X > 0
        value = float(np.sum(X[positive] * np.log(X[positive] / np.maximum(WH[positive], TINY)))
                      - X.sum() + WH.sum())
    penalty = l1 * (W.sum() + H.sum()) + 0.5 * l2 * (np.sum(W * W) + np.sum(H * H))
    return value + float(penalty)


def multiplicative_update_H(X, W, H, loss, l1, l2):
    """Lee–Seung update of ``H`` (eqs. ``eq-nmf-mu-frobenius``, ``eq-nmf-mu-kl``).

    Frobenius: ``H ← H ∘ (Wᵀ X) / (Wᵀ W H + λ₁ + λ₂ H)``.
    KL: ``H ← H ∘ Wᵀ (X / WH) / (Wᵀ 1 + λ₁ + λ₂ H)``.
    Each is gradient descent with the step ``H / denominator`` per entry, the
    rescaling that keeps ``H`` non-negative and never increases the objective.
    """
    if loss == "frobenius":
        numerator = W.T @ X
        denominator = (W.T @ W) @ H
    else:
        numerator = W.T @ (X / np.maximum(W @ H, TINY))
        denominator = np.broadcast_to(W.sum(axis=0)[:, np.newaxis], H.shape)
    return H * numerator / (denominator + l1 + l2 * H + TINY)


def hals_update_H(X, W, H, l1, l2):
    """One HALS sweep over the rows of ``H`` (eq. ``eq-nmf-hals``), Frobenius loss.

    With ``A = Wᵀ X`` and ``B = Wᵀ W``, row ``j`` minimises the objective
    exactly with the others fixed:
    ``h_j ← max(0, h_j + (a_j - B_j H - λ₁) / (B_jj + λ₂))``.
    """
    H = H.copy()
    A = W.T @ X
    B = W.T @ W
    for j in range(H.shape[0]):
        curvature = B[j, j] + l2
        if curvature <= 0.0:  # an all-zero column of W: h_j does not enter the loss
            H[j] = 0.0 if l1 > 0 or l2 > 0 else H[j]
            continue
        H[j] = np.maximum(0.0, H[j] + (A[j] - B[j] @ H - l1 - l2 * H[j]) / curvature)
    return H


def update_factor(X, W, H, loss, solver, l1, l2):
    """One update of ``H`` with ``W`` fixed (the ``W`` update is this on ``Xᵀ``)."""
    if solver == "hals":
        return hals_update_H(X, W, H, l1, l2)
    return multiplicative_update_H(X, W, H, loss, l1, l2)


def nndsvd(X, k, *, fill_zeros=False):
    """Non-negative double SVD start of Boutsidis and Gallopoulos (eq. ``eq-nmf-nndsvd``).

    For each of the top ``k`` singular triplets ``(σ, u, v)``, keep the positive
    or the negative parts of ``u`` and ``v``, whichever pair has the larger
    product of norms, scaled by ``√σ``. ``fill_zeros`` replaces the zeros by
    the mean of ``X`` (``"nndsvda"``), which multiplicative updates need, since
    they can never move an entry away from 0.

    Returns
    -------
    W : ndarray of shape (n, k)
    H : ndarray of shape (k, d)
    """
    U, s, Vt = scipy.linalg.svd(X, full_matrices=False, check_finite=False)
    W = np.zeros((X.shape[0], k))
    H = np.zeros((k, X.shape[1]))
    W[:, 0] = np.sqrt(s[0]) * np.abs(U[:, 0])
    H[0] = np.sqrt(s[0]) * np.abs(Vt[0])
    for j in range(1, k):
        u, v = U[:, j], Vt[j]
        u_plus, u_minus = np.maximum(u, 0), np.maximum(-u, 0)
        v_plus, v_minus = np.maximum(v, 0), np.maximum(-v, 0)
        plus = np.linalg.norm(u_plus) * np.linalg.norm(v_plus)
        minus = np.linalg.norm(u_minus) * np.linalg.norm(v_minus)
        u_part, v_part, size = ((u_plus, v_plus, plus) if plus >= minus
                                else (u_minus, v_minus, minus))
        if size > 0:
            W[:, j] = np.sqrt(s[j] * size) * u_part / np.linalg.norm(u_part)
            H[j] = np.sqrt(s[j] * size) * v_part / np.linalg.norm(v_part)
    if fill_zeros:
        mean = X.mean()
        W[W == 0] = mean
        H[H == 0] = mean
    return W, H


def random_start(X, k, rng):
    """``|N(0, 1)|`` entries scaled so that ``W H`` has the mean of ``X``."""
    scale = np.sqrt(max(X.mean(), TINY) / k)
    return (np.abs(rng.standard_normal((X.shape[0], k))) * scale,
            np.abs(rng.standard_normal((k, X.shape[1]))) * scale)


def normalise(W, H):
    """Unit-norm rows of ``H``, components by decreasing ``‖w_j‖ ‖h_j‖``."""
    norms = np.linalg.norm(H, axis=1)
    safe = np.where(norms > 0, norms, 1.0)
    W, H = W * safe, H / safe[:, np.newaxis]
    order = np.argsort(-np.linalg.norm(W, axis=0), kind="stable")
    return W[:, order], H[order]


class NMF(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Non-negative matrix factorisation ``X ≈ W H``.

    Parameters
    ----------
    n_components : int, default=2
        ``k``.
    loss : {"frobenius", "kullback-leibler"}, default="frobenius"
    solver : {"hals", "mu"}, default="hals"
        ``"hals"`` (Frobenius only) or Lee–Seung multiplicative updates.
    init : {"nndsvda", "nndsvd", "random"}, default="nndsvda"
    l1_penalty, l2_penalty : float, default=0.0
        ``λ₁`` and ``λ₂`` on both factors.
    max_iter : int, default=500
    tol : float, default=1e-6
        Stop when the objective decreases by less than ``tol`` times its
        starting value in one iteration.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds ``init="random"``.

    Attributes
    ----------
    components_ : ndarray of shape (k, n_features)
        ``H``.
    n_components_, n_iter_ : int
    reconstruction_err_ : float
        ``√(2 × loss)`` at the end: ``‖X - W H‖_F`` for the Frobenius loss,
        ``√(2 D_KL)`` for KL (scikit-learn's convention for both).
    objective_history_ : ndarray of shape (n_iter_ + 2,)
        The objective (loss + penalties) at the start, after every iteration,
        and after the final solve for ``W`` given ``H`` (the ``W`` that
        ``fit_transform`` returns and ``transform`` computes); it never
        increases.
    n_features_in_ : int
    """

    def __init__(self, n_components=2, *, loss="frobenius", solver="hals", init="nndsvda",
                 l1_penalty=0.0, l2_penalty=0.0, max_iter=500, tol=1e-6, random_state=None):
        self.n_components = n_components
        self.loss = loss
        self.solver = solver
        self.init = init
        self.l1_penalty = l1_penalty
        self.l2_penalty = l2_penalty
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags

    def _check_parameters(self):
        check_positive_int(self.n_components, name="n_components")
        check_option(self.loss, name="loss", allowed=LOSSES)
        check_option(self.solver, name="solver", allowed=SOLVERS)
        check_option(self.init, name="init", allowed=INITS)
        if self.solver == "hals" and self.loss != "frobenius":
            raise ValueError("solver='hals' minimises the Frobenius loss only; use solver='mu' "
                             "for loss='kullback-leibler'.")
        for value, name in ((self.l1_penalty, "l1_penalty"), (self.l2_penalty, "l2_penalty")):
            check_non_negative_float(value, name=name)
        check_positive_int(self.max_iter, name="max_iter")
        check_positive_float(self.tol, name="tol")
        as_generator(self.random_state)

    def _check_X(self, X, reset):
        X_checked = as_float_matrix(X, name="X")
        check_non_negative(X_checked)
        validate_data(self, X, reset=reset, skip_check_array=True)
        return X_checked

    def fit(self, X, y=None):
        """Fit ``W`` and ``H`` on non-negative ``X`` of shape (n, d); ``y`` is ignored."""
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        """Fit and return ``W`` of shape (n_samples, n_components_)."""
        self._check_parameters()
        X_checked = as_float_matrix(X, name="X")
        check_non_negative(X_checked)
        k = self.n_components
        if k > min(X_checked.shape):
            raise ValueError(f"n_components must be at most min(n_samples, n_features) = "
                             f"{min(X_checked.shape)}; got {k}.")
        W, H = self._start(X_checked, k)
        W, H, history = self._iterate(X_checked, W, H)
        n_iter = len(history) - 1
        W = self._solve_W(X_checked, W, H)       # the exact W for the final H, as transform
        history.append(objective(X_checked, W, H, self.loss, self.l1_penalty, self.l2_penalty))
        if self.l1_penalty == 0 and self.l2_penalty == 0:
            W, H = normalise(W, H)
        validate_data(self, X, reset=True, skip_check_array=True)
        self.components_, self.n_components_ = H, k
        self.objective_history_, self.n_iter_ = np.array(history), n_iter
        self.reconstruction_err_ = self._reconstruction_error(X_checked, W, H)
        return W

    def _start(self, X, k):
        if self.init == "random":
            return random_start(X, k, as_generator(self.random_state))
        return nndsvd(X, k, fill_zeros=self.init == "nndsvda")

    def _reconstruction_error(self, X, W, H):
        """``√(2 × loss)``: ``‖X - W H‖_F`` for Frobenius, as scikit-learn reports both."""
        return float(np.sqrt(2.0 * max(objective(X, W, H, self.loss, 0.0, 0.0), 0.0)))

    def _solve_W(self, X, W, H):
        """``argmin_W`` with ``H`` fixed, a convex problem, solved to high accuracy.

        HALS for the Frobenius loss (exact block minimisation, fast), the
        multiplicative update for KL; stops when ``W`` changes by less than
        ``1e-10`` relative, or after 5 000 sweeps.
        """
        solver = "hals" if self.loss == "frobenius" else "mu"
        l1, l2 = float(self.l1_penalty), float(self.l2_penalty)
        for _ in range(5000):
            W_new = update_factor(X.T, H.T, W.T, self.loss, solver, l1, l2).T
            if np.abs(W_new - W).max() <= 1e-10 * max(np.abs(W_new).max(), TINY):
                return W_new
            W = W_new
        return W

    def _iterate(self, X, W, H):
        """Alternate the updates of ``H`` and ``W``; return them and the objective history."""
        l1, l2 = float(self.l1_penalty), float(self.l2_penalty)
        history = [objective(X, W, H, self.loss, l1, l2)]
        for _ in range(self.max_iter):
            H = update_factor(X, W, H, self.loss, self.solver, l1, l2)
            W = update_factor(X.T, H.T, W.T, self.loss, self.solver, l1, l2).T
            history.append(objective(X, W, H, self.loss, l1, l2))
            if history[-2] - history[-1] <= self.tol * history[0]:
                return W, H, history
        warnings.warn(
            f"NMF stopped after max_iter={self.max_iter} iterations before converging "
            f"(last decrease {(history[-2] - history[-1]) / history[0]:.3g} of the starting "
            f"objective > tol={self.tol}).",
            ConvergenceWarning,
            stacklevel=3,
        )
        return W, H, history

    def transform(self, X):
        """``W`` for new data with ``H = components_`` fixed (the same updates, on ``W`` only)."""
        check_fitted(self, "components_")
        X_checked = self._check_X(X, reset=False)
        H = self.components_
        scale = np.sqrt(max(X_checked.mean(), TINY) / self.n_components_)
        W = np.full((X_checked.shape[0], self.n_components_), scale)
        return self._solve_W(X_checked, W, H)

    def inverse_transform(self, W):
        """``W @ components_``."""
        check_fitted(self, "components_")
        W = as_float_matrix(W, name="W")
        if W.shape[1] != self.n_components_:
            raise ValueError(f"W has {W.shape[1]} columns; expected {self.n_components_}.")
        return W @ self.components_

    @property
    def _n_features_out(self):
        return self.components_.shape[0]
