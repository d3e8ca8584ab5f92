"""Gavish and Donoho's optimal hard threshold (pcalib.high_dim, chapter 2).

References: the closed form ``λ*(1) = 4/√3`` and ``ω(1) ≈ 2.858`` published
by Gavish and Donoho (2014), their cubic approximation of ``ω(β)``, the
median of a simulated Wishart spectrum, and a distribution function of the
Marchenko–Pastur law integrated by another method than pcalib's.
"""

import numpy as np
import pytest

import pcalib
from pcalib.high_dim import (
    hard_threshold_coefficient,
    marchenko_pastur_cdf,
    marchenko_pastur_median,
    optimal_hard_threshold,
)


def omega(beta):
    """``ω(β) = λ*(β) / √μ_β``, the coefficient of the median singular value."""
    return hard_threshold_coefficient(beta) / np.sqrt(marchenko_pastur_median(beta))


def omega_cubic(beta):
    """Gavish and Donoho's cubic approximation of ``ω(β)``."""
    return 0.56 * beta**3 - 0.95 * beta**2 + 1.82 * beta + 1.43


def test_square_matrix_threshold_is_four_over_root_three():
    assert abs(hard_threshold_coefficient(1.0) - 4 / np.sqrt(3)) < 1e-12


def test_square_matrix_median_coefficient_is_the_published_2_858():
    # the paper gives ω(1) to three decimals
    assert abs(omega(1.0) - 2.858) < 5e-4


def test_the_cubic_approximation_agrees_with_the_exact_coefficient():
    # The cubic's coefficients are given to two decimals, so their rounding
    # alone can move it by up to 0.005 · (β³ + β² + β + 1) ≤ 0.02; the largest
    # deviation measured on (0, 1] is 0.016, near β = 0 (where ω → √2 and the
    # cubic gives 1.43). A 1 % error in ω (at least 0.014) breaks it where
    # ω ≥ 2 (β ≥ 0.4).
    betas = np.linspace(0.01, 1.0, 100)
    exact = np.array([omega(beta) for beta in betas])
    assert np.max(np.abs(exact - omega_cubic(betas))) < 0.02
    assert np.max(np.abs(1.01 * exact - omega_cubic(betas))[betas >= 0.4]) > 0.02


@pytest.mark.parametrize("beta", [0.05, 0.3, 0.7, 1.0])
def test_the_distribution_function_matches_an_independent_integration(beta):
    # the Marchenko–Pastur distribution function, integrated in the angle
    # t = a + (b - a) sin²θ, which removes the square-root singularities and
    # leaves a smooth integrand, by 100-point Gauss–Legendre quadrature
    a, b = (1 - np.sqrt(beta)) ** 2, (1 + np.sqrt(beta)) ** 2
    nodes, weights = np.polynomial.legendre.leggauss(100)
    for x in np.linspace(a, b, 7)[1:-1]:
        theta_x = np.arcsin(np.sqrt((x - a) / (b - a)))
        theta = (nodes + 1) * theta_x / 2
        t = a + (b - a) * np.sin(theta) ** 2
        # f(t) dt with f(t) = √((b - t)(t - a)) / (2πβt): (b - a)² sin²θ cos²θ / (πβt) dθ
        integrand = (b - a) ** 2 * np.sin(theta) ** 2 * np.cos(theta) ** 2 / (np.pi * beta * t)
        reference = weights @ integrand * theta_x / 2
        assert abs(marchenko_pastur_cdf(x, beta) - reference) < 1e-9
    median = marchenko_pastur_median(beta)
    assert abs(marchenko_pastur_cdf(median, beta) - 0.5) < 1e-10


@pytest.mark.parametrize(("n", "d"), [(2000, 2000), (4000, 1000)])
def test_the_median_matches_a_simulated_wishart_spectrum(n, d):
    # The median eigenvalue of XᵀX / n for Gaussian X (n × d) tends to μ_β;
    # its fluctuation is of order 1/d (eigenvalue rigidity) and its finite-size
    # bias of the same order (0.0012 and 0.0027 here), so 0.005 is a safe
    # two-sided margin, which a 2 % error in μ_β (at least 0.013) breaks.
    X = np.random.default_rng(0).standard_normal((n, d))
    eigenvalues = np.linalg.eigvalsh(X.T @ X / n)
    assert abs(np.median(eigenvalues) - marchenko_pastur_median(d / n)) < 0.005
    assert abs(np.median(eigenvalues) - 1.02 * marchenko_pastur_median(d / n)) > 0.005


def planted(seed, n=300, d=120, rank=3, noise_std=1.0):
    """Rank-``rank`` signal with singular values far above the threshold, plus noise."""
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, rank)))
    V, _ = np.linalg.qr(rng.standard_normal((d, rank)))
    # the noise's largest singular value is near noise_std (√n + √d) ≈ 28.3,
    # the threshold near 2.0 noise_std √n ≈ 34.6: the signal is at 2× to 4×
    signal = U @ np.diag(noise_std * np.array([140.0, 100.0, 70.0])) @ V.T
    return signal + noise_std * rng.standard_normal((n, d))


@pytest.mark.parametrize("seed", range(10))
def test_a_planted_rank_is_recovered_with_known_and_unknown_noise(seed):
    X = planted(seed)
    singular_values = np.linalg.svd(X, compute_uv=False)
    known = optimal_hard_threshold(singular_values, X.shape, noise_variance=1.0)
    unknown = optimal_hard_threshold(singular_values, X.shape)
    assert known.n_components == unknown.n_components == 3
    # the two thresholds agree to the accuracy of the median as a noise estimate
    assert abs(unknown.threshold / known.threshold - 1) < 0.05
    # a transposed matrix has the same singular values and the same threshold
    transposed = optimal_hard_threshold(singular_values, X.T.shape, noise_variance=1.0)
    assert transposed == known


def test_the_known_noise_threshold_is_the_formula():
    n, d, sigma = 50, 200, 0.3
    beta = n / d
    expected = (
        np.sqrt(2 * (beta + 1) + 8 * beta / ((beta + 1) + np.sqrt(beta**2 + 14 * beta + 1)))
        * np.sqrt(d)
        * sigma
    )
    result = optimal_hard_threshold([5.0, 4.0, 1.0], (n, d), noise_variance=sigma**2)
    assert abs(result.threshold - expected) < 1e-12 * expected
    assert result.n_components == int(np.sum(np.array([5.0, 4.0, 1.0]) > expected))


def test_order_of_the_singular_values_does_not_matter():
    singular_values = np.linalg.svd(planted(0), compute_uv=False)
    shuffled = np.random.default_rng(1).permutation(singular_values)
    assert optimal_hard_threshold(shuffled, (300, 120)) == optimal_hard_threshold(
        singular_values, (300, 120)
    )


@pytest.mark.parametrize("c", [1e-8, 1e-3, 255.0, 1e8])
def test_the_threshold_scales_with_the_data(c):
    X = planted(2)
    base_values = np.linalg.svd(X, compute_uv=False)
    scaled_values = np.linalg.svd(c * X, compute_uv=False)
    for base, scaled in [
        (
            optimal_hard_threshold(base_values, X.shape),
            optimal_hard_threshold(scaled_values, X.shape),
        ),
        (
            optimal_hard_threshold(base_values, X.shape, noise_variance=1.0),
            optimal_hard_threshold(scaled_values, X.shape, noise_variance=c**2),
        ),
    ]:
        assert abs(scaled.threshold / (c * base.threshold) - 1) < 1e-10
        assert scaled.n_components == base.n_components == 3


def test_it_is_exported():
    assert pcalib.optimal_hard_threshold is optimal_hard_threshold
    assert "optimal_hard_threshold" in pcalib.__all__


@pytest.mark.parametrize(
    ("singular_values", "shape", "noise_variance", "error", "name"),
    [
        (None, (3, 3), None, TypeError, "singular_values"),
        ([[1.0, 2.0, 3.0]], (3, 3), None, ValueError, "singular_values"),
        (3.0, (3, 3), None, ValueError, "singular_values"),
        ([1.0, -2.0, 3.0], (3, 3), None, ValueError, "singular_values"),
        ([1.0, np.nan, 3.0], (3, 3), None, ValueError, "singular_values"),
        ([1.0, np.inf, 3.0], (3, 3), None, ValueError, "singular_values"),
        (["a", "b", "c"], (3, 3), None, TypeError, "singular_values"),
        ([1.0, 2.0], (3, 3), None, ValueError, "singular_values"),  # median needs all
        ([1.0, 2.0, 3.0, 4.0], (3, 3), 1.0, ValueError, "singular_values"),
        ([], (3, 3), 1.0, ValueError, "singular_values"),
        ([1.0, 2.0, 3.0], 3, None, TypeError, "shape"),
        ([1.0, 2.0, 3.0], (3, 3, 3), None, TypeError, "shape"),
        ([1.0, 2.0, 3.0], (3, 0), None, ValueError, "shape"),
        ([1.0, 2.0, 3.0], (3.0, 3), None, TypeError, "shape"),
        ([1.0, 2.0, 3.0], (3, 3), 0.0, ValueError, "noise_variance"),
        ([1.0, 2.0, 3.0], (3, 3), -1.0, ValueError, "noise_variance"),
        ([1.0, 2.0, 3.0], (3, 3), np.inf, ValueError, "noise_variance"),
        ([1.0, 2.0, 3.0], (3, 3), "1", TypeError, "noise_variance"),
        ([1.0, 2.0, 3.0], (3, 3), True, TypeError, "noise_variance"),
    ],
)
def test_bad_input_is_refused_by_name(singular_values, shape, noise_variance, error, name):
    with pytest.raises(error, match=name):
        optimal_hard_threshold(singular_values, shape, noise_variance=noise_variance)
