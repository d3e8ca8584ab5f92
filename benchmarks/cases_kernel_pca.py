"""Chapter 3: ``pcalib.KernelPCA``, exact and approximate, against scikit-learn.

The data are ``decaying_gaussian(n, 10, seed=0, decay=DECAY)`` with the RBF
kernel ``exp(-γ‖x - y‖²)`` at ``γ = GAMMA``, given explicitly to both
libraries. With this decay and ``γ`` the eleven leading eigenvalues of the
centred kernel are well separated (consecutive relative gaps of at least 12 %
at n = 600 and 3 000), so that exact scores can be compared column by column.
"""

import numpy as np
import sklearn.decomposition
import sklearn.kernel_approximation
import sklearn.pipeline
from harness import Case, decaying_gaussian, largest_principal_angle
from harness import max_relative_difference as rel_diff

import pcalib

GAMMA = 0.2
DECAY = 0.7
# Below this relative gap between consecutive eigenvalues, eigenvectors are not
# well determined and the exact cases compare score subspaces instead of columns.
MIN_GAP = 0.01


def fit_and_score(make_estimator, X):
    """No-argument callable: build an estimator, return ``(estimator, fit_transform(X))``."""

    def run():
        estimator = make_estimator()
        return estimator, estimator.fit_transform(X)

    return run


def pcalib_rbf(X, k, **params):
    """``fit_and_score`` of pcalib's RBF ``KernelPCA`` with ``k`` components on ``X``."""
    return fit_and_score(
        lambda: pcalib.KernelPCA(n_components=k, kernel="rbf", gamma=GAMMA, **params), X
    )


def sklearn_rbf(X, k, **params):
    """``fit_and_score`` of scikit-learn's RBF ``KernelPCA`` with ``k`` components on ``X``."""
    return fit_and_score(
        lambda: sklearn.decomposition.KernelPCA(
            n_components=k, kernel="rbf", gamma=GAMMA, **params
        ),
        X,
    )


def exact_agreement(X, k):
    """Accuracy function comparing pcalib's and scikit-learn's exact kernel PCA.

    Both results are ``(estimator, scores)``. Reports the largest score
    difference after matching each column's sign, relative to the largest
    absolute score; the largest relative difference of the ``eigenvalues_``
    (both are the eigenvalues ``μ_j`` of the centred kernel); and the smallest
    relative gap ``(μ_j - μ_{j+1}) / μ_j`` for ``j ≤ k``, from an untimed pcalib
    fit with ``k + 1`` components. Below ``MIN_GAP`` the per-column comparison
    is replaced by the largest principal angle between the score subspaces.
    """

    def accuracy(a, b):
        (kpca, Z_a), (skl, Z_b) = a, b
        eig_rel = rel_diff(kpca.eigenvalues_, skl.eigenvalues_)
        mu = pcalib_rbf(X, k + 1, random_state=0)()[0].eigenvalues_
        min_gap = float(np.min((mu[:-1] - mu[1:]) / mu[:-1]))
        if min_gap < MIN_GAP:
            angle = largest_principal_angle(Z_a.T, Z_b.T)
            return (
                f"close eigenvalues (min gap {min_gap:.1e}): "
                f"angle {angle:.1e} rad, eig rel {eig_rel:.1e}"
            )
        signs = np.where(np.sum(Z_a * Z_b, axis=0) < 0, -1.0, 1.0)
        score_rel = float(np.max(np.abs(Z_a - Z_b * signs)) / np.max(np.abs(Z_b)))
        return (
            f"scores rel {score_rel:.1e} ({int(np.sum(signs < 0))} sign flips), "
            f"eig rel {eig_rel:.1e}, min gap {min_gap:.0%}"
        )

    return accuracy


def approximate_agreement(refit_pcalib, top=3):
    """Accuracy function comparing two approximate kernel PCAs (different random draws).

    The results are ``(pcalib estimator, scores)`` and ``(scikit-learn
    pipeline, scores)``. The libraries draw different landmarks or random
    features, so neither is the other's reference. Reports the largest
    principal angle between the two score subspaces and the largest relative
    difference of the ``top`` leading variances (pcalib's
    ``explained_variance_`` against the pipeline's final PCA; both divide by
    ``n - 1``). Each is followed in brackets by the same quantity between
    pcalib's result and ``refit_pcalib()``, pcalib with another seed (one
    untimed call): the spread due to the random draw alone.
    """

    def accuracy(a, b):
        (kpca, Z_a), (pipe, Z_b) = a, b
        other, Z_other = refit_pcalib()
        var_a = kpca.explained_variance_[:top]
        var_b = pipe[-1].explained_variance_[:top]
        var_other = other.explained_variance_[:top]
        return (
            f"angle {largest_principal_angle(Z_a.T, Z_b.T):.1e} rad "
            f"[pcalib seeds 0/1: {largest_principal_angle(Z_a.T, Z_other.T):.1e}], "
            f"top-{top} var rel {rel_diff(var_a, var_b):.1e} [{rel_diff(var_a, var_other):.1e}]"
        )

    return accuracy


def kernel_pca_exact(quick):
    """Chapter 3: exact RBF kernel PCA against scikit-learn's ``KernelPCA``.

    Both libraries' ``eigen_solver="auto"`` pick a dense ``eigh`` at k = 10
    (ARPACK only for n > 200 and k < 10). The info rows compare equal solvers.
    """
    n, d, k = (600, 10, 10) if quick else (3_000, 10, 10)
    X = decaying_gaussian(n, d, seed=0, decay=DECAY)
    shape = f"{n}x{d}, k={k}"
    accuracy = exact_agreement(X, k)
    sklearn_default = sklearn_rbf(X, k)
    return [
        Case(
            name=f"KernelPCA rbf exact {shape}",
            reference_name="sklearn KernelPCA (default solver: dense eigh)",
            pcalib=pcalib_rbf(X, k, random_state=0),
            reference=sklearn_default,
            accuracy=accuracy,
            target=1.0,
        ),
        Case(
            name=f'KernelPCA rbf exact {shape}, eigen_solver="dense"',
            reference_name="info: sklearn KernelPCA (default solver: dense eigh)",
            pcalib=pcalib_rbf(X, k, eigen_solver="dense", random_state=0),
            reference=sklearn_default,
            accuracy=accuracy,
            repeat=3,
        ),
        Case(
            name=f'KernelPCA rbf exact {shape}, eigen_solver="arpack"',
            reference_name='info: sklearn KernelPCA(eigen_solver="arpack")',
            pcalib=pcalib_rbf(X, k, eigen_solver="arpack", random_state=0),
            reference=sklearn_rbf(X, k, eigen_solver="arpack", random_state=0),
            accuracy=accuracy,
        ),
    ]


def kernel_pca_approximate(quick):
    """Chapter 3: Nyström and random-Fourier-feature kernel PCA against scikit-learn pipelines.

    At the ``--quick`` size ``m = 300`` rather than 500, so that scikit-learn's
    ``PCA(svd_solver="auto")`` takes the same ``covariance_eigh`` path as at
    full size (it needs ``n ≥ 10 m``).
    """
    n, d, m, k = (3_000, 10, 300, 10) if quick else (20_000, 10, 500, 10)
    X = decaying_gaussian(n, d, seed=0, decay=DECAY)
    shape = f"{n}x{d}, m={m}, k={k}"
    nystrom = {"approximation": "nystrom", "n_landmarks": m}
    rff = {"approximation": "rff", "n_random_features": m}

    def sklearn_pipeline(features):
        return fit_and_score(
            lambda: sklearn.pipeline.make_pipeline(
                features(), sklearn.decomposition.PCA(n_components=k)
            ),
            X,
        )

    return [
        Case(
            name=f'KernelPCA rbf approximation="nystrom" {shape}',
            reference_name="sklearn Nystroem + PCA pipeline",
            pcalib=pcalib_rbf(X, k, random_state=0, **nystrom),
            reference=sklearn_pipeline(
                lambda: sklearn.kernel_approximation.Nystroem(
                    kernel="rbf", gamma=GAMMA, n_components=m, random_state=0
                )
            ),
            accuracy=approximate_agreement(pcalib_rbf(X, k, random_state=1, **nystrom)),
            target=1.2,
        ),
        Case(
            name=f'KernelPCA rbf approximation="rff" {shape}',
            reference_name="info: sklearn RBFSampler + PCA pipeline",
            pcalib=pcalib_rbf(X, k, random_state=0, **rff),
            reference=sklearn_pipeline(
                lambda: sklearn.kernel_approximation.RBFSampler(
                    gamma=GAMMA, n_components=m, random_state=0
                )
            ),
            accuracy=approximate_agreement(pcalib_rbf(X, k, random_state=1, **rff)),
        ),
    ]
