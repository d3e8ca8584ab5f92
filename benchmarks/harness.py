"""Timing harness of the benchmarks, and the pieces the case modules share.

A :class:`Case` compares a pcalib callable with a reference callable on the
same data, in the same process (:func:`run_case`):

* the data are generated once, when the case is built, outside the timing;
* each contender runs once untimed as a warm-up, and the two warm-up results go
  to the case's accuracy function, so checking accuracy costs no timed work;
* the timed calls alternate pcalib, reference, pcalib, reference, ..., so that
  both contenders see the same machine noise; ``gc.collect()`` runs before each
  call, outside the timing, and each call is timed with ``time.perf_counter``.

:func:`print_case_table` prints each contender's median, the ratio of the
medians, the median and quartiles of the per-pair ratios, the target next to
the ratio and the accuracy summary. A *report* is a function
``report(quick, repeat)`` that prints its own table, for measurements that are
not a pcalib-to-reference ratio, with :func:`fit_seconds` and :func:`print_table`.
"""

import cProfile
import gc
import os
import platform
import pstats
import statistics
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import scipy
import scipy.linalg
import sklearn
import threadpoolctl
from sklearn.exceptions import ConvergenceWarning

import pcalib

# --------------------------------------------------------------------------- #
# Cases and their timing                                                      #
# --------------------------------------------------------------------------- #


@dataclass
class Case:
    """One benchmark row: pcalib's callable against a reference on the same data.

    Attributes
    ----------
    name : str
        What pcalib does, printed in the first column.
    reference_name : str
        What it is compared with, printed in the second column.
    pcalib : callable
        No-argument callable running pcalib; its return value goes to ``accuracy``.
    reference : callable
        No-argument callable running the reference on the same data.
    accuracy : callable
        ``accuracy(pcalib_result, reference_result) -> str``: how far apart the
        two answers are, computed once from the untimed warm-up results.
    target : float or None
        Ratio (pcalib / reference) that pcalib aims to stay under; ``None`` for
        a row that is only there to inform.
    repeat : int or None
        Cap on the timed pairs, for a reference too slow to call ``--repeat``
        times; ``None`` uses ``--repeat``.
    """

    name: str
    reference_name: str
    pcalib: Callable[[], Any]
    reference: Callable[[], Any]
    accuracy: Callable[[Any, Any], str]
    target: float | None = None
    repeat: int | None = None

    def repeats(self, default):
        """Timed pairs for this case when the command line asks for ``default``."""
        return default if self.repeat is None else min(self.repeat, default)


@dataclass
class Timing:
    """The timed calls of one case and its accuracy summary."""

    case: Case
    times_a: list[float]
    times_b: list[float]
    accuracy: str

    def ratio(self):
        """Median pcalib time over median reference time."""
        return statistics.median(self.times_a) / statistics.median(self.times_b)

    def pair_ratio_quartiles(self):
        """Quartiles ``(q1, median, q3)`` of the per-pair ratios ``a_i / b_i``."""
        ratios = [a / b for a, b in zip(self.times_a, self.times_b, strict=True)]
        if len(ratios) < 2:
            return ratios[0], ratios[0], ratios[0]
        q1, q2, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
        return q1, q2, q3


def timed(func):
    """Seconds taken by one call of ``func``; ``gc.collect()`` runs first, untimed.

    The result of ``func`` is dropped at once.
    """
    gc.collect()
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def fit_seconds(estimator, X, threads=None):
    """Seconds taken by ``estimator.fit(X)``, with ``ConvergenceWarning`` silenced.

    ``threads`` limits every BLAS and OpenMP pool during the fit
    (``threadpoolctl.threadpool_limits``, set outside the timing); ``None``
    leaves the pools as configured.
    """
    with threadpoolctl.threadpool_limits(threads):
        return timed(quiet(partial(estimator.fit, X)))


def run_case(case, repeat):
    """Warm up both contenders, summarise their accuracy, then time ``repeat`` pairs."""
    accuracy = case.accuracy(case.pcalib(), case.reference())
    times_a, times_b = [], []
    for _ in range(repeat):
        times_a.append(timed(case.pcalib))
        times_b.append(timed(case.reference))
    return Timing(case, times_a, times_b, accuracy)


def verdict(met):
    """``"met"`` or ``"missed"``, printed next to a target."""
    return "met" if met else "missed"


def target_cell(timing):
    """The target column of a case row: the target and whether the ratio meets it."""
    target = timing.case.target
    if target is None:
        return "-"
    return f"<= {target:.2f} {verdict(timing.ratio() <= target)}"


# --------------------------------------------------------------------------- #
# Output                                                                       #
# --------------------------------------------------------------------------- #


def print_table(headers, rows, left=()):
    """Print ``rows`` (lists of strings) under ``headers`` in aligned columns.

    Columns whose index is in ``left`` are left-aligned, the others right-aligned.
    """
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(headers)]

    def line(cells):
        return "  ".join(
            cell.ljust(width) if i in left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    print(line(headers))
    print("  ".join("-" * width for width in widths))
    for row in rows:
        print(line(row))


CASE_HEADERS = [
    "case (pcalib)",
    "reference",
    "pcalib ms",
    "ref ms",
    "ratio",
    "target",
    "pairs",
    "pair ratios med [q1-q3]",
    "accuracy (pcalib vs ref)",
]


def case_rows(timings):
    """One row of strings per timed case, in the columns of :data:`CASE_HEADERS`."""
    rows = []
    for t in timings:
        q1, q2, q3 = t.pair_ratio_quartiles()
        rows.append(
            [
                t.case.name,
                t.case.reference_name,
                f"{1e3 * statistics.median(t.times_a):.1f}",
                f"{1e3 * statistics.median(t.times_b):.1f}",
                f"{t.ratio():.3f}",
                target_cell(t),
                f"{len(t.times_a)}",
                f"{q2:.3f} [{q1:.2f}-{q3:.2f}]",
                t.accuracy,
            ]
        )
    return rows


def print_case_table(timings, repeat):
    """Print the timings of the cases, one row each, with the target next to the ratio."""
    print(
        f"\nmedian of {repeat} interleaved repeats (column pairs: fewer where a case caps it) "
        "after one warm-up each; ratio = pcalib median / reference median (< 1: pcalib "
        "faster); pair ratios = median and quartiles of pcalib_i / reference_i over the pairs."
    )
    print_table(CASE_HEADERS, case_rows(timings), left={0, 1, 5, 8})


def environment_lines(threads):
    """Versions, CPU, load and BLAS/OpenMP thread pools, so that a table can be read later."""
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    lines = [
        f"python {platform.python_version()} on {platform.platform()}",
        f"cpu: {platform.processor() or platform.machine()}, os.cpu_count()={os.cpu_count()}, "
        f"load average {load}",
        f"numpy {np.__version__}, scipy {scipy.__version__}, "
        f"scikit-learn {sklearn.__version__}, pcalib {pcalib.__version__}",
        "threadpoolctl.threadpool_info():",
    ]
    for pool in threadpoolctl.threadpool_info():
        owner = os.path.basename(os.path.dirname(pool["filepath"]))
        lines.append(
            f"  {pool['user_api']:6s} {pool['internal_api']:8s} {pool.get('version')!s:14s} "
            f"threads={pool['num_threads']} arch={pool.get('architecture', '-')} "
            f"[{owner}/{os.path.basename(pool['filepath'])}]"
        )
    if threads is not None:
        lines.append(f"(timed with threadpoolctl.threadpool_limits({threads}))")
    return lines


def profile_case(case, calls=3, top=10):
    """Print cProfile's own-time ranking of pcalib's callable over a few calls.

    cProfile sees Python-level functions only: NumPy arithmetic such as
    ``X - mean`` is charged to the Python function that executes it, and a
    LAPACK routine to the wrapper that calls it (e.g. ``svd``).
    """
    case.pcalib()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        case.pcalib()
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    ranked = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    print(f"\nprofile of pcalib side, {case.name} (mean of {calls} calls, top {top} by own time):")
    print(f"   {'own ms':>8s}  {'cum ms':>8s}  function")
    for (filename, lineno, func), (_, _, tottime, cumtime, _) in ranked:
        where = "" if filename == "~" else f"{os.path.basename(filename)}:{lineno} "
        print(f"   {1e3 * tottime / calls:8.2f}  {1e3 * cumtime / calls:8.2f}  {where}{func}")


# --------------------------------------------------------------------------- #
# Shared by the case modules                                                   #
# --------------------------------------------------------------------------- #


def decaying_gaussian(n_samples, n_features, *, seed=0, decay=0.95):
    """Gaussian data with a geometrically decaying spectrum and a non-zero mean.

    The standard deviation along the ``j``-th of ``r = min(n_samples,
    n_features)`` random orthonormal axes is ``decay**j`` (``n_samples``
    samples span at most ``r`` directions). The axes come from the QR of a
    ``n_features × r`` Gaussian matrix, so no ``d × d`` matrix is formed when
    the data are wide. Every feature gets a random offset of about 5, so that
    centring matters. Returned C-contiguous float64, the layout users most
    often pass.
    """
    rng = np.random.default_rng(seed)
    n_axes = min(n_samples, n_features)
    axes, _ = np.linalg.qr(rng.standard_normal((n_features, n_axes)))
    offset = 5.0 * rng.standard_normal(n_features)
    scales = decay ** np.arange(n_axes)
    X = (rng.standard_normal((n_samples, n_axes)) * scales) @ axes.T + offset
    return np.ascontiguousarray(X, dtype=np.float64)


def largest_principal_angle(rows_a, rows_b):
    """Largest principal angle (radians) between the row spaces of two matrices."""
    return float(np.max(scipy.linalg.subspace_angles(rows_a.T, rows_b.T)))


def max_relative_difference(a, b):
    """``max |a - b| / |b|`` over the entries."""
    return float(np.max(np.abs(a - b) / np.abs(b)))


def exact_pca(X, k):
    """Top-``k`` principal axes (rows) and variances of ``X``, from a full SVD.

    The reference answer of an accuracy function, computed untimed; the
    variances divide by ``n - 1``.
    """
    _, s, Vt = scipy.linalg.svd(X - X.mean(axis=0), full_matrices=False, check_finite=False)
    return Vt[:k], s[:k] ** 2 / (X.shape[0] - 1)


def quiet(func):
    """``func`` run with ``ConvergenceWarning`` silenced (the same cost on both sides)."""

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return func()

    return run
