"""Chapter 7: ``pcalib.RobustPCA`` with randomized SVDs against full SVDs, and against AltProj.

No library implements principal component pursuit to compare with, so the
report times ``RobustPCA(svd_solver="randomized")`` (truncated SVDs sized by the
predicted rank) against the same algorithm with a full SVD every iteration
(``svd_solver="full"``). The data are ``M = L + S`` (``low_rank_plus_sparse``).
A second report times ``RobustPCA`` (the defaults) against ``pcalib.altproj``
(non-convex robust PCA by alternating projections) on the same problems and,
with ``--write-data``, writes its rows to ``book/data/robust_cost.csv``.
"""

import datetime
import os
import platform
import statistics
import sys
from pathlib import Path

import numpy as np
import scipy
import threadpoolctl
from harness import fit_seconds, print_table, quiet, timed, verdict

import pcalib
from pcalib.datasets import make_low_rank_plus_sparse

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
    """``(M, L, support)`` of the ``n × n`` planted problem of the reports.

    :func:`pcalib.datasets.make_low_rank_plus_sparse`: ``L`` of rank ``rank``,
    a share ``corruption`` of the entries corrupted by a random sign times
    uniform[5, 10] times ``max |L|``.
    """
    M, L, _, support = make_low_rank_plus_sparse(n, n, rank, sparsity=corruption, random_state=seed)
    return M, L, support


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


# --------------------------------------------------------------------------- #
# Principal component pursuit against AltProj                                 #
# --------------------------------------------------------------------------- #

ALTPROJ_SIZES = ((200, 400), (500, 1_000, 2_000))  # --quick, full
COST_DATA = Path(__file__).resolve().parent.parent / "book" / "data" / "robust_cost.csv"


def altproj_seconds(M, rank):
    """Seconds taken by ``pcalib.altproj(M, rank, random_state=0)``, and its result."""
    out = {}

    def run():
        out["result"] = pcalib.altproj(M, rank, random_state=0)

    return timed(quiet(run)), out["result"]


def cost_rows(n, repeat):
    """Rows ``[n, r, method, n_iter, seconds, ms/iter, err L, S support]`` at size ``n``."""
    rank = max(1, round(RANK_SHARE * n))
    M, L, support = low_rank_plus_sparse(n, rank, CORRUPTION, seed=0)
    print(f"running: RobustPCA and altproj {n}x{n}, rank {rank} ...", file=sys.stderr)
    times = {"pcp": [], "altproj": []}
    for _ in range(1 if n >= LARGE_N else repeat):  # interleaved
        pcp = pcalib.RobustPCA(random_state=0)
        times["pcp"].append(fit_seconds(pcp, M))
        seconds, result = altproj_seconds(M, rank)
        times["altproj"].append(seconds)
    fits = {
        "pcp": (pcp.n_iter_, pcp.low_rank_, pcp.sparse_),
        "altproj": (result.n_iter, result.low_rank, result.sparse),
    }
    rows = []
    for method, (n_iter, low_rank, sparse) in fits.items():
        seconds = statistics.median(times[method])
        error = np.linalg.norm(low_rank - L) / np.linalg.norm(L)
        exact = "yes" if np.array_equal(sparse != 0, support) else "no"
        rows.append([n, rank, method, n_iter, seconds, 1e3 * seconds / n_iter, error, exact])
    return rows


def write_cost_data(rows, repeat):
    """``book/data/robust_cost.csv``: the rows, after comment lines saying how they were made."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    pools = ", ".join(
        f"{pool['internal_api']} {pool['num_threads']} thread(s)"
        for pool in threadpoolctl.threadpool_info()
    )
    lines = [
        "# Principal component pursuit (pcp: pcalib.RobustPCA(random_state=0)) and AltProj",
        "# (altproj: pcalib.altproj(M, r, random_state=0)) on M = L + S, n x n, rank r = 0.05 n,",
        "# 5 % of the entries corrupted (pcalib.datasets.make_low_rank_plus_sparse(n, n, r,",
        f"# sparsity=0.05, random_state=0)); seconds: median of {repeat} interleaved fits",
        f"# (1 from n = {LARGE_N}).",
        "# Made by: .venv/bin/python benchmarks/run.py --only robust_pca_altproj --threads 1 "
        "--write-data",
        f"# on {now}, {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs ({pools}),",
        f"# 1-minute load average {os.getloadavg()[0]:.1f} at the end (other jobs slow the fits);",
        f"# Python {platform.python_version()}, NumPy {np.__version__}, SciPy {scipy.__version__},"
        f" pcalib {pcalib.__version__}.",
        "n,rank,method,n_iter,seconds,ms_per_iter,error_L,support_exact",
    ]
    for n, rank, method, n_iter, seconds, per_iter, error, exact in rows:
        lines.append(
            f"{n},{rank},{method},{n_iter},{seconds:.4f},{per_iter:.3f},{error:.3e},{exact}"
        )
    COST_DATA.parent.mkdir(exist_ok=True)
    COST_DATA.write_text("\n".join(lines) + "\n")
    print(f"wrote {COST_DATA}", file=sys.stderr)


def robust_pca_altproj(quick, repeat, write_data=False):
    """Chapter 7: principal component pursuit against AltProj, time and time per iteration.

    For each ``n`` (500, 1000, 2000; ``--quick``: 200, 400) on the problem of
    :func:`robust_pca`: ``RobustPCA(random_state=0)`` (the defaults) and
    ``altproj(M, r, random_state=0)`` (given the true rank ``r``), their
    iterations, median fit time over ``min(REPEAT, repeat)`` interleaved fits
    (one from ``LARGE_N``), time per iteration, the relative error of ``L``
    and whether ``S`` has exactly the true support. ``write_data`` also writes
    the rows to ``book/data/robust_cost.csv``, which chapter 7 reads.
    """
    repeat = min(REPEAT, repeat)
    M_small, _, _ = low_rank_plus_sparse(120, 6, CORRUPTION, seed=1)
    pcalib.RobustPCA(random_state=0).fit(M_small)  # warm-up of both code paths
    pcalib.altproj(M_small, 6, random_state=0)
    print(
        f"\nPrincipal component pursuit (RobustPCA(random_state=0)) against AltProj "
        f"(altproj(M, r, random_state=0), given r), M = L + S, n x n, r = {RANK_SHARE:g} n, "
        f"{CORRUPTION:.0%} of entries corrupted; median of {repeat} interleaved fit(s) "
        f"(1 from n = {LARGE_N}). err L = ||L_hat - L||_F / ||L||_F."
    )
    rows = []
    for n in ALTPROJ_SIZES[0 if quick else 1]:
        rows += cost_rows(n, repeat)
    headers = ["n", "r", "method", "n_iter", "median s", "ms/iter", "err L", "S support"]
    print_table(
        headers,
        [
            [f"{n}", f"{r}", m, f"{it}", f"{s:.3f}", f"{per:.1f}", f"{e:.2e}", x]
            for n, r, m, it, s, per, e, x in rows
        ],
    )
    if write_data:
        write_cost_data(rows, repeat)
