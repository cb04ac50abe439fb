"""Utility verifier: make reproduces a summary whose temperatures match the NIST type K reduction."""
import csv
import gzip
import statistics
import subprocess
from pathlib import Path

PROJECT = Path("/home/lab/thermo")
# NIST ITS-90 type K inverse polynomial, 0 to 500 degC, ascending powers of E (mV)
D = [0.0, 25.08355, 7.860106e-2, -2.503131e-1, 8.315270e-2, -1.228034e-2,
     9.804036e-4, -4.413030e-5, 1.057734e-6, -1.052755e-8]
RUNS = ["run-01", "run-02", "run-03", "run-04"]
SETPOINTS = {"run-01": 100.0, "run-02": 250.0, "run-03": 25.0, "run-04": 400.0}


def expected(run):
    temps = []
    with gzip.open(PROJECT / "data/raw" / f"{run}.csv.gz", "rt") as f:
        for line in f:
            if line.startswith("#") or line.startswith("t_s"):
                continue
            mv = line.strip().split(",")[1]
            if mv == "OVR":
                continue
            e = float(mv)
            temps.append(sum(d * e ** i for i, d in enumerate(D)))
    return len(temps), statistics.mean(temps), statistics.stdev(temps), min(temps), max(temps)


def summary():
    with open(PROJECT / "results/summary.csv") as f:
        return {row["run"]: row for row in csv.DictReader(f)}


def check(rows):
    assert sorted(rows) == RUNS
    for run in RUNS:
        n, mean, std, lo, hi = expected(run)
        row = rows[run]
        assert int(row["n"]) == n, (run, row)
        for key, want in (("mean_C", mean), ("std_C", std), ("min_C", lo), ("max_C", hi)):
            assert abs(float(row[key]) - want) < 0.0015, (run, key, row[key], want)
        assert abs(mean - SETPOINTS[run]) < 2


def test_summary_as_left():
    check(summary())


def test_make_reproduces_summary():
    p = subprocess.run(["make", "-B", "results/summary.csv"], cwd=PROJECT, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    check(summary())


def test_raw_data_untouched():
    n, _, _, _, _ = expected("run-04")
    assert n == 593
    assert len(list((PROJECT / "data/raw").glob("*.csv.gz"))) == 4
