"""Chapters 1 and 2: ``pcalib.PCA`` and its solvers against scikit-learn and LAPACK."""

import os

import numpy as np
import scipy.linalg
import sklearn.decomposition
import threadpoolctl
from harness import Case, decaying_gaussian, exact_pca, largest_principal_angle
from harness import max_relative_difference as rel_diff

import pcalib

# Shape of the Gram-against-covariance row at full size. At the 500 x 20 000 of
# pca_fit_wide, the reference would eigendecompose a
# 20 000 x 20 000 covariance: its time grows like d**3 (2 s at d = 3 000, 7 s at
# 4 000, 21 s at 6 000 on a quiet 2-core VM, so about 13 minutes at 20 000) and
# it needs about 10 GB. Set (500, 20_000) here to time that size on purpose:
# the case then caps itself at one timed pair (about 30 minutes).
GRAM_VS_COVARIANCE_SHAPE = (500, 4_000)


def pca_agreement(components_a, variance_a, components_b, variance_b):
    """Largest principal angle between two sets of components, and their variances' gap."""
    angle = largest_principal_angle(components_a, components_b)
    return f"angle {angle:.1e} rad, var rel {rel_diff(variance_a, variance_b):.1e}"


def estimators_agree(pca_a, pca_b):
    """Accuracy function comparing two fitted PCA estimators."""
    return pca_agreement(
        pca_a.components_, pca_a.explained_variance_, pca_b.components_, pca_b.explained_variance_
    )


def svd_as_pca(k, n_samples):
    """Accuracy function comparing a fitted pcalib PCA with a raw ``(U, s, Vt)``."""

    def accuracy(pca, usv):
        _, s, Vt = usv
        variance = s[:k] ** 2 / (n_samples - 1)
        return pca_agreement(pca.components_, pca.explained_variance_, Vt[:k], variance)

    return accuracy


def against_sklearn(name, fit_pcalib, X, k, *, svd_solver, target):
    """Case: ``fit_pcalib`` against scikit-learn's ``PCA(svd_solver=...)`` on ``X``."""
    settings = dict(n_components=k, random_state=0)
    if svd_solver != "auto":
        settings["svd_solver"] = svd_solver
    arguments = ", ".join(f"{key}={value!r}" for key, value in settings.items())
    return Case(
        name=name,
        reference_name=f"sklearn PCA({arguments}).fit",
        pcalib=fit_pcalib,
        reference=lambda: sklearn.decomposition.PCA(**settings).fit(X),
        accuracy=estimators_agree,
        target=target,
    )


def covariance_floor(X):
    """The least a covariance PCA does: centre, ``Xcᵀ Xc`` and NumPy's full ``eigh``."""
    Xc = X - X.mean(axis=0)
    return np.linalg.eigh(Xc.T @ Xc)


def eigh_as_pca(k, n_samples):
    """Accuracy function comparing a fitted pcalib PCA with ``eigh(Xcᵀ Xc)``."""

    def accuracy(pca, eig):
        eigenvalues, eigenvectors = eig
        variance = eigenvalues[::-1][:k] / (n_samples - 1)
        return pca_agreement(
            pca.components_, pca.explained_variance_, eigenvectors[:, ::-1][:, :k].T, variance
        )

    return accuracy


def pca_fit_tall(quick):
    """Chapter 1: ``PCA.fit`` on a tall matrix, against scikit-learn and the LAPACK floors."""
    n, d, k = (4_000, 100, 10) if quick else (20_000, 200, 10)
    X = decaying_gaussian(n, d, seed=0)
    # Centred once for the SVD rows; overwrite_a=False keeps it intact, so
    # every call sees the same input.
    Xc = X - X.mean(axis=0)
    name = f"PCA.fit {n}x{d}, k={k}"

    def fit_auto():
        return pcalib.PCA(n_components=k).fit(X)

    def fit_covariance():
        return pcalib.PCA(n_components=k, svd_solver="covariance_eigh").fit(X)

    def fit_svd():
        return pcalib.PCA(n_components=k, svd_solver="full").fit(X)

    return [
        against_sklearn(f"{name} (auto)", fit_auto, X, k, svd_solver="auto", target=1.0),
        Case(
            name=f"{name} (auto)",
            reference_name="floor: centre, Xc.T @ Xc, numpy eigh",
            pcalib=fit_auto,
            reference=lambda: covariance_floor(X),
            accuracy=eigh_as_pca(k, n),
            target=1.2,
        ),
        Case(
            name=f'{name}, "covariance_eigh"',
            reference_name="floor: centre, Xc.T @ Xc, numpy eigh",
            pcalib=fit_covariance,
            reference=lambda: covariance_floor(X),
            accuracy=eigh_as_pca(k, n),
            target=1.15,
        ),
        against_sklearn(f'{name}, "full"', fit_svd, X, k, svd_solver="full", target=1.0),
        Case(
            name=f'{name}, "full"',
            reference_name="floor: scipy.linalg.svd(Xc) gesdd",
            pcalib=fit_svd,
            reference=lambda: scipy.linalg.svd(Xc, full_matrices=False, check_finite=False),
            accuracy=svd_as_pca(k, n),
            target=1.15,
        ),
        Case(
            name=f'{name}, "full"',
            reference_name="info: qr(Xc, raw) + svd(R), pcalib's LAPACK",
            pcalib=fit_svd,
            reference=lambda: scipy.linalg.svd(
                scipy.linalg.qr(Xc, mode="raw", check_finite=False)[1],
                full_matrices=False,
                check_finite=False,
            ),
            accuracy=svd_as_pca(k, n),
        ),
    ]


def pca_fit_wide(quick):
    """Chapter 2: ``PCA.fit`` with the default solver on wide data (d ≥ 2n: Gram)."""
    n, d, k = (200, 4_000, 10) if quick else (500, 20_000, 10)
    X = decaying_gaussian(n, d, seed=3)
    name = f"PCA.fit {n}x{d}, k={k} (auto)"

    def fit_auto():
        return pcalib.PCA(n_components=k).fit(X)

    return [
        against_sklearn(name, fit_auto, X, k, svd_solver="full", target=0.5),
        against_sklearn(name, fit_auto, X, k, svd_solver="auto", target=1.0),
    ]


def single_threaded_numpy_blas(func):
    """``func`` run with NumPy's OpenBLAS limited to one thread (SciPy's untouched).

    ``Xcᵀ @ Xc`` (NumPy's ``dsyrk`` path) segfaults for ``Xc`` of 200 x 20 000
    or 500 x 20 000 with two OpenBLAS threads (NumPy's 0.3.31 and SciPy's 0.3.30
    alike, on a 2-core AMD EPYC VM; 500 x 18 000, 10 x 20 000 and one thread
    work). One thread costs the covariance reference little: the product is
    O(n d²), small next to the O(d³) eigendecomposition.
    """
    numpy_blas = threadpoolctl.ThreadpoolController().select(
        filepath=[
            info["filepath"]
            for info in threadpoolctl.threadpool_info()
            if "numpy" in os.path.basename(os.path.dirname(info["filepath"]))
        ]
    )

    def run():
        with numpy_blas.limit(limits=1):
            return func()

    return run


def pca_fit_gram(quick):
    """Chapter 2: the Gram solver on wide data, against pcalib's covariance solver."""
    k = 10
    n_cov, d_cov = (200, 2_000) if quick else GRAM_VS_COVARIANCE_SHAPE
    X_cov = decaying_gaussian(n_cov, d_cov, seed=3)
    return [
        Case(
            name=f'PCA(svd_solver="gram").fit {n_cov}x{d_cov}, k={k}',
            reference_name='PCA(svd_solver="covariance_eigh").fit, d x d eigh',
            pcalib=lambda: pcalib.PCA(n_components=k, svd_solver="gram").fit(X_cov),
            reference=single_threaded_numpy_blas(
                lambda: pcalib.PCA(n_components=k, svd_solver="covariance_eigh").fit(X_cov)
            ),
            accuracy=estimators_agree,
            target=0.2,
            repeat=1 if d_cov > 10_000 else 2,
        ),
    ]


def pca_fit_randomized(quick):
    """Chapter 2: randomized PCA on tall data, against scikit-learn's with equal settings.

    Both libraries take ``iterated_power="auto"``, which gives 7 power
    iterations here in both. The accuracy column compares each contender with
    the exact top-k axes, not with the other.
    """
    n, d, k = (4_000, 300, 10) if quick else (20_000, 1_000, 10)
    X = decaying_gaussian(n, d, seed=2)
    settings = dict(n_components=k, svd_solver="randomized", n_oversamples=10, random_state=0)

    def accuracy(pca, skl):
        exact_axes, exact_variance = exact_pca(X, k)
        angles = [largest_principal_angle(e.components_, exact_axes) for e in (pca, skl)]
        rels = [rel_diff(e.explained_variance_, exact_variance) for e in (pca, skl)]
        return (
            f"angle to exact: pcalib {angles[0]:.1e}, sklearn {angles[1]:.1e} rad; "
            f"var rel: pcalib {rels[0]:.1e}, sklearn {rels[1]:.1e}"
        )

    return [
        Case(
            name=f'PCA(svd_solver="randomized").fit {n}x{d}, k={k}',
            reference_name='sklearn PCA(svd_solver="randomized").fit',
            pcalib=lambda: pcalib.PCA(**settings).fit(X),
            reference=lambda: sklearn.decomposition.PCA(**settings).fit(X),
            accuracy=accuracy,
            target=1.0,
        )
    ]
