"""portability.py runs each kernel the CPU supports once, and says why it skips the rest."""

import portability
import pytest

AVX2_FLAGS = {"pni", "ssse3", "sse4_2", "avx", "avx2", "fma"}
# what this OpenBLAS reports for each forced kernel on an AVX2 machine (measured:
# Core2 runs as Katmai like Prescott, Zen as Haswell)
REPORTED = {
    "Prescott": "Katmai",
    "Core2": "Katmai",
    "Nehalem": "Nehalem",
    "Sandybridge": "Sandybridge",
    "Haswell": "Haswell",
    "Zen": "Haswell",
}


@pytest.fixture
def avx2_machine(monkeypatch):
    def probe(env):
        kernel = REPORTED.get(env.get("OPENBLAS_CORETYPE"), "Haswell")
        return [["openblas", kernel, 1, "numpy"], ["openblas", kernel, 1, "scipy"]], ""

    monkeypatch.setattr(portability, "cpu_flags", lambda: AVX2_FLAGS)
    monkeypatch.setattr(portability, "probe", probe)
    monkeypatch.setattr(portability.platform, "machine", lambda: "x86_64")


def test_each_kernel_runs_once_and_every_skip_has_its_reason(avx2_machine):
    runs, skipped = portability.plan_kernels(None)
    assert runs == [
        ("Prescott", "Katmai"),
        ("Nehalem", "Nehalem"),
        ("Sandybridge", "Sandybridge"),
        ("Haswell", "Haswell"),
    ]
    reasons = dict(skipped)
    assert reasons["Core2"] == "this OpenBLAS runs it as Katmai, already run as Prescott"
    assert reasons["Zen"] == "this OpenBLAS runs it as Haswell, already run as Haswell"
    assert "avx512f" in reasons["SkylakeX"] and "lacks" in reasons["SkylakeX"]
    assert set(reasons) == set(portability.X86_KERNELS) - {k for k, _ in runs}


def test_an_unknown_kernel_is_refused_by_name(avx2_machine):
    with pytest.raises(SystemExit, match="unknown kernel 'Pentium'"):
        portability.plan_kernels(["Pentium"])


def test_a_blas_that_is_not_openblas_runs_its_default_only(monkeypatch):
    monkeypatch.setattr(portability, "probe", lambda env: ([["accelerate", None, 8, "x"]], ""))
    runs, skipped = portability.plan_kernels(None)
    assert runs == [(None, "default")]
    assert "accelerate" in skipped[0][1]


def test_a_kernel_whose_python_dies_is_reported(avx2_machine, monkeypatch):
    def probe(env):
        if env.get("OPENBLAS_CORETYPE") == "Nehalem":
            return None, "Illegal instruction"
        return [["openblas", REPORTED.get(env.get("OPENBLAS_CORETYPE"), "Haswell"), 1, "x"]], ""

    monkeypatch.setattr(portability, "probe", probe)
    runs, skipped = portability.plan_kernels(["Nehalem", "Haswell"])
    assert runs == [("Haswell", "Haswell")]
    assert skipped == [("Nehalem", "Python died on start: Illegal instruction")]


def test_the_environment_sets_kernel_and_threads(monkeypatch):
    monkeypatch.setenv("OPENBLAS_CORETYPE", "Zen")
    env = portability.environment(None, 2)
    assert "OPENBLAS_CORETYPE" not in env and env["OPENBLAS_NUM_THREADS"] == "2"
    env = portability.environment("Prescott", 1)
    assert env["OPENBLAS_CORETYPE"] == "Prescott" and env["OMP_NUM_THREADS"] == "1"


def test_the_real_machine_runs_its_default_kernel():
    runs, _ = portability.plan_kernels(None)
    assert runs, "not even OpenBLAS's own kernel can run"


def test_a_failure_is_reported_with_its_message_and_its_full_text_is_kept(
    avx2_machine, monkeypatch, tmp_path, capsys
):
    def run_suite(kernel, threads, pytest_args, jobs):
        if kernel == "Nehalem":
            return (
                9,
                [("tests.t::test_x", "AssertionError: 5e-13 != 4e-13", "Falsifying example")],
                1.0,
            )
        return 10, [], 1.0

    monkeypatch.setattr(portability, "run_suite", run_suite)
    monkeypatch.setattr(portability, "FAILURE_DIR", tmp_path)
    assert portability.main(["--kernels", "Nehalem,Haswell", "--threads", "1"]) == 1
    out = capsys.readouterr().out
    assert "failed: tests.t::test_x: AssertionError: 5e-13 != 4e-13" in out
    assert "19 passed, 1 failed" in out
    assert (tmp_path / "Nehalem-1-threads.txt").read_text() == "tests.t::test_x\nFalsifying example"
