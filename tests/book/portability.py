"""Run the unit tests and nbval under every OpenBLAS kernel this CPU can run.

A printed number that only one machine reproduces is not a regression test.
OpenBLAS, as shipped in the NumPy and SciPy wheels, carries one set of kernels
per processor family and picks one at start; ``OPENBLAS_CORETYPE`` forces
another. Each kernel sums in its own order, so running the suite under each of
them, at one and at two BLAS threads, shows which outputs depend on rounding.

``python tests/book/portability.py`` (``make test-portable``) runs, for every kernel
the CPU supports and every thread count, the tests that need no built book::

    python -m pytest -n <cores // threads> --dist loadscope --ignore <book tests> ...

with ``OPENBLAS_CORETYPE`` and ``OPENBLAS_NUM_THREADS`` set, and prints a table
of failures per run, then the failing test ids. It names every kernel it could
not run here and why (an instruction set this CPU lacks, a kernel that this
OpenBLAS build maps to another one, a BLAS that is not OpenBLAS). It exits with
1 when any run failed.

Options: ``--kernels Prescott,Haswell`` and ``--threads 1`` restrict the runs;
the arguments after ``--`` go to pytest (for example ``-- tests/pcalib/test_pca.py``).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The full text of every failure (traceback, hypothesis's falsifying example), one file per run.
FAILURE_DIR = ROOT / "_build" / "portability"

# The x86-64 kernels of OpenBLAS's DYNAMIC_ARCH builds, oldest first, each with
# the CPU flags (as /proc/cpuinfo names them) that its code uses.
X86_KERNELS = {
    "Prescott": {"pni"},
    "Core2": {"pni", "ssse3"},
    "Nehalem": {"pni", "ssse3", "sse4_2"},
    "Sandybridge": {"pni", "ssse3", "sse4_2", "avx"},
    "Haswell": {"pni", "ssse3", "sse4_2", "avx", "avx2", "fma"},
    "Zen": {"pni", "ssse3", "sse4_2", "avx", "avx2", "fma"},
    "SkylakeX": {"avx2", "fma", "avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"},
    "Cooperlake": {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"},
    "SapphireRapids": {"avx512f", "avx512bw", "avx512_bf16", "avx512_fp16", "amx_tile"},
}

# Tests that read the built book (they compute nothing that a kernel changes) or
# drive a browser; make test runs them once, under the default kernel. The same
# files as the Makefile's BOOK_TESTS and BROWSER_TESTS (tests/book/test_makefile.py).
BOOK_TESTS = (
    "tests/book/test_build_log.py",
    "tests/book/test_reader_notebooks.py",
    "tests/browser/test_rendered_book.py",
    "tests/browser/test_jupyterlab.py",
)

PROBE = (
    "import json, numpy, scipy.linalg, threadpoolctl\n"
    "info = threadpoolctl.threadpool_info()\n"
    "print(json.dumps([[i['internal_api'], i.get('architecture'), i['num_threads'],"
    " i['filepath']] for i in info if i['user_api'] == 'blas']))\n"
)


def cpu_flags():
    """The CPU flags of /proc/cpuinfo, or None where there is no such file."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def probe(env):
    """The BLAS libraries loaded under ``env``: (api, kernel, threads, path) each.

    Returns None with the error text when the interpreter died (an instruction
    the CPU lacks ends it with SIGILL).
    """
    result = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        return None, (result.stderr.strip().splitlines() or [f"exit {result.returncode}"])[-1]
    return json.loads(result.stdout), ""


def environment(kernel, threads):
    """The environment of this process with the kernel (None: OpenBLAS's choice) and threads."""
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if kernel is not None:
        env["OPENBLAS_CORETYPE"] = kernel
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = str(threads)
    return env


def plan_kernels(requested):
    """The kernels to run, and the ones left out with the reason.

    Returns ``(runs, skipped)``: ``runs`` is a list of (kernel, kernel OpenBLAS
    reports), ``None`` standing for OpenBLAS's own choice on a BLAS that cannot
    be switched; ``skipped`` a list of (kernel, reason).
    """
    default, error = probe(environment(None, 1))
    if default is None:
        raise SystemExit(f"Python with NumPy does not start: {error}")
    apis = {api for api, *_ in default}
    if apis != {"openblas"}:
        reason = f"the BLAS here is {', '.join(sorted(apis))}, whose kernels cannot be chosen"
        return [(None, "default")], [("every OpenBLAS kernel", reason)]
    default_kernel = default[0][1]
    flags = cpu_flags()
    machine = platform.machine()
    if machine not in ("x86_64", "AMD64") or flags is None:
        reason = f"on {machine} this tool knows only OpenBLAS's own choice ({default_kernel})"
        return [(None, default_kernel)], [("other OpenBLAS kernels", reason)]
    names = requested or list(X86_KERNELS)
    runs, skipped, seen = [], [], {}
    for name in names:
        if name not in X86_KERNELS:
            raise SystemExit(f"--kernels: unknown kernel {name!r}; known: {', '.join(X86_KERNELS)}")
        missing = sorted(X86_KERNELS[name] - flags)
        if missing:
            skipped.append((name, f"this CPU lacks {', '.join(missing)}"))
            continue
        loaded, error = probe(environment(name, 1))
        if loaded is None:
            skipped.append((name, f"Python died on start: {error}"))
            continue
        kernels = {kernel for _, kernel, *_ in loaded}
        if len(kernels) != 1:
            skipped.append((name, f"NumPy and SciPy load different kernels {sorted(kernels)}"))
            continue
        reported = kernels.pop()
        if reported in seen:
            reason = f"this OpenBLAS runs it as {reported}, already run as {seen[reported]}"
            skipped.append((name, reason))
            continue
        seen[reported] = name
        runs.append((name, reported))
    return runs, skipped


def run_suite(kernel, threads, pytest_args, jobs):
    """Run pytest under ``kernel`` with ``threads`` BLAS threads.

    Returns the number passed, the failures as ``(test id, first line of the
    message, full text)`` and the seconds taken.
    """
    report = Path(tempfile.mkdtemp(prefix="pcalib-portability-")) / "report.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", f"--junitxml={report}"]
    if jobs > 1:
        command += ["-n", str(jobs), "--dist", "loadscope"]
    command += [f"--ignore={path}" for path in BOOK_TESTS]
    command += pytest_args
    start = time.monotonic()
    result = subprocess.run(
        command,
        cwd=ROOT,
        env=environment(kernel, threads),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.monotonic() - start
    if not report.exists():
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-20:])
        return None, [("pytest wrote no report", f"exit {result.returncode}", tail)], seconds
    passed, failures = 0, []
    for case in ET.parse(report).getroot().iter("testcase"):
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is not None:
            message = (bad.get("message") or "").strip().splitlines() or [""]
            failures.append(
                (f"{case.get('classname')}::{case.get('name')}", message[0][:160], bad.text or "")
            )
        elif case.find("skipped") is None:
            passed += 1
    if result.returncode not in (0, 1) or (result.returncode == 1 and not failures):
        failures.append((f"pytest exited with {result.returncode}", "", result.stderr[-2000:]))
    return passed, failures, seconds


def write_failures(failures, name):
    """Write the full text of ``failures`` to ``FAILURE_DIR / name``; return its path."""
    FAILURE_DIR.mkdir(parents=True, exist_ok=True)
    path = FAILURE_DIR / name
    path.write_text("\n\n".join(f"{test_id}\n{text}" for test_id, _, text in failures))
    return path


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", help="comma-separated OpenBLAS kernels (default: all)")
    parser.add_argument("--threads", default="1,2", help="comma-separated BLAS thread counts")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest (after --)")
    args = parser.parse_args(argv)
    requested = args.kernels.split(",") if args.kernels else None
    try:
        thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        raise SystemExit(
            f"--threads: expected integers such as 1,2, got {args.threads!r}"
        ) from None
    if any(t < 1 for t in thread_counts):
        raise SystemExit(f"--threads: expected counts of at least 1, got {args.threads!r}")
    cores = os.cpu_count() or 1

    runs, skipped = plan_kernels(requested)
    for name, reason in skipped:
        print(f"not run: {name}: {reason}")
    if not runs:
        raise SystemExit("no kernel of those asked for can run on this machine")

    rows, failed = [], {}
    for kernel, reported in runs:
        for threads in thread_counts:
            jobs = max(1, cores // threads)
            plural = "s" * (threads > 1)
            label = f"{kernel or 'default'} ({reported}), {threads} BLAS thread{plural}"
            print(f"running: {label}, {jobs} pytest worker{'s' * (jobs > 1)} ...", flush=True)
            passed, failures, seconds = run_suite(kernel, threads, args.pytest_args, jobs)
            rows.append((label, passed, len(failures), seconds))
            print(f"  {passed} passed, {len(failures)} failed in {seconds:.0f} s", flush=True)
            if failures:
                path = write_failures(failures, f"{kernel or 'default'}-{threads}-threads.txt")
                failed[label] = failures, path
            for test_id, message, _ in failures:
                print(f"    failed: {test_id}: {message}", flush=True)

    print("\nkernel, BLAS threads                         passed  failed  seconds")
    for label, passed, n_failed, seconds in rows:
        shown = passed if passed is not None else "-"
        print(f"{label:44s} {shown:>7} {n_failed:>7} {seconds:>8.0f}")
    for label, (failures, path) in failed.items():
        print(f"\nfailed under {label} (full text in {path}):")
        for test_id, message, _ in failures:
            print(f"  {test_id}: {message}")
    total_failed = sum(n for _, _, n, _ in rows)
    total_passed = sum(p or 0 for _, p, _, _ in rows)
    print(f"\n{total_passed} passed, {total_failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
