"""Utility verifier: the compensated kernels built without fast-math, the rest with it."""
import shutil
import subprocess
from pathlib import Path

SRC = Path("/srv/numkern")
COMPENSATED = {"sum_kahan", "sum_neumaier", "sum_twosum", "dot_kahan"}


def compile_lines(tree):
    out = subprocess.run(["make", "-n", "-B", "all"], cwd=tree, capture_output=True, text=True, check=True).stdout
    lines = {}
    for line in out.splitlines():
        words = line.split()
        if "-c" in words and words[words.index("-c") + 1].startswith("src/"):
            lines[Path(words[words.index("-c") + 1]).stem] = words
    return lines


def fast_math(words):
    """Whether the last fast-math flag on a command line turns it on."""
    flags = [w for w in words if w in ("-ffast-math", "-fno-fast-math")]
    return bool(flags) and flags[-1] == "-ffast-math"


def test_flags_per_object():
    lines = compile_lines(SRC)
    assert len(lines) == 65
    for name, words in lines.items():
        if name in COMPENSATED:
            assert not fast_math(words), name
            assert not any(w.startswith("-fassociative") or w == "-Ofast" for w in words), name
        else:
            assert fast_math(words), name


def test_agent_build_passes_check():
    run = subprocess.run(["./bin/check", "tests/expected.tsv"], cwd=SRC, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    assert "68 cases, 0 failed" in run.stdout
    saved = (SRC / "results/check.txt").read_text()
    assert "68 cases, 0 failed" in saved and "OK sum_kahan ill got=51000 want=51000" in saved
    assert subprocess.run(["ar", "t", "lib/libnumkern.a"], cwd=SRC, capture_output=True, text=True).stdout.split().count("sum_kahan.o") == 1


def test_clean_build_from_copy(tmp_path):
    tree = tmp_path / "numkern"
    shutil.copytree(SRC, tree, symlinks=True)
    subprocess.run(["make", "clean"], cwd=tree, check=True, capture_output=True)
    build = subprocess.run(["make", "-j4", "check"], cwd=tree, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]


def test_sources_and_expectations_unchanged():
    kahan = (SRC / "src/sum_kahan.c").read_text()
    assert "c = (t - s) - y;" in kahan
    exp = (SRC / "tests/expected.tsv").read_text().splitlines()
    assert len(exp) == 69 and "sum_kahan\till\t51000.0\t0" in exp
    assert len(list((SRC / "src").glob("*.c"))) == 65
