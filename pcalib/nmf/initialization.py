"""The starting factors of NMF: NNDSVD (eq. ``eq-nmf-nndsvd``) and the random start.

Both are in units of ``√X``, as the factors are; the factors given with
``init="custom"`` are checked in :mod:`pcalib.nmf.checks`.
"""

import numpy as np
import scipy.sparse

from .._linalg import exact_top_svd, randomized_svd
from .._validation import as_generator
from .units import TINY

# Above this min(n, d), NNDSVD takes its k singular triplets from a randomized
# SVD (seeded, so the start stays deterministic) instead of a full SVD.
FULL_SVD_MAX = 1000
# NNDSVD entries below this times √σ₁, the largest an entry can be, are set
# to zero (and filled, for "nndsvda" and "nndsvdar").
NNDSVD_ZERO = 1e-6
# "nndsvdar" fills the zeros with |N(0, 1)| times this fraction of typical_entry,
# as scikit-learn fills them with |N(0, 1)| mean(X) / 100
NNDSVDAR_FILL = 0.01


def nndsvd(X, k, *, fill_zeros=None, random_state=None):
    """Non-negative double SVD start of Boutsidis and Gallopoulos (eq. ``eq-nmf-nndsvd``).

    For each of the top ``k`` singular triplets ``(σ, u, v)``, keep the positive
    or the negative parts of ``u`` and ``v``, whichever pair has the larger
    product of norms, scaled by ``√σ``. Entries below ``NNDSVD_ZERO √σ₁`` (no
    entry exceeds ``√σ₁``) count as zeros. ``fill_zeros="nndsvda"``
    replaces the zeros by :func:`typical_entry`, ``√(mean(X) / k)``, which
    multiplicative updates need, since they can never move an entry away
    from 0; ``"nndsvdar"`` by ``|N(0, 1)|`` times ``NNDSVDAR_FILL`` times
    that entry, drawn from ``random_state``. All are in units of ``√X``, so
    ``nndsvd(c X)`` is ``√c`` times ``nndsvd(X)``. scikit-learn's NNDSVD is
    a different start: it takes the triplets from a randomized SVD, fills
    with the mean of ``X`` (over 100, at random, for ``"nndsvdar"``) and
    uses the absolute threshold ``1e-6``, which depend on the units of
    ``X``; to start both libraries from the same factors, pass this
    function's output to scikit-learn with ``init="custom"``.

    Returns
    -------
    W : ndarray of shape (n, k)
    H : ndarray of shape (k, d)
    """
    # a full SVD while min(n, d) ≤ FULL_SVD_MAX; the randomized one (seed 0) beyond and
    # for a sparse X, which it only multiplies
    if min(X.shape) <= FULL_SVD_MAX and not scipy.sparse.issparse(X):
        U, s, Vt = exact_top_svd(X, k)
    else:
        U, s, Vt = randomized_svd(X, k, random_state=0)
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
        u_part, v_part, size = (
            (u_plus, v_plus, plus) if plus >= minus else (u_minus, v_minus, minus)
        )
        if size > 0:
            W[:, j] = np.sqrt(s[j] * size) * u_part / np.linalg.norm(u_part)
            H[j] = np.sqrt(s[j] * size) * v_part / np.linalg.norm(v_part)
    zero = NNDSVD_ZERO * np.sqrt(s[0])
    W[W < zero] = 0.0
    H[H < zero] = 0.0
    fill = typical_entry(X, k)
    if fill_zeros == "nndsvda":
        W[W == 0] = fill
        H[H == 0] = fill
    elif fill_zeros == "nndsvdar":
        rng = as_generator(random_state)
        for factor in (W, H):
            zeros = factor == 0
            factor[zeros] = NNDSVDAR_FILL * fill * np.abs(rng.standard_normal(zeros.sum()))
    return W, H


def typical_entry(X, k):
    """``√(mean(X) / k)``: factors with all entries this size give ``W H`` the mean of ``X``.

    In units of ``√X``, as the factors are; ``TINY`` stands in for the mean
    of an all-zero ``X``.
    """
    return float(np.sqrt(max(float(X.mean()), TINY) / k))


def random_start(X, k, random_state):
    """``|N(0, 1)|`` entries times :func:`typical_entry`, as scikit-learn's random start."""
    rng = as_generator(random_state)
    scale = typical_entry(X, k)
    return (
        np.abs(rng.standard_normal((X.shape[0], k))) * scale,
        np.abs(rng.standard_normal((k, X.shape[1]))) * scale,
    )
