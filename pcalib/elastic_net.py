"""The elastic net by coordinate descent (chapter 5 of the book, ``book/sparse_pca.md``).

Sparse PCA in the manner of Zou, Hastie and Tibshirani solves one elastic-net
regression per component and iteration (eq. ``eq-spca-enet``):

    minimise over β   ‖y - X β‖² + λ₂ ‖β‖² + λ₁ ‖β‖₁ .

Expanding the square, the problem depends on the data only through the Gram
matrix ``G = Xᵀ X`` and ``c = Xᵀ y``:

    ‖y - X β‖² = yᵀy - 2 cᵀβ + βᵀ G β ,

so :func:`elastic_net_gram` works from ``(G, c)`` alone (what sparse PCA needs
when only a covariance or correlation table is published), and
:func:`elastic_net` forms them from ``(X, y)``.

Note the parameterisation: scikit-learn's ``ElasticNet(alpha, l1_ratio)``
minimises ``‖y - X w‖² / (2n) + α ρ ‖w‖₁ + α (1 - ρ) ‖w‖² / 2``; multiplied by
``2n`` this is the problem above with ``λ₁ = 2 n α ρ`` and
``λ₂ = n α (1 - ρ)``.
"""

import warnings

import numpy as np

from ._linalg import EPS, binary_exponent, soft_threshold
from ._validation import (
    as_float_matrix,
    as_float_vector,
    check_non_negative_float,
    check_positive_float,
    check_positive_int,
    convergence_warning,
    is_int,
)

# The entry points: the other public names are building blocks that trust their caller.
__all__ = ["elastic_net", "elastic_net_gram", "elastic_net_n_nonzero"]


def coordinate_descent_sweep(G, beta, residual, coordinates, l1_penalty, l2_penalty):
    """One pass of exact coordinate minimisation over ``coordinates``.

    For coordinate ``m`` the objective is a one-dimensional quadratic plus
    ``λ₁ |β_m|``; its minimiser is
    ``β_m = S(c_m - Σ_{l≠m} G_ml β_l, λ₁/2) / (G_mm + λ₂)`` (eq. ``eq-spca-cd``).
    ``residual = c - G β`` is kept up to date, so that
    ``c_m - Σ_{l≠m} G_ml β_l = residual_m + G_mm β_m``.

    Parameters
    ----------
    G : ndarray of shape (d, d)
    beta, residual : ndarray of shape (d,)
        Updated in place.
    coordinates : iterable of int
    l1_penalty, l2_penalty : float
        ``λ₁`` and ``λ₂``.
    """
    for m in coordinates:
        curvature = G[m, m] + l2_penalty
        if curvature <= 0.0:  # a zero column of X without ridge: β_m stays 0
            continue
        old = beta[m]
        new = soft_threshold(residual[m] + G[m, m] * old, 0.5 * l1_penalty) / curvature
        if new != old:
            beta[m] = new
            residual -= (new - old) * G[m]


def kkt_violations(residual, beta, l1_penalty, slack=0.0):
    """Zero coefficients whose KKT condition ``|c_m - (G β)_m| ≤ λ₁/2`` fails by over ``slack``."""
    return np.flatnonzero((beta == 0.0) & (np.abs(residual) > 0.5 * l1_penalty + slack))


def solve_on_support(G, c, signs, l1_penalty, l2_penalty):
    """Stationary point for a given support and signs (eq. ``eq-spca-support``).

    If the non-zero coefficients are ``β_A`` with signs ``s``, stationarity of
    the objective on ``A`` is the linear system
    ``(G_AA + λ₂ I) β_A = c_A - (λ₁/2) s``. Its solution is *the* minimiser
    when it has the signs ``s`` and every other coefficient satisfies its
    KKT condition.

    Parameters
    ----------
    G : ndarray of shape (d, d)
    c : ndarray of shape (d,)
    signs : ndarray of shape (d,)
        ``±1`` on the support, 0 elsewhere.
    l1_penalty, l2_penalty : float
        ``λ₁`` and ``λ₂``.

    Returns
    -------
    ndarray of shape (d,)
        Zero off the support.

    Raises
    ------
    numpy.linalg.LinAlgError
        The system is singular (lasso with collinear columns).
    """
    support = np.flatnonzero(signs)
    beta = np.zeros_like(c)
    system = G[np.ix_(support, support)] + l2_penalty * np.eye(support.size)
    beta[support] = np.linalg.solve(system, c[support] - 0.5 * l1_penalty * signs[support])
    return beta


def refine_on_orthant(G, c, beta, l1_penalty, l2_penalty):
    """Exact minimiser within the sign pattern of ``beta``, dropping variables that hit 0.

    Within the orthant of the signs ``s`` of ``beta`` the objective is a convex
    quadratic whose minimiser is :func:`solve_on_support`'s. When that
    minimiser has other signs, move from ``beta`` towards it as far as the
    first coefficient reaching zero (the objective decreases along the whole
    segment), set that coefficient to zero and start again with a smaller
    support (the feature-sign search of Lee, Battle, Raina and Ng). Each round
    removes a variable, so at most ``|support|`` linear solves are made.

    Parameters
    ----------
    G : ndarray of shape (d, d)
    c : ndarray of shape (d,)
    beta : ndarray of shape (d,)
        The starting point (not modified); its signs give the orthant.
    l1_penalty, l2_penalty : float
        ``λ₁`` and ``λ₂``.

    Returns
    -------
    ndarray of shape (d,)
        Exact on its support with consistent signs, or ``beta`` unchanged
        when a linear system is singular (lasso with collinear columns).
    """
    beta = beta.copy()
    while np.any(beta):
        signs = np.sign(beta)
        support = np.flatnonzero(signs)
        try:
            target = solve_on_support(G, c, signs, l1_penalty, l2_penalty)
        except np.linalg.LinAlgError:
            return beta
        crossing = support[np.sign(target[support]) != signs[support]]
        if crossing.size == 0:
            return target
        steps = beta[crossing] / (beta[crossing] - target[crossing])  # in (0, 1]
        first = crossing[np.argmin(steps)]
        beta += steps.min() * (target - beta)
        beta[first] = 0.0
        beta[np.sign(beta) != signs] = 0.0  # coefficients reaching 0 together with it
    return beta


def elastic_net_gram(G, c, *, l1_penalty, l2_penalty, beta_init=None, max_iter=1000, tol=1e-10):
    """Minimise ``βᵀ G β - 2 cᵀβ + λ₂ ‖β‖² + λ₁ ‖β‖₁`` by coordinate descent.

    Checks its input and runs :func:`active_set_descent`.

    Parameters
    ----------
    G : array-like of shape (d, d)
        ``Xᵀ X``: symmetric positive semi-definite, which is checked (to a
        tolerance relative to its largest eigenvalue).
    c : array-like of shape (d,)
        ``Xᵀ y``.
    l1_penalty, l2_penalty : float
        Penalties ``λ₁, λ₂ ≥ 0``, in the units of ``G``. With ``λ₂ = 0`` this
        is the lasso.
    beta_init : array-like of shape (d,), optional
        Warm start (copied).
    max_iter : int, default=1000
        Largest number of rounds.
    tol : float, default=1e-10
        Slack of the KKT test, relative to ``max |c|``.

    Returns
    -------
    beta : ndarray of shape (d,)
    n_iter : int
        Number of rounds made.
    """
    G, c = check_gram_problem(G, c)
    l1_penalty, l2_penalty = check_penalties(l1_penalty, l2_penalty)
    check_positive_int(max_iter, name="max_iter")
    check_positive_float(tol, name="tol")
    d = c.shape[0]
    if beta_init is None:
        beta = np.zeros(d)
    else:
        beta = as_float_vector(beta_init, name="beta_init", length=d, meaning="the warm start")
    return active_set_descent(G, c, beta, l1_penalty, l2_penalty, max_iter=max_iter, tol=tol)


def active_set_descent(G, c, beta, l1_penalty, l2_penalty, *, max_iter=1000, tol=1e-10):
    """Minimise ``βᵀ G β - 2 cᵀβ + λ₂ ‖β‖² + λ₁ ‖β‖₁`` from ``beta`` (input already checked).

    Each round makes one coordinate-descent sweep over the current support
    and the variables that violate their optimality condition, then solves
    exactly within the resulting sign pattern (:func:`refine_on_orthant`),
    and stops when every zero coefficient satisfies
    ``|c_m - (G β)_m| ≤ λ₁/2`` (the KKT condition). Cheap when the solution
    is sparse, and exact to rounding when it stops. :func:`elastic_net_gram`
    checks its input and calls this function.

    Parameters
    ----------
    G : ndarray of shape (d, d)
        Symmetric positive semi-definite.
    c : ndarray of shape (d,)
    beta : ndarray of shape (d,)
        The starting point; overwritten.
    l1_penalty, l2_penalty : float
        ``λ₁, λ₂ ≥ 0``.
    max_iter : int, default=1000
        Largest number of rounds.
    tol : float, default=1e-10
        Slack of the KKT test, relative to ``max |c|``.

    Returns
    -------
    beta : ndarray of shape (d,)
    n_iter : int
        Number of rounds made.
    """
    slack = tol * float(np.abs(c).max(initial=0.0))
    residual = c - G @ beta
    candidates = np.union1d(np.flatnonzero(beta), kkt_violations(residual, beta, l1_penalty, slack))
    for n_iter in range(1, max_iter + 1):
        coordinate_descent_sweep(G, beta, residual, candidates, l1_penalty, l2_penalty)
        beta = refine_on_orthant(G, c, beta, l1_penalty, l2_penalty)
        residual = c - G @ beta
        violations = kkt_violations(residual, beta, l1_penalty, slack)
        if violations.size == 0:
            return beta, n_iter
        candidates = np.union1d(np.flatnonzero(beta), violations)
    convergence_warning(
        "The elastic net",
        max_iter,
        f"every zero coefficient met its optimality condition within tol={tol}",
    )
    return beta, max_iter


def check_penalties(l1_penalty, l2_penalty):
    """Validate ``λ₁, λ₂``: finite real numbers ``≥ 0``."""
    return (
        check_non_negative_float(l1_penalty, name="l1_penalty"),
        check_non_negative_float(l2_penalty, name="l2_penalty"),
    )


def check_gram_problem(G, c):
    """``G`` a finite symmetric positive semi-definite matrix, ``c`` a finite vector to match.

    Returns
    -------
    G : ndarray of shape (d, d)
    c : ndarray of shape (d,)
    """
    G = as_float_matrix(G, name="G")
    check_symmetric_psd(G, name="G", meaning="Xᵀ X")
    c = as_float_vector(c, name="c", length=G.shape[0], meaning="Xᵀ y")
    return G, c


# Tolerances of check_symmetric_psd, relative to the largest entry and the
# largest eigenvalue: a Gram matrix computed in float64 is symmetric to far
# better than 1e-10, and its null eigenvalues come out as about ±n·eps times
# the largest.
SYMMETRY_TOLERANCE = 1e-10
NEGATIVE_EIGENVALUE_TOLERANCE = 1e-8


def check_symmetric_psd(G, *, name, meaning):
    """Raise ``ValueError`` unless the finite matrix ``G`` is square, symmetric and PSD.

    Symmetric: ``|G_ij - G_ji| ≤ 1e-10 max |G|``. Positive semi-definite: its
    smallest eigenvalue is at least ``-1e-8`` times its largest absolute one.
    Both tolerances are relative, so that ``c² G`` passes or fails as ``G``.

    Parameters
    ----------
    G : ndarray of shape (d, d)
    name : str
        The argument, for the messages.
    meaning : str
        What ``G`` stands for, e.g. ``"Xᵀ X"``.
    """
    if G.shape[0] != G.shape[1]:
        raise ValueError(f"{name} must be a square matrix ({meaning}); got shape {G.shape}.")
    asymmetry = np.abs(G - G.T)
    if asymmetry.max() > SYMMETRY_TOLERANCE * np.abs(G).max():
        i, j = np.unravel_index(np.argmax(asymmetry), G.shape)
        raise ValueError(
            f"{name} must be symmetric ({meaning}); entry ({i}, {j}) is {G[i, j]:.6g} but "
            f"entry ({j}, {i}) is {G[j, i]:.6g}."
        )
    eigenvalues = np.linalg.eigvalsh(G)
    if eigenvalues[0] < -NEGATIVE_EIGENVALUE_TOLERANCE * np.abs(eigenvalues).max():
        raise ValueError(
            f"{name} must be positive semi-definite ({meaning}); it has the negative "
            f"eigenvalue {eigenvalues[0]:.6g} (largest {eigenvalues[-1]:.6g})."
        )


def elastic_net(X, y, *, l1_penalty, l2_penalty, max_iter=1000, tol=1e-10):
    """Minimise ``‖y - X β‖² + λ₂ ‖β‖² + λ₁ ‖β‖₁`` (eq. ``eq-spca-enet``), no intercept.

    The penalties carry units: ``elastic_net(a X, b y)`` with ``λ₁`` times
    ``a b`` and ``λ₂`` times ``a²`` gives ``β`` times ``b / a``. The problem is
    solved on ``X`` and ``y`` divided by the powers of two nearest their
    largest entries, so that ``Xᵀ X`` and ``Xᵀ y`` neither overflow nor
    underflow, and ``β`` is converted back (exactly).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    l1_penalty, l2_penalty : float
        Penalties ``λ₁, λ₂ ≥ 0``.
    max_iter : int, default=1000
    tol : float, default=1e-10
        See :func:`elastic_net_gram`.

    Returns
    -------
    beta : ndarray of shape (n_features,)
    n_iter : int
    """
    X = as_float_matrix(X, name="X")
    y = as_float_vector(y, name="y", length=X.shape[0], meaning="one entry per row of X")
    l1_penalty, l2_penalty = check_penalties(l1_penalty, l2_penalty)
    check_positive_int(max_iter, name="max_iter")
    check_positive_float(tol, name="tol")
    a, b = binary_exponent(X), binary_exponent(y)
    X_unit, y_unit = np.ldexp(X, -a), np.ldexp(y, -b)
    with np.errstate(over="ignore"):
        penalties = np.ldexp(l1_penalty, -a - b), np.ldexp(l2_penalty, -2 * a)
    if not np.all(np.isfinite(penalties)):
        raise ValueError(
            f"l1_penalty={l1_penalty:g} and l2_penalty={l2_penalty:g} are too large for the "
            f"scale of X and y (largest entries {np.abs(X).max():.3g} and "
            f"{np.abs(y).max():.3g}): measured in their units, the penalties overflow float64. "
            "The penalties scale as X y and X^2: rescale them with the data."
        )
    beta, n_iter = active_set_descent(
        X_unit.T @ X_unit,
        X_unit.T @ y_unit,
        np.zeros(X.shape[1]),
        *penalties,
        max_iter=max_iter,
        tol=tol,
    )
    beta = np.ldexp(beta, b - a)
    if not np.all(np.isfinite(beta)):
        raise ValueError(
            "The coefficients exceed float64's range: y is too large for the scale of X. "
            "Rescale y (the coefficients scale with it)."
        )
    return beta, n_iter


def elastic_net_n_nonzero(G, c, *, n_nonzero, l2_penalty):
    """Elastic net with exactly ``n_nonzero`` non-zero coefficients (eq. ``eq-spca-path``).

    Checks its input and follows the path with :func:`path_to_n_nonzero`.

    Parameters
    ----------
    G : array-like of shape (d, d)
        ``Xᵀ X``: symmetric positive semi-definite, which is checked.
    c : array-like of shape (d,)
        ``Xᵀ y``.
    n_nonzero : int
        ``1 ≤ n_nonzero ≤ d``.
    l2_penalty : float
        ``λ₂ ≥ 0``, in the units of ``G``. With ``λ₂ = 0`` (the lasso) the
        columns of ``G`` that enter the path must be linearly independent.

    Returns
    -------
    beta : ndarray of shape (d,)
    l1_penalty : float
        The ``λ₁`` of that knot (0 when the path ends first).
    """
    G, c = check_gram_problem(G, c)
    l2_penalty = check_non_negative_float(l2_penalty, name="l2_penalty")
    d = c.shape[0]
    if not is_int(n_nonzero):
        raise TypeError(f"n_nonzero must be an int, got {n_nonzero!r}.")
    if not 1 <= n_nonzero <= d:
        raise ValueError(f"n_nonzero must be between 1 and {d}; got {n_nonzero}.")
    return path_to_n_nonzero(G, c, int(n_nonzero), l2_penalty)


def path_to_n_nonzero(G, c, n_nonzero, l2_penalty):
    """The path of :func:`elastic_net_n_nonzero` on checked input.

    Follows the regularisation path from ``λ₁ = 2 max|c|`` (all zero) down.
    Between two knots the support ``A`` and the signs ``s`` are fixed and the
    solution is linear in ``λ₁``: ``β_A = M⁻¹ c_A - (λ₁/2) M⁻¹ s`` with
    ``M = G_AA + λ₂ I``. The next knot is where a zero coefficient's
    optimality condition becomes tight (it enters) or an active coefficient
    reaches zero (it leaves). The path is followed to the knot where an
    ``(n_nonzero + 1)``-th variable is about to enter: the least penalised
    solution with ``n_nonzero`` non-zeros, the point where the LARS-EN path of
    Zou and Hastie's software stops. When tied variables enter together the
    count can only be approximated (with a warning): the solution just before
    the group that overshoots it, or, when the very first group already has
    more than ``n_nonzero`` variables, that group.

    Parameters
    ----------
    G : ndarray of shape (d, d)
        Symmetric positive semi-definite.
    c : ndarray of shape (d,)
    n_nonzero : int
        ``1 ≤ n_nonzero ≤ d``.
    l2_penalty : float
        ``λ₂ ≥ 0``.

    Returns
    -------
    beta : ndarray of shape (d,)
    l1_penalty : float
        The ``λ₁`` of that knot (0 when the path ends first).

    Raises
    ------
    ValueError
        ``M`` is singular: columns of ``G`` that enter together are
        collinear and ``λ₂`` is too small to tell them apart, so the path is
        not unique.
    """
    d = c.shape[0]
    scale = float(np.abs(c).max())
    if scale == 0.0:
        return np.zeros(d), 0.0
    if n_nonzero == d:  # no L1 penalty needed: the ridge solution (G + λ₂ I) β = c
        return np.linalg.lstsq(G + l2_penalty * np.eye(d), c, rcond=None)[0], 0.0
    level = 2.0 * scale
    active = np.flatnonzero(np.abs(c) >= scale * (1 - 1e-12))
    signs = np.sign(c)
    while True:
        M = G[np.ix_(active, active)] + l2_penalty * np.eye(active.size)
        u, w = _solve_active(M, np.column_stack([c[active], 0.5 * signs[active]]), active)
        a = c - G[:, active] @ u  # residual(λ) = a + λ b, with β_A(λ) = u - λ w
        b = G[:, active] @ w
        below = level * (1 - 1e-12)
        with np.errstate(divide="ignore", invalid="ignore"):
            enter = np.fmax(
                _in_range(a / (0.5 - b), below),  # a + λ b = +λ/2
                _in_range(-a / (0.5 + b), below),  # a + λ b = -λ/2
            )
            leave = _in_range(u / w, below)
        enter[active] = -np.inf
        next_level = max(enter.max(), leave.max(initial=-np.inf))
        beta = np.zeros(d)
        if next_level == -np.inf:  # the path reaches λ₁ = 0 with no other knot
            beta[active] = u
            if active.size > n_nonzero:  # a tied first group larger than the count
                return _report_count(beta, n_nonzero), 0.0
            return beta, 0.0
        level = next_level
        entering = np.flatnonzero(enter >= level * (1 - 1e-9))
        leaving = active[leave >= level * (1 - 1e-9)]
        beta[active] = u - level * w
        if entering.size and active.size >= n_nonzero:
            return _report_count(beta, n_nonzero), level
        signs[entering] = np.sign(a[entering] + level * b[entering])
        active = np.union1d(np.setdiff1d(active, leaving), entering)
        if active.size > n_nonzero:  # several variables entered together
            return _report_count(beta, n_nonzero), level


def _solve_active(M, right_hand_sides, active):
    """``M⁻¹`` times the two columns of ``right_hand_sides``, or an error if ``M`` is singular.

    ``M = G_AA + λ₂ I`` is singular, or too close to it for its solution to
    mean anything, when columns of ``G`` in ``A`` are collinear and ``λ₂`` is
    negligible next to them. Collinearity does not depend on the units of the
    columns, so the test is on ``M`` with its diagonal scaled to 1 (a
    correlation matrix when ``λ₂ = 0``), whose condition number measures it.
    """
    diagonal = np.sqrt(np.diag(M))
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero column: inf or NaN, refused
        condition = np.linalg.cond(M / np.outer(diagonal, diagonal))
    if not condition <= 1.0 / (M.shape[0] * EPS):
        raise ValueError(
            f"The elastic-net path is not unique: columns {active.tolist()} of G are collinear "
            "and l2_penalty is too small to tell them apart (with l2_penalty=0, the lasso, any "
            "mix of them fits equally well). Pass a positive l2_penalty, small next to the "
            "diagonal of G, to make the solution unique."
        )
    solution = np.linalg.solve(M, right_hand_sides)
    return solution[:, 0], solution[:, 1]


def _in_range(values, upper):
    """``values`` where they lie in ``(0, upper)``, ``-inf`` elsewhere (and for NaN)."""
    return np.where((values > 0.0) & (values < upper), values, -np.inf)


def _report_count(beta, n_nonzero):
    """Warn when ties made an exact count of non-zeros impossible."""
    if np.count_nonzero(beta) != n_nonzero:
        warnings.warn(
            f"elastic net: no penalty gives exactly {n_nonzero} non-zero coefficients "
            f"(several variables enter the path together); returning "
            f"{np.count_nonzero(beta)}.",
            stacklevel=3,
        )
    return beta
