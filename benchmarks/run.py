"""Benchmarks of pcalib against its references: one command, prints a table.

Run from the project root::

    .venv/bin/python benchmarks/run.py             # full sizes, 7 repeats
    .venv/bin/python benchmarks/run.py --quick     # smaller sizes, for a smoke run
    .venv/bin/python benchmarks/run.py --repeat 15 --threads 1 --profile
    .venv/bin/python benchmarks/run.py --only ppca_closed_form ppca_em_per_iteration
    .venv/bin/python benchmarks/run.py --only robust_pca_altproj --threads 1 --write-data
    .venv/bin/python benchmarks/run.py --write-readme  # full run; rewrites README's figures

The cases (one factory per group of rows) and the reports live in one module
per chapter, ``cases_*.py``; the timing and printing in ``harness.py``. Nothing
asserts anything about time: the script only prints. ``benchmarks/README.md``
says what each row measures; its figures are the section that ``--write-readme``
writes from the run's own results (``readme.py``).
"""

import argparse
import contextlib
import inspect
import io
import sys

import cases_kernel_pca
import cases_nmf
import cases_pca
import cases_ppca
import cases_robust_pca
import cases_sparse_pca
import readme
import threadpoolctl
from harness import environment_lines, print_case_table, profile_case, run_case

# Factories ``f(quick) -> list[Case]``, in the order of the chapters.
CASE_FACTORIES = [
    cases_pca.pca_fit_tall,
    cases_pca.pca_fit_wide,
    cases_pca.pca_fit_gram,
    cases_pca.pca_fit_randomized,
    cases_kernel_pca.kernel_pca_exact,
    cases_kernel_pca.kernel_pca_approximate,
    cases_ppca.ppca_closed_form,
    cases_sparse_pca.sparse_pca_elastic_net,
    cases_sparse_pca.sparse_pca_fit,
    cases_nmf.nmf_fit,
]
# Reports ``f(quick, repeat) -> None``, printed after the case table.
REPORTS = [
    cases_ppca.ppca_em_per_iteration,
    cases_robust_pca.robust_pca,
    cases_robust_pca.robust_pca_altproj,
]


def parse_args(argv):
    """The command line: repeats, sizes, threads, profiling and the cases to run."""
    names = [f.__name__ for f in CASE_FACTORIES + REPORTS]
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7, help="timed pairs per case (default 7)")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="limit BLAS/OpenMP threads with threadpoolctl (default: leave as configured)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="also print a cProfile breakdown of one pcalib call per distinct case name",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        metavar="NAME",
        choices=names,
        help="run only these case factories and reports (default: all). Choices: "
        + ", ".join(names),
    )
    parser.add_argument(
        "--write-data",
        action="store_true",
        help="reports that feed a chapter also write their rows to book/data/ (e.g. "
        "robust_pca_altproj: book/data/robust_cost.csv)",
    )
    parser.add_argument(
        "--write-readme",
        action="store_true",
        help="rewrite the figures of benchmarks/README.md (its generated section) from this "
        "run's results; needs a full run (no --quick, --only or --profile)",
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.write_readme and (args.quick or args.only or args.profile):
        parser.error("--write-readme needs a full run: leave out --quick, --only and --profile")
    return args


class Tee(io.StringIO):
    """Text written here goes to ``stream`` too (the reports print and are kept)."""

    def __init__(self, stream):
        super().__init__()
        self.stream = stream

    def write(self, text):
        """Write ``text`` to the stream and keep it."""
        self.stream.write(text)
        return super().write(text)


def run(args):
    """Run the selected factories' cases, print their table, then the selected reports.

    Returns the timings of the cases and what the reports printed.
    """
    factories = [f for f in CASE_FACTORIES if not args.only or f.__name__ in args.only]
    reports = [r for r in REPORTS if not args.only or r.__name__ in args.only]
    if args.only:
        print(f"(only: {', '.join(f.__name__ for f in factories + reports)})")
    timings = []
    for factory in factories:
        for case in factory(args.quick):
            sys.stdout.flush()
            print(f"running: {case.name}  vs  {case.reference_name} ...", file=sys.stderr)
            timings.append(run_case(case, case.repeats(args.repeat)))
    if timings:
        print_case_table(timings, args.repeat)
    printed = Tee(sys.stdout)
    with contextlib.redirect_stdout(printed):
        for report in reports:
            writes = "write_data" in inspect.signature(report).parameters
            report(args.quick, args.repeat, **({"write_data": args.write_data} if writes else {}))
    if args.profile:
        for case in {t.case.name: t.case for t in timings}.values():
            profile_case(case)
    return timings, printed.getvalue()


def options(args):
    """The options of ``args`` other than ``--write-readme``, as on a command line."""
    shown = f" --repeat {args.repeat}" if args.repeat != 7 else ""
    shown += f" --threads {args.threads}" if args.threads is not None else ""
    return shown + (" --write-data" if args.write_data else "")


def main(argv=None):
    """Parse the command line, print the environment, run with the requested thread limit.

    With ``--write-readme``, the README's figures are then rewritten from this run.
    """
    args = parse_args(argv)
    environment = environment_lines(args.threads)
    print("\n".join(environment))
    with threadpoolctl.threadpool_limits(args.threads):
        timings, reports = run(args)
    if args.write_readme:
        readme.write(readme.generated_section(options(args), environment, timings, reports))
        print(f"wrote the figures of {readme.README}", file=sys.stderr)


if __name__ == "__main__":
    main()
