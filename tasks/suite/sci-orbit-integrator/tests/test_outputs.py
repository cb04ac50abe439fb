"""Utility verifier: the regenerated reference run conserves energy and stays on the unit circle."""
import csv
import math
import subprocess
from pathlib import Path

ORBIT = Path("/home/lab/orbit")
E0 = -0.5


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def rel_energy_error(rows):
    worst = 0.0
    for r in rows:
        x, y, vx, vy = (float(r[k]) for k in ("x", "y", "vx", "vy"))
        e = 0.5 * (vx * vx + vy * vy) - 1 / math.hypot(x, y)
        worst = max(worst, abs((e - E0) / E0))
    return worst


def test_reference_run_regenerated():
    rows = load(ORBIT / "results/orbit.csv")
    assert list(rows[0].keys()) == ["t", "x", "y", "vx", "vy", "energy"]
    assert abs(float(rows[-1]["t"]) - 20 * math.pi) < 2e-3
    assert len(rows) > 600
    assert rel_energy_error(rows) < 1e-6
    assert math.hypot(float(rows[-1]["x"]) - 1, float(rows[-1]["y"])) < 1e-3


def test_interface_unchanged_and_accurate(tmp_path):
    out = tmp_path / "one.csv"
    p = subprocess.run([str(ORBIT / "orbit.py"), "--periods", "1", "--dt", "0.01", "--out", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    rows = load(out)
    assert rel_energy_error(rows) < 1e-6
    for r in rows:
        x, y, vx, vy, e = (float(r[k]) for k in ("x", "y", "vx", "vy", "energy"))
        assert abs(e - (0.5 * (vx * vx + vy * vy) - 1 / math.hypot(x, y))) < 1e-9
