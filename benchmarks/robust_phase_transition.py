"""Chapter 7: the phase transitions of principal component pursuit and AltProj (a data file).

Run from the project root, on one BLAS thread (the fits are small; threads
would only contend with each other)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/robust_phase_transition.py

For every cell of a grid of ranks ``r`` (``r/n`` from 0.025 to 0.4) and
corruption fractions (0.025 to 0.45) of ``n × n`` planted problems
(``n = 200``) it draws ``TRIALS`` problems with the chapter's generator
(:func:`pcalib.datasets.make_low_rank_plus_sparse`), seeded
``seed = SEED_BASE + 100 i + 10 j + trial`` for rank ``i`` and corruption
``j`` of the grid, and fits each with

* ``pcalib.RobustPCA(random_state=0)`` (principal component pursuit, the
  defaults), and
* ``pcalib.altproj(M, r, random_state=0)`` (AltProj, given the true rank).

It writes one row per fit to ``book/data/robust_phase_transition.csv``
(columns ``method, rank, corruption, trial, seed, error, success, n_iter,
seconds``; ``error`` is ``‖L̂ - L‖_F / ‖L‖_F``, ``success`` is
``error < SUCCESS_ERROR``), after comment lines that say how it was made.
Chapter 7 plots the file and re-runs three of its cells live.
"""

import datetime
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy
from sklearn.exceptions import ConvergenceWarning

import pcalib
from pcalib.datasets import make_low_rank_plus_sparse

N = 200
RANKS = (5, 10, 15, 20, 30, 40, 50, 60, 70, 80)  # r/n from 0.025 to 0.4
CORRUPTIONS = (0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)
TRIALS = 5
SEED_BASE = 10_000
SUCCESS_ERROR = 1e-3
OUTPUT = Path(__file__).resolve().parent.parent / "book" / "data" / "robust_phase_transition.csv"


def cell_seed(i, j, trial):
    """The seed of trial ``trial`` of rank ``RANKS[i]`` and corruption ``CORRUPTIONS[j]``."""
    return SEED_BASE + 100 * i + 10 * j + trial


def fit_low_rank(method, M, rank):
    """``L̂`` of ``method`` ("pcp" or "altproj") and its number of iterations."""
    if method == "pcp":
        fit = pcalib.RobustPCA(random_state=0).fit(M)
        return fit.low_rank_, fit.n_iter_
    result = pcalib.altproj(M, rank, random_state=0)
    return result.low_rank, result.n_iter


def rows():
    """One row per fit: method, rank, corruption, trial, seed, error, success, n_iter, seconds."""
    for i, rank in enumerate(RANKS):
        print(f"rank {rank} ...", file=sys.stderr, flush=True)
        for j, corruption in enumerate(CORRUPTIONS):
            for trial in range(TRIALS):
                seed = cell_seed(i, j, trial)
                _, L, S, _ = make_low_rank_plus_sparse(
                    N, N, rank, sparsity=corruption, random_state=seed
                )
                for method in ("pcp", "altproj"):
                    start = time.perf_counter()
                    L_hat, n_iter = fit_low_rank(method, L + S, rank)
                    seconds = time.perf_counter() - start
                    error = np.linalg.norm(L_hat - L) / np.linalg.norm(L)
                    yield (
                        f"{method},{rank},{corruption},{trial},{seed},{error:.17g},"
                        f"{int(error < SUCCESS_ERROR)},{n_iter},{seconds:.3f}"
                    )


def header(seconds):
    """Comment lines: what the file holds and how it was made."""
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return [
        "# Phase transitions of principal component pursuit (pcp: RobustPCA(random_state=0))",
        "# and AltProj (altproj: pcalib.altproj(M, rank, random_state=0), the true rank given)",
        f"# on {N} x {N} planted problems M = L + S drawn by",
        f"# pcalib.datasets.make_low_rank_plus_sparse({N}, {N}, rank, sparsity=corruption,",
        "# random_state=seed),",
        f"# seed = {SEED_BASE} + 100 i + 10 j + trial (i: rank, j: corruption in the grid order).",
        "# error = ||L_hat - L||_F / ||L||_F; success = error < "
        f"{SUCCESS_ERROR:g}; seconds: the fit alone.",
        "# Made by: OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/robust_phase_transition.py",
        f"# on {now}, {platform.machine()} {platform.system()}, {os.cpu_count()} CPUs, "
        f"{seconds / 60:.1f} min in all; Python {platform.python_version()}, "
        f"NumPy {np.__version__}, SciPy {scipy.__version__}, pcalib {pcalib.__version__}.",
    ]


def main():
    """Fit every cell and write the CSV."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        # beyond the transition some fits stop at max_iter: their error says what matters
        warnings.simplefilter("ignore", ConvergenceWarning)
        lines = list(rows())
    table = ["method,rank,corruption,trial,seed,error,success,n_iter,seconds", *lines]
    OUTPUT.parent.mkdir(exist_ok=True)
    OUTPUT.write_text("\n".join(header(time.perf_counter() - start) + table) + "\n")
    print(f"wrote {len(lines)} rows to {OUTPUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
