"""Chapter 7: ``pcalib.RobustPCA`` with randomized SVDs against full SVDs (a report).

No library implements principal component pursuit to compare with, so the
report times ``RobustPCA(svd_solver="randomized")`` (truncated SVDs sized by the
predicted rank) against the same algorithm with a full SVD every iteration
(``svd_solver="full"``). The data are ``M = L + S`` (``low_rank_plus_sparse``).
"""

import statistics
import sys

import numpy as np
from harness import fit_seconds, print_table, verdict

import pcalib

SIZES = ((200, 400), (500, 2_000))  # n of the n x n matrices (--quick, full)
RANK_SHARE = 0.05
CORRUPTION = 0.05
# Fits per solver and size (or --repeat, if smaller); one from LARGE_N on, where a full
# fit takes about 40 s.
REPEAT = 3
LARGE_N = 2_000
SOLVERS = ("randomized", "full")
# Targets: the error of L within MAX_ITER iterations, and randomized / full time by size.
MAX_ERROR = 1e-6
MAX_ITER = 25
MAX_RATIO = {500: 0.25, 2_000: 0.12}
DEFAULT_MAX_RATIO = 0.25  # the --quick sizes
# A tighter tolerance than the default tol=1e-7, for one untimed fit per size.
INFO_TOL = 1e-8


def low_rank_plus_sparse(n, rank, corruption, *, seed=0):
    """``(M, L, support)`` with ``M = L + S``, ``L`` of rank ``rank`` and ``S`` sparse.

    ``L = A Bᵀ / √n`` with ``A`` and ``B`` standard normal ``n × rank``; ``S``
    has a share ``corruption`` of its entries, on a uniformly random
    ``support``, set to a random sign times uniform[5, 10] times ``max |L|``.
    """
    rng = np.random.default_rng(seed)
    L = rng.standard_normal((n, rank)) @ rng.standard_normal((n, rank)).T / np.sqrt(n)
    support = rng.random((n, n)) < corruption
    count = int(support.sum())
    S = np.zeros((n, n))
    S[support] = rng.choice([-1.0, 1.0], count) * rng.uniform(5.0, 10.0, count) * np.abs(L).max()
    return L + S, L, support


def recovery(estimator, L, support):
    """``‖low_rank_ - L‖_F / ‖L‖_F``, and ``"yes"`` when ``sparse_`` has exactly the support."""
    error = np.linalg.norm(estimator.low_rank_ - L) / np.linalg.norm(L)
    return error, "yes" if np.array_equal(estimator.sparse_ != 0, support) else "no"


def fit_times(M, repeat):
    """Fit times of each solver over ``repeat`` interleaved rounds, and its last fit."""
    times = {solver: [] for solver in SOLVERS}
    fitted = {}
    for _ in range(repeat):
        for solver, seconds in times.items():
            fitted[solver] = pcalib.RobustPCA(svd_solver=solver, random_state=0)
            seconds.append(fit_seconds(fitted[solver], M))
    return times, fitted


def size_rows(n, repeat):
    """Table rows of both solvers at size ``n``, and a line on one fit at ``INFO_TOL``."""
    rank = max(1, round(RANK_SHARE * n))
    M, L, support = low_rank_plus_sparse(n, rank, CORRUPTION, seed=0)
    print(f"running: RobustPCA {n}x{n}, rank {rank} ...", file=sys.stderr)
    times, fitted = fit_times(M, 1 if n >= LARGE_N else repeat)
    medians = {solver: statistics.median(seconds) for solver, seconds in times.items()}
    ratio = medians["randomized"] / medians["full"]
    target = MAX_RATIO.get(n, DEFAULT_MAX_RATIO)
    pairs = [r / f for r, f in zip(times["randomized"], times["full"], strict=True)]
    ratio = [f"{ratio:.3f} (<= {target:g}) {verdict(ratio <= target)}"]
    ratio.append(f"[{min(pairs):.3f}-{max(pairs):.3f}]")
    rows = []
    for solver, est in fitted.items():
        error, exact = recovery(est, L, support)
        iters = f"{est.n_iter_} {verdict(est.n_iter_ <= MAX_ITER)}"
        err = f"{error:.3e} {verdict(error <= MAX_ERROR)}"
        head = [f"{n}", f"{rank}", solver, iters, f"{est.n_svd_}", f"{est.rank_}", err, exact]
        seconds = medians[solver]
        timing = [f"{seconds:.3f}", f"{1e3 * seconds / est.n_iter_:.1f}"]
        rows.append(head + timing + (ratio if solver == "randomized" else ["", ""]))
    tight = pcalib.RobustPCA(tol=INFO_TOL, random_state=0).fit(M)
    error, exact = recovery(tight, L, support)
    info = (
        f"info (one fit, untimed): RobustPCA(tol={INFO_TOL:g}, random_state=0) at n={n}: "
        f"svd_solver_ {tight.svd_solver_}, n_iter_ {tight.n_iter_}, n_svd_ {tight.n_svd_}, "
        f"err L {error:.3e}, S support {exact}"
    )
    return rows, info


def robust_pca(quick, repeat):
    """Chapter 7: ``RobustPCA().fit`` with randomized against full SVDs (printed table).

    For each ``n``: iterations, SVDs, recovered rank, relative error of
    ``low_rank_``, whether ``sparse_`` has exactly the true support, the median
    fit time over ``min(REPEAT, repeat)`` interleaved fits of each solver and
    the ratio randomized / full of the medians, each next to its target.
    """
    repeat = min(REPEAT, repeat)
    M_small, _, _ = low_rank_plus_sparse(120, 6, CORRUPTION, seed=1)
    for solver in SOLVERS:  # warm-up of both code paths
        pcalib.RobustPCA(svd_solver=solver, random_state=0).fit(M_small)
    print(
        f"\nRobustPCA (principal component pursuit, inexact ALM), M = L + S, n x n, rank "
        f"r = {RANK_SHARE:g} n, {CORRUPTION:.0%} of entries corrupted: RobustPCA(svd_solver=..., "
        f"random_state=0).fit(M), median of {repeat} interleaved fit(s) per solver. "
        "err L = ||low_rank_ - L||_F / ||L||_F; S support = sparse_ != 0 exactly where S != 0."
    )
    headers = ["n", "r", "svd_solver", f"n_iter_ (<= {MAX_ITER})", "n_svd_", "rank_"]
    headers += [f"err L (<= {MAX_ERROR:g})", "S support", "median s", "ms/iter"]
    headers += ["randomized / full (target)", "per pair [min-max]"]
    rows, infos = [], []
    for n in SIZES[0 if quick else 1]:
        size, info = size_rows(n, repeat)
        rows += size
        infos.append(info)
    print_table(headers, rows)
    print("\n".join(infos))
