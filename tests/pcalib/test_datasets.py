"""Tests of :mod:`pcalib.datasets`."""

import numpy as np
import pytest

from pcalib.datasets import (
    load_faces,
    load_pitprops,
    load_usarrests,
    make_low_rank,
    make_low_rank_plus_sparse,
    make_spectrum,
    make_spirals,
)

# ---------------------------------------------------------------------------
# USArrests
# ---------------------------------------------------------------------------


def test_usarrests_shape_and_names():
    data = load_usarrests()
    assert data.data.shape == (50, 4)
    assert data.data.dtype == np.float64
    assert data.feature_names == ["Murder", "Assault", "UrbanPop", "Rape"]
    assert len(data.sample_names) == 50
    assert len(set(data.sample_names)) == 50
    assert data.sample_names[0] == "Alabama"
    assert data.sample_names[-1] == "Wyoming"
    assert data.sample_names == sorted(data.sample_names)  # R's table is alphabetical
    assert "New Hampshire" in data.sample_names


@pytest.mark.parametrize(
    "state, row",
    [
        # rows of R's datasets::USArrests (Murder, Assault, UrbanPop, Rape)
        ("Alabama", [13.2, 236, 58, 21.2]),
        ("California", [9.0, 276, 91, 40.6]),
        ("Maryland", [11.3, 300, 67, 27.8]),
        ("North Dakota", [0.8, 45, 44, 7.3]),
        ("Vermont", [2.2, 48, 32, 11.2]),
        ("Wyoming", [6.8, 161, 60, 15.6]),
    ],
)
def test_usarrests_rows(state, row):
    data = load_usarrests()
    i = data.sample_names.index(state)
    np.testing.assert_array_equal(data.data[i], row)


def test_usarrests_maryland_caveat():
    data = load_usarrests()
    maryland = data.sample_names.index("Maryland")
    urban = data.feature_names.index("UrbanPop")
    # 67 is a known transcription error for 76, kept because R and ISLR use it
    assert data.data[maryland, urban] == 67
    assert "Maryland" in data.DESCR
    assert "67" in data.DESCR and "76" in data.DESCR
    assert "transcription error" in data.DESCR


def test_usarrests_returns_a_fresh_array():
    a = load_usarrests()
    a.data[0, 0] = -1.0
    assert load_usarrests().data[0, 0] == 13.2


# ---------------------------------------------------------------------------
# Pitprops
# ---------------------------------------------------------------------------

PITPROPS_NAMES = [
    "topdiam", "length", "moist", "testsg", "ovensg", "ringtop", "ringbut",
    "bowmax", "bowdist", "whorls", "clear", "knots", "diaknot",
]  # fmt: skip


def test_pitprops_is_a_correlation_matrix():
    pitprops = load_pitprops()
    R = pitprops.data
    assert R.shape == (13, 13) and R.dtype == np.float64
    assert pitprops.feature_names == PITPROPS_NAMES
    assert pitprops.n_samples == 180
    np.testing.assert_array_equal(R, R.T)
    np.testing.assert_array_equal(np.diag(R), np.ones(13))
    assert np.abs(R).max() <= 1.0
    np.testing.assert_array_equal(np.round(R, 3), R)  # published to three decimals
    assert np.linalg.eigvalsh(R)[0] > 0.03  # positive definite, as a correlation of 180 props


@pytest.mark.parametrize(
    "a, b, value",
    [
        # entries of elasticnet's data/pitprops (Jeffers 1967), by variable name
        ("topdiam", "length", 0.954),
        ("moist", "testsg", 0.882),
        ("ringtop", "ringbut", 0.813),
        ("whorls", "knots", -0.368),
        ("ringbut", "diaknot", -0.424),
        ("clear", "diaknot", 0.007),
    ],
)
def test_pitprops_entries(a, b, value):
    pitprops = load_pitprops()
    i, j = pitprops.feature_names.index(a), pitprops.feature_names.index(b)
    assert pitprops.data[i, j] == value == pitprops.data[j, i]


def test_pitprops_description_names_its_source():
    description = load_pitprops().DESCR
    assert "Jeffers" in description and "1967" in description
    assert "elasticnet" in description
    assert all(name in description for name in PITPROPS_NAMES)


# ---------------------------------------------------------------------------
# Faces
# ---------------------------------------------------------------------------


def test_load_faces():
    faces = load_faces()
    assert faces.images.shape == (100, 25, 25)
    assert faces.data.shape == (100, 625)
    assert faces.images.dtype == np.float64
    assert faces.images.min() >= 0.0
    assert faces.images.max() <= 1.0
    assert faces.images.std() > 0.05  # real images, not a constant array
    np.testing.assert_array_equal(faces.data, faces.images.reshape(100, -1))
    # 100 different images
    assert len({image.tobytes() for image in faces.images}) == 100
    # the first 100 crops of scikit-image's lfw_subset are the faces
    from skimage.data import lfw_subset

    np.testing.assert_array_equal(faces.images, lfw_subset()[:100])


# ---------------------------------------------------------------------------
# make_low_rank
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n, d, rank", [(100, 10, 3), (5, 20, 5), (30, 1, 1), (8, 8, 8)])
def test_make_low_rank_shapes_and_orthonormal_W(n, d, rank):
    X, W = make_low_rank(n, d, rank, random_state=0)
    assert X.shape == (n, d)
    assert W.shape == (d, rank)
    np.testing.assert_allclose(W.T @ W, np.eye(rank), atol=1e-12)
    assert np.all(np.isfinite(X))


def test_make_low_rank_is_reproducible():
    X1, W1 = make_low_rank(40, 6, 2, random_state=123)
    X2, W2 = make_low_rank(40, 6, 2, random_state=123)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(W1, W2)
    X3, _ = make_low_rank(40, 6, 2, random_state=np.random.default_rng(123))
    np.testing.assert_array_equal(X1, X3)
    X4, _ = make_low_rank(40, 6, 2, random_state=124)
    assert not np.allclose(X1, X4)


def test_make_low_rank_without_noise_lies_in_the_column_space_of_W():
    X, W = make_low_rank(60, 9, 3, noise=0.0, random_state=1)
    assert np.linalg.matrix_rank(X) == 3
    np.testing.assert_allclose(X @ W @ W.T, X, atol=1e-12)


def test_make_low_rank_signal_variances():
    """Variance along column i of W is (rank - i) + noise².

    With n samples the sample variance of a Gaussian with variance v has
    standard deviation about v·sqrt(2 / n): n = 20000 gives 1 % and we allow
    5 standard deviations.
    """
    n, rank, noise = 20_000, 3, 0.1
    X, W = make_low_rank(n, 7, rank, noise=noise, random_state=2)
    variances = np.var(X @ W, axis=0, ddof=1)
    expected = np.arange(rank, 0, -1) + noise**2
    np.testing.assert_allclose(variances, expected, rtol=5 * np.sqrt(2 / n))
    # orthogonally to W only the noise is left
    residual = X - X @ W @ W.T
    per_direction = np.sum(residual**2) / (n - 1) / (7 - rank)
    assert per_direction == pytest.approx(noise**2, rel=5 * np.sqrt(2 / (n * (7 - rank))))


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((0, 5, 1), {}, ValueError, r"n_samples must be at least 1"),
        ((10, 0, 1), {}, ValueError, r"n_features must be at least 1"),
        ((10, 5, 0), {}, ValueError, r"rank must be at least 1"),
        ((10, 5, 6), {}, ValueError, r"rank must be at most min\(n_samples, n_features\) = 5"),
        ((4, 5, 5), {}, ValueError, r"rank must be at most min\(n_samples, n_features\) = 4"),
        ((10.0, 5, 1), {}, TypeError, r"n_samples must be an int"),
        ((10, "5", 1), {}, TypeError, r"n_features must be an int"),
        ((10, 5, 1.5), {}, TypeError, r"rank must be an int"),
        ((10, 5, 1), {"noise": -0.1}, ValueError, r"noise must be a finite number > 0"),
        ((10, 5, 1), {"noise": float("nan")}, ValueError, r"noise must be a finite number > 0"),
        ((10, 5, 1), {"noise": "a"}, TypeError, r"noise must be a positive number"),
        ((10, 5, 1), {"random_state": "x"}, TypeError, r"random_state must be None"),
        ((10, 5, 1), {"random_state": -3}, ValueError, r"random_state must be >= 0"),
        ((10, 5, 1), {"noise": 10**400}, ValueError, r"noise must be a finite number > 0"),
        ((2**62, 5, 1), {}, ValueError, r"n_samples is too large"),
        ((10, 5, 2**62), {}, ValueError, r"rank must be at most min"),
    ],
)
def test_make_low_rank_validation(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        make_low_rank(*args, **kwargs)


# ---------------------------------------------------------------------------
# make_low_rank_plus_sparse
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n, d, rank", [(120, 80, 4), (60, 60, 1), (30, 50, 30)])
def test_make_low_rank_plus_sparse_parts(n, d, rank):
    M, L, S, support = make_low_rank_plus_sparse(n, d, rank, sparsity=0.1, random_state=0)
    assert M.shape == L.shape == S.shape == support.shape == (n, d)
    np.testing.assert_array_equal(M, L + S)
    np.testing.assert_array_equal(support, S != 0)
    # the rank, from the singular values of L against the rounding level
    s = np.linalg.svd(L, compute_uv=False)
    assert np.count_nonzero(s > 1e-10 * s[0]) == rank
    # gross errors: magnitudes in [5, 10] max|L|, both signs
    ratios = np.abs(S[support]) / np.abs(L).max()
    assert ratios.min() >= 5.0 and ratios.max() <= 10.0
    assert np.any(S > 0) and np.any(S < 0)


def test_make_low_rank_plus_sparse_fraction_and_scales():
    n, d, rank, p = 400, 300, 5, 0.07
    _, L, S, support = make_low_rank_plus_sparse(n, d, rank, sparsity=p, random_state=1)
    # the support is a Bernoulli(p) draw: its share within 5 standard deviations of p
    assert abs(support.mean() - p) <= 5 * np.sqrt(p * (1 - p) / (n * d))
    # the entries of L have variance rank / d
    assert abs(L.var() / (rank / d) - 1) < 0.1
    # the magnitudes are uniform over [5, 10] max|L|: mean 7.5, signs balanced
    ratios = np.abs(S[support]) / np.abs(L).max()
    assert abs(ratios.mean() - 7.5) < 0.1
    assert abs(np.mean(S[support] > 0) - 0.5) < 0.05


def test_make_low_rank_plus_sparse_magnitudes_sparsity_extremes_and_seed():
    _, L, S, support = make_low_rank_plus_sparse(
        50, 40, 2, sparsity=1.0, magnitudes=(2.0, 2.0), random_state=3
    )
    assert support.all()
    np.testing.assert_allclose(np.abs(S), 2.0 * np.abs(L).max(), rtol=1e-15)
    M, L, S, support = make_low_rank_plus_sparse(50, 40, 2, sparsity=0.0, random_state=3)
    assert not support.any() and not S.any()
    again = make_low_rank_plus_sparse(
        50, 40, 2, sparsity=0.0, random_state=np.random.default_rng(3)
    )
    np.testing.assert_array_equal(again.M, M)
    other = make_low_rank_plus_sparse(50, 40, 2, sparsity=0.0, random_state=4)
    assert not np.array_equal(other.M, M)


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((10, 5, 1), {}, TypeError, r"sparsity"),
        ((10.0, 5, 1), {"sparsity": 0.1}, TypeError, r"n_samples must be an int"),
        ((10, 5, 6), {"sparsity": 0.1}, ValueError, r"rank must be at most min"),
        ((10, 5, 1), {"sparsity": -0.1}, ValueError, r"sparsity must be a finite number >= 0"),
        ((10, 5, 1), {"sparsity": 1.5}, ValueError, r"sparsity must be a probability"),
        ((10, 5, 1), {"sparsity": 0.1, "magnitudes": 5.0}, ValueError, r"magnitudes must be"),
        ((10, 5, 1), {"sparsity": 0.1, "magnitudes": (0.0, 1.0)}, ValueError, r"magnitudes\[0\]"),
        ((10, 5, 1), {"sparsity": 0.1, "magnitudes": (3.0, 1.0)}, ValueError, r"low <= high"),
        ((10, 5, 1), {"sparsity": 0.1, "random_state": "x"}, TypeError, r"random_state"),
        ((2**62, 5, 1), {"sparsity": 0.1}, ValueError, r"n_samples is too large"),
    ],
)
def test_make_low_rank_plus_sparse_validation(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        make_low_rank_plus_sparse(*args, **kwargs)


# ---------------------------------------------------------------------------
# make_spectrum
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n, d", [(50, 4), (3, 10), (1, 1)])
def test_make_spectrum_shapes_and_orthonormal_axes(n, d):
    X, axes = make_spectrum(n, d, np.linspace(2.0, 0.5, d), random_state=0)
    assert X.shape == (n, d)
    assert axes.shape == (d, d)
    np.testing.assert_allclose(axes @ axes.T, np.eye(d), atol=1e-12)
    np.testing.assert_allclose(axes.T @ axes, np.eye(d), atol=1e-12)


def test_make_spectrum_is_reproducible():
    v = [3.0, 2.0, 1.0]
    X1, A1 = make_spectrum(30, 3, v, random_state=9)
    X2, A2 = make_spectrum(30, 3, v, random_state=9)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(A1, A2)
    X3, _ = make_spectrum(30, 3, v, random_state=10)
    assert not np.allclose(X1, X3)


def test_make_spectrum_zero_variance_direction():
    X, axes = make_spectrum(40, 4, [2.0, 1.0, 0.5, 0.0], random_state=4)
    # no component at all along the last axis
    np.testing.assert_allclose(X @ axes[3], 0.0, atol=1e-12)
    assert np.linalg.matrix_rank(X) == 3


def test_make_spectrum_sample_covariance_approaches_the_spectrum():
    """For large n the sample covariance tends to Q diag(variances) Qᵀ.

    Tolerances are statistical. For Gaussian data the sample covariance entry
    (i, j) has standard deviation sqrt((Σ_ii Σ_jj + Σ_ij²) / n) (Isserlis), a
    sample eigenvalue with a simple population eigenvalue λ has standard
    deviation about λ·sqrt(2 / n), and so does the sample variance along a
    fixed axis. We allow 5 standard deviations: with the fixed seed the test
    is deterministic, and a new seed would fail by chance with probability
    below 1e-5 per comparison.
    """
    n = 20_000
    variances = np.array([5.0, 3.0, 2.0, 1.0, 0.5])
    X, axes = make_spectrum(n, 5, variances, random_state=5)
    sigma = axes.T @ np.diag(variances) @ axes  # axes are rows
    C = np.cov(X, rowvar=False)
    se = np.sqrt((np.outer(np.diag(sigma), np.diag(sigma)) + sigma**2) / n)
    assert np.all(np.abs(C - sigma) <= 5 * se)

    eigenvalues = np.sort(np.linalg.eigvalsh(C))[::-1]
    np.testing.assert_allclose(eigenvalues, variances, rtol=5 * np.sqrt(2 / n))

    along_axes = np.einsum("id,de,ie->i", axes, C, axes)
    np.testing.assert_allclose(along_axes, variances, rtol=5 * np.sqrt(2 / n))
    # and the sample mean tends to 0: standard error sqrt(variance / n)
    mean_along_axes = X.mean(axis=0) @ axes.T
    assert np.all(np.abs(mean_along_axes) <= 5 * np.sqrt(variances / n))


@pytest.mark.parametrize(
    "args, kwargs, error, message",
    [
        ((10, 3, [1.0, 2.0]), {}, ValueError, r"variances must be a vector of shape \(3,\)"),
        ((10, 2, [[1.0, 2.0]]), {}, ValueError, r"variances .* got shape \(1, 2\)"),
        (
            (10, 2, [1.0, -1.0]),
            {},
            ValueError,
            r"variances must be non-negative, got the minimum -1",
        ),
        ((10, 2, [1.0, np.nan]), {}, ValueError, r"variances contains NaN"),
        ((10, 2, [1.0, np.inf]), {}, ValueError, r"variances contains infinite values"),
        ((10, 2, ["1", "2"]), {}, TypeError, r"variances must contain only numbers"),
        (
            (10, 2, np.array(["1", "2"], dtype=object)),
            {},
            TypeError,
            r"variances must contain only",
        ),
        ((10, 2, [1.0 + 1j, 2.0]), {}, ValueError, r"variances has complex values"),
        ((10, 2, [1.0, 2.0 + 0j]), {}, ValueError, r"variances has complex values"),
        ((0, 2, [1.0, 1.0]), {}, ValueError, r"n_samples must be at least 1"),
        ((10, 0, []), {}, ValueError, r"n_features must be at least 1"),
        ((10.5, 2, [1.0, 1.0]), {}, TypeError, r"n_samples must be an int"),
        ((10, True, [1.0]), {}, TypeError, r"n_features must be an int"),
        ((10, 2, [1.0, 1.0]), {"random_state": 2.5}, TypeError, r"random_state must be None"),
        ((10, 1, [10**400]), {}, ValueError, r"variances has values too large for float64"),
        ((2**62, 2, [1.0, 1.0]), {}, ValueError, r"n_samples is too large"),
        ((10, 2**40, [1.0]), {}, ValueError, r"n_features is too large"),
    ],
)
def test_make_spectrum_validation(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        make_spectrum(*args, **kwargs)


# ---------------------------------------------------------------------------
# make_spirals
# ---------------------------------------------------------------------------


def test_make_spirals_lies_on_the_two_curves_without_noise():
    X, y, t = make_spirals(201, turns=2.0, noise=0, random_state=0)
    assert X.shape == (201, 2) and y.shape == (201,) and t.shape == (201,)
    assert np.bincount(y).tolist() == [101, 100]
    assert t.min() >= np.pi / 2 and t.max() <= 2 * np.pi * 2.0
    # rebuild each point from its angle by the formula of the docstring
    radius = t / (2 * np.pi * 2.0)
    expected = radius[:, None] * np.column_stack([np.cos(t + np.pi * y), np.sin(t + np.pi * y)])
    np.testing.assert_allclose(X, expected, atol=1e-14)
    # the two arms are point reflections of each other: same radius law
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), radius, atol=1e-14)


def test_make_spirals_noise_has_the_requested_scale():
    X0, y0, t0 = make_spirals(4000, noise=0, random_state=3)
    X, y, t = make_spirals(4000, noise=0.05, random_state=3)
    np.testing.assert_array_equal(t, t0)
    np.testing.assert_array_equal(y, y0)
    noise = X - X0
    # 8000 draws: the sample std is within 3 % of 0.05 with overwhelming probability
    assert abs(noise.std() / 0.05 - 1) < 0.03
    assert abs(noise.mean()) < 0.005


def test_make_spirals_is_reproducible_and_seed_dependent():
    a = make_spirals(50, random_state=1)[0]
    np.testing.assert_array_equal(a, make_spirals(50, random_state=1)[0])
    assert not np.allclose(a, make_spirals(50, random_state=2)[0])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"n_samples": 0}, ValueError, "n_samples"),
        ({"n_samples": 2.5}, TypeError, "n_samples"),
        ({"turns": 0}, ValueError, "turns"),
        ({"turns": "two"}, TypeError, "turns"),
        # the reproduction: numpy's "high - low < 0" (each arm starts at t = π/2)
        ({"turns": 0.2}, ValueError, r"turns must be greater than 0.25, got 0.2"),
        ({"turns": 0.25}, ValueError, r"turns must be greater than 0.25"),
        ({"turns": 10**400}, ValueError, r"turns must be a finite number > 0"),
        ({"n_samples": 2**62}, ValueError, r"n_samples is too large"),
        ({"n_samples": 2**70}, ValueError, r"n_samples must be at most 2\*\*63 - 1"),
        ({"noise": -0.1}, ValueError, "noise"),
        ({"random_state": "seed"}, TypeError, "random_state"),
    ],
)
def test_make_spirals_validation(kwargs, error, message):
    with pytest.raises(error, match=message):
        make_spirals(**kwargs)


def test_make_spirals_with_just_over_a_quarter_turn():
    # the smallest valid number of turns: every t lies in [π/2, 2π · turns]
    X, _, t = make_spirals(50, turns=0.3, noise=0.0, random_state=0)
    assert np.all((t >= np.pi / 2) & (t <= 2 * np.pi * 0.3))
    radius = t / (2 * np.pi * 0.3)
    np.testing.assert_allclose(np.hypot(X[:, 0], X[:, 1]), radius, rtol=1e-14)
