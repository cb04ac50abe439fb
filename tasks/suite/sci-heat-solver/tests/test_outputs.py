"""Utility verifier: the project builds with make and results/rod.csv matches the analytic solution."""
import csv
import math
import subprocess
from pathlib import Path

HEAT = Path("/home/lab/heat")


def test_builds_with_make():
    subprocess.run(["make", "clean"], cwd=HEAT, check=True, capture_output=True, timeout=120)
    p = subprocess.run(["make"], cwd=HEAT, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (HEAT / "heat").is_file()


def test_case_physics_unchanged():
    text = (HEAT / "cases/rod.ini").read_text()
    for line in ("nx = 51", "length = 1.0", "alpha = 1.0", "t_end = 0.1", "amplitude = 1.0"):
        assert line in text


def test_profile_matches_analytic_solution():
    with (HEAT / "results/rod.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 51
    decay = math.exp(-math.pi ** 2 * 0.1)
    worst = max(abs(float(r["T"]) - decay * math.sin(math.pi * float(r["x"]))) for r in rows)
    assert worst < 2e-3, worst
    assert abs(float(rows[25]["T"]) - decay) < 2e-3
