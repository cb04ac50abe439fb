"""Utility verifier: the build is right in parallel and target by target from a clean tree; make test passes."""
import subprocess
from pathlib import Path

PROJECT = Path("/src/metrics-agent")
WANT = "metrics-agent 1.9.0 (2 metrics)\ncpu_load 0.420\nmem_used 0.730\n"


def make(*args):
    res = subprocess.run(["make", *args], cwd=PROJECT, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"make {' '.join(args)}:\n{res.stdout[-2000:]}{res.stderr[-2000:]}"


def test_single_targets_from_clean():
    for target in ("src/main.o", "src/collect.o", "src/format.o", "metrics-agent"):
        make("clean")
        make(target)
    out = subprocess.run([str(PROJECT / "metrics-agent"), "--once"], capture_output=True, text=True, check=True)
    assert out.stdout == WANT


def test_parallel_builds():
    for _ in range(3):
        make("clean")
        make("-j8")
        out = subprocess.run([str(PROJECT / "metrics-agent"), "--once"], capture_output=True, text=True, check=True)
        assert out.stdout == WANT
    make("-j8", "test")


def test_sources_and_expectations_unchanged():
    assert (PROJECT / "plugins/cpu.c").read_text().count("return 0.42;") == 1
    assert "cpu_load 0.420" in (PROJECT / "tests/run.sh").read_text()
