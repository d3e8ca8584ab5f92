"""Chapter 4: ``pcalib.PPCA`` in closed form against scikit-learn's PCA, and EM's cost."""

import statistics
import sys

import numpy as np
import sklearn.decomposition
from harness import (
    Case,
    decaying_gaussian,
    exact_pca,
    fit_seconds,
    largest_principal_angle,
    print_table,
)
from harness import max_relative_difference as rel_diff

import pcalib

# The EM report. With a tol this small EM runs exactly max_iter iterations
# (EM_ITERATIONS, or EM_MISSING_ITERATIONS with missing entries; the first of
# each pair is for --quick) and stops with a ConvergenceWarning, silenced. Fit
# time / n_iter_ includes the centring and the final rotation, so it overstates
# one iteration by about 1 / n_iter_.
EM_COMPONENTS = 10
EM_ITERATIONS = (5, 30)
EM_MISSING_ITERATIONS = (3, 10)
EM_MISSING_FRACTION = 0.1
EM_TOL = 1e-12
EM_REPEAT = 3  # fits per size (or --repeat, if smaller)


def ppca_vs_sklearn_pca(X, k):
    """Accuracy function comparing a fitted ``pcalib.PPCA`` with a fitted scikit-learn ``PCA``.

    PPCA's ``ddof=0`` divides by ``n``, scikit-learn by ``n - 1``, so pcalib's
    variances are multiplied by ``n / (n - 1)``. scikit-learn's
    ``noise_variance_`` averages the discarded variance over ``min(n, d) - k``
    eigenvalues, PPCA's maximum-likelihood one over all ``d - k`` (zeros
    included when ``n < d``), so on wide data pcalib's is also multiplied by
    ``(d - k) / (n - k)``. Each contender's components are then compared with
    the exact top-``k`` axes.
    """
    n, d = X.shape
    scale = n / (n - 1)
    noise_factor = scale * (d - k) / (min(n, d) - k)
    noise_label = "noise*n/(n-1)" if n >= d else "noise*n/(n-1)*(d-k)/(n-k)"

    def accuracy(ppca, skl):
        var_rel = rel_diff(ppca.explained_variance_ * scale, skl.explained_variance_)
        noise_rel = rel_diff(ppca.noise_variance_ * noise_factor, skl.noise_variance_)
        exact_axes, _ = exact_pca(X, k)
        exact = [largest_principal_angle(e.components_, exact_axes) for e in (ppca, skl)]
        return (
            f"angle {largest_principal_angle(ppca.components_, skl.components_):.1e} rad, "
            f"var*n/(n-1) rel {var_rel:.1e}, {noise_label} rel {noise_rel:.1e}; "
            f"angle to exact: pcalib {exact[0]:.1e}, sklearn {exact[1]:.1e} "
            f"(sklearn solver: {getattr(skl, '_fit_svd_solver', '?')})"
        )

    return accuracy


def ppca_closed_form(quick):
    """Chapter 4: closed-form ``PPCA.fit`` against scikit-learn's ``PCA.fit`` (default solver).

    On the tall data scikit-learn's ``"auto"`` picks ``covariance_eigh``
    (d ≤ 1 000 and n ≥ 10 d); on the wide data pcalib goes through the n × n
    Gram matrix and scikit-learn picks its randomized solver (seeded, so that
    its accuracy is the same from run to run).
    """
    k = 10
    n, d = (4_000, 100) if quick else (20_000, 200)
    n_wide, d_wide = (200, 1_000) if quick else (500, 5_000)
    X = decaying_gaussian(n, d, seed=4)
    X_wide = decaying_gaussian(n_wide, d_wide, seed=4)
    return [
        Case(
            name=f"PPCA.fit {n}x{d}, k={k} (closed form)",
            reference_name="sklearn PCA().fit (svd_solver auto)",
            pcalib=lambda: pcalib.PPCA(n_components=k).fit(X),
            reference=lambda: sklearn.decomposition.PCA(n_components=k).fit(X),
            accuracy=ppca_vs_sklearn_pca(X, k),
            target=1.1,
        ),
        Case(
            name=f"PPCA.fit {n_wide}x{d_wide}, k={k} (closed form, Gram)",
            reference_name="info: sklearn PCA(random_state=0).fit (auto)",
            pcalib=lambda: pcalib.PPCA(n_components=k).fit(X_wide),
            reference=lambda: sklearn.decomposition.PCA(n_components=k, random_state=0).fit(X_wide),
            accuracy=ppca_vs_sklearn_pca(X_wide, k),
        ),
    ]


def em_medians(make_estimator, X, repeat):
    """Median fit time / ``n_iter_``, pools as configured and on one thread, and ``n_iter_``.

    The two settings alternate over ``repeat`` rounds, so that they see the
    same machine noise; the ``ConvergenceWarning`` of EM is silenced.
    """
    times = {None: [], 1: []}
    n_iters = set()
    for _ in range(repeat):
        for threads, seconds in times.items():
            estimator = make_estimator()
            seconds.append(fit_seconds(estimator, X, threads) / estimator.n_iter_)
            n_iters.add(estimator.n_iter_)
    label = "/".join(map(str, sorted(n_iters)))
    return statistics.median(times[None]), statistics.median(times[1]), label


def em_sweep(sweep, sizes, make_em, k, repeat):
    """Rows of the EM report for one sweep, and the two EM medians at each size."""
    rows, medians, previous = [], {}, None
    for n, d in sizes:
        print(f"running: PPCA EM {n}x{d} ...", file=sys.stderr)
        X = decaying_gaussian(n, d, seed=5)
        em_s, em1_s, n_iter = em_medians(make_em, X, repeat)
        closed = pcalib.PPCA(n_components=k)
        closed_s = statistics.median(fit_seconds(closed, X) for _ in range(repeat))
        medians[(n, d)] = em_s, em1_s
        if previous is None:
            growth = ["-", "-", "-"]
        else:
            growth = [f"{em_s / previous[0]:.2f}", f"{em1_s / previous[1]:.2f}"]
            growth.append(f"{n * d / previous[2]:.0f}")
        em_ms, em1_ms, closed_ms = (f"{1e3 * t:.2f}" for t in (em_s, em1_s, closed_s))
        row = [sweep, f"{n}", f"{d}", n_iter, em_ms, growth[0], em1_ms, growth[1], growth[2]]
        rows.append([*row, closed_ms, f"{closed_s / em_s:.1f}"])
        previous = (em_s, em1_s, n * d)
    return rows, medians


def ppca_em_per_iteration(quick, repeat):
    """Chapter 4: PPCA's EM time per iteration against ``n`` and ``d`` (printed table).

    For each ``(n, d)`` of two sweeps: EM's fit time / ``n_iter_`` with the
    pools as configured and on one thread (:func:`em_medians`), and the median
    time of a closed-form fit on the same data. Then the missing-data EM, with
    ``EM_MISSING_FRACTION`` of the entries NaN, at the size both sweeps share.
    """
    k = EM_COMPONENTS
    if quick:
        n_sweep, d_fixed, d_sweep, n_fixed = (1_000, 2_000, 4_000), 50, (25, 100, 400), 1_000
    else:
        n_sweep, d_fixed, d_sweep, n_fixed = (2_000, 8_000, 32_000), 100, (50, 200, 800), 8_000
    repeat = min(EM_REPEAT, repeat)
    iterations = EM_ITERATIONS[0 if quick else 1]
    print(
        f'\nPPCA EM time per iteration, k={k}: PPCA(k, solver="em", max_iter={iterations}, '
        f"tol={EM_TOL:g}) runs all {iterations} iterations; median of {repeat} fit(s); "
        "ms/iter = fit time / n_iter_; '1 thread' = under threadpool_limits(1); "
        "closed form = PPCA(k).fit on the same data.\n"
        "Expected: O(n d k) per complete-data iteration, so x4 in n or in d gives about x4 "
        "per iteration (compare 'x prev' with 'n*d x prev')."
    )

    def make_em():
        return pcalib.PPCA(
            n_components=k, solver="em", max_iter=iterations, tol=EM_TOL, random_state=0
        )

    rows_n, medians = em_sweep("n", [(n, d_fixed) for n in n_sweep], make_em, k, repeat)
    rows_d, _ = em_sweep("d", [(n_fixed, d) for d in d_sweep], make_em, k, repeat)
    headers = ["sweep", "n", "d", "n_iter", "EM ms/iter", "x prev", "1 thread ms/iter"]
    headers += ["x prev", "n*d x prev", "closed-form ms", "closed / EM iter"]
    print_table(headers, rows_n + rows_d)
    missing_em(quick, repeat, (n_fixed, d_fixed), medians[(n_fixed, d_fixed)])


def missing_em(quick, repeat, shape, complete):
    """Print the missing-data EM's time per iteration against the complete-data one."""
    k = EM_COMPONENTS
    n, d = shape
    iterations = EM_MISSING_ITERATIONS[0 if quick else 1]
    X = decaying_gaussian(n, d, seed=5)
    X[np.random.default_rng(5).random(X.shape) < EM_MISSING_FRACTION] = np.nan
    print(f"running: PPCA missing-data EM {n}x{d} ...", file=sys.stderr)
    missing_s, missing1_s, n_iter = em_medians(
        lambda: pcalib.PPCA(
            n_components=k, allow_missing=True, max_iter=iterations, tol=EM_TOL, random_state=0
        ),
        X,
        repeat,
    )
    print(
        f"missing-data EM, {EM_MISSING_FRACTION:.0%} of entries NaN, {n}x{d}, k={k}, "
        f"max_iter={iterations}, n_iter {n_iter}: {1e3 * missing_s:.2f} ms/iter "
        f"({missing_s / complete[0]:.1f}x the complete-data iteration at {n}x{d}); "
        f"1 thread: {1e3 * missing1_s:.2f} ms/iter ({missing1_s / complete[1]:.1f}x). "
        f"Expected O(n d k^2) against O(n d k): of the order of k = {k} times more."
    )
