"""Choosing k: Gavish and Donoho's optimal hard threshold (chapter 2, ``book/high_dim.md``).

For a matrix of signal plus white noise, :func:`optimal_hard_threshold` keeps
the singular values above ``τ = λ*(β) √N σ`` when the noise level ``σ`` is
known (eq. ``eq-hd-gd-known``), or above ``ω(β)`` times the median singular
value when it is not (eq. ``eq-hd-gd-unknown``), with the median of the
Marchenko–Pastur law (eq. ``eq-hd-mp``) computed by quadrature.
"""

from typing import NamedTuple

import numpy as np
import scipy.integrate
import scipy.optimize

from ._validation import as_float_matrix, check_positive_float, check_positive_int

__all__ = ["HardThresholdResult", "optimal_hard_threshold"]


class HardThresholdResult(NamedTuple):
    """What :func:`optimal_hard_threshold` returns.

    Attributes
    ----------
    threshold : float
        The threshold ``τ`` on the singular values, in the units of the data.
    n_components : int
        Number of singular values strictly above ``τ``.
    """

    threshold: float
    n_components: int


def optimal_hard_threshold(singular_values, shape, *, noise_variance=None):
    """Gavish and Donoho's optimal hard threshold for singular values (chapter 2).

    For an ``n × d`` matrix, signal plus white noise of variance ``σ²``, with
    ``N = max(n, d)`` and the aspect ratio ``β = min(n, d) / N``, the
    singular values kept are those above

    * ``τ = λ*(β) √N σ`` when ``σ²`` is known (eq. ``eq-hd-gd-known``);
    * ``τ = ω(β) y_med`` when it is not, with ``y_med`` the median singular
      value and ``ω(β) = λ*(β) / √μ_β``, where ``μ_β`` is the median of the
      Marchenko–Pastur law of ratio ``β`` (eq. ``eq-hd-gd-unknown``).

    ``ω(β)`` is computed from ``μ_β`` by quadrature, not by the paper's cubic
    approximation. If more than half of the singular values are 0, ``y_med = 0``
    and, with unknown noise, every non-zero singular value is kept.

    Parameters
    ----------
    singular_values : array-like of shape (n_singular_values,)
        Singular values of the data matrix, non-negative, in any order. With
        unknown noise all ``min(n, d)`` of them are needed (for the median);
        with known noise any of them (e.g. the top few).
    shape : tuple of two ints
        ``(n, d)``, the shape of the data matrix.
    noise_variance : float > 0, optional
        The variance ``σ²`` of each noise entry, in the units of the data
        squared; ``None`` (the default) estimates the noise level from the
        median singular value.

    Returns
    -------
    HardThresholdResult
        ``(threshold, n_components)``: ``τ`` and the number of singular values
        above it.
    """
    shape = _check_shape(shape)
    singular_values = _check_singular_values(singular_values, shape, noise_variance is None)
    beta = min(shape) / max(shape)
    if noise_variance is None:
        omega = hard_threshold_coefficient(beta) / np.sqrt(marchenko_pastur_median(beta))
        threshold = omega * float(np.median(singular_values))
    else:
        noise_variance = check_positive_float(noise_variance, name="noise_variance")
        threshold = hard_threshold_coefficient(beta) * np.sqrt(max(shape) * noise_variance)
    return HardThresholdResult(float(threshold), int(np.sum(singular_values > threshold)))


def hard_threshold_coefficient(beta):
    """``λ*(β)``, the optimal hard threshold in units of ``√N σ`` (eq. ``eq-hd-gd-known``).

    ``λ*(β) = √(2(β + 1) + 8β / (β + 1 + √(β² + 14β + 1)))``; ``λ*(1) = 4/√3``.

    Parameters
    ----------
    beta : float in (0, 1]
        Aspect ratio ``min(n, d) / max(n, d)`` of the data matrix.

    Returns
    -------
    float
        ``λ*(β)``, from ``√2`` (as ``β → 0``) to ``4/√3`` (``β = 1``).
    """
    return np.sqrt(2 * (beta + 1) + 8 * beta / (beta + 1 + np.sqrt(beta**2 + 14 * beta + 1)))


def marchenko_pastur_cdf(x, beta):
    """Distribution function of the Marchenko–Pastur law of ratio ``β``, σ² = 1 (eq. ``eq-hd-mp``).

    The integral of the density from the lower edge ``(1 - √β)²`` to ``x``,
    by adaptive quadrature (the density has integrable square-root
    singularities at the edges, and ``1/√t`` at 0 when ``β = 1``).

    Parameters
    ----------
    x : float
        A point of the support ``[(1 - √β)², (1 + √β)²]``.
    beta : float in (0, 1]
        Ratio of the law, ``γ`` of eq. ``eq-hd-mp``.

    Returns
    -------
    float
        ``F(x)``, the probability of an eigenvalue below ``x``.
    """
    low, high = (1 - np.sqrt(beta)) ** 2, (1 + np.sqrt(beta)) ** 2

    def density(t):
        return np.sqrt((high - t) * (t - low)) / (2 * np.pi * beta * t)

    return scipy.integrate.quad(density, low, x, epsabs=1e-13, epsrel=1e-12)[0]


def marchenko_pastur_median(beta):
    """Median ``μ_β`` of the Marchenko–Pastur law of ratio ``β``, σ² = 1.

    The root of ``F(μ) = 1/2`` on the support, by Brent's method on
    :func:`marchenko_pastur_cdf`.

    Parameters
    ----------
    beta : float in (0, 1]
        Ratio of the law; for singular values, ``min(n, d) / max(n, d)``.

    Returns
    -------
    float
        ``μ_β``, in ``[(1 - √β)², 1]``.
    """
    low, high = (1 - np.sqrt(beta)) ** 2, (1 + np.sqrt(beta)) ** 2
    return scipy.optimize.brentq(
        lambda mu: marchenko_pastur_cdf(mu, beta) - 0.5, low, high, xtol=1e-14, rtol=1e-14
    )


def _check_shape(shape):
    """Raise unless ``shape`` is a pair of positive ints; return it as a tuple."""
    if not isinstance(shape, (tuple, list)) or len(shape) != 2:
        raise TypeError(f"shape must be a pair (n, d) of positive ints, got {shape!r}.")
    return tuple(check_positive_int(size, name=f"shape[{i}]") for i, size in enumerate(shape))


def _check_singular_values(singular_values, shape, need_all):
    """Return ``singular_values`` as a 1-D float array of valid singular values of ``shape``."""
    name = "singular_values"
    if singular_values is None:
        raise TypeError(f"{name} must be a 1-D array-like of numbers, got None.")
    try:
        ndim = np.ndim(singular_values)
    except ValueError as exc:
        raise ValueError(f"{name} must be a 1-D array-like of numbers: {exc}") from exc
    if ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got {ndim} dimension(s).")
    values = as_float_matrix(np.asarray(singular_values)[np.newaxis, :], name=name)[0]
    if np.any(values < 0):
        raise ValueError(f"{name} must be non-negative, got the minimum {values.min():g}.")
    rank = min(shape)
    if len(values) > rank or (need_all and len(values) != rank):
        expected = f"all min(n, d) = {rank}" if need_all else f"at most min(n, d) = {rank}"
        raise ValueError(
            f"{name} has {len(values)} entries for a matrix of shape {shape}; expected "
            f"{expected} (the median, used when noise_variance is None, needs all of them)."
        )
    return values
