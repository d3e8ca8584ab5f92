"""Time against size for robust PCA: pcalib's truncated route, the full-SVD ALM, AltProj.

On the planted problems of the ``robust_pca`` report
(``cases_robust_pca.low_rank_plus_sparse``: n × n, rank 0.05 n, 5 % of the
entries corrupted, seed 0), one fit per method and size, on one BLAS thread:

* ``RobustPCA(random_state=0)`` (truncated randomized SVDs; ``"auto"``),
* ``RobustPCA(svd_solver="full", random_state=0)``, the same iterations with a
  full SVD each (up to ``FULL_MAX_N``: it grows like n³ with a large constant),
* ``pcalib.altproj(M, r, random_state=0)``, given the rank.

It prints the seconds and the slope of log(time) against log(n) for each
method (least squares over the sizes it ran), and writes the plot
``robust_scaling.png`` next to this file. It asserts nothing. Run it from the
project root::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/robust_scaling.py
"""

import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from cases_robust_pca import CORRUPTION, RANK_SHARE, low_rank_plus_sparse
from matplotlib.ticker import NullFormatter
from sklearn.exceptions import ConvergenceWarning

import pcalib

SIZES = (250, 500, 1_000, 2_000, 4_000)
FULL_MAX_N = 2_000
METHODS = {
    "RobustPCA (truncated SVDs)": lambda M, r: pcalib.RobustPCA(random_state=0).fit(M),
    "RobustPCA, full SVDs": lambda M, r: pcalib.RobustPCA(svd_solver="full", random_state=0).fit(M),
    "AltProj (rank given)": lambda M, r: pcalib.altproj(M, r, random_state=0),
}
STYLES = {
    "RobustPCA (truncated SVDs)": dict(color="C0", marker="o", ls="-"),
    "RobustPCA, full SVDs": dict(color="C1", marker="s", ls="--"),
    "AltProj (rank given)": dict(color="C2", marker="^", ls=":"),
}


def seconds(method, n):
    """Seconds of one fit of ``method`` on the planted n × n problem."""
    rank = max(1, round(RANK_SHARE * n))
    M, _, _ = low_rank_plus_sparse(n, rank, CORRUPTION, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        METHODS[method](M, rank)
        return time.perf_counter() - start


def main():
    """Time every method at every size, print the slopes and draw the plot."""
    times = {method: {} for method in METHODS}
    for n in SIZES:
        for method in METHODS:
            if method == "RobustPCA, full SVDs" and n > FULL_MAX_N:
                continue
            times[method][n] = seconds(method, n)
            print(f"n = {n:5d}  {method:28s} {times[method][n]:8.2f} s", flush=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    for method, by_n in times.items():
        sizes = np.array(sorted(by_n))
        values = np.array([by_n[n] for n in sizes])
        slope = np.polyfit(np.log(sizes), np.log(values), 1)[0]
        print(f"{method:28s} slope of log(time) against log(n): {slope:.2f}")
        ax.loglog(sizes, values, label=f"{method} (slope {slope:.1f})", **STYLES[method])
    ax.set(
        xlabel="n (n × n matrix, rank 0.05 n, 5 % corrupted)",
        ylabel="seconds, one fit",
        title="Robust PCA: time against size, one BLAS thread",
    )
    ax.set_xticks(SIZES, [f"{n:,}".replace(",", " ") for n in SIZES])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.legend()
    out = Path(__file__).resolve().parent / "robust_scaling.png"
    fig.savefig(out, dpi=150, bbox_inches="tight")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
