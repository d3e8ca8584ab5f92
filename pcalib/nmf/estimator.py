"""The estimator :class:`NMF`, with scikit-learn's names (chapter 6, ``book/nmf.md``)."""

import warnings
from typing import ClassVar

import numpy as np
import scipy.sparse
from sklearn.utils.validation import validate_data

from .._base import ComponentEstimator
from .._validation import (
    as_float_matrix,
    as_real_array,
    check_array_size,
    check_bool,
    check_finite_float,
    check_fitted,
    check_fraction,
    check_non_negative_float,
    check_positive_int,
    check_random_state,
    convergence_warning,
    one_of,
    option_or,
    optional,
)
from .canonical import drop_dead_components, normalise
from .checks import check_custom_factor, check_custom_product, checked_data
from .divergences import BETA_LOSSES, beta_value, objective
from .initialization import nndsvd, random_start, typical_entry
from .iterations import beta_iterations, frobenius_iterations
from .newton import solve_W
from .penalties import penalties_in_units, scaled_penalties
from .units import largest_entry, scaled_data, times_power_of_two, unit_exponent

__all__ = ["NMF"]

SOLVERS = ("cd", "mu", "pg", "anls")
INITS = ("random", "nndsvd", "nndsvda", "nndsvdar", "custom")


def data_in_units(X, exponent, beta):
    """``X 2^exponent`` (:func:`scaled_data`), dense for β ≠ 2.

    The multiplicative updates for β ≠ 2 form the dense n × d product ``W H``
    at every step, so a dense ``X`` at most doubles their memory; the
    Frobenius solvers only multiply a sparse ``X``.
    """
    X_unit = scaled_data(X, exponent)
    if beta != 2 and scipy.sparse.issparse(X_unit):
        X_unit = X_unit.toarray()
    return X_unit


class NMF(ComponentEstimator):
    """Non-negative matrix factorisation ``X ≈ W H``, with scikit-learn's names.

    ``W`` (n_samples × k) holds the coefficients of the samples and ``H``
    (k × n_features) the parts: the names of Lee and Seung and of
    scikit-learn, not the loading matrix ``W`` (n_features × k) of the rest of
    pcalib.

    Parameters
    ----------
    n_components : int, "auto" or None, default=None
        ``k``, any positive int (more than ``min(n_samples, n_features)``
        needs ``init="random"`` or ``"custom"``); ``None`` takes
        ``n_features``; ``"auto"`` takes the number of rows of the ``H``
        given with ``init="custom"``, and ``n_features`` otherwise.
    init : {"nndsvda", "nndsvd", "nndsvdar", "random", "custom"} or None, default=None
        The start (eq. ``eq-nmf-nndsvd`` for the NNDSVD ones). ``None``
        takes ``"nndsvda"`` when ``n_components <= min(n_samples,
        n_features)`` and ``"random"`` otherwise, as scikit-learn does; the
        choice is recorded in ``init_``. ``"custom"`` starts from the ``W``
        and ``H`` passed to :meth:`fit` or :meth:`fit_transform`.
    solver : {"cd", "mu", "pg", "anls"}, default="cd"
        ``"cd"``, coordinate descent on the rows of each factor (HALS,
        eq. ``eq-nmf-hals``), the fastest; ``"mu"``, the multiplicative
        updates (eq. ``eq-nmf-mu-frobenius``, ``eq-nmf-mu-beta``), the only
        one for a ``beta_loss`` other than ``"frobenius"``; ``"pg"``,
        projected gradient (eq. ``eq-nmf-pg``), the simplest; ``"anls"``,
        alternating non-negative least squares (eq. ``eq-nmf-anls``), exact
        over each factor in turn.
    beta_loss : {"frobenius", "kullback-leibler", "itakura-saito"} or float, default="frobenius"
        The β-divergence (eq. ``eq-nmf-beta``): β = 2, 1 and 0 for the
        three names, or any real β. Other than 2, it needs ``solver="mu"``;
        β <= 0 needs ``X`` without zeros.
    tol : float, default=1e-6
        Stop when an iteration lowers the objective by less than ``tol``
        times its starting value. This is pcalib's criterion, with its own
        default: scikit-learn's ``tol=1e-4`` bounds the projected gradient
        (``"cd"``) or the decrease of √(2 × loss) over ten iterations
        (``"mu"``), which stops later than a decrease of the loss below
        1e-4 of its start would. ``tol=0`` runs exactly ``max_iter``
        iterations.
    max_iter : int, default=200
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Seeds ``init="random"`` and ``"nndsvdar"``.
    alpha_W : float, default=0.0
        Weight ``α_W ≥ 0`` of the penalties on ``W``.
    alpha_H : float or "same", default="same"
        Weight ``α_H ≥ 0`` of the penalties on ``H``; ``"same"`` takes ``alpha_W``.
    l1_ratio : float, default=0.0
        ``ρ`` in [0, 1], the share of the L1 penalty. With scikit-learn's
        scaling (:func:`scaled_penalties`) the penalties of
        eq. ``eq-nmf-penalised`` are ``λ₁ᵂ = α_W ρ d``,
        ``λ₂ᵂ = α_W (1 - ρ) d``, ``λ₁ᴴ = α_H ρ n`` and ``λ₂ᴴ = α_H (1 - ρ) n``.
    extrapolate : bool or "auto", default="auto"
        Start each HALS iteration from an extrapolation of the last two
        (eq. ``eq-nmf-extrapolation``); ``"auto"`` does so for
        ``solver="cd"``, and ``True`` needs that solver.

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features)
        ``H``, of the dtype of ``X`` (float32 or float64).
    n_components_ : int
        ``k``.
    init_ : str
        The start used, ``init`` or what ``None`` chose.
    extrapolate_ : bool
        Whether the iterations were extrapolated, ``extrapolate`` or what
        ``"auto"`` chose.
    n_iter_ : int
        Number of iterations (updates of ``W`` then ``H``) performed.
    converged_ : bool
        Whether an iteration lowered the objective by less than ``tol`` times
        its start before ``max_iter``.
    objective_history_ : ndarray of shape (n_iter_ + 1,)
        The objective (loss + penalties) at the start and after every
        iteration; it never increases. The final solve for ``W`` given ``H``
        (the ``W`` that ``fit_transform`` returns and ``transform``
        computes) is not an iteration and is not recorded here: its result
        shows in ``reconstruction_err_``.
    reconstruction_err_ : float
        ``√(2 D_β(X | W H))`` of the returned factors, scikit-learn's
        definition: ``‖X - W H‖_F`` for the Frobenius loss.
    n_samples_ : int
        Number of training samples.
    n_features_in_ : int
        Number of features.

    Notes
    -----
    Each iteration updates ``W`` and then ``H``, as scikit-learn's ``cd`` and
    ``mu`` solvers do.

    ``X`` may be dense or a ``scipy.sparse`` matrix; the Frobenius solvers
    only multiply a sparse ``X``, and the other losses densify it (their
    updates form the dense ``W H`` anyway). ``float32`` data give
    ``float32`` factors, computed in ``float64``.

    The fit does not depend on the units of ``X``. Without penalties,
    ``fit(c X)`` for ``c > 0`` gives the same ``components_`` (unit rows),
    ``c`` times ``W`` (from ``fit_transform`` and ``transform``),
    ``c^(β/2)`` times ``reconstruction_err_`` (``c`` for the Frobenius
    loss, ``√c`` for KL, 1 for Itakura–Saito), the ``objective_history_``
    times ``cᵝ``, and the same ``n_iter_`` and ``converged_``, up to
    rounding. With penalties the factors each scale by ``√c`` when the
    weights are given in the units of ``c X``: ``λ₁`` times ``c^(β - 1/2)``
    and ``λ₂`` times ``c^(β - 1)`` (``alpha_W`` and ``alpha_H`` with
    ``l1_ratio`` 1 or 0). Internally the fit runs on ``X`` divided by a
    power of 4 near its largest entry (:func:`unit_exponent`), so no product
    overflows or underflows.

    A call of ``fit`` that raises leaves the estimator as it was: attributes
    are set only once the fit has succeeded.
    """

    _parameter_checks: ClassVar[dict] = {
        "n_components": optional(option_or(check_positive_int, "auto", otherwise="a positive int")),
        "init": optional(one_of(*INITS)),
        "solver": one_of(*SOLVERS),
        "beta_loss": option_or(check_finite_float, *BETA_LOSSES, otherwise="a real number"),
        "tol": check_non_negative_float,
        "max_iter": check_positive_int,
        "random_state": check_random_state,
        "alpha_W": check_non_negative_float,
        "alpha_H": option_or(check_non_negative_float, "same", otherwise="a number >= 0"),
        "l1_ratio": check_fraction,
        "extrapolate": option_or(check_bool, "auto", otherwise="True or False"),
    }

    def __init__(
        self,
        n_components=None,
        *,
        init=None,
        solver="cd",
        beta_loss="frobenius",
        tol=1e-6,
        max_iter=200,
        random_state=None,
        alpha_W=0.0,
        alpha_H="same",
        l1_ratio=0.0,
        extrapolate="auto",
    ):
        self.n_components = n_components
        self.init = init
        self.solver = solver
        self.beta_loss = beta_loss
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state
        self.alpha_W = alpha_W
        self.alpha_H = alpha_H
        self.l1_ratio = l1_ratio
        self.extrapolate = extrapolate

    def __sklearn_tags__(self):
        """scikit-learn's tags: ``positive_only`` and sparse input, float32 kept."""
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def _check_parameter_rules(self):
        """β other than 2 only with ``"mu"``; extrapolation only with ``"cd"``."""
        if self.solver != "mu" and beta_value(self.beta_loss) != 2:
            raise ValueError(
                f"Invalid beta_loss parameter: solver {self.solver!r} does not handle "
                f"beta_loss = {self.beta_loss!r}; only solver='mu' minimises a beta_loss "
                "other than 'frobenius' (2)."
            )
        if not isinstance(self.extrapolate, str) and self.extrapolate and self.solver != "cd":
            raise ValueError(f"extrapolate=True needs solver='cd'; got solver={self.solver!r}.")

    def _resolve_n_components(self, X, H):
        """``k``: ``n_components``, or what ``None`` or ``"auto"`` stand for."""
        if isinstance(self.n_components, str):  # "auto"
            if self.init == "custom" and H is not None:
                H = as_real_array(H, name="H")
                if H.ndim == 2:
                    return H.shape[0]
            return X.shape[1]
        k = X.shape[1] if self.n_components is None else int(self.n_components)
        # beside the factors, the solvers form k × k matrices (Gram matrices, Hessians)
        check_array_size((max(X.shape), k), name="n_components")
        check_array_size((k, k), name="n_components")
        return k

    def _penalties(self, X, W_exponent, H_exponent, objective_exponent):
        """The weights for the problem in powers of 2 (:func:`penalties_in_units`), or raise."""
        penalties = penalties_in_units(
            scaled_penalties(self.alpha_W, self.alpha_H, self.l1_ratio, *X.shape),
            W_exponent,
            H_exponent,
            objective_exponent,
        )
        if not np.all(np.isfinite(penalties)):
            raise ValueError(
                f"alpha_W={self.alpha_W!r} and alpha_H={self.alpha_H!r} are too large for the "
                f"scale of X (largest entry {largest_entry(X):.3g}): measured in units of that "
                "entry, the penalty weights overflow float64. Multiply X by a constant, and the "
                "alphas as the NMF docstring says, so that its entries are nearer 1."
            )
        return penalties

    def _resolve_init(self, k, X):
        """``init``, or scikit-learn's choice for ``None``; NNDSVD needs ``k <= min(n, d)``."""
        smallest = min(X.shape)
        if self.init is None:
            return "nndsvda" if k <= smallest else "random"
        if self.init not in ("random", "custom") and k > smallest:
            raise ValueError(
                f"init = '{self.init}' can only be used when n_components <= "
                f"min(n_samples, n_features) = {smallest}; got n_components = {k}. Use "
                "init='random'."
            )
        return self.init

    def _start(self, X_unit, k, init, W, H, dtype, e):
        """The starting ``W`` (n × k) and ``H`` (k × d) for ``X_unit = X / 4ᵉ``."""
        if init == "custom":
            H = check_custom_factor(H, (k, X_unit.shape[1]), name="H", dtype=dtype)
            W = check_custom_factor(W, (X_unit.shape[0], k), name="W", dtype=dtype)
            W, H = np.ldexp(W, -e), np.ldexp(H, -e)
            check_custom_product(W, H, 4.0**e)
            return W, H
        if W is not None or H is not None:
            warnings.warn(
                "When init!='custom', provided W or H are ignored. Set init='custom' to use "
                "them as initialization.",
                RuntimeWarning,
                stacklevel=4,
            )
        if init == "random":
            return random_start(X_unit, k, self.random_state)
        return nndsvd(X_unit, k, fill_zeros=init, random_state=self.random_state)

    def fit(self, X, y=None, W=None, H=None):
        """Fit ``W`` and ``H`` on non-negative ``X``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative data.
        y : None
            Ignored.
        W : array-like of shape (n_samples, n_components), default=None
            The starting ``W`` with ``init="custom"``; ignored otherwise.
        H : array-like of shape (n_components, n_features), default=None
            The starting ``H`` with ``init="custom"``; ignored otherwise.

        Returns
        -------
        self : NMF
            The fitted estimator.
        """
        self.fit_transform(X, W=W, H=H)
        return self

    def fit_transform(self, X, y=None, W=None, H=None):
        """Fit ``W`` and ``H`` on non-negative ``X`` and return ``W``.

        The iterations alternate updates of ``W`` and ``H``; after them, ``W``
        is solved for given the final ``H`` (:func:`solve_W`), as
        :meth:`transform` does.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative data.
        y : None
            Ignored.
        W : array-like of shape (n_samples, n_components), default=None
            The starting ``W`` with ``init="custom"``; ignored otherwise.
        H : array-like of shape (n_components, n_features), default=None
            The starting ``H`` with ``init="custom"``; ignored otherwise.

        Returns
        -------
        W : ndarray of shape (n_samples, n_components_)
            The coefficients of the samples, of the dtype of ``X`` (float32 or float64).
        """
        self._check_parameters()
        beta = beta_value(self.beta_loss)
        X_checked, dtype = checked_data(X, beta)
        k = self._resolve_n_components(X_checked, H)
        init = self._resolve_init(k, X_checked)
        # the fit runs on X' = X / 4ᵉ, with W = 2ᵉ W', H = 2ᵉ H' and the objective 4ᵉᵝ times
        e = unit_exponent(X_checked)
        objective_exponent = 2 * e * beta
        penalties = self._penalties(X_checked, e, e, objective_exponent)
        X_unit = data_in_units(X_checked, -2 * e, beta)
        W, H = self._start(X_unit, k, init, W, H, dtype, e)
        extrapolate = self.solver == "cd" if self.extrapolate == "auto" else bool(self.extrapolate)
        options = dict(penalties=penalties, max_iter=self.max_iter, tol=self.tol)
        if beta == 2:
            W, H, history, converged = frobenius_iterations(
                X_unit, W, H, solver=self.solver, extrapolate=extrapolate, **options
            )
        else:
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                W, H, history, converged = beta_iterations(X_unit, W, H, beta=beta, **options)
        history = times_power_of_two(np.asarray(history), objective_exponent)
        if not (np.all(np.isfinite(history)) and np.all(np.isfinite(H))):
            raise ValueError(
                f"beta_loss={self.beta_loss!r} is too far from [0, 2] for the values of X: "
                "the β-divergence or its updates overflow float64 (powers x^β of the "
                "entries of X). Use a beta_loss nearer [0, 2]."
            )
        if not converged:
            convergence_warning(
                "NMF",
                self.max_iter,
                f"an iteration lowered the objective by less than tol={self.tol:g} times its "
                "starting value",
            )
        # not an iteration: the W for the final H, as transform computes it
        W = solve_W(X_unit, W, H, beta=beta, l1_penalty=penalties.l1_W, l2_penalty=penalties.l2_W)
        W, H = drop_dead_components(W, H)
        loss = max(objective(X_unit, W, H, beta), 0.0)
        W, H = np.ldexp(W, e), np.ldexp(H, e)
        if not any(penalties):
            W, H = normalise(W, H)
        self._commit(
            X,
            {
                "components_": H.astype(dtype, copy=False),
                "n_components_": k,
                "init_": init,
                "extrapolate_": extrapolate,
                "objective_history_": history,
                "n_iter_": len(history) - 1,
                "converged_": converged,
                "n_samples_": X_checked.shape[0],
                # √(2 × loss) is in units of 2^(objective_exponent / 2)
                "reconstruction_err_": float(
                    times_power_of_two(np.sqrt(2.0 * loss), objective_exponent / 2)
                ),
            },
        )
        return W.astype(dtype, copy=False)

    def transform(self, X):
        """``W`` for new data with ``H = components_`` fixed (:func:`solve_W`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative data.

        Returns
        -------
        W : ndarray of shape (n_samples, n_components_)
            The minimiser over ``W ≥ 0`` of the loss plus the penalties on
            ``W`` (for β = 1 and 2; a stationary point reached by
            multiplicative updates for other β), of the dtype of ``X``.
        """
        check_fitted(self, "components_")
        self._check_parameters()
        beta = beta_value(self.beta_loss)
        X_checked, dtype = checked_data(X, beta)
        validate_data(self, X, reset=False, skip_check_array=True)
        # solved for X' = X / 4ᵉ and H' = H / 4ᶠ, both with largest entries near 1: W = 4ᵉ⁻ᶠ W'
        components = self.components_.astype(np.float64)
        e, f = unit_exponent(X_checked), unit_exponent(components)
        objective_exponent = 2 * e * beta
        penalties = self._penalties(X_checked, 2 * (e - f), 2 * f, objective_exponent)
        X_unit, H_unit = data_in_units(X_checked, -2 * e, beta), np.ldexp(components, -2 * f)
        k = self.n_components_
        W = np.full((X_checked.shape[0], k), typical_entry(X_unit, k))
        W[:, H_unit.max(axis=1) <= 0] = 0.0  # dead components stay at 0
        W = solve_W(
            X_unit, W, H_unit, beta=beta, l1_penalty=penalties.l1_W, l2_penalty=penalties.l2_W
        )
        return np.ldexp(W, 2 * (e - f)).astype(dtype, copy=False)

    def inverse_transform(self, W):
        """``W @ components_``, the data that the coefficients ``W`` stand for.

        Parameters
        ----------
        W : array-like of shape (n_samples, n_components_)
            Coefficients, e.g. from :meth:`transform`.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            ``W H``.
        """
        check_fitted(self, "components_")
        W = as_float_matrix(W, name="W")
        if W.shape[1] != self.n_components_:
            raise ValueError(f"W has {W.shape[1]} columns; expected {self.n_components_}.")
        return W @ self.components_
