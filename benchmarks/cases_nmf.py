"""Chapter 6: ``pcalib.NMF`` against scikit-learn's ``NMF``, to the same loss and per iteration.

Two non-negative data sets, ``k = 16`` and ``init="nndsvda"`` on both sides:
scikit-learn's digits (1 797 x 64, pixel counts 0-16; ``--quick``: the first
500) and ``pcalib.datasets.load_faces()`` (100 x 625, grey levels in [0, 1]).
pcalib runs with ``tol=0``, that is exactly ``max_iter`` iterations.
"""

import sys

import numpy as np
import sklearn.datasets
import sklearn.decomposition
from harness import Case, quiet

import pcalib
import pcalib.datasets

COMPONENTS = 16
CD_MAX_ITER = 1000  # scikit-learn's coordinate descent, at its default tol=1e-4
MU_ITERATIONS = (50, 200)  # (--quick, full) for the MU-against-MU rows
QUICK_DIGITS = 500
MAX_SEARCHED_ITER = 8_192
REPEAT = 5  # a cd fit on digits costs about 0.4 s


def pcalib_nmf(X, **params):
    """No-argument callable: pcalib's ``NMF(tol=0, **params).fit(X)``, warnings silenced."""
    return quiet(
        lambda: pcalib.NMF(n_components=COMPONENTS, init="nndsvda", tol=0.0, **params).fit(X)
    )


def sklearn_nmf(X, **params):
    """No-argument callable: scikit-learn's ``NMF(**params).fit(X)``, warnings silenced."""
    return quiet(
        lambda: sklearn.decomposition.NMF(
            n_components=COMPONENTS, init="nndsvda", random_state=0, **params
        ).fit(X)
    )


def smallest_max_iter(fit, target_error):
    """Smallest ``m`` with ``fit(m).reconstruction_err_ <= target_error`` (untimed).

    Doubles ``m`` until the error is reached, then bisects; ``None`` when
    ``MAX_SEARCHED_ITER`` iterations do not reach it.
    """
    hi = 1
    while fit(hi).reconstruction_err_ > target_error:
        hi *= 2
        if hi > MAX_SEARCHED_ITER:
            return None
    lo = hi // 2  # does not reach it (or 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fit(mid).reconstruction_err_ <= target_error:
            hi = mid
        else:
            lo = mid
    return hi


def cd_to_sklearn_loss(X, shape, sklearn_cd, target_error, extrapolate, target):
    """Case: pcalib's cd with the fewest iterations that reach ``target_error``, scikit-learn's."""

    def fit(m):
        return pcalib_nmf(X, solver="cd", extrapolate=extrapolate, max_iter=m)()

    m = smallest_max_iter(fit, target_error)
    if m is None:
        print(
            f"nmf_fit: pcalib cd (extrapolate={extrapolate}) does not reach {target_error:.6g} "
            f"on {shape} within {MAX_SEARCHED_ITER} iterations; timing {MAX_SEARCHED_ITER}",
            file=sys.stderr,
        )
        m = MAX_SEARCHED_ITER

    def accuracy(pc, sk):
        return (
            f"m={m}, sklearn n_iter_ {sk.n_iter_}; err pcalib {pc.reconstruction_err_:.6g} "
            f"<= sklearn {sk.reconstruction_err_:.6g}"
        )

    return Case(
        name=f'NMF(solver="cd", extrapolate={extrapolate}, max_iter=m) {shape}',
        reference_name=f'sklearn NMF(solver="cd", max_iter={CD_MAX_ITER})',
        pcalib=pcalib_nmf(X, solver="cd", extrapolate=extrapolate, max_iter=m),
        reference=sklearn_cd,
        accuracy=accuracy,
        target=target,
        repeat=REPEAT,
    )


def mu_against_mu(X, shape, iterations):
    """Case: ``iterations`` multiplicative updates on both sides."""

    def accuracy(pc, sk):
        return (
            f"n_iter_ {pc.n_iter_}/{sk.n_iter_}; err pcalib {pc.reconstruction_err_:.6g}, "
            f"sklearn {sk.reconstruction_err_:.6g}"
        )

    return Case(
        name=f'NMF(solver="mu", max_iter={iterations}) {shape}',
        reference_name=f'sklearn NMF(solver="mu", max_iter={iterations}, tol=0)',
        pcalib=pcalib_nmf(X, solver="mu", max_iter=iterations),
        reference=sklearn_nmf(X, solver="mu", max_iter=iterations, tol=0.0),
        accuracy=accuracy,
        target=1.0,
        repeat=REPEAT,
    )


def nmf_fit(quick):
    """Chapter 6: extrapolated and plain cd to scikit-learn's cd loss, and MU against MU."""
    digits = sklearn.datasets.load_digits().data.astype(np.float64)
    data = {
        "digits": digits[:QUICK_DIGITS] if quick else digits,
        "faces": pcalib.datasets.load_faces().data,
    }
    cases = []
    for label, X in data.items():
        shape = f"{label} {X.shape[0]}x{X.shape[1]}, k={COMPONENTS}"
        sklearn_cd = sklearn_nmf(X, solver="cd", max_iter=CD_MAX_ITER)
        error = sklearn_cd().reconstruction_err_
        cases.append(cd_to_sklearn_loss(X, shape, sklearn_cd, error, extrapolate=True, target=1.0))
        cases.append(
            cd_to_sklearn_loss(X, shape, sklearn_cd, error, extrapolate=False, target=None)
        )
        cases.append(mu_against_mu(X, shape, MU_ITERATIONS[0 if quick else 1]))
    return cases
